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


def _short_side(q: np.ndarray) -> float:
    return float(min(np.hypot(*(q[1] - q[0])), np.hypot(*(q[2] - q[1]))))


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
