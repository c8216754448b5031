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
    ap.add_argument("--loc-conf", default="0.25,0.4,0.55")
    ap.add_argument("--gate", default="0,0.5")
    ap.add_argument("--min-conf", default="0.6")
    ap.add_argument("--edge-peaks", default="1", help="edge directions per box turned into card quads (0: none)")
    ap.add_argument("--imgsz", default="320+480", help="localiser input sizes (long side) to try; 320+480 runs both")
    ap.add_argument("--nms", default="0.75", help="the localiser's box NMS IoU")
    ap.add_argument("--trim", default="0", help="box_variants trim (0: the box alone)")
    ap.add_argument("--whole", default="1", help="1: also the classical localiser on the whole image, 0: not")
    ap.add_argument("--second-reads", default="3", help="reads per box kept for when its surest is a neighbour's card")
    ap.add_argument("--fitted", default="4", help="edge-fitted quads read in a box nothing else was read in (0: none)")
    ap.add_argument("--read-views", default="3", help="corner windows of the final read of each card found")
    ap.add_argument("--refit", default="1", help="1: boxes left without a card are read through fitted quads too")
    ap.add_argument("--under", default="0.95", help="read cards under a found card in boxes whose IoU with it is below this")
    ap.add_argument("--under-conf-rare", default="0.97", help="the same for a back or a joker")
    ap.add_argument("--under-conf", default="0.8", help="the least confidence of a card read under another")
    ap.add_argument("--fallback-iou", default="0.8", help="a fall-back read's quad may overlap a claimed card's this much")
    ap.add_argument("--nudge", default="4", help="rounds of nudging the rectangles of boxes left without a card (0: off)")
    ap.add_argument("--nudge-keep", default="2", help="starts per box that climb (0: all)")
    ap.add_argument("--nudge-conf", default="0.9", help="the least confidence of a card read through a nudged rectangle")
    ap.add_argument("--nudge-skip-iou", default="0.85", help="boxes overlapping a card found by more than this are not nudged")
    ap.add_argument("--avoid-iou", default="0.75", help="fitted rectangles keep clear of the cards found by this quad IoU")
    ap.add_argument("--best-assignment", default="1", help="1: boxes to cards by the surest assignment of the picture, 0: greedily")
    ap.add_argument("--design-val", type=int, default=0,
                    help="top-1 of the classifier on rectified cards of this many unseen generated designs, then stop")
    args = ap.parse_args()

    from tablecam.vision import evaluate
    from tablecam.vision.detector import CardDetector
    from tablecam.vision.faces import training_decks
    from tablecam.vision.locdata import split_real_train
    from tablecam.vision.synth import render_scene

    if args.design_val:
        from tablecam.vision.designs import VALIDATION_DESIGNS, generated_decks

        unseen = generated_decks(VALIDATION_DESIGNS.start + args.design_val)[VALIDATION_DESIGNS.start:]
        r = evaluate.eval_heldout_crops(n_per_card=4, seed=321, decks=unseen,
                                        detector=CardDetector(args.model_dir, localiser=False,
                                                              read_views=int(args.read_views.split(",")[0])))
        wrong = r["confusions"]
        no_jk = sum(1 for d, code, pred in wrong if code != "JK")
        print(json.dumps({"design_val_top1": round(r["top1"], 4), "n": r["n"], "errors": len(wrong),
                          "errors_not_joker": no_jk}))
        return 0
    _, val = split_real_train()
    rng = np.random.default_rng(99)
    decks = training_decks()
    scenes = [render_scene(rng, decks, size=(1280, 720)) for _ in range(args.scenes)]
    rng = np.random.default_rng(98)
    apart = [render_scene(rng, decks, size=(1280, 720), overlap=False, fingers=False) for _ in range(args.apart)]
    rng = np.random.default_rng(97)
    if args.unseen:
        from tablecam.vision.designs import VALIDATION_DESIGNS, generated_decks

        designs = generated_decks(VALIDATION_DESIGNS.stop)[VALIDATION_DESIGNS.start:]
        unseen = [render_scene(rng, designs, size=(1280, 720)) for _ in range(args.unseen)]

    def score(det, sets) -> tuple[float, float]:
        r = evaluate.score_scenes((det.detect(sc.image), sc) for sc in sets)
        return round(r["recall"], 3), round(r["precision"], 3)

    def run(det) -> dict:
        r = evaluate.eval_real_photos("train", det, names=val)
        recall, precision = score(det, scenes)
        row = {"real_val_recall": round(r["recall"], 3), "real_val_rank_acc": round(r["rank_accuracy"], 3),
               "real_val_precision": round(r["precision"], 3),
               "real_val_rank_acc_greedy": round(r["rank_accuracy_greedy"], 3), "scene_recall": recall,
               "scene_precision": precision, "ms_per_photo": round(r["ms_per_image"], 1)}
        if apart:
            row["apart_recall"], row["apart_precision"] = score(det, apart)
        if args.unseen:
            row["unseen_recall"], row["unseen_precision"] = score(det, unseen)
        return row

    if args.no_classical:
        rows = []
    else:
        rows = [{"config": "classical only", **run(CardDetector(args.model_dir, localiser=False))}]
        print(json.dumps(rows[-1]), flush=True)
    sizes = [tuple(int(x) for x in v.split("+")) for v in args.imgsz.split(",")]
    grid = [sizes] + [list(map(float, v.split(","))) for v in (args.loc_conf, args.gate, args.min_conf, args.nms, args.trim,
                                                                  args.whole, args.edge_peaks, args.second_reads, args.fitted, args.read_views,
                                                                  args.refit, args.fallback_iou, args.under, args.under_conf, args.under_conf_rare,
                                                                  args.nudge, args.nudge_keep, args.best_assignment,
                                                                  args.nudge_conf, args.nudge_skip_iou, args.avoid_iou)]
    for sz, lc, gate, mc, nms, trim, whole, peaks, second, fit, views, refit, fb, under, uc, ucr, nudge, nkeep, best, nconf, nskip, avoid in itertools.product(*grid):
        det = CardDetector(args.model_dir, localiser=True, localiser_conf=lc, gate_iou=gate, min_conf=mc,
                           localiser_imgsz=sz, localiser_iou=nms, box_trim=trim,
                           whole_image_classical=bool(whole), edge_peaks=int(peaks), second_reads=int(second), fitted=int(fit),
                           read_views=int(views), refit=bool(refit), fallback_iou=fb, under=under, under_conf=uc, under_conf_rare=ucr,
                           nudge=int(nudge), nudge_keep=int(nkeep),
                           best_assignment=bool(best), nudge_conf=nconf,
                           nudge_skip_iou=nskip, avoid_iou=avoid)
        rows.append({"config": f"localiser {'+'.join(map(str, sz))} px conf {lc} nms {nms} trim {trim} gate {gate} min_conf {mc} "
                               f"whole-image classical {bool(whole)} edge peaks {int(peaks)} second reads {int(second)} fitted {int(fit)} read views {int(views)} "
                               f"refit {bool(refit)} fallback iou {fb} under {under} under conf {uc} rare {ucr} nudge {int(nudge)} keep {int(nkeep)} best assignment {bool(best)} nudge conf {nconf} skip iou {nskip} avoid iou {avoid}",
                     **run(det)})
        print(json.dumps(rows[-1]), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
