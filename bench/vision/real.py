"""detect() on every real photo set: recall, precision and time per image.

The sets (``../shared/data/real-photos/``): ``edje-val`` the 40 train-split
photos the localiser never trained on, ``edje-train`` the whole train
split (296 photos), ``blackjack-tune`` the blackjack-tracker photos whose
number is odd (10 photos, 136 cards) - these three are the tuning sets,
on which the detector's settings are chosen; ``blackjack-judge`` the
even-numbered half (10 photos, 136 cards), which judges a choice; ``edje-test`` the
test split and ``blackjack-tracker``, ``jackfurby`` whole (identity
labels): looked at once per shipped change, never to choose.  ``--time``
also times detect() on a 1280x720 frame with 16 cards (blackjack-tracker
``surface1.jpg`` cut to 720 rows), CPU and wall; ``--steps`` gives each
step's CPU and classifier crops on that frame, ``--models`` each network
run's wall time alone on it; ``--set name=value``
changes one detector setting (``docs/detector-settings.md``).

    .venv/bin/python bench/vision/real.py [--sets edje-val,blackjack-tune] [--time 5] [--steps] [--set close_quads=1]
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
TUNING = ("edje-val", "edje-train", "blackjack-tune")


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
    names = None
    if name in ("blackjack-tune", "blackjack-judge"):
        names = blackjack_half(name == "blackjack-tune")
        name = "blackjack-tracker"
    r = evaluate.eval_labelled_photos(name, det, names=names)
    return {"recall": round(r["recall"], 4), "precision": round(r["precision"], 4), "gt": r["gt"], "tp": r["tp"],
            "fp": r["fp"], "ms_per_image": round(r["ms_per_image"], 1), "errors": r["errors"]}


def blackjack_half(odd: bool) -> list[str]:
    """The blackjack-tracker photos whose number is odd (the tuning half) or even (the judging half).

    Why by number: each half then holds every suit's fan and two of the surfaces."""
    from tablecam.training.evaluate import REAL_PHOTOS

    labels = json.loads((REAL_PHOTOS.parent / "blackjack-tracker" / "labels.json").read_text())
    return [n for n in sorted(labels) if (int(Path(n).stem[-1]) % 2 == 1) == odd]


def frame_16() -> "np.ndarray":
    """A real 1280x720 frame with 16 cards (and six chips): the middle 720
    rows of blackjack-tracker's 1280x800 ``surface1.jpg``, every card whole."""
    import cv2

    from tablecam.training.evaluate import REAL_PHOTOS

    img = cv2.imread(str(REAL_PHOTOS.parent / "blackjack-tracker" / "surface1.jpg"))
    return np.ascontiguousarray(img[40:760])


def time_detect(det, repeat: int) -> dict:
    """Median wall and CPU ms of detect() on :func:`frame_16` (after one
    warm-up).  Why CPU too: on a shared machine the wall time says as much
    about the neighbours as about detect()."""
    import statistics

    img = frame_16()
    det.detect(img)
    wall, cpu = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        det.detect(img)
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return {"wall_ms": round(1000 * statistics.median(wall), 1), "cpu_ms": round(1000 * statistics.median(cpu), 1)}


STEPS = ("_detect_in_boxes", "_read_fitted", "_read_closely", "_reread", "_from_indexes", "_read_ends")


def step_costs(det) -> dict:
    """CPU ms and classifier crops (corner windows read) of each step of
    detect() on :func:`frame_16`, each step's own (the steps it calls
    counted apart), and the localisers' runs (``proposals``)."""
    from tablecam.vision import localise
    from tablecam.vision.classify import corner_network
    from tablecam.vision.proposals import CardLocaliser

    img = frame_16()
    det.detect(img)
    costs: dict[str, list[float]] = {}
    stack: list[list] = []

    def timed(owner, name: str) -> None:
        f = getattr(owner, name)

        def run(*a, **k):
            stack.append([name, time.process_time(), 0.0])
            try:
                return f(*a, **k)
            finally:
                _, t0, inner = stack.pop()
                spent = time.process_time() - t0
                costs.setdefault(name, [0.0, 0])[0] += spent - inner
                if stack:
                    stack[-1][2] += spent
        setattr(owner, name, run)

    net = corner_network(det.classifier)
    reads = net.run  # the network itself: a crop read before in the picture is not run again
    crops = {"n": 0}

    def counted(batch):
        crops["n"] += len(batch)
        if stack:
            costs.setdefault(stack[-1][0], [0.0, 0])[1] += len(batch)
        return reads(batch)

    patched = [(type(det), n) for n in STEPS] + [(localise, "find_cards"), (CardLocaliser, "proposals")]
    saved = [(o, n, getattr(o, n)) for o, n in patched]
    try:
        for o, n in patched:
            timed(o, n)
        net.run = counted
        t = time.process_time()
        det.detect(img)
        total = time.process_time() - t
    finally:
        for o, n, f in saved:
            setattr(o, n, f)
        del net.run
    out = {n: {"cpu_ms": round(1000 * c, 1), "crops": int(k)} for n, (c, k) in costs.items()}
    out["detect"] = {"cpu_ms": round(1000 * total, 1), "crops": crops["n"]}
    return out


def model_costs(det, repeat: int = 7) -> dict:
    """Wall ms (median of ``repeat``) of each network run detect() makes on
    :func:`frame_16`, alone: each localiser at the input sizes detect()
    gives it on that frame, and the corner classifier per crop (batches of
    64 of the frame's own corner views).  Why: what the networks alone cost
    against the 150 ms target, whatever the steps around them do."""
    import statistics

    from tablecam.vision.classify import corner_network, view_probs
    from tablecam.vision.localise import warp_card
    from tablecam.vision.proposals import CardLocaliser

    img = frame_16()
    runs: list[tuple[str, tuple]] = []
    real_proposals = CardLocaliser.proposals

    def recorded(self, image, sizes=None):
        runs.append((self.path.stem, tuple(sizes) if sizes else tuple(self.sizes)))
        return real_proposals(self, image, sizes)

    CardLocaliser.proposals = recorded
    try:
        found = det.detect(img)
    finally:
        CardLocaliser.proposals = real_proposals

    def median_ms(f) -> float:
        f()
        ts = []
        for _ in range(repeat):
            t = time.perf_counter()
            f()
            ts.append(time.perf_counter() - t)
        return round(1000 * statistics.median(ts), 1)

    models = {"card_localiser": det.localiser, "card_index": det.indexer}
    out = {}
    for name, sizes in dict.fromkeys(runs):
        for size in sizes:
            out[f"{name} {size} px"] = median_ms(lambda m=models[name], s=size: m.proposals(img, (s,)))
    clf = corner_network(det.classifier)
    crops: list = []
    view_probs([warp_card(img, d.quad) for d in found], lambda b: crops.append(b) or clf.run(b), clf.corner_box,
               clf.input_size, views=3)
    batch = np.concatenate(crops)[:64]
    out["classifier ms a crop"] = round(median_ms(lambda: clf.run(batch)) / len(batch), 3)
    out["localisers' runs ms"] = round(sum(v for k, v in out.items() if k.endswith(" px")), 1)
    out["localisers' runs / 150 ms target"] = round(out["localisers' runs ms"] / 150.0, 2)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--time", type=int, default=0, help="time detect() this many times on a 16-card 1280x720 frame")
    ap.add_argument("--model-dir", default=None)
    ap.add_argument("--errors", action="store_true", help="print each photo's misses and false cards")
    ap.add_argument("--steps", action="store_true", help="each step's CPU and classifier crops on the 16-card frame")
    ap.add_argument("--models", action="store_true",
                    help="each network run of detect() on the 16-card frame alone, and a classifier crop")
    ap.add_argument("--threads", type=int, default=1, help="ONNX Runtime threads per model")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="change one detector setting (JSON value), e.g. --set close_quads=1")
    args = ap.parse_args()

    from tablecam.vision.detector import CardDetector

    changes = {k: json.loads(v) for k, v in (a.split("=", 1) for a in args.set)}
    det = CardDetector(args.model_dir, threads=args.threads, **changes)
    out: dict = {"settings_changed": changes} if changes else {}
    if args.time:
        out["detect_1280x720_16_cards"] = time_detect(det, args.time)
        print(json.dumps(out), file=sys.stderr, flush=True)
    if args.steps:
        out["steps_1280x720_16_cards"] = step_costs(det)
        print(json.dumps(out["steps_1280x720_16_cards"]), file=sys.stderr, flush=True)
    if args.models:
        out["models_1280x720_16_cards"] = model_costs(det)
        print(json.dumps(out["models_1280x720_16_cards"]), file=sys.stderr, flush=True)
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
