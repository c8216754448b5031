"""How much of the scenes' missed recall is the classifier's, and how much
the localisation's?

detect() against its own physical limit: each visible card of the same
rendered scenes is also read through its true outline, as a perfect
localiser would hand it to the classifier, and held to detect()'s floor
(`evaluate.outline_reads`, summed up by `evaluate.outline_ceiling`).  Prints, per scene set, detect()'s recall,
that outline recall and the ratio of the two, with the raw counts, as one
JSON object (a readable summary on stderr).

    .venv/bin/python bench/vision/ceiling.py            # the bench's held-out scenes
    .venv/bin/python bench/vision/ceiling.py --tuning   # and tune.py's scene sets

The held-out sets are `bench/vision/run.py`'s (seed 7, the held-out decks,
with and without overlaps); the tuning sets are `bench/vision/tune.py`'s
(training-deck scenes seed 99, cards apart seed 98, unseen designs seed 97).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenes", type=int, default=60)
    ap.add_argument("--tuning", action="store_true", help="also the tuning sets of tune.py")
    ap.add_argument("--model-dir", default=None)
    args = ap.parse_args()

    from tablecam.training import evaluate
    from tablecam.training.designs import validation_designs
    from tablecam.vision.detector import CardDetector
    from tablecam.training.faces import training_decks

    det = CardDetector(args.model_dir)
    sets = [("held-out overlap", dict(seed=7, overlap=True)), ("held-out apart", dict(seed=7, overlap=False))]
    if args.tuning:
        sets += [("tuning training decks", dict(seed=99, overlap=True, decks=training_decks())),
                 ("tuning cards apart", dict(seed=98, overlap=False, decks=training_decks())),
                 ("tuning unseen designs", dict(seed=97, overlap=True, decks=validation_designs()))]
    out = {}
    for name, kw in sets:
        r = evaluate.eval_scenes(args.scenes, detector=det, ceiling=True, **kw)
        out[name] = r
        nb = r["outline_visible_backs"]
        print(f"{name}: detect() recall {r['recall']:.3f} ({r['fn']} of {r['outline_visible']} visible missed, "
              f"{r['fn_backs']} of them of {nb} backs); through the true outlines {r['outline_recall']:.3f} over the "
              f"floor ({round(r['outline_recall_backs'] * nb)} of the {nb} backs), {r['outline_top1']:.3f} top-1; "
              f"detect() / outline {r['recall_of_ceiling']:.3f}", file=sys.stderr, flush=True)
    print(json.dumps(out, indent=1, default=float))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
