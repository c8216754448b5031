"""Measure the detector: real photographs, held-out decks, overlap scenes.

Every function returns plain numbers (and the raw counts behind them) so the
bench, the tests and the model card quote the same figures, each share with
its 95% interval (:func:`wilson`, keys ending ``_ci``).

* :func:`eval_real_photos` - the ``real-photos/edje`` split: whole-card boxes
  labelled by rank only (nine .. ace).  A ground-truth card is *found* when
  a detection's box overlaps it (IoU >= 0.5, or the detection's box holds
  most of the labelled box: labels of a partly covered card only cover its
  visible part); it is *read* when that detection's rank matches.  Labels
  and detections are paired one to one so that the most labels are paired
  (:func:`match`); the greedy pairing (best-scoring pair first) is
  returned beside it (``*_greedy``).
* :func:`eval_heldout_crops` - per-card top-1 of the classifier on rectified
  cards of the held-out deck designs (the localiser taken out of the loop).
* :func:`eval_scenes` - full detect() on rendered table scenes of held-out
  decks, with and without overlaps and fingers: per-card precision/recall
  (a detection is right when its card code and box match a visible card).
  With ``ceiling`` each visible card is also read through its own true
  outline (:func:`outline_reads`, :func:`outline_ceiling`): about the
  recall a perfect localiser would give with the shipped classifier and
  floors.
"""

from __future__ import annotations

import glob
import os
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from ..vision.proposals import box_iou as _iou

RANK_WORDS = {"nine": "9", "ten": "T", "jack": "J", "queen": "Q", "king": "K", "ace": "A"}
REAL_PHOTOS = Path(__file__).resolve().parents[3] / "shared" / "data" / "real-photos" / "edje"

# Labels of the edje set that the photo itself contradicts, by (photo's
# name without its suffix, the label's xmin, ymin): the rank word the card shows.  ``IMG_2396``'s one
# card is labelled ``nine``; it is the ten of diamonds (a "10" index in both
# corners, ten pips in rows of 4, 2, 4).  Each entry names what the photo
# shows, so a wrong label does not count a right read as a misread.
LABEL_FIXES: dict[tuple[str, int, int], str] = {
    ("IMG_2396", 126, 172): "ten",
}
# Face-down cards in edje photos, boxed by eye: the labels name face-up
# cards only, so a ``back`` read of one of these is neither required nor
# false (as ``allowed`` in the identity-labelled sets).  ``IMG_2533``: a
# pile of another game's cards (Apples to Apples), its top card face down.
FACE_DOWN: dict[str, list[tuple[float, float, float, float]]] = {
    "IMG_2533.JPG": [(29, 232, 173, 393)],
}


def _covers(det, gt) -> float:
    """Fraction of the ground-truth box inside the detection's box."""
    x1, y1 = max(det[0], gt[0]), max(det[1], gt[1])
    x2, y2 = min(det[2], gt[2]), min(det[3], gt[3])
    inter = max(0.0, x2 - x1) * max(0.0, y2 - y1)
    ga = (gt[2] - gt[0]) * (gt[3] - gt[1])
    return inter / ga if ga > 0 else 0.0


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a share: ``k`` right of ``n``.

    The figures rest on a few hundred cards (274 visible ones in the
    benchmark's overlap scenes, 143 on the real test split), where one
    card moves a figure by 0.4-0.7 points, so a figure of 0.99 or 1.000
    says less than it seems; every figure is reported with its interval.
    Wilson's interval stays inside [0, 1] and is not empty when every card
    is right, where the normal approximation gives 1.000 +- 0.

    >>> [round(x, 3) for x in wilson(143, 143)]
    [0.974, 1.0]
    >>> [round(x, 3) for x in wilson(257, 274)]
    [0.903, 0.961]
    >>> wilson(0, 0)
    (0.0, 1.0)
    """
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5 / d
    return max(0.0, centre - half), min(1.0, centre + half)


def read_voc(xml_path: str | Path) -> list[tuple[str, tuple[float, float, float, float]]]:
    """(rank letter, box) for each labelled card in a Pascal VOC file, with
    the corrections of :data:`LABEL_FIXES`."""
    root = ET.parse(xml_path).getroot()
    out = []
    for o in root.findall("object"):
        b = tuple(float(o.find("bndbox/" + k).text) for k in ("xmin", "ymin", "xmax", "ymax"))
        word = o.find("name").text.strip().lower()
        word = LABEL_FIXES.get((Path(xml_path).stem, int(b[0]), int(b[1])), word)
        out.append((RANK_WORDS[word], b))
    return out


def _pair_score(det_box, gt_box) -> float:
    """How well a detection's box stands for a labelled box: IoU, or 0.9 of
    the share of the label inside the detection when they overlap at all
    (IoU > 0.3: the label of a partly covered card boxes its visible part,
    the detection the whole card)."""
    iou = _iou(det_box, gt_box)
    return max(iou, 0.9 * _covers(det_box, gt_box) if iou > 0.3 else 0.0)


def match(dets: list, gts: list[tuple[str, tuple]], key=lambda d: d.card[1:] if len(d.card) == 2 else d.card,
          pairing: str = "best"):
    """One-to-one pairs of labels and detections scoring 0.5 or more
    (:func:`_pair_score`); returns (found, read, n_gt, n_det, pairs).

    ``pairing`` "best" takes the pairs that pair the most labels (then the
    best scores; :func:`~tablecam.vision.assign.best_assignment`, blind to
    ranks); "greedy" takes the best-scoring pair first.  They differ where a covered card's
    whole-card detection also holds the visible part of the card on top of
    it: greedily that label takes the covered card's detection and both
    cards count as lost.

    >>> from types import SimpleNamespace as D
    >>> under = D(card="SQ", box=(160, 0, 320, 200))  # the queen, under the ten
    >>> top = D(card="CT", box=(175, 10, 250, 200))  # IoU 0.89 with its label
    >>> gts = [("Q", (245, 0, 320, 200)), ("T", (180, 0, 250, 200))]
    >>> match([under, top], gts)[:2], match([under, top], gts, pairing="greedy")[:2]
    ((2, 2), (1, 0))
    """
    scores = [[_pair_score(d.box, gb) for d in dets] for _, gb in gts]
    res: list[tuple[int, int]] = []
    if pairing == "greedy":
        pairs = sorted(((s, gi, di) for gi, row in enumerate(scores) for di, s in enumerate(row) if s >= 0.5),
                       reverse=True)
        used_g, used_d = set(), set()
        for s, gi, di in pairs:
            if gi in used_g or di in used_d:
                continue
            used_g.add(gi)
            used_d.add(di)
            res.append((gi, di))
    elif gts and dets:
        from ..vision.assign import best_assignment

        n, m = len(gts), len(dets)
        cost = np.zeros((n, m + n))  # a column of "no detection" per label
        for gi, row in enumerate(scores):
            for di, s in enumerate(row):
                if s >= 0.5:
                    cost[gi, di] = -(1.0 + s)  # most pairs first, then the best scores
        res = [(gi, di) for gi, di in enumerate(best_assignment(cost)) if di < m and cost[gi, di] < 0]
    read = sum(1 for gi, di in res if key(dets[di]) == gts[gi][0])
    return len(res), read, len(gts), len(dets), res


def _face_down(det, fname: str, gts: list[tuple[str, tuple]]) -> bool:
    """Whether ``det`` is a ``back`` read of a face-down card of
    :data:`FACE_DOWN` that no label claims."""
    if det.card != "back" or any(_pair_score(det.box, g) >= 0.5 for _, g in gts):
        return False
    return any(_pair_score(det.box, b) >= 0.5 for b in FACE_DOWN.get(fname, []))


def eval_real_photos(split: str = "test", detector=None, root: Path | None = None, verbose: bool = False,
                     names: list[str] | None = None) -> dict:
    """Rank accuracy and recall of whole cards on one split of the edje
    photos (only the photos ``names``, file names, when given)."""
    import cv2

    from ..vision.detector import load_detector

    det = detector or load_detector()
    root = Path(root or REAL_PHOTOS) / split
    files = sorted(glob.glob(str(root / "*.JPG")) + glob.glob(str(root / "*.jpg")))
    if names is not None:
        files = [f for f in files if os.path.basename(f) in set(names)]
    tot = {"gt": 0, "found": 0, "read": 0, "dets": 0, "images": 0, "seconds": 0.0, "found_greedy": 0, "read_greedy": 0}
    errors = []
    for f in files:
        x = os.path.splitext(f)[0] + ".xml"
        if not os.path.exists(x):
            continue
        gts = read_voc(x)
        img = cv2.imread(f)
        t = time.perf_counter()
        dets = det.detect(img)
        tot["seconds"] += time.perf_counter() - t
        dets = [d for d in dets if not _face_down(d, os.path.basename(f), gts)]
        found, read, n_gt, n_det, pairs = match(dets, gts)
        g_found, g_read = match(dets, gts, pairing="greedy")[:2]
        tot["found_greedy"] += g_found
        tot["read_greedy"] += g_read
        tot["gt"] += n_gt
        tot["found"] += found
        tot["read"] += read
        tot["dets"] += n_det
        tot["images"] += 1
        paired = {di for _, di in pairs}
        extra = [(d.card, round(float(d.conf), 2), [round(float(v)) for v in d.box])
                 for di, d in enumerate(dets) if di not in paired]
        if read < n_gt or extra:
            got = {gi: dets[di].card for gi, di in pairs}
            errors.append({"image": os.path.basename(f),
                           "missed": [gts[i][0] for i in range(n_gt) if i not in got],
                           "misread": [(gts[i][0], c) for i, c in got.items() if c[1:] != gts[i][0]],
                           "false": extra})
    tot["recall"] = tot["found"] / max(1, tot["gt"])
    tot["rank_accuracy"] = tot["read"] / max(1, tot["gt"])
    tot["rank_accuracy_of_found"] = tot["read"] / max(1, tot["found"])
    tot["precision"] = tot["read"] / max(1, tot["dets"])
    tot["rank_accuracy_ci"] = wilson(tot["read"], tot["gt"])
    tot["recall_ci"] = wilson(tot["found"], tot["gt"])
    tot["precision_ci"] = wilson(tot["read"], tot["dets"])
    # the same detections paired greedily (best-scoring pair first)
    tot["rank_accuracy_greedy"] = tot["read_greedy"] / max(1, tot["gt"])
    tot["recall_greedy"] = tot["found_greedy"] / max(1, tot["gt"])
    tot["precision_greedy"] = tot["read_greedy"] / max(1, tot["dets"])
    tot["ms_per_image"] = 1000 * tot["seconds"] / max(1, tot["images"])
    tot["errors"] = errors
    if verbose:
        for e in errors:
            print(e)
    return tot


def eval_heldout_crops(n_per_card: int = 20, seed: int = 123, decks: list[str] | None = None,
                       detector=None, views: int | None = None) -> dict:
    """Per-card top-1 on rectified held-out cards (corner_sample views),
    read as the detector reads a card it found (``CardDetector.read_found``:
    its ``read_views`` corner windows and the pip count); with ``views``,
    the classifier alone through that many windows."""
    from ..vision.classify import CLASSES
    from ..vision.detector import load_detector
    from .faces import HELD_OUT_DECKS, render_face
    from .synth import TexturePool, corner_sample

    det = detector or load_detector()
    decks = decks or HELD_OUT_DECKS
    rng = np.random.default_rng(seed)
    pool = TexturePool(rng, n=24)
    codes = [c for c in CLASSES if c != "none"]
    per_deck = {}
    confusions = []
    for deck in decks:
        ok = n = 0
        for code in codes:
            face = render_face(code, deck)
            cards = [corner_sample(face, rng, occlude=0.0, pool=pool) for _ in range(n_per_card)]
            probs = det.classifier.classify_cards(cards, views=views) if views else det.read_found(cards)
            for p in probs:
                pred = det.classes[int(np.argmax(p))]
                n += 1
                ok += pred == code
                if pred != code:
                    confusions.append((deck, code, pred))
        per_deck[deck] = ok / n
    total = float(np.mean(list(per_deck.values())))
    n_all = len(codes) * n_per_card * len(decks)
    return {"top1": total, "per_deck": per_deck, "n": n_all, "confusions": confusions,
            "top1_ci": wilson(n_all - len(confusions), n_all)}


def missed_cards(dets: list, scene) -> list:
    """The visible cards of a rendered scene that no detection matches, as
    :func:`score_scenes` counts them."""
    return _pair_scene(dets, scene)[2]


def _pair_scene(dets: list, scene) -> tuple[set[int], int, list]:
    """(indices of the scene's cards a detection matches, false detections,
    the visible cards none matches): surest detection first, each to the
    card of its code whose box it overlaps most, at IoU 0.5 or more."""
    gts = [(c.card, tuple(c.quad.min(axis=0)) + tuple(c.quad.max(axis=0))) for c in scene.cards]
    used: set[int] = set()
    fp = 0
    for d in sorted(dets, key=lambda d: -d.conf):
        best, bi = 0.0, -1
        for gi, (code, box) in enumerate(gts):
            if gi in used or code != d.card:
                continue
            s = _iou(d.box, box)
            if s > best:
                best, bi = s, gi
        if bi >= 0 and best >= 0.5:
            used.add(bi)
        else:
            fp += 1
    return used, fp, [c for gi, c in enumerate(scene.cards) if c.visible and gi not in used]


def score_scenes(results) -> dict:
    """Per-card precision and recall over ``(detections, scene)`` pairs:
    recall counts the visible cards (a card read although both its index
    corners are covered is a true positive, not a visible card found); a
    detection is right when its code and box (IoU >= 0.5) match a card.
    ``visible_backs`` and ``fn_backs`` count the face-down cards among the
    visible and the missed ones: the two kinds miss for different reasons."""
    tp = fp = fn = hidden_ok = backs = fn_backs = 0
    for dets, sc in results:
        found, false, missed = _pair_scene(dets, sc)
        tp, fp, fn = tp + len(found), fp + false, fn + len(missed)
        hidden_ok += sum(1 for gi in found if not sc.cards[gi].visible)
        backs += sum(1 for c in sc.cards if c.visible and c.card == "back")
        fn_backs += sum(1 for c in missed if c.card == "back")
    tp_vis = tp - hidden_ok
    return {"precision": tp / max(1, tp + fp), "recall": tp_vis / max(1, tp_vis + fn), "tp": tp, "fp": fp, "fn": fn,
            "precision_ci": wilson(tp, tp + fp), "recall_ci": wilson(tp_vis, tp_vis + fn),
            "visible_backs": backs, "fn_backs": fn_backs}


def outline_reads(detector, scene) -> list[tuple[str, str, bool]]:
    """(card, its read, taken) for each visible card of a rendered scene
    read through its own true outline: the read's likeliest class and
    whether detect() would take it (not ``none``, over its floor).

    Why: detect() misses a card either because no quad it tries lies on
    the card (the localisers and the quads drawn from their boxes) or
    because the classifier cannot read the card even through the right
    quad.  Reading every visible card through its own true outline
    (:meth:`~tablecam.vision.detector.CardDetector.read_quad`) takes the
    first cause away, so it tells the two apart: the share read right and
    taken is about the most recall a perfect localiser would give
    (detect() reads a card through several quads and its index windows, so
    now and then it reads one the true outline does not)."""
    out = []
    for card in scene.cards:
        if card.visible:
            read, _, taken = detector.read_quad(scene.image, card.quad)
            out.append((card.card, read, taken))
    return out


def outline_ceiling(reads: list[tuple[str, str, bool]]) -> dict:
    """:func:`outline_reads` of any number of scenes summed up: the share
    of the visible cards read right (``outline_top1``) and read right and
    taken (``outline_recall``, with its interval), for all cards and for
    the face-down ones (``*_backs``).

    >>> r = outline_ceiling([("S2", "S2", True), ("HT", "HT", False), ("back", "back", True), ("back", "none", False)])
    >>> r["outline_top1"], r["outline_recall"], r["outline_recall_backs"], r["outline_visible_backs"]
    (0.75, 0.5, 0.5, 2)
    """
    backs = [r for r in reads if r[0] == "back"]

    def share(rows, need_taken: bool) -> int:
        return sum(1 for card, read, taken in rows if read == card and (taken or not need_taken))

    n, nb, right = len(reads), len(backs), share(reads, True)
    return {"outline_visible": n, "outline_top1": share(reads, False) / max(1, n),
            "outline_recall": right / max(1, n), "outline_recall_ci": wilson(right, n),
            "outline_visible_backs": nb, "outline_recall_backs": share(backs, True) / max(1, nb)}


def eval_scenes(n: int = 50, seed: int = 7, overlap: bool = True, decks: list[str] | None = None,
                detector=None, size=(1280, 720), ceiling: bool = False) -> dict:
    """Per-card precision and recall of detect() on rendered held-out
    scenes; with ``ceiling`` also the classifier's reads of the same scenes'
    visible cards through their true outlines (:func:`outline_ceiling`):
    ``outline_top1`` (read right), ``outline_recall`` (read right over the
    floor) and ``recall_of_ceiling``, detect()'s recall against that."""
    from ..vision.detector import load_detector
    from .faces import HELD_OUT_DECKS
    from .synth import render_scene

    det = detector or load_detector()
    decks = decks or HELD_OUT_DECKS
    rng = np.random.default_rng(seed)
    secs = [0.0]
    reads: list[tuple[str, str, bool]] = []

    def results():  # one scene in memory at a time
        for _ in range(n):
            sc = render_scene(rng, decks, size=size, overlap=overlap, fingers=overlap)
            t = time.perf_counter()
            dets = det.detect(sc.image)
            secs[0] += time.perf_counter() - t
            if ceiling:
                reads.extend(outline_reads(det, sc))
            yield dets, sc

    scores = score_scenes(results())
    out = {**scores, "scenes": n, "overlap": overlap, "ms_per_image": 1000 * secs[0] / max(1, n)}
    if ceiling:
        out.update(outline_ceiling(reads))
        out["recall_of_ceiling"] = scores["recall"] / max(1e-9, out["outline_recall"])
    return out


LABELLED_SETS = ("blackjack-tracker", "jackfurby")


def eval_labelled_photos(name: str, detector=None, root: Path | None = None, names: list[str] | None = None) -> dict:
    """Recall and precision of card identities on a real set labelled by
    identity (``real-photos/<name>/labels.json``: per photo the face-up
    ``cards`` that must be found and the ``allowed`` ones, partly visible,
    neither required nor false; only the photos ``names``, file names,
    when given).  A detection is right when its code is
    one of the photo's cards (each counted once); a ``back`` or a code not
    on the photo is a false card; the photos carry no positions.
    """
    import json

    import cv2

    from ..vision.detector import load_detector

    det = detector or load_detector()
    folder = Path(root or REAL_PHOTOS.parent) / name
    labels = json.loads((folder / "labels.json").read_text())
    tot = {"gt": 0, "tp": 0, "fp": 0, "images": 0, "seconds": 0.0}
    errors = []
    for fname, lab in sorted(labels.items()):
        if names is not None and fname not in names:
            continue
        img = cv2.imread(str(folder / fname))
        t = time.perf_counter()
        dets = det.detect(img)
        tot["seconds"] += time.perf_counter() - t
        want, allowed = set(lab["cards"]), set(lab.get("allowed", []))
        seen = [d.card for d in dets]
        right = want & set(seen)
        false = [c for c in seen if c not in want and c not in allowed]
        false += [c for c in set(seen) & want for _ in range(seen.count(c) - 1)]  # one card reported twice
        tot["gt"] += len(want)
        tot["tp"] += len(right)
        tot["fp"] += len(false)
        tot["images"] += 1
        if right != want or false:
            errors.append({"image": fname, "missed": sorted(want - right), "false": sorted(false)})
    tot["recall"] = tot["tp"] / max(1, tot["gt"])
    tot["precision"] = tot["tp"] / max(1, tot["tp"] + tot["fp"])
    tot["recall_ci"] = wilson(tot["tp"], tot["gt"])
    tot["precision_ci"] = wilson(tot["tp"], tot["tp"] + tot["fp"])
    tot["ms_per_image"] = 1000 * tot["seconds"] / max(1, tot["images"])
    tot["errors"] = errors
    return tot
