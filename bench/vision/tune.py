"""Choose detect()'s settings for the learned localiser, never on the test split.

Tuning sets: the 40 real photos of the train split that the localiser was
not trained on (``locdata.split_real_train``), and rendered overlap scenes
of *training* decks (seed 99; the held-out decks stay for the benchmark);
``--apart N`` adds scenes of training decks with the cards apart (seed 98),
``--unseen N`` overlap scenes of the 40 generated validation designs no
classifier stage trained on (seed 97: how a setting does on packs the
classifier never saw, without looking at the held-out decks).
Each configuration prints recall, rank accuracy and precision on each.
``--design-val K`` instead reads rectified cards of K generated designs no
classifier stage trained on (gen-60 ...): the check of a classifier stage's
reach to unseen packs that leaves the held-out decks for the benchmark.

    .venv/bin/python bench/vision/tune.py [--model-dir models] [--scenes 30]
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402


# The detector settings tried: (option, CardDetector keyword, type, default, what it does); each
# option takes a comma-separated list and every combination is measured.
KNOBS: list[tuple[str, str, type, str, str]] = [
    ("--loc-conf", "localiser_conf", float, "0.25,0.4,0.55", "the localiser's least box score"),
    ("--min-conf", "min_conf", float, "0.6", "the least confidence of a card read"),
    ("--min-conf-rare", "min_conf_rare", float, "0.9", "the least confidence of a back or a joker read"),
    ("--nms", "localiser_iou", float, "0.75", "the localiser's box NMS IoU"),
    ("--whole", "whole_image_classical", bool, "1", "1: also the classical localiser on the whole image, 0: not"),
    ("--edge-peaks", "edge_peaks", int, "1", "edge directions per box turned into card quads (0: none)"),
    ("--second-reads", "second_reads", int, "3", "reads per box kept for when its surest is a neighbour's card"),
    ("--fitted", "fitted", int, "4", "edge-fitted quads read in a box nothing else was read in (0: none)"),
    ("--read-views", "read_views", int, "3", "corner windows of the final read of each card found"),
    ("--refit", "refit", bool, "1", "1: boxes left without a card are read through fitted quads too"),
    ("--fallback-iou", "fallback_iou", float, "0.8", "a fall-back read's quad may overlap a claimed card's this much"),
    ("--avoid-iou", "avoid_iou", float, "0.75", "fitted rectangles keep clear of the cards found by this quad IoU"),
    ("--pips", "pips", float, "20", "weight of the pip count as evidence of a number card's rank in the final read (0: off)"),
    ("--index", "index", bool, "1", "1: cards found by their index alone (card_index.onnx), 0: not"),
    ("--index-conf", "index_conf", float, "0.3", "the index localiser's least window score"),
    ("--index-floor", "index_floor", float, "0.9", "the least confidence of a card read from its index alone"),
    ("--index-size", "index_size", float, "0.35", "a card read from its index is within this share of the usual width"),
    ("--index-imgsz", "index_imgsz", int, "0", "the index localiser's input size (0: its JSON's)"),
    ("--index-card-px", "index_card_px", float, "100", "the index localiser sees the cards found this tall (0: fixed size)"),
    ("--index-iou", "index_iou", float, "0.5", "the index localiser's rotated NMS IoU"),
    ("--index-floor-under", "index_floor_under", float, "0.6",
     "the least confidence of a card read from its index alone that found cards cover"),
    ("--index-under-share", "index_under_share", float, "0.5",
     "the share of such a card's quad the found cards must cover"),
    ("--index-floor-open", "index_floor_open", float, "0.6",
     "the least confidence of a card read from its index alone that no found card touches"),
    ("--close-conf", "close_conf", float, "0.7", "boxes left without a card: their likeliest quads read as a card found is "
     "read, kept from this confidence (0: off)"),
    ("--close-quads", "close_quads", int, "2", "quads per box read so"),
    ("--close-displaces", "close_displaces", float, "0.1", "a close read of a face card found elsewhere, surer by "
     "this, takes the card (0: off)"),
    ("--whole-card", "whole_card", float, "0.3", "a close read unsure from this confidence is read by the whole face "
     "too, the two multiplied where they name the same card (0: off)"),
    ("--whole-card-product", "whole_card_product", bool, "1", "1: a close read is taken where its product with "
     "the whole face's read names its likeliest card, though the whole face's likeliest is another"),
    ("--index-fit", "index_fit", bool, "1", "1: each index window's card quads also laid on the image edges meeting "
     "near their corner"),
    ("--index-fit-shift", "index_fit_shift", float, "0.25", "how far the fitted corner's edges may lie from the "
     "window's, a share of its width"),
    ("--index-fit-reach", "index_fit_reach", float, "1.6", "the fitted edges' length, in window sides"),
    ("--back-check", "back_check", float, "0.1", "reads leaning to back with at least this P(back) are checked whole "
     "(back_check.onnx; 0: off)"),
    ("--side-suits", "side_suits", bool, "1", "1: a final read split between two suits of one rank "
     "is decided again by the suit at the other end of the top edge (side_index.with_side_suits)"),
    ("--hidden-seen", "hidden_seen", float, "0.4", "of two face cards each hiding the other's index corners "
     "(each shows less than this of one outside the other) the less sure is dropped (occlusion.drop_hidden; 0: off)"),
    ("--back-size", "back_size", float, "1.25", "a back more than this many times as long as the nearest "
     "face card read is not reported (backs.outsized; 0: off)"),
    ("--box-itself", "box_itself", bool, "1", "1: each box is read through itself as a card's outline too "
     "(proposals.box_card)"),
    ("--size-at-place", "size_at_place", bool, "1", "1: a card found late is within width_share of the size the "
     "cards found give at its place (detections._usual_size); 0: of the short side of all"),
    ("--index-rounds", "index_rounds", int, "2", "rounds of the index step, each with the cards found so far "
     "(a round finding nothing ends them)"),
    ("--best-assignment", "best_assignment", bool, "1",
     "1: boxes to cards by the surest assignment of the picture, 0: greedily"),
]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model-dir", default=None)
    ap.add_argument("--scenes", type=int, default=30)
    ap.add_argument("--apart", type=int, default=0,
                    help="also this many scenes of training decks with the cards apart (seed 98)")
    ap.add_argument("--unseen", type=int, default=0,
                    help="also this many overlap scenes of the validation designs gen-60 .. gen-99, which no classifier "
                         "stage trained on (seed 97): the held-out decks' conditions without the held-out decks")
    ap.add_argument("--no-classical", action="store_true", help="skip the classical-only row")
    ap.add_argument("--index-reader", default=None,
                    help="the classifier (ONNX) that reads index windows (default: the model directory's)")
    ap.add_argument("--back-share", type=float, default=0.1,
                    help="share of the rendered cards lying face down (0.1, the renderer's; more to test the back check)")
    ap.add_argument("--one-size", action="store_true",
                    help="each scene's cards one size, as one pack's are (drawn per scene in the usual 110-200 px)")
    ap.add_argument("--back-check-path", default=None, help="the back check (ONNX; default: the model directory's)")
    ap.add_argument("--imgsz", default="320+480", help="localiser input sizes (long side) to try; 320+480 runs both")
    for option, _, _, default, what in KNOBS:
        ap.add_argument(option, default=default, help=what)
    ap.add_argument("--design-val", type=int, default=0,
                    help="top-1 of the classifier on rectified cards of this many unseen generated designs, then stop")
    args = ap.parse_args()

    from tablecam.training import evaluate
    from tablecam.vision.detector import CardDetector
    from tablecam.training.faces import training_decks
    from tablecam.training.locdata import split_real_train
    from tablecam.training.synth import render_scene

    if args.design_val:
        from tablecam.training.designs import validation_designs

        unseen = validation_designs(args.design_val)
        for pips in (float(v) for v in args.pips.split(",")):
            r = evaluate.eval_heldout_crops(n_per_card=4, seed=321, decks=unseen,
                                            detector=CardDetector(args.model_dir, localiser=False, pips=pips,
                                                                  read_views=int(args.read_views.split(",")[0])))
            wrong = r["confusions"]
            no_jk = sum(1 for d, code, pred in wrong if code != "JK")
            print(json.dumps({"pips": pips, "design_val_top1": round(r["top1"], 4), "n": r["n"],
                              "errors": len(wrong), "errors_not_joker": no_jk}), flush=True)
        return 0
    _, val = split_real_train()

    def pack(rng) -> dict:
        """render_scene's card size: each group its own, or with --one-size one size a scene."""
        if not args.one_size:
            return {}
        px = float(rng.uniform(110, 200))
        return {"card_px": (px, px * 1.03)}

    rng = np.random.default_rng(99)
    decks = training_decks()
    scenes = [render_scene(rng, decks, size=(1280, 720), back_share=args.back_share, **pack(rng))
              for _ in range(args.scenes)]
    rng = np.random.default_rng(98)
    apart = [render_scene(rng, decks, size=(1280, 720), overlap=False, fingers=False,
                           back_share=args.back_share, **pack(rng)) for _ in range(args.apart)]
    if args.unseen:
        from tablecam.training.designs import validation_designs

        rng = np.random.default_rng(97)
        designs = validation_designs()
        unseen = [render_scene(rng, designs, size=(1280, 720), back_share=args.back_share, **pack(rng))
                  for _ in range(args.unseen)]

    def score(det, sets) -> tuple[float, float, str]:
        """Recall, precision and the visible face-down cards found ("found/visible")."""
        r = evaluate.score_scenes((det.detect(sc.image), sc) for sc in sets)
        backs = f"{r['visible_backs'] - r['fn_backs']}/{r['visible_backs']}"
        return round(r["recall"], 3), round(r["precision"], 3), backs

    def run(det) -> dict:
        r = evaluate.eval_real_photos("train", det, names=val)
        recall, precision, backs = score(det, scenes)
        row = {"real_val_recall": round(r["recall"], 3), "real_val_rank_acc": round(r["rank_accuracy"], 3),
               "real_val_precision": round(r["precision"], 3),
               "real_val_rank_acc_greedy": round(r["rank_accuracy_greedy"], 3), "scene_recall": recall,
               "scene_precision": precision, "scene_backs": backs, "ms_per_photo": round(r["ms_per_image"], 1)}
        if apart:
            row["apart_recall"], row["apart_precision"], row["apart_backs"] = score(det, apart)
        if args.unseen:
            row["unseen_recall"], row["unseen_precision"], row["unseen_backs"] = score(det, unseen)
        return row

    if args.no_classical:
        rows = []
    else:
        rows = [{"config": "classical only", **run(CardDetector(args.model_dir, localiser=False))}]
        print(json.dumps(rows[-1]), flush=True)
    sizes = [tuple(int(x) for x in v.split("+")) for v in args.imgsz.split(",")]
    values = [[cast(float(x)) for x in getattr(args, option[2:].replace("-", "_")).split(",")]
              for option, _, cast, _, _ in KNOBS]
    for sz, *chosen in itertools.product(sizes, *values):
        kwargs = {kwarg: v for (_, kwarg, _, _, _), v in zip(KNOBS, chosen)}
        det = CardDetector(args.model_dir, localiser=True, localiser_imgsz=sz, index_reader=args.index_reader,
                           back_check_path=args.back_check_path, **kwargs)
        rows.append({"config": f"localiser {'+'.join(map(str, sz))} px "
                               + " ".join(f"{option[2:]} {v}" for (option, *_), v in zip(KNOBS, chosen)),
                     **run(det)})
        print(json.dumps(rows[-1]), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
