"""The pips of a card at rest as a witness of its rank when its index cannot be read surely.

At 480p, or at 720p through a wide-angle lens, a card's index is 4-6 frame
pixels tall: the classifier often cannot tell a six from a four or an eight
from an ace, and a blurred face reads as a joker.  The pips in the middle
of a two to ten are larger and still countable
(:func:`~tablecam.vision.pips.count_pips`).  The pipeline reads a card at
rest through several outlines, so it has several counts: the one most of
the outlines that read as a card agree on is the witness (an outline cut
askew counts the table's edge or half a pip; it also reads as ``none`` or a
back, and is left out).

The witness only re-ranks an *unsure* read: the number cards of the counted
rank weigh :data:`WEIGHT` times more.  The event stays ``uncertain`` - the
count says the rank, never the suit, and a court card's picture may count
as two - but its likeliest card, the one the engine is offered first, is
the right one more often.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Mapping

import numpy as np

from .fusion import probs_dict, weigh_cards
from .pips import RANK_OF_COUNT, number_layout, pip_count, signs
from .readers import Reading

WEIGHT = 20.0
"""How much likelier the counted rank's number cards become (the count is right about 19 times in 20)."""

NOT_A_FACE = ("back", "none")
COURT = ("J", "Q", "K")
PICTURED = COURT + ("A",)
"""Ranks whose middle is a picture or one sign, never a number card's pips."""

PIPS_BELOW = 0.4
"""A face read below this (or a joker, or no card) is re-ranked by the pips counted on the card: above
it the classifier's rank is better than the count (on the real webcam stills an index or a
neighbouring card's corner in the middle of a loose outline counts one pip too many)."""

RANK_OF_MARKS = {**RANK_OF_COUNT, 1: "A"}
"""Signs in the middle of a card -> its rank (one sign alone in the centre: an ace)."""


def centre_pip(card_bgr: np.ndarray) -> bool:
    """Whether the middle of a rectified card holds one sign alone, at its centre, as an ace does.

    The sign must be a pip's size or larger (at least 2.2 % of the middle: an index or a stray
    mark is smaller), compact (a court card's frame or an edge cut askew is long) and no picture
    (at most 15 %).  Measured on rendered aces at 480p and 720p: the sign is 2.4-7 % of the
    middle and lies within 0.08 of its centre; the lone blobs of other cards lie off centre.

    >>> import cv2
    >>> card = np.full((350, 250, 3), 235, np.uint8)
    >>> _ = cv2.circle(card, (125, 175), 28, (20, 20, 190), -1)
    >>> centre_pip(card), centre_pip(np.full((350, 250, 3), 235, np.uint8))
    (True, False)
    """
    return _lone_centre(signs(card_bgr))


def _lone_centre(found: list[tuple[float, float, float, float]] | None) -> bool:
    """:func:`centre_pip` from the card's :func:`~tablecam.vision.pips.signs`, already found."""
    if found is None or len(found) != 1:
        return False
    area, cx, cy, long_over_short = found[0]
    return bool(0.022 <= area <= 0.15 and long_over_short <= 1.5 and abs(cx - 0.5) <= 0.1 and abs(cy - 0.5) <= 0.1)


def marks(card_bgr: np.ndarray) -> int | None:
    """The signs in the middle of a rectified card: 2-10 pips, 1 for an ace's lone sign, else None
    (its signs found once for both)."""
    return _marks(signs(card_bgr))


def _marks(found: list[tuple[float, float, float, float]] | None) -> int | None:
    n = pip_count(found)
    if n is not None:
        return n
    return 1 if _lone_centre(found) else None


def pip_vote(counts: Iterable[int | None], reads: Iterable[str]) -> int | None:
    """The pip count most outlines read as a card agree on, or None (no count, or a tie).

    >>> pip_vote([6, 6, None, 4], ["JK", "S4", "none", "S4"])
    6
    >>> pip_vote([8, 4], ["JK", "JK"]) is None       # a tie: no witness
    True
    >>> pip_vote([5, 5, 9], ["none", "back", "C9"])  # outlines read as no card do not vote
    9
    """
    votes = [n for n, card in zip(counts, reads) if n is not None and card not in NOT_A_FACE]
    ranked = Counter(votes).most_common(2)
    if not ranked or (len(ranked) == 2 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]


def weigh_by_pips(probs: Mapping[str, float], count: int | None, weight: float = WEIGHT) -> dict[str, float]:
    """``probs`` with the number cards of the counted rank ``weight`` times likelier, renormalised.

    >>> p = weigh_by_pips({"JK": 0.5, "S4": 0.3, "S6": 0.1, "none": 0.1}, 6)
    >>> max(p, key=p.get), round(p["S6"], 2)
    ('S6', 0.69)
    >>> weigh_by_pips({"S4": 0.7, "S6": 0.3}, None)
    {'S4': 0.7, 'S6': 0.3}
    """
    rank = RANK_OF_MARKS.get(count) if count is not None else None
    if rank is None:
        return dict(probs)
    return weigh_cards(probs, lambda c: len(c) == 2 and c[1] == rank, weight)


def witnessed(r: Reading, reads: list[str], crops: list[np.ndarray], jokers: bool = False) -> Reading:
    """An unsure read re-ranked by the signs its outlines count (``reads``: each outline's card,
    ``crops``: each outline's rectified crop; ``jokers``: the game's pack holds jokers).

    Why: below about 0.9 frame pixels per mm the index is a few pixels tall
    and the classifier mixes up ranks (or calls the face a joker), while the
    pips of a two to ten, or an ace's lone sign, can still be counted.  A
    surer read is left alone.  A read whose likeliest face is a court card,
    sure or not, is doubted only by a number card's whole pip layout
    (:func:`~tablecam.vision.pips.number_layout`): an index read as a jack
    over three pips in a column is a three whose thin "3" the classifier
    mistook (a taped layout at 45 degrees read a three of diamonds as the
    jack at 0.49, and the detector's second look then surely).  Where the
    outlines agree on such a layout, court cards, aces and jokers weigh
    :data:`WEIGHT` times less too (a glossy 480p eight read as a joker in
    whist, whose pack holds jokers).  The result carries ``witness="pips"``:
    its event is uncertain."""
    p = probs_dict(r.probs, r.classes)
    faces = [c for c in p if c not in NOT_A_FACE and (c != "JK" or jokers)]
    top = max(faces, key=p.__getitem__) if faces else None
    court = top is not None and top != "JK" and top[1:] in COURT
    if top is None or (not court and r.card not in ("JK", "none") and r.conf >= PIPS_BELOW):
        return r
    found = [signs(c) for c in crops]
    # a number card's whole pip layout: no court card, ace or joker lies so (a picture broken up by
    # blur may count as two or three blobs), so only it doubts a court card, and it rules pictures out
    laid_out = pip_vote([number_layout(f) for f in found], reads)
    count = laid_out if court else pip_vote([_marks(f) for f in found], reads)
    if count is None:
        return r
    p = weigh_by_pips(p, count)
    if laid_out is not None and laid_out == count:
        p = weigh_cards(p, lambda c: c == "JK" or c[1:] in PICTURED, 1.0 / WEIGHT)
    card = max(p, key=p.__getitem__)
    return Reading(card, p[card], p, None, witness="pips")


__all__ = ["witnessed", "PIPS_BELOW", "pip_vote", "weigh_by_pips", "marks", "centre_pip", "WEIGHT"]
