"""Face-down cards in the back localiser's boxes.

The card localiser leaves some backs without a box; the back localiser
(``card_back_localiser.onnx``) boxes them, and its boxes are searched for
backs only.
"""

from __future__ import annotations

import numpy as np

from .detections import Detection, _usual_width
from .proposals import box_iou as _iou


class BackBoxes:
    """Backs in the back localiser's boxes (a part of :class:`~tablecam.vision.detector.CardDetector`)."""

    def _backs_in_back_boxes(self, image_bgr: np.ndarray, props: list, dets: list[Detection]) -> list[Detection]:
        """Backs in the back localiser's boxes.

        The card localiser, trained where one card in ten lay face down,
        leaves some backs without a box (a lone back on a checkered
        cloth), and a back under a fanned or piled face card is read
        through its box as that card again.  The back localiser
        (``card_back_localiser.onnx``, localiser stage 4, trained with 35%
        of the cards face down) boxes them, but as the only localiser it
        added false face cards, so its boxes are searched for backs only.
        A box overlapping a card found by more than
        ``back_boxes_found_iou`` is that card and is passed over (with
        ``back_boxes_new`` under 1, so is one a card-localiser box matches
        by more than that).  The rest are read through the box's own quad
        when the model gives oriented boxes (``back_boxes_oriented``; the
        shipped stage 4 gives axis-aligned ones, the oriented stage 5 did
        not find more backs), the rectangles inscribed in the box, the
        local quads, the fitted ones and, in a box on a found face card,
        that card's siblings (:meth:`_face_under`, :meth:`_siblings`),
        as a found card is read (with the back check); with ``back_boxes_check``
        only the rectangles the back check alone gives that P(back) are
        read (a third of the step's cost; the same cards).  With
        ``back_boxes_past_found`` the reads of face cards already found are
        passed over - a back half under a found card shows that card's
        index through some of its rectangles - and the box's surest other
        read must be a back of ``back_boxes`` (on open table, where a
        flyer or wood grain reads 0.93) or ``back_boxes_under`` (a box
        overlapping a found face card by ``back_boxes_under_iou``).  It
        is placed as a new back (:meth:`_place_new`; with
        ``back_boxes_any_size`` of any width, since the box, not a nudged
        guess, gave its size)."""
        from .localise import warp_card
        from .proposals import box_quads, fitted_quads, local_quads

        kept = [(b, q) for b, _, q in self.back_localiser.proposals(image_bgr)
                if not any(_iou(b, p[0]) > self.settings.back_boxes_new for p in props)
                and not any(_iou(b, d.box) > self.settings.back_boxes_found_iou for d in dets)]
        if not kept:
            return []
        boxes = [b for b, _ in kept]
        # an oriented-box model says how the card lies: its quad is the card's own outline
        oriented = [[q] if q is not None and self.settings.back_boxes_oriented else [] for _, q in kept]
        width = _usual_width(dets)
        under = [self._face_under(b, dets) for b in boxes]
        quads = [(bi, q) for bi, b in enumerate(boxes)
                 for q in oriented[bi] + box_quads(b) + local_quads(image_bgr, b)
                 + (fitted_quads(image_bgr, b, top=self.back_boxes_fitted, width=width)
                    if self.back_boxes_fitted else [])
                 + self._siblings(b, under[bi])]
        cards = [warp_card(image_bgr, q) for _, q in quads]
        check = getattr(self.classifier, "check", None)
        looked = check is not None and bool(quads) and self.settings.back_boxes_check > 0
        said = check.probs(cards) if looked else None
        if self.settings.back_boxes_check > 0 and said is not None:
            keep = [i for i, b in enumerate(said[:, check.classes.index("back")]) if b >= self.settings.back_boxes_check]
            quads, cards = [quads[i] for i in keep], [cards[i] for i in keep]
        back = self.classes.index("back")
        found = {self.classes.index(d.card) for d in dets if d.card != "back"} if self.settings.back_boxes_past_found else set()
        # the box's surest card must be a back (a degenerate box gives no rectangle, so no read), of the
        # floor under a found face card or the one on open table
        best = {bi: r for bi, r in self._surest_reads(image_bgr, quads, lambda ci: 2.0 if ci in found else 0.0,
                                                      cards).items()
                if r[1] == back and r[0] >= (self.back_boxes_under if under[bi] is not None else self.settings.back_boxes)}
        h, w = image_bgr.shape[:2]
        return self._place_new(best, dets, None if self.settings.back_boxes_any_size else width, w, h)

    def _face_under(self, box, dets: list[Detection]) -> Detection | None:
        """The found face card ``box`` overlaps most, when by
        ``back_boxes_under_iou`` or more: the box is then a back under a
        fanned or piled card (floor ``back_boxes_under``, not
        ``back_boxes``; that card's siblings are read)."""
        near = max(((_iou(box, d.box), i) for i, d in enumerate(dets) if d.card != "back"), default=(0.0, -1))
        return dets[near[1]] if near[0] >= self.settings.back_boxes_under_iou else None

    def _siblings(self, box, card: Detection | None) -> list[np.ndarray]:
        """With ``back_boxes_siblings``, cards the size of the found face
        ``card`` the box lies under (:meth:`_face_under`), turned a little
        from it and centred on the box
        (:func:`~tablecam.vision.proposals.sibling_quads`)."""
        from .proposals import sibling_quads

        if not self.settings.back_boxes_siblings or card is None or card.quad is None:
            return []
        t = self.settings.sibling_turn
        return sibling_quads(box, card.quad, turns=(-t, 0.0, t) if t else (0.0,), shift=self.settings.sibling_shift)
