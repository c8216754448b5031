"""A card seen small, read by its whole face: the second witness of a low-resolution read.

Below about 0.9 frame pixels a millimetre (480p over a card table, or the
far side of a tilted 720p view) a card's index is 3 to 6 pixels tall and
the corner classifier, which reads the index, mixes up ranks and suits.
The rest of the card still shows what a player across the room sees: how
many pips and where, their colour, a court card's picture.  This reader
looks at the whole rectified card at 40x56 (about what such a camera
gives) and says how likely each of the 52 cards and the joker is.

Its read is multiplied into the corner read (:func:`with_whole_card`): the
two look at different parts of the card, so where they agree the card is
surer, and where the whole face outweighs the index the likeliest card
changes - then the read carries ``witness="whole card"`` and its event goes
out ``uncertain`` (a camera unsure at this resolution says so).  A read the
whole face agrees with is left as it was.

The network is trained on rendered cards seen through a webcam at 0.35-1.0
px/mm (:mod:`tablecam.training.whole_card`); ``models/README.md`` gives its
recipe and figures.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .classify import CARD_CODES, _softmax, onnx_session
from .fusion import probs_dict
from .readers import Reading

CLASSES: list[str] = CARD_CODES + ["JK"]
VIEW_W, VIEW_H = 40, 56
"""The reader's view of the card: 40x56, the 63x88 mm card at about 0.64 px/mm."""

BELOW_PX_PER_MM = 0.9
"""Cards seen at fewer frame pixels a millimetre than this are read by their whole face too."""

MODEL = Path(__file__).with_name("models") / "whole_card.onnx"


def view(card_bgr: np.ndarray) -> np.ndarray:
    """A rectified card (any size, portrait) as the reader's (3, 56, 40) uint8 input.

    >>> view(np.zeros((350, 250, 3), np.uint8)).shape
    (3, 56, 40)
    """
    import cv2

    small = cv2.resize(card_bgr, (VIEW_W, VIEW_H), interpolation=cv2.INTER_AREA)
    return np.ascontiguousarray(small.transpose(2, 0, 1))


class WholeCardReader:
    """The ONNX whole-card reader: P(card) over :data:`CLASSES` per rectified card.

    Both ends of the card are looked at (it is read the same turned end over
    end) and the two reads averaged.  The network is loaded at the first
    read, not when a pipeline starts: a camera at 720p and up never asks."""

    def __init__(self, path: str | Path = MODEL, threads: int = 1):
        self.path, self.threads = Path(path), threads
        self._session = self._input = None
        meta = self.path.with_suffix(".json")
        self.classes: list[str] = json.loads(meta.read_text()).get("classes", CLASSES) if meta.exists() else CLASSES

    def probs(self, card_bgr: np.ndarray) -> dict[str, float]:
        if self._session is None:
            self._session = onnx_session(self.path, self.threads)
            self._input = self._session.get_inputs()[0].name
        v = view(card_bgr)
        x = np.stack([v, v[:, ::-1, ::-1]]).astype(np.float32) / 255.0
        p = _softmax(self._session.run(None, {self._input: np.ascontiguousarray(x)})[0]).mean(0)
        return {c: float(v) for c, v in zip(self.classes, p)}


def default_reader() -> WholeCardReader | None:
    """The shipped reader, or None where its model is not installed."""
    return WholeCardReader(MODEL) if MODEL.exists() else None


def _best(whole: dict[str, float]) -> tuple[str, float]:
    """The whole face's likeliest card and its probability."""
    top = max(whole, key=whole.__getitem__)
    return top, whole[top]


def multiplied(corner: dict[str, float], whole: dict[str, float]) -> dict[str, float] | None:
    """The corner read ``corner`` times the whole face's ``whole``, summing to 1; the codes the whole
    face does not know (``back``, ``none``) keep their weight against the faces' mean.  None where
    either read is empty or they share no weight.

    >>> out = multiplied({"S6": 0.3, "S4": 0.5, "none": 0.2}, {"S6": 0.8, "S4": 0.1, "JK": 0.1})
    >>> {c: round(v, 2) for c, v in out.items()}
    {'S6': 0.67, 'S4': 0.14, 'none': 0.19}
    """
    if not corner or not whole:
        return None
    mean = sum(whole.values()) / len(whole)
    out = {c: v * whole.get(c, mean) for c, v in corner.items()}
    total = sum(out.values())
    if total <= 0:
        return None
    return {c: v / total for c, v in out.items()}


def agreeing(p: np.ndarray, classes: list[str], whole: dict[str, float], top: bool = True) -> np.ndarray | None:
    """The corner read ``p`` (over ``classes``) times the whole face's read, when the two name the
    same likeliest card; else None.

    Why agreement, not the product alone: on a still picture nothing else
    vouches for a quad, and the whole-card reader, which has no "not a
    card" class, names some card for a strip of table too.  Two readers
    that look at different parts of the card and name the same card are
    the evidence a card read unsurely by its index needs.

    ``top=False`` asks less of the whole face: the product must still
    name the corner read's likeliest card, but the whole face's own
    likeliest may be another (a king seen through a quad a little off
    the card reads "joker" 0.58, "king" 0.17 by its whole face; the
    index gives the joker no chance, so the product is the king).

    >>> agreeing(np.array([0.45, 0.35, 0.2]), ["CQ", "C6", "none"], {"CQ": 0.7, "C6": 0.1}).round(2)
    array([0.73, 0.08, 0.19], dtype=float32)
    >>> agreeing(np.array([0.45, 0.35, 0.2]), ["CQ", "C6", "none"], {"CQ": 0.1, "C6": 0.7}) is None
    True
    >>> leaning = {"CQ": 0.3, "JK": 0.6, "C6": 0.1}
    >>> agreeing(np.array([0.45, 0.35, 0.2]), ["CQ", "C6", "none"], leaning) is None
    True
    >>> agreeing(np.array([0.45, 0.35, 0.2]), ["CQ", "C6", "none"], leaning, top=False).round(2)
    array([0.57, 0.15, 0.28], dtype=float32)
    >>> agreeing(np.array([0.45, 0.35, 0.2]), ["CQ", "C6", "none"], {"CQ": 0.1, "C6": 0.7}, top=False) is None
    True
    """
    if not whole or (top and _best(whole)[0] != classes[int(np.argmax(p))]):
        return None
    out = multiplied(dict(zip(classes, map(float, p))), whole)
    if out is None or max(out, key=out.get) != classes[int(np.argmax(p))]:
        return None
    return np.array([out[c] for c in classes], np.float32)


def with_whole_card(r: Reading, whole: dict[str, float]) -> Reading:
    """``r`` with the whole face's read multiplied in (``whole``: P(card) over the faces it knows).

    The corner read's ``back`` and ``none`` keep their weight against the
    faces' mean; a read whose likeliest card is unchanged is returned as it
    was, one whose likeliest card changes carries ``witness="whole card"``.

    >>> classes = ["S6", "S4", "none"]
    >>> r = Reading("S4", 0.5, np.array([0.3, 0.5, 0.2]), classes)
    >>> w = with_whole_card(r, {"S6": 0.8, "S4": 0.1})
    >>> w.card, w.witness, round(w.conf, 2)
    ('S6', 'whole card', 0.63)
    >>> with_whole_card(r, {"S6": 0.2, "S4": 0.7}) is r
    True
    """
    p = probs_dict(r.probs, r.classes)
    out = multiplied(p, whole)
    if out is None:
        return r
    card = max(out, key=out.__getitem__)
    if card == r.card:
        return r
    return Reading(card, out[card], out, None, witness="whole card")


def whole_of(reader: WholeCardReader | None, r: Reading, card_bgr: np.ndarray, px_per_mm: float,
             sure_back: float = 0.9) -> dict[str, float] | None:
    """The whole face's read of a card seen at ``px_per_mm`` (frame pixels a millimetre where it
    lies) and read ``r`` by its corners, when it is seen under :data:`BELOW_PX_PER_MM`; None for a
    back read as surely as backs read, a card seen larger, or no reader."""
    if reader is None or px_per_mm >= BELOW_PX_PER_MM or (r.card == "back" and r.conf >= sure_back):
        return None
    return reader.probs(card_bgr)


def read_small(reader: WholeCardReader | None, r: Reading, card_bgr: np.ndarray, px_per_mm: float,
               sure_back: float = 0.9) -> Reading:
    """``r`` with the whole face read in (:func:`with_whole_card`) where :func:`whole_of` asks it;
    else ``r`` as it was."""
    whole = whole_of(reader, r, card_bgr, px_per_mm, sure_back)
    return r if whole is None else with_whole_card(r, whole)


NAMES_FROM = 0.5
"""The whole face names a card when it gives it at least this: then its faces are the candidates
of a card the corners cannot read (:func:`named_by_whole`)."""


def agreed(r: Reading, whole: dict[str, float] | None, least: float = NAMES_FROM) -> bool:
    """Whether the whole face names the card ``r`` reads (its best card, at least ``least``).

    >>> agreed(Reading("SJ", 0.77, {"SJ": 0.77}), {"SJ": 0.91, "CJ": 0.07}), agreed(Reading("SJ", 0.77), None)
    (True, False)
    """
    if not whole:
        return False
    top, p = _best(whole)
    return top == r.card and p >= least


def named_by_whole(r: Reading, whole: dict[str, float] | None, least: float = NAMES_FROM) -> Reading | None:
    """A card the corners read as no card, or under the least a read needs, whose whole face names
    a card (at least ``least``, not the joker): the read whose faces are the corners' faces times the
    whole face's, with ``witness="whole card"``; ``r`` itself where the whole face has already
    changed it; None where the whole face names nothing.

    Why: at 480p a glossy top's reflection or a blurred index leaves the
    corners reading paper (``none``) while the pips, their colour and a
    court card's picture still show; on the video benchmark's tuning
    renders the whole-card reader gives its best card 0.5 or more on such
    rests only where the card is right, and on the table, the print of a
    layout and a held hand 0.03-0.2.  The event stays ``uncertain``.

    >>> corner = Reading("none", 0.4, {"none": 0.4, "SQ": 0.02, "JK": 0.07, "D2": 0.03}, None)
    >>> named = named_by_whole(corner, {"SQ": 0.55, "SJ": 0.1, "JK": 0.01})
    >>> named.card, named.witness
    ('SQ', 'whole card')
    >>> named_by_whole(corner, {"SQ": 0.3, "SJ": 0.2}) is None
    True
    """
    if not whole:
        return None
    top, p = _best(whole)
    if p < least or top == "JK":
        return None
    if r.witness == "whole card":
        return r
    faces = {c: v for c, v in probs_dict(r.probs, r.classes).items() if c not in ("none", "back")}
    out = multiplied(faces, whole)
    if out is None:
        return None
    card = max(out, key=out.__getitem__)
    return Reading(card, out[card], out, None, witness="whole card")


__all__ = ["WholeCardReader", "with_whole_card", "multiplied", "agreeing", "read_small", "whole_of", "named_by_whole", "agreed", "NAMES_FROM", "default_reader", "view", "CLASSES", "BELOW_PX_PER_MM"]
