"""How well is a card seen small read: the corner classifier alone (the baseline),
the whole-card reader alone, and the two multiplied, as the camera pipeline does.

Cards of the held-out designs (``tango``, ``bellot``: never trained on) are
laid on rendered tables and seen through the training recipe's webcam look
(:func:`tablecam.training.synth.oblique_sample`: tilt, blur, sharpening,
light, noise, 4:2:0 colour, JPEG), at the frame pixels a millimetre of each
band, a quarter of them with a glossy table's reflection across; each view
is the 250x350 rectified card the pipeline reads.  Top-1 over the 52 cards
and the joker, per band, with the ratio of the combined read to the corner
classifier's (the baseline, measured on the same views).

    .venv/bin/python bench/vision/whole_card.py [--per-band 530] [--seed 3] [--json F]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

BANDS = [(0.35, 0.5), (0.5, 0.65), (0.65, 0.9), (0.9, 1.2)]


def main(argv: list[str] | None = None) -> int:
    import numpy as np

    from tablecam.training.faces import HELD_OUT_DECKS, render_face
    from tablecam.training.synth import TexturePool
    from tablecam.training.whole_card import seen_small
    from tablecam.vision.readers import default_classifier
    from tablecam.vision.whole_card import CLASSES, WholeCardReader, with_whole_card

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-band", type=int, default=530)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    classify = default_classifier()
    whole = WholeCardReader()
    rng = np.random.default_rng(a.seed)
    pool = TexturePool(rng)
    faces: dict[tuple[str, str], np.ndarray] = {}
    rows = []
    for lo, hi in BANDS:
        hits = {"corner": 0, "whole": 0, "both": 0}
        t = {"corner": 0.0, "whole": 0.0}
        for i in range(a.per_band):
            code = CLASSES[i % len(CLASSES)]
            deck = HELD_OUT_DECKS[int(rng.integers(len(HELD_OUT_DECKS)))]
            if (deck, code) not in faces:
                faces[deck, code] = render_face(code, deck)
            card = seen_small(faces[deck, code], rng, (lo, hi), 0.25, pool)
            t0 = time.perf_counter()
            r = classify(card)
            t1 = time.perf_counter()
            w = whole.probs(card)
            t2 = time.perf_counter()
            t["corner"] += t1 - t0
            t["whole"] += t2 - t1
            hits["corner"] += r.card == code
            hits["whole"] += max(w, key=w.get) == code
            hits["both"] += with_whole_card(r, w).card == code
        n = a.per_band
        row = {"px_per_mm": [lo, hi], "cards": n, **{k: round(v / n, 3) for k, v in hits.items()},
               "ratio_both_over_corner": round(hits["both"] / max(1, hits["corner"]), 2),
               "ms_corner": round(1000 * t["corner"] / n, 2), "ms_whole": round(1000 * t["whole"] / n, 2)}
        rows.append(row)
        print(f"{lo:.2f}-{hi:.2f} px/mm: corner {row['corner']:.3f}, whole card {row['whole']:.3f}, "
              f"both {row['both']:.3f} ({row['ratio_both_over_corner']:.2f}x the corner classifier); "
              f"{row['ms_corner']:.1f} / {row['ms_whole']:.1f} ms a card", flush=True)
    if a.json:
        a.json.write_text(json.dumps({"decks": HELD_OUT_DECKS, "seed": a.seed, "bands": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
