"""Card images for the simulator: a deck's faces at the table plane's resolution.

Faces come from :func:`tablecam.training.faces.render_face` (any deck of
``list_decks()``), or from the plain built-in faces (``deck="plain"``, or
when that module is absent); bidding cards (``bid:<call>``) from
:mod:`tablecam.sim.bidding_box`.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def plain_face(card: str, w: int = 250, h: int = 350) -> np.ndarray:
    """A simple face (rank letters and a suit sign), used when no deck is available."""
    import cv2

    img = np.full((h, w, 3), 250, np.uint8)
    if card == "back":
        img[:] = (120, 50, 30)
        for k in range(-h, w, 14):
            cv2.line(img, (k, 0), (k + h, h), (150, 80, 50), 3)
        return img
    red = card[0] in "HD"
    col = (30, 30, 200) if red else (20, 20, 20)
    rank = "10" if card[1] == "T" else card[1]
    for flip in (False, True):
        layer = np.zeros_like(img)
        cv2.putText(layer, rank, (12, 62), cv2.FONT_HERSHEY_DUPLEX, 1.9, (255, 255, 255), 4, cv2.LINE_AA)
        _suit(layer, card[0], (40, 100), 22)
        if flip:
            layer = cv2.rotate(layer, cv2.ROTATE_180)
        img[layer[..., 0] > 128] = col
    _suit(img, card[0], (w // 2, h // 2), 60, col)
    return img


def _suit(img: np.ndarray, suit: str, c: tuple[int, int], r: int, col: Any = (255, 255, 255)) -> None:
    import cv2

    x, y = c
    if suit == "D":
        pts = np.array([(x, y - r), (x + int(r * .75), y), (x, y + r), (x - int(r * .75), y)], np.int32)
        cv2.fillPoly(img, [pts], col, cv2.LINE_AA)
    elif suit == "H":
        cv2.circle(img, (x - r // 2, y - r // 3), r // 2 + 1, col, -1, cv2.LINE_AA)
        cv2.circle(img, (x + r // 2, y - r // 3), r // 2 + 1, col, -1, cv2.LINE_AA)
        cv2.fillPoly(img, [np.array([(x - r, y - r // 5), (x + r, y - r // 5), (x, y + r)], np.int32)], col, cv2.LINE_AA)
    elif suit == "S":
        cv2.circle(img, (x - r // 2, y + r // 5), r // 2, col, -1, cv2.LINE_AA)
        cv2.circle(img, (x + r // 2, y + r // 5), r // 2, col, -1, cv2.LINE_AA)
        cv2.fillPoly(img, [np.array([(x - r, y + r // 4), (x + r, y + r // 4), (x, y - r)], np.int32)], col, cv2.LINE_AA)
        cv2.fillPoly(img, [np.array([(x, y), (x - r // 3, y + r), (x + r // 3, y + r)], np.int32)], col)
    else:
        for dx, dy in ((0, -r // 2), (-r // 2, r // 6), (r // 2, r // 6)):
            cv2.circle(img, (x + dx, y + dy), r // 2 - 1, col, -1, cv2.LINE_AA)
        cv2.fillPoly(img, [np.array([(x, y), (x - r // 3, y + r), (x + r // 3, y + r)], np.int32)], col)


class FaceBank:
    """Card images at the plane's resolution, rendered once per card (and bidding cards, ``bid:<call>``)."""

    def __init__(self, deck: str, size: tuple[int, int], bid_size: tuple[int, int] | None = None,
                 bid_design: int = 0, bid_tuning: bool = False) -> None:
        self.deck, self.size = deck, size
        self.bid_size = bid_size or (max(8, int(size[0] * 45 / 63)), max(8, int(size[1] * 90 / 88)))
        self.bid_design = bid_design          # which held-out bidding-box design (tablecam.sim.bidding_box)
        self.bid_tuning = bid_tuning          # a tuning design instead (bidding_box.tuning_design)
        self.cache: dict[str, np.ndarray] = {}
        self._render = None
        if deck != "plain":
            try:
                from ..training.faces import render_face
                self._render = render_face
            except ImportError:
                self._render = None

    def get(self, card: str) -> np.ndarray:
        import cv2

        if card not in self.cache:
            if card.startswith("bid:"):
                from .bidding_box import draw_card, held_out_design, tuning_design

                drawn = (tuning_design if self.bid_tuning else held_out_design)(self.bid_design)
                face = draw_card(card[4:], drawn)[..., ::-1]   # RGB -> BGR
                self.cache[card] = cv2.resize(np.ascontiguousarray(face), self.bid_size, interpolation=cv2.INTER_AREA)
                return self.cache[card]
            img = None
            if self._render is not None:
                try:
                    img = self._render(card, self.deck)
                except Exception:  # an unknown deck or a card it lacks: draw one instead
                    img = None
            if img is None:
                img = plain_face(card)
            self.cache[card] = cv2.resize(img, self.size, interpolation=cv2.INTER_AREA)
        return self.cache[card]


def rounded_mask(w: int, h: int, r: int) -> np.ndarray:
    import cv2

    mask = np.zeros((h, w), np.uint8)
    cv2.rectangle(mask, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cxy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(mask, cxy, r, 255, -1, cv2.LINE_AA)
    return mask

