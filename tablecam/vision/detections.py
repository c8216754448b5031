"""What the detector reports, and the rules that make one report per card.

:class:`Detection` is one card seen in a picture; the helpers here are
shared by every step of :class:`~tablecam.vision.detector.CardDetector`
(the usual card width of a picture, one detection per card).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .proposals import box_iou as _iou


@dataclass
class Detection:
    """One card seen in an image.

    ``card`` is a canonical code (``SA``, ``HT``, ``JK``) or ``back`` for a
    face-down card; ``box`` is (x1, y1, x2, y2) in input-image pixels;
    ``quad`` the card's four corners (clockwise, a short edge first);
    ``probs`` the top-k card probabilities, for fusion with the shoe's
    knowledge of each hand.
    """

    card: str
    conf: float
    box: tuple[float, float, float, float]
    quad: np.ndarray | None = None
    probs: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict:
        """The contract's JSON form: card, conf, box (rounded)."""
        return {"card": self.card, "conf": round(float(self.conf), 4),
                "box": [round(float(v), 1) for v in self.box]}



def _top_probs(p: np.ndarray, classes: list[str], k: int = 5) -> dict[str, float]:
    idx = np.argsort(-p)[:k]
    return {classes[i]: float(p[i]) for i in idx if classes[i] != "none"}


def _usual_width(dets: list[Detection]) -> float | None:
    """The median short side of the cards found: the cards of one picture are about one size."""
    return float(np.median([_short_side(d.quad) for d in dets])) if dets else None


def _card_size(q: np.ndarray) -> float:
    """A card's size in the picture, the square root of its quad's area.

    Why not its short side: a camera looking down at a slant shortens a
    card along the line of sight, so a card lying sideways shows a short
    side a quarter narrower than one lying upright beside it; the area is
    shortened alike at any turn.

    >>> _card_size(np.array([[0, 0], [60, 0], [60, 90], [0, 90]], np.float32))
    73.48...
    """
    import cv2

    return float(np.sqrt(abs(cv2.contourArea(np.asarray(q, np.float32).reshape(4, 2)))))


FIT_CARDS = 6
"""Cards found that :func:`_usual_size` fits the picture's slant to (edje
``IMG_2611``: four cards, two half covered, fitted so that the ace beside
them was taken for a card of another size)."""


def _usual_size(dets: list[Detection], near: np.ndarray) -> float | None:
    """The size (:func:`_card_size`) a card of the pack of ``dets`` has at
    the quad ``near``: the cards of one pack are one size, and a slanted
    camera shows the far row smaller than the near one (blackjack-tracker
    ``surface3``: 89 at the far edge, 126-130 at the near one).  On a flat
    table the inverse of that size is an affine function of the place in
    the picture, fitted to the cards found when there are ``FIT_CARDS``
    or more (and kept within their sizes: a few cards, some partly
    covered, say little of the far and the near edge); else their median
    size.

    >>> from tablecam.vision.proposals import card_quad
    >>> row = lambda y, w: [Detection("S2", 0.9, (0, 0, 1, 1), card_quad((x, y, w, 0.0))) for x in (100, 300, 500)]
    >>> cards = row(100, 70) + row(500, 100)  # six cards: two rows of three
    >>> [round(_usual_size(cards, card_quad((200, y, 80, 0.0))) / _card_size(card_quad((0, 0, 1, 0.0))), 1)
    ...  for y in (100, 500)]
    [70.0, 100.0]
    """
    quads = [np.asarray(d.quad, np.float64).reshape(4, 2) for d in dets if d.quad is not None]
    if not quads:
        return None
    sizes = np.array([_card_size(q) for q in quads])
    usual = float(np.median(sizes))
    if len(quads) < FIT_CARDS:
        return usual
    centres = np.array([q.mean(0) for q in quads])
    a = np.column_stack([centres, np.ones(len(quads))])
    coef, *_ = np.linalg.lstsq(a, 1.0 / sizes, rcond=None)
    inv = float(np.append(np.asarray(near, np.float64).reshape(4, 2).mean(0), 1.0) @ coef)
    return float(np.clip(1.0 / inv, sizes.min(), sizes.max())) if inv > 0 else usual


def _short_side(q: np.ndarray) -> float:
    return float(min(np.hypot(*(q[1] - q[0])), np.hypot(*(q[2] - q[1]))))


def _long_side(quad: np.ndarray) -> float:
    """The mean length of a quad's two longer sides, in pixels.

    >>> _long_side(np.array([[0, 0], [60, 0], [60, 90], [0, 90]], np.float32))
    90.0
    """
    q = np.asarray(quad, np.float64).reshape(4, 2)
    sides = sorted(float(np.hypot(*(q[(i + 1) % 4] - q[i]))) for i in range(4))
    return (sides[2] + sides[3]) / 2


def _one_per_card(dets: list[Detection], nms_iou: float = 0.85, quads: bool = True,
                  back_iou: float = 0.5) -> list[Detection]:
    """A card is reported once: two detections of the same code whose boxes
    overlap are one card (keep the surer), and of two quads covering the
    same place (quad IoU above ``nms_iou``) the surer read wins.  Backs may
    repeat, but two backs whose boxes overlap by more than ``back_iou`` are
    one face-down card seen through two boxes (a pile of face-down cards
    cannot be counted from above anyway)."""
    from .localise import quad_iou

    dets = sorted(dets, key=lambda d: -d.conf)
    kept: list[Detection] = []
    for d in dets:
        dup = False
        for k in kept:
            if k.card == d.card and d.card != "back" and _iou(k.box, d.box) > 0.1:
                dup = True
                break
            if quads and k.quad is not None and d.quad is not None and quad_iou(k.quad, d.quad) > nms_iou:
                dup = True
                break
            if _iou(k.box, d.box) > (back_iou if k.card == d.card == "back" else 0.85):
                dup = True
                break
        if not dup:
            kept.append(d)
    return kept


__all__ = ["Detection"]
