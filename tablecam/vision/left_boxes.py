"""Boxes left without a card: close reads.

A box the first step could not give a card (a small or blurred index)
has its likeliest quads read again as a found card is read.  Every new
card must be one not yet reported (:meth:`LeftBoxes._new_card`).
"""

from __future__ import annotations

import numpy as np

from .detections import Detection, _card_size, _short_side, _usual_size, _usual_width
from .proposals import box_iou as _iou


class LeftBoxes:
    """Second looks at the boxes left without a card (a part of :class:`~tablecam.vision.detector.CardDetector`)."""

    def _read_closely(self, image_bgr: np.ndarray, props: list, found: dict[int, Detection],
                      dets: list[Detection], cand_quads: list[np.ndarray], probs: list[np.ndarray],
                      owner: list[int]) -> list[Detection]:
        """``dets`` with the cards in boxes still without one, read as a found card is read.

        A candidate quad is read once through one corner window and must
        reach ``min_conf``; a small or blurred index (a card 100 px wide
        on a 1280x720 frame) reads 0.35-0.55 that way and 0.87 through
        ``read_views`` windows and its pip count.  So each box that no
        card found covers (box IoU ``found_iou``) has its
        ``close_quads`` quads that looked most like a card, and with
        ``outline_quads`` its outline, read again as
        :meth:`read_found` reads, and its surest card stands at
        ``close_conf`` (``close_conf_rare`` for a back or a joker) when it
        is a new card (:meth:`_new_card`), or one it takes from a less sure
        read elsewhere (``close_displaces``, :meth:`_place_new`)."""
        left = {bi for bi in range(len(props)) if bi not in found
                and not any(_iou(props[bi][0], d.box) > self.settings.found_iou for d in dets)}
        if not left:
            return dets
        none = self.classes.index("none")
        likeliest: dict[int, list[tuple[float, np.ndarray]]] = {}
        for q, p, bi in zip(cand_quads, probs, owner):
            if bi in left:
                likeliest.setdefault(bi, []).append((1.0 - float(p[none]), q))
        quads = [(bi, q) for bi, qs in likeliest.items()
                 for _, q in sorted(qs, key=lambda t: -t[0])[:self.settings.close_quads]]
        if self.settings.outline_quads:
            # and each box's outline, which a small card seen at an angle is read
            # surely through, while its looser rectangles look as much like a card
            from .proposals import outline_quad

            outlines = [(bi, outline_quad(image_bgr, props[bi][0])) for bi in sorted(likeliest)]
            quads += [(bi, q) for bi, q in outlines if q is not None]
        best = self._surest_reads(image_bgr, quads, lambda ci: self._floor(ci, self.settings.close_conf, self.settings.close_conf_rare),
                                  whole=self.whole is not None)
        h, w = image_bgr.shape[:2]
        width = _usual_width(dets)
        return self._place_new(best, dets, width, w, h, displace=self.settings.close_displaces)

    def _surest_reads(self, image_bgr: np.ndarray, quads: list[tuple[int, np.ndarray]], floor,
                      cards: list[np.ndarray] | None = None,
                      probs: list[np.ndarray] | None = None,
                      whole: bool = False) -> dict[int, tuple[float, int, np.ndarray, np.ndarray]]:
        """Each box's surest card among ``quads`` ((box, quad) pairs), read
        as a found card is read (:meth:`read_found`), of the reads at least
        ``floor(class)``: box -> (conf, class, quad, probs).  ``cards``: the
        quads already rectified, and ``probs`` their classifier reads, when
        the caller has them (:meth:`read_found`).  ``whole``: a read under
        its floor from ``whole_card`` is read by the whole face too
        (:meth:`_whole_agrees`)."""
        from .localise import warp_card

        best: dict[int, tuple[float, int, np.ndarray, np.ndarray]] = {}
        if not quads:
            return best
        if cards is None:
            cards = [warp_card(image_bgr, q) for _, q in quads]
        def keep(into: dict, bi: int, q: np.ndarray, p: np.ndarray) -> None:
            ci, conf = self._read(p)
            if ci >= 0 and conf >= floor(ci) and conf > into.get(bi, (0.0,))[0]:
                into[bi] = (conf, ci, q, p)

        reads = self.read_found(cards, probs)
        for (bi, q), p in zip(quads, reads):
            keep(best, bi, q, p)
        if whole:
            # only a box no quad reads surely by its index: the whole face decides nothing else
            unsure: dict = {}
            for (bi, q), card, p in zip(quads, cards, reads):
                if bi not in best:
                    keep(unsure, bi, q, self._whole_agrees(card, p, floor))
            best.update(unsure)
        return best

    def _whole_agrees(self, card: np.ndarray, p: np.ndarray, floor) -> np.ndarray:
        """``p``, the read of the rectified ``card``, times the whole face's
        read when ``p``'s likeliest card is a face read from ``whole_card``
        but under ``floor(class)`` and the whole face names the same card
        (:func:`~tablecam.vision.whole_card.agreeing`); else ``p``.

        Why: a court card of a pack whose index the classifier never saw
        (the blackjack-tracker pack's queens and kings, about 1.2 px/mm)
        reads 0.4-0.55 by its index, and its picture is what tells it."""
        from .whole_card import agreeing

        i = int(np.argmax(p))
        c = self.classes[i]
        if c in ("none", "back", "JK") or not self.settings.whole_card <= p[i] < floor(i):
            return p
        both = agreeing(p, self.classes, self.whole.probs(card), top=not self.settings.whole_card_product)
        return p if both is None else both

    def _place_new(self, best: dict[int, tuple[float, int, np.ndarray, np.ndarray]], dets: list[Detection],
                   width: float | None, w: int, h: int, displace: float = 0.0) -> list[Detection]:
        """``dets`` with the reads of ``best`` (box -> (conf, class, quad,
        probs)), surest first, that are new cards beside them and each other
        (:meth:`_new_card`): a face card once, backs as many as lie apart.

        ``displace`` > 0: a read of a face card that ``dets`` already has
        elsewhere (the two quads do not overlap by ``fallback_iou``), surer
        than that card's read by at least ``displace``, takes the card, and
        the other read goes.  Why: one pack holds each card once, so one of
        the two reads is wrong, and the surer is likelier right (blackjack
        ``heart3``: the queen's box reads "king" at 0.75 through a
        rectangle inside it, the real king, at the far edge, 0.98 by its
        index and whole face; the queen is then found by her index).

        >>> from tablecam.vision.detector import CardDetector
        >>> from tablecam.vision.proposals import card_quad
        >>> from tablecam.vision.settings import DetectorSettings
        >>> det = CardDetector.__new__(CardDetector)
        >>> det.settings, det.classes = DetectorSettings(size_at_place=False), ["HK", "HQ", "none"]
        >>> queen = Detection("HK", 0.75, (0.0, 0.0, 100.0, 140.0), card_quad((50.0, 70.0, 100.0, 0.0)))
        >>> king = {7: (0.98, 0, card_quad((400.0, 70.0, 100.0, 0.0)), np.array([0.98, 0.01, 0.01]))}
        >>> [(d.card, d.box[0]) for d in det._place_new(king, [queen], 100.0, 640, 480)]
        [('HK', 0.0)]
        >>> [(d.card, d.box[0]) for d in det._place_new(king, [queen], 100.0, 640, 480, displace=0.1)]
        [('HK', 350.0)]
        """
        from .localise import quad_iou

        placed = list(dets)
        for conf, ci, q, p in sorted(best.values(), key=lambda t: -t[0]):
            card = self.classes[ci]
            have = {d.card for d in placed if d.card != "back"}
            if displace > 0 and card in have:
                holder = next(d for d in placed if d.card == card)
                rest = [d for d in placed if d is not holder]
                if (conf >= holder.conf + displace and holder.quad is not None
                        and quad_iou(q, holder.quad) <= self.settings.fallback_iou
                        and self._new_card(card, q, have - {card}, rest, width)):
                    placed = rest + [self._detection(q, p, ci, conf, w, h)]
                continue
            if self._new_card(card, q, have, placed, width):
                placed.append(self._detection(q, p, ci, conf, w, h))
        return placed

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
        """Whether a quad ``q`` read as ``card`` is a card not yet
        reported: no card ``have`` names it, it overlaps no card ``placed``
        by more than ``fallback_iou`` (a back none by more than
        ``back_iou``: a back's pattern reads as a back through any
        rectangle on it, so such a read is that back again), and its width
        is within ``size`` (default ``width_share``) of ``width``, the usual
        card's (with ``size_at_place``, its size within ``size`` of the
        size the cards ``placed`` give at its place, :func:`_usual_size`).

        >>> from tablecam.vision.detector import CardDetector
        >>> from tablecam.vision.proposals import card_quad
        >>> from tablecam.vision.settings import DetectorSettings
        >>> det = CardDetector.__new__(CardDetector)
        >>> det.settings = DetectorSettings(fallback_iou=0.8, back_iou=0.45, width_share=0.25, size_at_place=False)
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
        if card == "back" and any(d.card == "back" and quad_iou(q, d.quad) > self.settings.back_iou for d in placed):
            return False
        size = self.settings.width_share if size is None else size
        if width and self.settings.size_at_place and placed:
            usual = _usual_size(placed, q)
            return not (usual and abs(_card_size(q) / usual - 1) > size)
        return not (width and abs(_short_side(q) / width - 1) > size)
