"""Boxes left without a card: nudged rectangles and close reads.

A box the first step could not give a card (a card half under another, a
small or blurred index) is read again: from rectangles nudged towards
more of a card (:mod:`~tablecam.vision.nudge`), and through its likeliest
quads read as a found card is read.  Every new card must be one not yet
reported (:meth:`LeftBoxes._new_card`).
"""

from __future__ import annotations

import numpy as np

from .detections import Detection, _short_side, _usual_width
from .proposals import box_iou as _iou


class LeftBoxes:
    """Second looks at the boxes left without a card (a part of :class:`~tablecam.vision.detector.CardDetector`)."""

    def _nudged(self, image_bgr: np.ndarray, props: list, found: dict[int, Detection], dets: list[Detection],
                reads_of_box: dict, cache: dict | None = None) -> list[Detection]:
        """Cards in the boxes still without one, through nudged rectangles.

        Each box left is read again from up to ``nudge_starts`` rectangles
        (those inscribed in it, then the quads of its surest reads), each
        nudged ``nudge`` rounds (:func:`~tablecam.vision.nudge.nudge`)
        towards more of a card not yet found, its box still the localiser's
        (IoU 0.6 or more).  A box's surest card is reported when read surer
        than ``nudge_conf`` (``under_conf_rare`` for a back or a joker), if
        no card has it, its rectangle overlaps no card found by more than
        ``fallback_iou``, and its width is within ``nudge_size`` of the
        cards found (cards of one picture are about one size: a rectangle
        grown over a pile read a four of clubs in a pile of nines).  Boxes
        overlapping a card found by more than ``nudge_skip_iou`` are that
        card boxed twice and are not nudged.

        A box that has its card but reaches beyond it (their IoU under
        ``nudge_under``: a pile boxed as one card) is nudged too, from the
        rectangles of that card's size fitted apart from the cards found,
        for a face card under it (a back there is the found card seen
        again, a joker a picture misread).  Every winner is read again
        through ``nudge_views`` corner windows, as the final read will be,
        and must stay above its floor (reads just over it through one
        window were the false cards of this step)."""
        from .localise import warp_card
        from .nudge import nudge

        left = [bi for bi in range(len(props)) if bi not in found
                and not any(_iou(props[bi][0], d.box) > self.settings.nudge_skip_iou for d in dets)]
        beyond = [bi for bi, d in found.items() if _iou(props[bi][0], d.box) < self.settings.nudge_under]
        if not left and not beyond:
            return []
        h, w = image_bgr.shape[:2]
        have = {d.card for d in dets if d.card != "back"}
        off = [self.classes.index(c) for c in have] + [self.classes.index("none")]
        width = _usual_width(dets)
        starts, start_box = self._nudge_starts(image_bgr, props, left, beyond, found, dets, reads_of_box, width,
                                               cache)

        def score(quads: list[np.ndarray]) -> list[tuple[float, np.ndarray]]:
            out = []
            for p in self.classifier.classify_cards([warp_card(image_bgr, q) for q in quads]):
                p = p.copy()
                p[off] = 0.0
                out.append((float(p.sum()), p))
            return out

        def fits(i: int, q: np.ndarray) -> bool:
            return _iou((*q.min(axis=0), *q.max(axis=0)), props[start_box[i]][0]) >= 0.6

        best: dict[int, tuple[float, int, np.ndarray, np.ndarray]] = {}
        beyond_set = set(beyond)
        for bi, (q, _, p) in zip(start_box, nudge(starts, score, fits, rounds=self.settings.nudge, groups=start_box, keep=self.settings.nudge_keep)):
            ci = int(np.argmax(p))
            conf = float(p[ci])
            if bi in beyond_set and self.classes[ci] in ("back", "JK"):
                continue  # under a found card: a back is that card seen again, a joker a picture misread
            if conf >= self._floor(ci, self.settings.nudge_conf, self.settings.under_conf_rare) and conf > best.get(bi, (0.0,))[0]:
                best[bi] = (conf, ci, q, p)
        self._confirm(image_bgr, best)
        return self._place_new(best, dets, width, w, h)

    def _nudge_starts(self, image_bgr: np.ndarray, props: list, left: list[int], beyond: list[int],
                      found: dict[int, Detection], dets: list[Detection], reads_of_box: dict,
                      width: float | None, cache: dict | None = None) -> tuple[list[np.ndarray], list[int]]:
        """The rectangles nudging starts from, and the box of each: in a box
        left without a card, those inscribed in it and its surest reads
        (``nudge_starts`` in all; and with ``nudge_fitted`` that many fitted
        rectangles clear of the cards found); in a box reaching beyond its
        card, ``nudge_under_starts`` fitted rectangles of that card's size
        clear of the cards found."""
        from .proposals import box_quads, fitted_quads

        found_quads = [d.quad for d in dets]
        starts: list[np.ndarray] = []
        start_box: list[int] = []
        for bi in left:
            surest = sorted(reads_of_box.get(bi, {}).values(), key=lambda r: -r[0])
            qs = (list(box_quads(props[bi][0])) + [q for _, q, _ in surest])[:self.settings.nudge_starts]
            if self.settings.nudge_fitted:
                qs += fitted_quads(image_bgr, props[bi][0], top=self.settings.nudge_fitted, width=width,
                                   avoid=found_quads, avoid_iou=self.settings.avoid_iou, cache=cache)
            starts += qs
            start_box += [bi] * len(qs)
        for bi in beyond:
            qs = fitted_quads(image_bgr, props[bi][0], top=self.settings.nudge_under_starts,
                              width=_short_side(found[bi].quad), avoid=found_quads, avoid_iou=self.settings.avoid_iou,
                              cache=cache)
            starts += qs
            start_box += [bi] * len(qs)
        return starts, start_box

    def _confirm(self, image_bgr: np.ndarray, best: dict[int, tuple[float, int, np.ndarray, np.ndarray]]) -> None:
        """Drop from ``best`` (box -> (conf, class, quad, probs)) the nudged
        cards that fall under their floor when read again through
        ``nudge_views`` corner windows, as the final read will read them."""
        from .localise import warp_card

        if self.settings.nudge_views <= 1 or not best:
            return
        keys = list(best)
        probs = self.classifier.classify_cards([warp_card(image_bgr, best[bi][2]) for bi in keys],
                                               views=self.settings.nudge_views)
        for bi, p in zip(keys, probs):
            ci = best[bi][1]
            if float(p[ci]) < self._floor(ci, self.settings.nudge_conf, self.settings.under_conf_rare):
                del best[bi]

    def _read_closely(self, image_bgr: np.ndarray, props: list, found: dict[int, Detection],
                      dets: list[Detection], cand_quads: list[np.ndarray], probs: list[np.ndarray],
                      owner: list[int]) -> list[Detection]:
        """Cards in boxes still without one, read as a found card is read.

        A candidate quad is read once through one corner window and must
        reach ``min_conf``; a small or blurred index (a card 100 px wide
        on a 1280x720 frame) reads 0.35-0.55 that way and 0.87 through
        ``read_views`` windows and its pip count.  So each box that no
        card found covers (box IoU ``nudge_skip_iou``) has its
        ``close_quads`` quads that looked most like a card read again as
        :meth:`read_found` reads, and its surest card stands at
        ``close_conf`` (``under_conf_rare`` for a back or a joker) when it
        is a new card (:meth:`_new_card`)."""
        left = {bi for bi in range(len(props)) if bi not in found
                and not any(_iou(props[bi][0], d.box) > self.settings.nudge_skip_iou for d in dets)}
        if not left:
            return []
        none = self.classes.index("none")
        likeliest: dict[int, list[tuple[float, np.ndarray]]] = {}
        for q, p, bi in zip(cand_quads, probs, owner):
            if bi in left:
                likeliest.setdefault(bi, []).append((1.0 - float(p[none]), q))
        quads = [(bi, q) for bi, qs in likeliest.items()
                 for _, q in sorted(qs, key=lambda t: -t[0])[:self.settings.close_quads]]
        best = self._surest_reads(image_bgr, quads, lambda ci: self._floor(ci, self.settings.close_conf, self.settings.under_conf_rare))
        h, w = image_bgr.shape[:2]
        width = _usual_width(dets)
        return self._place_new(best, dets, width, w, h)

    def _surest_reads(self, image_bgr: np.ndarray, quads: list[tuple[int, np.ndarray]], floor,
                      cards: list[np.ndarray] | None = None,
                      probs: list[np.ndarray] | None = None) -> dict[int, tuple[float, int, np.ndarray, np.ndarray]]:
        """Each box's surest card among ``quads`` ((box, quad) pairs), read
        as a found card is read (:meth:`read_found`), of the reads at least
        ``floor(class)``: box -> (conf, class, quad, probs).  ``cards``: the
        quads already rectified, and ``probs`` their classifier reads, when
        the caller has them (:meth:`read_found`)."""
        from .localise import warp_card

        best: dict[int, tuple[float, int, np.ndarray, np.ndarray]] = {}
        if not quads:
            return best
        if cards is None:
            cards = [warp_card(image_bgr, q) for _, q in quads]
        for (bi, q), p in zip(quads, self.read_found(cards, probs)):
            ci, conf = self._read(p)
            if ci >= 0 and conf >= floor(ci) and conf > best.get(bi, (0.0,))[0]:
                best[bi] = (conf, ci, q, p)
        return best

    def _place_new(self, best: dict[int, tuple[float, int, np.ndarray, np.ndarray]], dets: list[Detection],
                   width: float | None, w: int, h: int) -> list[Detection]:
        """The reads of ``best`` (box -> (conf, class, quad, probs)), surest
        first, that are new cards beside ``dets`` and each other
        (:meth:`_new_card`): a face card once, backs as many as lie apart."""
        have = {d.card for d in dets if d.card != "back"}
        out: list[Detection] = []
        for conf, ci, q, p in sorted(best.values(), key=lambda t: -t[0]):
            if not self._new_card(self.classes[ci], q, have, dets + out, width):
                continue
            if self.classes[ci] != "back":
                have.add(self.classes[ci])
            out.append(self._detection(q, p, ci, conf, w, h))
        return out

    def _may_be_new(self, q: np.ndarray, placed: list[Detection], width: float | None, size: float) -> bool:
        """Whether :meth:`_new_card` could take quad ``q`` for some face
        card: it overlaps no card ``placed`` by more than ``fallback_iou``
        and its width is within ``size`` of ``width``.  Why: a quad that
        fails this needs no read."""
        from .localise import quad_iou

        if width and abs(_short_side(q) / width - 1) > size:
            return False
        return not any(d.quad is not None and quad_iou(q, d.quad) > self.settings.fallback_iou for d in placed)

    def _new_card(self, card: str, q: np.ndarray, have: set[str], placed: list[Detection],
                  width: float | None, size: float | None = None) -> bool:
        """Whether a nudged rectangle ``q`` read as ``card`` is a card not yet
        reported: no card ``have`` names it, it overlaps no card ``placed``
        by more than ``fallback_iou`` (a back none by more than
        ``nudge_back_iou``: a back's pattern reads as a back through any
        rectangle on it, so such a read is that back again), and its width
        is within ``size`` (default ``nudge_size``) of ``width``, the usual
        card's.

        >>> from tablecam.vision.detector import CardDetector
        >>> from tablecam.vision.nudge import card_quad
        >>> from tablecam.vision.settings import DetectorSettings
        >>> det = CardDetector.__new__(CardDetector)
        >>> det.settings = DetectorSettings(fallback_iou=0.8, nudge_back_iou=0.45, nudge_size=0.25)
        >>> found = [Detection("back", 0.99, (0, 0, 100, 140), card_quad((50.0, 70.0, 100.0, 0.0)))]
        >>> half_over = card_quad((50.0, 120.0, 100.0, 0.0))  # quad IoU 0.47 with the back found
        >>> det._new_card("back", half_over, set(), found, 100.0), det._new_card("S7", half_over, set(), found, 100.0)
        (False, True)
        >>> det._new_card("S7", half_over, {"S7"}, found, 100.0), det._new_card("S7", half_over, set(), found, 60.0)
        (False, False)
        """
        from .localise import quad_iou

        if card in have or any(quad_iou(q, d.quad) > self.settings.fallback_iou for d in placed):
            return False
        if card == "back" and any(d.card == "back" and quad_iou(q, d.quad) > self.settings.nudge_back_iou for d in placed):
            return False
        size = self.settings.nudge_size if size is None else size
        return not (width and abs(_short_side(q) / width - 1) > size)
