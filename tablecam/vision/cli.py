"""``tablecam detect``: the cards in photographs, as JSON (the training
commands - ``synth``, ``train`` and the rest - are in
:mod:`tablecam.training.cli`).

Heavy imports (OpenCV, ONNX Runtime) happen inside the command
functions so ``tablecam --help`` stays fast.

Exit status of ``detect``: 0 when every image was read (cards found or not);
1 when at least one image could not be read or processed (its JSON object
then carries an ``error`` field, the message also goes to stderr, and the
remaining images are still processed); 2 when the model itself cannot be
loaded.
"""

from __future__ import annotations

import json
import os
import sys


def register(sub) -> None:
    p = sub.add_parser("detect", help="find and read the cards in photographs (JSON per image)")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.add_argument("--json", action="store_true", help="JSON Lines output (the default; kept for the contract)")
    p.add_argument("--model-dir", default=None, help="directory holding card_classifier.onnx (default: the shipped models)")
    p.add_argument("--probs", action="store_true", help="add each card's quad and top-5 probabilities")
    p.add_argument("--threads", type=int, default=1)
    p.set_defaults(func=cmd_detect)


def cmd_detect(args) -> int:
    from .detector import load_detector
    from .imagefile import read_photo

    try:
        det = load_detector(args.model_dir, threads=args.threads)
    except Exception as e:  # missing or broken model: nothing can be read
        print(f"tablecam detect: cannot load the model: {e}", file=sys.stderr)
        return 2
    from ..progress import Progress

    rc = 0
    # several images take a while (about a second each): say how far it got, on stderr
    progress = Progress("detect", len(args.images), "images") if len(args.images) > 1 else None
    for path in args.images:
        rec: dict = {"image": path, "cards": []}
        try:
            img, warning = read_photo(path)
            if warning:
                rec["warning"] = warning
                print(f"tablecam detect: {path}: {warning}", file=sys.stderr)
            for d in det.detect(img):
                item = d.to_dict()
                if args.probs:
                    item["quad"] = [[round(float(x), 1), round(float(y), 1)] for x, y in d.quad]
                    item["probs"] = {k: round(v, 4) for k, v in d.probs.items()}
                rec["cards"].append(item)
        except Exception as e:
            rec["error"] = str(e)
            print(f"tablecam detect: {path}: {e}", file=sys.stderr)
            rc = 1
        sys.stdout.write(json.dumps(rec) + "\n")
        sys.stdout.flush()
        if progress is not None:
            progress.step(note=os.path.basename(path))
    return rc
