"""detect() on every real photo set: recall, precision and time per image.

The sets (``../shared/data/real-photos/``): ``edje-val`` the 40 train-split
photos the localiser never trained on (the tuning set), ``edje-train`` the
whole train split, ``edje-test`` the test split (look once per shipped
setting, never to choose), ``blackjack-tracker`` and ``jackfurby``
(identity labels).  ``--time`` also times detect() on a 1280x720 frame
with 16 cards (blackjack-tracker ``surface1.jpg`` resized).

    .venv/bin/python bench/vision/real.py [--sets edje-val,blackjack-tracker] [--time 5]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

SETS = ("edje-val", "edje-test", "blackjack-tracker", "jackfurby")


def measure(det, name: str) -> dict:
    """One set's figures (no per-photo errors)."""
    from tablecam.training import evaluate

    if name.startswith("edje-"):
        split = name[5:]
        names = None
        if split == "val":
            from tablecam.training.locdata import split_real_train

            split, names = "train", split_real_train()[1]
        r = evaluate.eval_real_photos(split, det, names=names)
        return {"recall": round(r["recall"], 4), "rank_accuracy": round(r["rank_accuracy"], 4),
                "precision": round(r["precision"], 4), "gt": r["gt"], "read": r["read"], "dets": r["dets"],
                "ms_per_image": round(r["ms_per_image"], 1), "errors": r["errors"]}
    r = evaluate.eval_labelled_photos(name, det)
    return {"recall": round(r["recall"], 4), "precision": round(r["precision"], 4), "gt": r["gt"], "tp": r["tp"],
            "fp": r["fp"], "ms_per_image": round(r["ms_per_image"], 1), "errors": r["errors"]}


def frame_16() -> "np.ndarray":
    """A real 1280x720 frame with 16 cards (and six chips): the middle 720
    rows of blackjack-tracker's 1280x800 ``surface1.jpg``, every card whole."""
    import cv2

    from tablecam.training.evaluate import REAL_PHOTOS

    img = cv2.imread(str(REAL_PHOTOS.parent / "blackjack-tracker" / "surface1.jpg"))
    return np.ascontiguousarray(img[40:760])


def time_detect(det, repeat: int) -> float:
    """Median ms of detect() on :func:`frame_16` (after one warm-up)."""
    import statistics

    img = frame_16()
    det.detect(img)
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        det.detect(img)
        ts.append(time.perf_counter() - t)
    return 1000 * statistics.median(ts)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--time", type=int, default=0, help="time detect() this many times on a 16-card 1280x720 frame")
    ap.add_argument("--model-dir", default=None)
    ap.add_argument("--errors", action="store_true", help="print each photo's misses and false cards")
    args = ap.parse_args()

    from tablecam.vision.detector import load_detector

    det = load_detector(args.model_dir)
    out: dict = {}
    if args.time:
        out["detect_ms_1280x720_16_cards"] = round(time_detect(det, args.time), 1)
        print(json.dumps(out), file=sys.stderr, flush=True)
    for name in filter(None, args.sets.split(",")):
        r = measure(det, name)
        errors = r.pop("errors")
        out[name] = r
        print(name, json.dumps(r), file=sys.stderr, flush=True)
        if args.errors:
            for e in errors:
                print("   ", e, file=sys.stderr)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
