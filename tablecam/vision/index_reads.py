"""Cards seen only by their index (``card_index.onnx``).

A card the box localiser could not outline - nearly always because other
cards lie on it - may still show an index corner; the index localiser
boxes such windows, and each window's card quads are read.
"""

from __future__ import annotations

import numpy as np

from .detections import Detection, _short_side

# a card read from its index that found cards cover this little is clear of them (``index_floor_open``)
OPEN_SHARE = 0.02



def _covered_share(quads: list[np.ndarray], found: list[np.ndarray], w: int, h: int, scale: float = 0.25
                   ) -> list[float]:
    """The share of each quad's area that the quads ``found`` cover (on a
    grid ``scale`` of the picture's).  A card seen by its index alone is
    one the box localiser could not outline, nearly always because other
    cards lie on it; an index read on bare table is more often a found
    card's pips or a back's artwork.

    >>> sq = lambda x, y: np.array([[x, y], [x + 100, y], [x + 100, y + 100], [x, y + 100]], np.float32)
    >>> [round(v, 1) for v in _covered_share([sq(0, 0), sq(0, 100), sq(200, 200)], [sq(0, 50)], 400, 400)]
    [0.5, 0.5, 0.0]
    """
    import cv2

    gw, gh = max(1, int(w * scale)), max(1, int(h * scale))
    cover = np.zeros((gh, gw), np.uint8)
    for q in found:
        cv2.fillPoly(cover, [np.round(np.asarray(q) * scale).astype(np.int32)], 1)
    out = []
    for q in quads:
        m = np.zeros((gh, gw), np.uint8)
        cv2.fillPoly(m, [np.round(np.asarray(q) * scale).astype(np.int32)], 1)
        area = int(m.sum())
        out.append(float((m & cover).sum()) / area if area else 0.0)
    return out


class IndexReads:
    """Cards found by their index alone (a part of :class:`~tablecam.vision.detector.CardDetector`)."""

    def _by_index(self, image_bgr: np.ndarray, found: list[Detection]) -> list[Detection]:
        """``found`` and the cards seen only by their index, in up to
        ``index_rounds`` rounds of :meth:`_from_indexes`.  A card a round
        finds changes what the next one looks for: the usual card's size,
        so the size the index localiser sees the picture at
        (:meth:`_index_sizes`) and the windows it gives, which cards are
        still to find, and the found cards an unsure read may lie under
        (``index_under_share``).  In the tuning fans an ace and a three of
        spades a first round missed showed their index to the second
        (docs/detector-settings.md, nineteenth session).  A round at the
        size of the one before reuses its windows' reads."""
        reads: dict = {}
        for _ in range(max(1, self.settings.index_rounds)):
            new = self._from_indexes(image_bgr, found, reads)
            if not new:
                break
            found = found + new
        return found

    def _from_indexes(self, image_bgr: np.ndarray, found: list[Detection],
                      memo: dict | None = None) -> list[Detection]:
        """Cards seen only by their index (``card_index.onnx``): each index
        window's card quads are read (:meth:`_index_candidates`, :meth:`_read_indexes`), and a sure read
        (``index_floor``) of a card not yet found, whose quad is not one
        found already and whose width is within ``index_size`` of the usual
        card's, is a new card.  ``memo`` keeps the reads by input size for
        the next round (:meth:`_by_index`)."""
        h, w = image_bgr.shape[:2]
        sizes = self._index_sizes(found, w, h)
        memo = {} if memo is None else memo
        if sizes not in memo:
            memo[sizes] = (self._index_windows_quads(image_bgr, sizes), {}, {})
        base, fits, read = memo[sizes]
        cover = [d.quad for d in found if d.quad is not None]
        width = float(np.median([_short_side(q) for q in cover])) if cover else None
        quads = self._index_candidates(image_bgr, base, fits, found, width)
        todo = [q for q in quads if id(q) not in read]
        if todo:
            read.update(zip(map(id, todo), self._read_indexes(image_bgr, todo)))
        probs = [read[id(q)] for q in quads]
        if not quads:
            return []
        reads = []
        for q, p in zip(quads, probs):
            ci = int(np.argmax(p))
            if self.classes[ci] not in ("none", "back") and p[ci] >= self._floor(ci, self.index_floor_under,
                                                                                  self.settings.min_conf_rare):
                reads.append((float(p[ci]), ci, q, p))
        unsure = [r for r in reads if r[0] < self.settings.index_floor]
        # an unsure read stands under found cards or clear of them; partly on one it is mostly that card's pips
        dropped = {id(r) for r, share in zip(unsure, _covered_share([r[2] for r in unsure], cover, w, h))
                   if not (share >= self.settings.index_under_share or (share <= OPEN_SHARE and r[0] >= self.settings.index_floor_open))}
        reads = [r for r in reads if id(r) not in dropped]
        have, placed, new = {d.card for d in found}, list(found), []
        for conf, ci, q, p in sorted(reads, key=lambda r: -r[0]):
            card = self.classes[ci]
            if self._new_card(card, q, have, placed, width, size=self.settings.index_size):
                d = self._detection(q, p, ci, conf, w, h)
                new.append(d)
                placed.append(d)
                have.add(card)
        return new

    def _index_windows_quads(self, image_bgr: np.ndarray, sizes: tuple[int, ...] | None) -> list[np.ndarray]:
        """The card quads of the index windows the index localiser gives at
        ``sizes``: each window gives two
        (:func:`~tablecam.vision.indexes.card_quads`)."""
        from .indexes import card_quads

        wins = [q for _, _, q in self.indexer.proposals(image_bgr, sizes) if q is not None]
        return [cq for win in wins for cq in card_quads(win)]

    def _index_candidates(self, image_bgr: np.ndarray, base: list[np.ndarray], fits: dict[int, np.ndarray | None],
                          found: list[Detection], width: float | None) -> list[np.ndarray]:
        """The card quads of the index windows that could be a new card
        beside ``found`` (:meth:`_may_be_new`), and with ``index_fit`` each
        also laid on the image edges meeting near its corner
        (:func:`~tablecam.vision.indexes.fit_corner`: a window a few pixels
        off halves a small index's read).  A fitted quad keeps its quad's
        size, so only the quads of the usual card's width are fitted;
        ``fits`` keeps the fitted quads by quad for the next round."""
        from .indexes import fit_corner

        s = self.settings
        sized = [i for i, q in enumerate(base) if self._may_be_new(q, [], width, s.index_size)]
        if s.index_fit:
            for i in sized:
                if i not in fits:
                    fits[i] = fit_corner(image_bgr, base[i], shift=s.index_fit_shift, reach=s.index_fit_reach)
        quads = [base[i] for i in sized] + [fits[i] for i in sized if s.index_fit and fits[i] is not None]
        return [q for q in quads if self._may_be_new(q, found, None, s.index_size)]

    def _read_indexes(self, image_bgr: np.ndarray, quads: list[np.ndarray]) -> list[np.ndarray]:
        """The reads of card quads from their top-left index alone
        (:func:`~tablecam.vision.indexes.read_index`, ``read_views`` windows
        for a quad whose first window gives a card ``index_gate`` likely,
        with ``side_suits`` the suit on the top edge's other end)."""
        from .indexes import read_index

        rd = self.index_reader
        not_cards = tuple(i for i, c in enumerate(rd.classes) if c in ("none", "back"))
        return list(read_index(image_bgr, quads, rd.probs, rd.corner_box, rd.input_size, views=self.settings.read_views,
                               side_classes=self.classes if self.settings.side_suits else None,
                               gate=self.settings.index_gate, not_cards=not_cards))

    def _index_sizes(self, found: list[Detection], w: int, h: int) -> tuple[int, ...] | None:
        """The index localiser's input size for this picture: the one that
        shows the cards found at ``index_card_px`` tall, the size its
        training scenes showed them (a card is 43-132 px there), so an
        index is as big to it in a close-up photo as in a wide table view;
        None (the model's own sizes) when nothing was found yet or
        ``index_card_px`` is 0.

        >>> from tablecam.vision.detector import CardDetector
        >>> from tablecam.vision.proposals import card_quad
        >>> from tablecam.vision.settings import DetectorSettings
        >>> det = CardDetector.__new__(CardDetector)
        >>> det.settings = DetectorSettings(index_card_px=100.0)
        >>> cards = [Detection("S7", 0.9, (0, 0, 100, 140), card_quad((50.0, 70.0, 100.0, 0.0)))]
        >>> det._index_sizes(cards, 1280, 720), det._index_sizes([], 1280, 720)
        ((928,), None)
        """
        tall = [max(np.hypot(*(d.quad[1] - d.quad[0])), np.hypot(*(d.quad[2] - d.quad[1])))
                for d in found if d.quad is not None]
        if not tall or self.settings.index_card_px <= 0:
            return None
        size = max(w, h) * self.settings.index_card_px / float(np.median(tall))
        return (int(min(1600, max(320, round(size / 32) * 32))),)
