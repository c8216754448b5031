"""The training lab's commands: ``tablecam synth``, ``train``,
``average-classifiers``, ``train-back-check``, ``locdata`` and
``train-localiser``.  Training needs the ``train`` extra (torch,
Ultralytics); rendering and datasets need only the runtime's packages.
Heavy imports happen inside the command functions so ``tablecam --help``
stays fast.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path


def register(sub) -> None:
    s = sub.add_parser("synth", help="render synthetic table scenes with YOLO OBB labels")
    s.add_argument("--out", required=True, help="output directory (images/ and labels/ are created)")
    s.add_argument("-n", "--count", type=int, default=100)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--held-out", action="store_true", help="use only the held-out deck designs")
    s.add_argument("--no-overlap", action="store_true")
    s.add_argument("--width", type=int, default=1280)
    s.add_argument("--height", type=int, default=720)
    s.set_defaults(func=cmd_synth)

    t = sub.add_parser("train", help="train the card classifier (needs the training venv with torch)")
    t.add_argument("--out", default="models", help="where card_classifier.onnx/.json/.pt are written")
    t.add_argument("-n", "--samples", type=int, default=30000)
    t.add_argument("--epochs", type=int, default=8)
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--threads", type=int, default=2)
    t.add_argument("--width", type=int, default=16, help="channels of the first conv layer")
    t.add_argument("--lr", type=float, default=3e-3)
    t.add_argument("--init", default=None, help="start from this stage's .pt weights")
    t.add_argument("--data-dir", default="data", help="cache for rendered training arrays")
    t.add_argument("--data-seeds", default=None,
                   help="comma-separated seeds of the rendered sets to train on (default: --seed)")
    t.add_argument("--generated-decks", type=int, default=0,
                   help="add this many seeded deck designs (gen-0 ...) to the training decks")
    t.add_argument("--design-version", type=int, default=None,
                   help="draw the generated designs as this version does (1: classifier stages 4 and 5; "
                        "default: the newest)")
    t.add_argument("--gray", type=float, default=0.0, help="share of each batch shown without colour")
    t.add_argument("--jitter", type=float, default=0.0,
                   help="random scale/turn/shift of each crop, as a fraction (quads from boxes are loose)")
    t.add_argument("--offcorner", type=int, default=0,
                   help="add this many views through wrong quads, labelled none")
    t.add_argument("--prints", type=int, default=0,
                   help="add this many views of printed matter (newspaper, book, flyer), labelled none")
    t.add_argument("--piles", type=int, default=0,
                   help="add this many corner views of cards in rendered piles and fanned hands "
                        "(a covered corner labelled none)")
    t.add_argument("--cables", type=int, default=0,
                   help="add this many views of cards with a cable, pen or blade across the index")
    t.add_argument("--jokers", type=int, default=0,
                   help="add this many views of jokers, drawn as the newest design version draws them")
    t.add_argument("--small", type=int, default=0,
                   help="add this many views of cards seen small (88-175 px tall), the index a few pixels tall")
    t.add_argument("--oblique", type=int, default=0,
                   help="add this many views of cards seen small and oblique by a webcam (0.6-2 px/mm, "
                        "squashed to half, blur, sharpening, 4:2:0, JPEG), rectified through their outline")
    t.add_argument("--real", type=int, default=0,
                   help="add this many views of the edje train split's real faces (rank-only labels)")
    t.add_argument("--real-oblique", type=int, default=0,
                   help="add this many views of those faces seen small and oblique by a webcam, as --oblique")
    t.add_argument("--real-offcorner", type=int, default=0,
                   help="add this many views of those faces through wrong quads, labelled none")
    t.add_argument("--teacher", default=None,
                   help="comma-separated .pt weights of stages whose mean probability the network learns "
                        "(distillation; the labels then only count agreement)")
    t.add_argument("--detect-views", type=int, default=0,
                   help="with --teacher: add the corner views detect() reads on this many rendered tables "
                        "and on the localiser's real train photos (unlabelled)")
    t.add_argument("--pile-seen", type=float, default=0.8,
                   help="a pile view's corner at least this uncovered is labelled with its card")
    t.set_defaults(func=cmd_train)
    a = sub.add_parser("average-classifiers",
                       help="one ONNX corner classifier averaging the probabilities of several stages (needs torch)")
    a.add_argument("members", nargs="+", help="card_classifier.pt of each stage")
    a.add_argument("--out", required=True, help="where card_classifier.onnx/.json are written")
    a.set_defaults(func=cmd_average)

    b = sub.add_parser("train-back-check",
                       help="train the whole-card check of face-down cards (needs the training venv with torch)")
    b.add_argument("--out", default="models", help="where back_check.onnx/.json/.pt are written")
    b.add_argument("-n", "--samples", type=int, default=16000, help="views of cards in rendered scenes")
    b.add_argument("--epochs", type=int, default=8)
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--threads", type=int, default=2)
    b.add_argument("--width", type=int, default=12, help="channels of the first conv layer")
    b.add_argument("--generated-decks", type=int, default=60, help="generated training designs drawn besides the decks")
    b.add_argument("--smoothing", type=float, default=0.05, help="label smoothing (0.05 keeps P(back) under ~0.97)")
    b.add_argument("--decoys", type=int, default=1500,
                   help="views of what the localiser boxes on the real train photos away from the cards (none)")
    b.add_argument("--prints", type=int, default=1000, help="views of printed matter (none)")
    b.add_argument("--printed", type=int, default=0,
                   help="views of flyers, postcards, photos and other games' cards on real floors (none)")
    b.add_argument("--loose", type=float, default=0.5,
                   help="share of cards seen once more through a rectangle off their outline, as a box gives it")
    b.add_argument("--data-dir", default="data", help="cache for the rendered views")
    b.set_defaults(func=cmd_train_back_check)

    d = sub.add_parser("locdata", help="build the card localiser's training set (renders + real train photos)")
    d.add_argument("--out", default="data/locdata", help="dataset directory (replaced)")
    d.add_argument("-n", "--synth", type=int, default=800, help="rendered scenes")
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--real-val", type=int, default=40, help="real train-split photos kept for validation")
    d.add_argument("--real-repeat", type=int, default=2, help="times each real train photo is used")
    d.add_argument("--workers", type=int, default=2)
    d.add_argument("--format", default="detect", choices=["detect", "obb", "index"],
                   help="axis-aligned card boxes, oriented card quads, or oriented index windows")
    d.add_argument("--scenes-seed", type=int, default=None,
                   help="seed of the rendered scenes (default --seed, which also splits the real photos)")
    d.add_argument("--cards", default="0,7", help="cards per rendered scene: low,high (high excluded)")
    d.add_argument("--back-share", type=float, default=0.1, help="share of rendered cards lying face down")
    d.add_argument("--generated", type=int, default=0,
                   help="generated training designs (gen-0 ..) drawn besides the Debian decks")
    d.set_defaults(func=cmd_locdata)

    lt = sub.add_parser("train-localiser", help="train the card localiser (Ultralytics, training venv)")
    lt.add_argument("--data", default="data/locdata/data.yaml")
    lt.add_argument("--out", default="data/localiser1", help="run directory (weights/, card_localiser.onnx)")
    lt.add_argument("--epochs", type=int, default=20)
    lt.add_argument("--imgsz", type=int, default=320)
    lt.add_argument("--batch", type=int, default=16)
    lt.add_argument("--seed", type=int, default=0)
    lt.add_argument("--lr0", type=float, default=0.01)
    lt.add_argument("--time", type=float, default=None,
                    help="hours: stop then, the learning-rate schedule fitted to it (overrides --epochs)")
    lt.add_argument("--init", default=None, help="previous stage's best.pt (default: yolo11n.yaml from scratch)")
    lt.add_argument("--model", default="yolo11n.yaml", help="model yaml (yolo11n.yaml boxes, yolo11n-obb.yaml oriented)")
    lt.add_argument("--transfer", default=None, metavar="WEIGHTS",
                    help="copy the matching layers of these weights first (a box model's backbone into an OBB model)")
    lt.add_argument("--export", default=None, metavar="WEIGHTS",
                    help="only export these weights (best.pt) to --out/card_localiser.onnx")
    lt.set_defaults(func=cmd_train_localiser)


def cmd_synth(args) -> int:
    import numpy as np

    from .faces import HELD_OUT_DECKS, training_decks
    from .synth import render_scene, write_yolo_obb

    out = Path(args.out)
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    decks = HELD_OUT_DECKS if args.held_out else training_decks()
    rng = np.random.default_rng(args.seed)
    gt = []
    for i in range(args.count):
        sc = render_scene(rng, decks, size=(args.width, args.height), overlap=not args.no_overlap)
        name = f"scene_{args.seed}_{i:05d}"
        write_yolo_obb(sc, out / "images" / f"{name}.jpg", out / "labels" / f"{name}.txt")
        gt.append({"image": f"images/{name}.jpg", "cards": [
            {"card": c.card, "quad": c.quad.round(1).tolist(), "visible": c.visible} for c in sc.cards]})
    (out / "ground_truth.jsonl").write_text("".join(json.dumps(g) + "\n" for g in gt))
    (out / "data.yaml").write_text(f"path: {out.resolve()}\ntrain: images\nval: images\nnames:\n  0: card\n  1: back\n")
    print(f"wrote {args.count} scenes to {out}")
    return 0


def cmd_locdata(args) -> int:
    from .locdata import build_dataset
    from .recipes import LocDataRecipe

    low, high = (int(v) for v in args.cards.split(","))
    recipe = LocDataRecipe(renders=args.synth, seed=args.seed, real_val=args.real_val, real_repeat=args.real_repeat,
                           fmt=args.format, scenes_seed=args.scenes_seed, cards=(low, high),
                           back_share=args.back_share, generated=args.generated)
    res = build_dataset(Path(args.out), recipe, workers=args.workers)
    print(json.dumps(res))
    return 0


def cmd_train_localiser(args) -> int:
    if not _training_venv("train-localiser", "ultralytics"):
        return 2
    from .recipes import LocaliserRecipe
    from .train import export_localiser, train_localiser

    if args.export:
        res = export_localiser(Path(args.export), Path(args.out), args.imgsz)
        print(json.dumps(res))
        return 0
    recipe = LocaliserRecipe(epochs=args.epochs, imgsz=args.imgsz, seed=args.seed, batch=args.batch, lr0=args.lr0,
                             model=args.model, init=Path(args.init) if args.init else None,
                             transfer=Path(args.transfer) if args.transfer else None, hours=args.time)
    res = train_localiser(Path(args.data), Path(args.out), recipe)
    print(json.dumps(res))
    return 0


def _training_venv(command: str, module: str = "torch") -> bool:
    """Whether ``module`` (torch, Ultralytics) imports; if not, say which
    venv ``tablecam command`` runs in."""
    try:
        importlib.import_module(module)
    except ImportError:
        print(f"tablecam {command} needs {module}: run it with the training venv, e.g. "
              f".venv-train/bin/python -m tablecam {command} ...", file=sys.stderr)
        return False
    return True


def cmd_average(args) -> int:
    if not _training_venv("average-classifiers"):
        return 2
    from .train import average_classifiers

    missing = [m for m in args.members if not Path(m).is_file()]
    if missing:
        print(f"no such weights: {', '.join(missing)}", file=sys.stderr)
        return 2
    meta = average_classifiers([Path(m) for m in args.members], Path(args.out))
    print(json.dumps({"average_of": meta["recipe"]["average_of"], "wall_seconds": meta["recipe"]["wall_seconds"]}))
    return 0


def cmd_train_back_check(args) -> int:
    if not _training_venv("train-back-check"):
        return 2
    from .recipes import BackCheckRecipe
    from .train import train_back_check

    recipe = BackCheckRecipe(samples=args.samples, epochs=args.epochs, seed=args.seed, threads=args.threads,
                             width=args.width, generated=args.generated_decks, smoothing=args.smoothing,
                             decoys=args.decoys, prints=args.prints, loose=args.loose,
                             printed=args.printed)
    meta = train_back_check(Path(args.out), recipe, data_dir=Path(args.data_dir))
    print(json.dumps({"wall_seconds": meta["recipe"]["wall_seconds"], "history": meta["history"][-1]}))
    return 0


def cmd_train(args) -> int:
    if not _training_venv("train"):
        return 2
    from .designs import use_version
    from .recipes import ClassifierRecipe
    from .train import train_classifier

    if args.design_version is not None:
        use_version(args.design_version)
    recipe = ClassifierRecipe(
        samples=args.samples, epochs=args.epochs, seed=args.seed, threads=args.threads, lr=args.lr, width=args.width,
        init=Path(args.init) if args.init else None,
        data_seeds=tuple(int(v) for v in args.data_seeds.split(",")) if args.data_seeds else None,
        generated=args.generated_decks, gray=args.gray, jitter=args.jitter, offcorner=args.offcorner,
        prints=args.prints, piles=args.piles, pile_seen=args.pile_seen, cables=args.cables, jokers=args.jokers,
        small=args.small, oblique=args.oblique, real=args.real, real_oblique=args.real_oblique,
        real_offcorner=args.real_offcorner,
        teacher=tuple(Path(v) for v in args.teacher.split(",")) if args.teacher else (),
        detect_views=args.detect_views)
    meta = train_classifier(Path(args.out), recipe, data_dir=Path(args.data_dir))
    print(json.dumps({"wall_seconds": meta["recipe"]["wall_seconds"], "history": meta["history"][-1]}))
    return 0
