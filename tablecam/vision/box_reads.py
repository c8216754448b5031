"""The detector's first step: each box of the card localiser read as a card.

Each box is read through several card quads, boxes are given to cards
surest first (:mod:`~tablecam.vision.assign`), boxes left without a card
are read again through edge-fitted rectangles, and cards under a found
card are looked for where a box reaches beyond it.
"""

from __future__ import annotations

import numpy as np

from .detections import Detection, _one_per_card, _short_side
from .proposals import box_iou as _iou


SURE_BOX = 0.5
"""A localiser box scored this or more is taken for a card when sizing the picture's cards (``size_most``)."""


class BoxReads:
    """Reading the localiser's boxes (a part of :class:`~tablecam.vision.detector.CardDetector`)."""

    def _detect_in_boxes(self, image_bgr: np.ndarray, classical: list[np.ndarray]) -> list[Detection]:
        """One reading per box of the learned localiser.

        Each box is read through several quads - the card rectangles
        inscribed in it (:func:`~tablecam.vision.proposals.box_quads`), the
        classical localiser's quads that fit it, and those the classical
        localiser finds in a crop around the box alone (a local contrast
        threshold separates a card from carpet where a whole-image one does
        not) - and the surest read wins.  The localiser's own NMS has
        already made one box per card, so cards of a fanned hand, which
        overlap more than any quad NMS would allow, stay apart.  Classical
        quads that fit no box are dropped.

        Where cards overlap, two more steps (``fitted``, ``second_reads``):
        a box nothing could be read in is read again through the card
        rectangles lying best on the image's edges at any turn
        (:func:`~tablecam.vision.proposals.fitted_quads`, at the picture's
        usual card size), and a box whose surest read is the card another
        box read surer (it took in a fanned neighbour's index) falls back to
        its next card (:meth:`_assign`).
        """
        from .localise import CardCorners
        from .proposals import box_quads

        h, w = image_bgr.shape[:2]
        props = self.localiser.proposals(image_bgr)
        boxes = [b for b, _, _ in props]
        # the cards of one picture are about one size: the median card that fits a box
        widths = [_short_side(q) for b in boxes for q in box_quads(b)[:1]]
        width = float(np.median(widths)) if widths and self.settings.fitted else None
        # the widest card that fits a box the localiser is sure of: no card is much wider
        widest = max((_short_side(q) for b, s, _ in props if s >= SURE_BOX for q in box_quads(b)[:1]), default=None)
        fit_cache: dict = {}  # each box's scored fitted rectangles: the steps below read some boxes twice
        cand_quads, owner = self._box_quads(image_bgr, props, classical, widest)
        probs = self.classifier.classify_cards([CardCorners(image_bgr, q) for q in cand_quads])
        # per box, its surest read of each card (a box may take in a neighbour's index too)
        reads_of_box: dict[int, dict[int, tuple[float, np.ndarray, np.ndarray]]] = {}
        for q, p, bi in zip(cand_quads, probs, owner):
            ci, conf = self._read(p)
            if ci >= 0:
                _keep_surest(reads_of_box, bi, ci, conf, q, p)
        if self.settings.fitted:
            # boxes nothing was read in: the rectangles lying best on the image's edges
            self._read_fitted(image_bgr, props, [bi for bi in range(len(props)) if bi not in reads_of_box],
                              width, reads_of_box, cache=fit_cache)
        found = self._assign(reads_of_box, w, h)
        if self.settings.fitted and self.settings.refit:
            # boxes left without a card (every card they read is another box's): read them
            # through the fitted rectangles apart from the cards found, then assign again
            left = [bi for bi in reads_of_box if bi not in found]
            if left:
                self._read_fitted(image_bgr, props, left, width, reads_of_box,
                                  avoid=[d.quad for d in found.values()], cache=fit_cache)
                found = self._assign(reads_of_box, w, h)
        # the final read of the cards found (``read_views``), before the close reads: a close
        # read's card must be new beside the cards as they will be reported, not as one corner
        # window first read them (blackjack ``heart3``: the queen's box first read "king" through a
        # rectangle inside it, and the real king, read closely at 0.98, was refused as a second king)
        dets = self._reread(image_bgr, list(found.values()), quads=False)
        if self.settings.close_conf:
            dets = self._read_closely(image_bgr, props, found, dets, cand_quads, probs, owner)
        return _one_per_card(dets, self.settings.nms_iou, quads=False)

    def _box_quads(self, image_bgr: np.ndarray, props: list, classical: list[np.ndarray],
                   widest: float | None = None) -> tuple[list[np.ndarray], list[int]]:
        """The card quads each box is read through, and the box of each: its
        oriented quad (an oriented-box model's), the card rectangles
        inscribed in it, the box itself (``box_itself``), the edge-turned, strip and local quads
        (:meth:`_image_quads`), then the classical quads that fit it (box
        IoU 0.6); none wider than ``size_most`` times ``widest``, the
        widest card inscribed in a box the localiser scores ``SURE_BOX``
        or more (a strip of the table at the picture's edge, boxed at
        0.38, completed into a "card" seven times the others' width read
        as a back).  Why the widest sure card, not the usual one: in a
        window around one card, as the camera's second look reads it, the
        other boxes are slivers of its neighbours."""
        from .proposals import box_card, box_quads

        quads: list[np.ndarray] = []
        owner: list[int] = []
        for bi, (b, _, oq) in enumerate(props):
            itself = box_card(b) if self.settings.box_itself else []
            qs = ([oq] if oq is not None else []) + box_quads(b) + itself + self._image_quads(image_bgr, b, oq)
            quads += qs
            owner += [bi] * len(qs)
        boxes = [b for b, _, _ in props]
        for q in classical:
            qb = (*q.min(axis=0), *q.max(axis=0))
            ious = [_iou(qb, b) for b in boxes]
            best = int(np.argmax(ious)) if ious else -1
            if best >= 0 and ious[best] >= 0.6:
                quads.append(q)
                owner.append(best)
        most = self.settings.size_most * widest if self.settings.size_most and widest else None
        if most:
            kept = [i for i, q in enumerate(quads) if _short_side(q) <= most]
            quads, owner = [quads[i] for i in kept], [owner[i] for i in kept]
        return quads, owner

    def _image_quads(self, image_bgr: np.ndarray, b, oq: np.ndarray | None) -> list[np.ndarray]:
        """The quads of box ``b`` that take looking at the image: card
        rectangles turned to the box's strongest edge directions
        (``edge_peaks``), the strip quads of its corners (``oq``, an
        oriented box's quad, or the box's), and the classical localiser's
        quads in a crop around the box alone (a local contrast threshold
        separates a card from carpet where a whole-image one does not)."""
        from .proposals import box_corners, edge_angles, local_quads, strip_quads, turned_quads

        peaks = self.settings.edge_peaks
        turned = [q for a in (edge_angles(image_bgr, b, peaks) if peaks else []) for q in turned_quads(b, a)]
        return turned + strip_quads(oq if oq is not None else box_corners(b)) + local_quads(image_bgr, b)

    def _read_fitted(self, image_bgr: np.ndarray, props: list, boxes: list[int], width: float | None,
                     reads_of_box: dict, avoid: list[np.ndarray] | None = None,
                     widths: dict[int, float] | None = None, cache: dict | None = None) -> None:
        """Read boxes ``boxes`` through their edge-fitted card rectangles (of
        ``widths[box]`` or ``width``, apart from the quads ``avoid``), noting each read."""
        from .localise import CardCorners
        from .proposals import fitted_quads

        extra = [(bi, q) for bi in boxes
                 for q in fitted_quads(image_bgr, props[bi][0], top=self.settings.fitted,
                                       width=(widths or {}).get(bi, width), avoid=avoid, avoid_iou=self.settings.avoid_iou,
                                       cache=cache)]
        if not extra:
            return
        for (bi, q), p in zip(extra, self.classifier.classify_cards([CardCorners(image_bgr, q) for _, q in extra])):
            ci, conf = self._read(p)
            if ci >= 0:
                _keep_surest(reads_of_box, bi, ci, conf, q, p)

    def _assign(self, reads_of_box: dict, w: int, h: int) -> dict[int, Detection]:
        """One card per box.  A box's surest read wins, unless that card is
        already the surer read of another box (the box took in a fanned
        neighbour's index): then, with ``second_reads`` > 1, the box falls
        back to its next card, read through a quad apart from the claimed
        card's."""
        from .localise import quad_iou

        ranked = {bi: sorted(((c, ci, q, p) for ci, (c, q, p) in r.items()), key=lambda t: -t[0])[:self.settings.second_reads]
                  for bi, r in reads_of_box.items()}
        if self.settings.second_reads <= 1:
            return {bi: self._detection(q, p, ci, c, w, h) for bi, r in ranked.items() for c, ci, q, p in r[:1]}
        if self.settings.best_assignment:
            return self._assign_best(ranked, w, h)
        order = sorted(((c, rank, bi, ci, q, p) for bi, r in ranked.items() for rank, (c, ci, q, p) in enumerate(r)),
                       key=lambda t: (t[1], -t[0]))
        claimed: dict[int, np.ndarray] = {}
        out: dict[int, Detection] = {}
        for c, rank, bi, ci, q, p in order:
            if bi in out:
                continue
            if ci in claimed and self.classes[ci] != "back":
                continue
            if rank > 0 and any(quad_iou(q, cq) > self.settings.fallback_iou for cq in claimed.values()):
                continue
            claimed.setdefault(ci, q)
            out[bi] = self._detection(q, p, ci, c, w, h)
        return out

    def _assign_best(self, ranked: dict, w: int, h: int) -> dict[int, Detection]:
        """One card per box by the assignment surest over the whole picture
        (:func:`~tablecam.vision.assign.best_assignment`): a box may give
        up its surest card for its next one when that lets another box,
        which read nothing else, have a card.  A box's later read through a
        quad overlapping another box's card by more than ``fallback_iou`` is
        that card seen again, and is struck out before solving again."""
        from .assign import best_assignment
        from .localise import quad_iou

        back = self.classes.index("back")
        boxes = list(ranked)
        cards = sorted({ci for r in ranked.values() for _, ci, _, _ in r if ci != back})
        col = {ci: j for j, ci in enumerate(cards)}
        n, k = len(boxes), len(cards)
        big = 1e6
        # columns: the cards, then per box its own face-down card and its own "nothing"
        cost = np.full((n, k + 2 * n), big)
        for i, bi in enumerate(boxes):
            cost[i, k + n + i] = 0.0
            for c, ci, _, _ in ranked[bi]:
                cost[i, k + i if ci == back else col[ci]] = -c
        for _ in range(n + 1):
            pick = best_assignment(cost)
            chosen = {}
            for i, j in enumerate(pick):
                if j >= k + n:
                    continue
                ci = cards[j] if j < k else back
                rank, (c, _, q, p) = next((r, t) for r, t in enumerate(ranked[boxes[i]]) if t[1] == ci)
                chosen[i] = (rank, j, c, ci, q, p)
            seen_again = [(i, j) for i, (rank, j, _, _, q, _) in chosen.items() if rank > 0 and any(
                quad_iou(q, o[4]) > self.settings.fallback_iou for oi, o in chosen.items() if oi != i)]
            if not seen_again:
                break
            for i, j in seen_again:
                cost[i, j] = big
        return {boxes[i]: self._detection(q, p, ci, c, w, h) for i, (_, _, c, ci, q, p) in chosen.items()}


def _keep_surest(reads_of_box: dict, bi: int, ci: int, conf: float, q: np.ndarray, p: np.ndarray) -> None:
    """Note box ``bi``'s read of class ``ci`` unless it read that card surer already."""
    r = reads_of_box.setdefault(bi, {})
    if ci not in r or conf > r[ci][0]:
        r[ci] = (conf, q, p)
