"""The readers the camera pipeline uses by default: the shipped card classifier,
the learned card localiser and the still-image detector as a second opinion.

Why apart from :mod:`~tablecam.vision.pipeline`: the pipeline takes any
callables of these shapes (tests and benches pass their own), so how the
shipped models are loaded and wrapped is one job and the pipeline another.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .fusion import probs_dict
from .zones import CameraConfig

Classifier = Callable[[np.ndarray], Any]
Localise = Callable[[np.ndarray], list[tuple[float, float, float, float, float]]]
"""An image in, ``(x1, y1, x2, y2, conf)`` per card out (the learned localiser by default)."""


@dataclass
class Reading:
    """One card read: the card, how sure, and the class probabilities behind it."""

    card: str
    conf: float
    probs: Any = None
    classes: list[str] | None = None
    witness: str | None = None    # what re-ranked an unsure read ("pips", "second look alone", ...): the event stays uncertain


def default_classifier() -> Callable[[np.ndarray], Reading]:
    """The shipped model's card classifier (loaded on first use).

    Raises ``RuntimeError`` with a clear reason when the model is missing.
    """
    try:
        from . import detector

        det = detector.load_detector()
    except Exception as e:  # ImportError, a missing or unreadable model file (onnxruntime's own errors)
        raise RuntimeError(f"the card model is not available ({type(e).__name__}: {e})") from None

    def classify(crop: np.ndarray) -> Reading:
        # every class's probability, not the top few: an unsure read's candidates are re-ranked
        # (the pips, the hands the shoe dealt), and the right card may be far down the list
        p = det.read_found([crop])[0]
        i = int(np.argmax(p))
        return Reading(str(det.classes[i]), float(p[i]), p, list(det.classes))

    return classify


def default_localiser(cfg: CameraConfig) -> Localise:
    """The shipped learned card localiser (``models/card_localiser.onnx``), loaded now.

    Raises ``RuntimeError`` with a clear reason when the model is missing."""
    try:
        from .proposals import CardLocaliser

        loc = CardLocaliser(threads=1, conf=min(cfg.detection.conf, 0.25))
    except Exception as e:  # ImportError, a missing or unreadable model file (onnxruntime's own errors)
        raise RuntimeError(f"the card localiser is not available ({type(e).__name__}: {e})") from None

    def localise(image: np.ndarray) -> list[tuple[float, float, float, float, float]]:
        return [(*box, conf) for box, conf, _ in loc.proposals(image, sizes=(max(image.shape[:2]),))]

    return localise


SecondOpinion = Callable[[np.ndarray], list[tuple[str, float, np.ndarray, dict[str, float]]]]
"""A window of the frame in; ``(card, conf, quad in window px, probs)`` per card found in it."""


def default_second_opinion() -> SecondOpinion:
    """The still-image detector (``detector.detect``) on a window of the frame.

    Why: ``classify_card`` reads one rectified crop; ``detect`` reads the card
    through its index windows and several outlines as well, so it is surer
    (and slower).  The pipeline asks it only about a card the crop left
    unsure, so an unsure read becomes a sure one or stays honestly unsure."""
    from . import detector

    det = detector.load_detector()

    def opinion(window: np.ndarray) -> list[tuple[str, float, np.ndarray, dict[str, float]]]:
        out = []
        for d in det.detect(window):
            x1, y1, x2, y2 = d.box
            q = d.quad if d.quad is not None else np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64)
            out.append((d.card, float(d.conf), np.asarray(q, np.float64).reshape(4, 2), dict(d.probs)))
        return out

    return opinion


DISPUTE_FROM = 0.5
"""A crop's read of a card this likely (likelier than all the others together) disputes a second
look that reads another card."""


def second_reading(first: Reading, card: str, conf: float, probs: dict[str, float] | None,
                   sure: float, jokers: bool, stands: bool = False) -> Reading | None:
    """What the second look's read ``card`` at ``conf`` makes of the crop's read ``first``: a
    reading that replaces it, or None when the first stands (the second is no surer than
    ``sure`` and the first, it is a back or no card, or a joker where the pack has none).

    Two readers that disagree make no sure card, so the replacement carries a witness (its event
    is uncertain) where the crop's read gave the card no chance (at 480p detect() too reads a five
    for a six, surely), or leant to another card, likelier than all the others together (the
    tuning deck's king of spades read so at 0.64 on real cloth at 720p, 33 degrees, and as the
    ace by detect() at 0.80).  A read whose rank the card's pips gave
    (``witness="pips"``) stands against a second look of another rank: nine
    pips are no joker, which detect() read a glossy 480p nine as, at 0.93.  So does a read
    the whole face agreed with (``stands``, :func:`~tablecam.vision.whole_card.agreed`) against a
    second look of another card: two readers of different parts of the card outweigh a third
    that reads the same index again (a 480p jack of spades the crop read at 0.77 and the whole
    face at 0.91, which detect() read as the jack of clubs).

    >>> crop = Reading("SK", 0.64, {"SK": 0.64, "SA": 0.16})
    >>> second_reading(crop, "SA", 0.80, {"SA": 0.80}, 0.8, False).witness
    'second look disputed'
    >>> second_reading(Reading("S6", 0.4, {"S6": 0.4, "S5": 0.3}), "S5", 0.9, None, 0.8, False).witness is None
    True
    >>> second_reading(crop, "JK", 0.95, None, 0.8, False) is None    # a blurred face, no joker in the pack
    True
    >>> second_reading(Reading("S9", 0.4, {"S9": 0.4}, witness="pips"), "JK", 0.93, None, 0.8, True) is None
    True
    >>> second_reading(Reading("SJ", 0.77, {"SJ": 0.77, "CJ": 0.19}), "CJ", 0.87, None, 0.8, False, stands=True) is None
    True
    """
    if card in ("back", "none") or conf < max(first.conf, sure) or (card == "JK" and not jokers):
        return None
    if first.witness == "pips" and _rank(card) != _rank(first.card):
        return None              # the pips counted on the card say another rank: the count stands
    if stands and card != first.card:
        return None              # the index and the whole face agree: a third read of the index does not outvote them
    alone = probs_dict(first.probs, first.classes).get(card, 0.0) < 0.05
    disputed = first.card != card and first.card not in ("back", "none") and first.conf >= DISPUTE_FROM
    witness = "second look alone" if alone else "second look disputed" if disputed else None
    return Reading(card, conf, probs or {card: conf}, witness=witness)


def _rank(card: str) -> str:
    return card[1:] if len(card) == 2 and card != "JK" else card


def localiser_input(cfg: CameraConfig) -> int:
    """Pixels of the localiser's input (long side): a card's short side spans ``min_card_px``.

    >>> localiser_input(CameraConfig.load())
    320
    """
    if cfg.detection.input_px:
        return int(cfg.detection.input_px)
    g = cfg.geometry
    want = max(g.width_mm, g.height_mm) / min(cfg.card_mm) * cfg.detection.min_card_px
    return int(max(320, min(1280, -(-want // 32) * 32)))


def _as_reading(r: Any) -> Reading:
    if isinstance(r, Reading):
        return r
    card, conf, *rest = r
    return Reading(str(card), float(conf), rest[0] if rest else None)


TRUE_TO_SIZE = 0.08
"""An outline whose sides are within this share of the card's is the card's own (the view's outlines
are good to a millimetre or two); a rectangle fitted across half a card, or cut short by the changed
patch of a card still settling, is further off."""


def outline_rank(r: Reading, sized: bool, small: bool, uncertain_below: float, min_conf: float,
                 sure_back: float) -> tuple[int, int, int, float]:
    """How good the read through one outline is, for the surest of a card's outlines.

    A sure face first, then a back read as surely as backs read: an outline
    cut askew across a card reads as a back or as nothing while the card's
    own outline reads its face.  Then an unsure face over the floor, a back,
    nothing; of two unsure faces, the one read through an outline the card's
    size (``sized``): a rectangle fitted across half a card at 0.7 px/mm
    reads some face at 0.3 as readily as the whole card does, and its crop
    is the card turned and squeezed.

    A card seen ``small`` (where its whole face is read too) is read
    through its own outline whatever its corners say: read as nothing there,
    it is still read by its whole face and looked at again, while the whole
    face cannot read a squeezed crop either.  Seen larger, its corners are
    all there is, and an unsure face read through the changed patch of a
    card still settling (its outline cut short or grown by a finger) beats
    nothing read through the card's size.

    >>> joker_half, king = Reading("JK", 0.3), Reading("DK", 0.26)
    >>> outline_rank(joker_half, False, True, 0.8, 0.25, 0.9) < outline_rank(king, True, True, 0.8, 0.25, 0.9)
    True
    >>> outline_rank(Reading("HK", 0.9), False, True, 0.8, 0.25, 0.9) > outline_rank(king, True, True, 0.8, 0.25, 0.9)
    True
    >>> settling, paper = Reading("DJ", 0.63), Reading("none", 0.97)
    >>> outline_rank(settling, False, False, 0.8, 0.25, 0.9) > outline_rank(paper, True, False, 0.8, 0.25, 0.9)
    True
    >>> outline_rank(settling, False, True, 0.8, 0.25, 0.9) > outline_rank(paper, True, True, 0.8, 0.25, 0.9)
    False
    """
    face = r.card not in ("back", "none")
    if face and r.conf >= uncertain_below:
        return (2, 1, 4, r.conf)
    if r.card == "back" and r.conf >= sure_back:
        return (1, 1, 3, r.conf)
    tier = 2 if face and r.conf >= min_conf else 1 if r.card == "back" else 0
    return (0, int(sized), tier, r.conf) if small else (0, tier, int(sized) if tier == 2 else 1, r.conf)
