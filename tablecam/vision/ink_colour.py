"""The colour of a card's print as a witness of its suit.

At 480p a card's index is 4-6 frame pixels tall and its suit sign two or
three: the classifier reads the rank better than the suit, and swaps a
spade for a diamond as readily as for a club.  The colour of the print
survives where the shape does not: a pip of a number card is 10-15 frame
pixels, and even H.264's quarter-size colour keeps it red or black.

The ink is found where :func:`~tablecam.vision.pips.ink_in` finds it (each
pixel's darkest channel against the paper around it) and compared channel
by channel with the paper beside it, so the camera's white balance, which
tints paper and ink alike, cancels: red ink keeps most of the paper's red
and little of its green and blue, black ink little of any.

Which colour each suit is printed in belongs to the pack: red hearts and
diamonds and black spades and clubs, or a four-colour pack's blue diamonds
and green clubs.  :class:`PackColours` starts from the two-colour pack
and learns each suit's colour from the cards read surely, so two sure
diamonds of a four-colour pack teach it blue.  A colour no suit is
expected to have says nothing.
"""

from __future__ import annotations

from collections import Counter
from typing import Mapping

import numpy as np

from .fusion import probs_dict, weigh_cards
from .pips import PIP_REGION, ink_in
from .readers import Reading

INDEX_REGIONS = ((0.0, 0.0, 0.32, 0.41), (0.68, 0.59, 1.0, 1.0))
"""The two index corners of a 250x350 rectified card (the classifier's 80x144 windows), as shares."""

TINT = 0.15
"""How far one channel's share must stand above the ink's mean share for the ink to have that colour."""

GREY = 0.1
"""The most the channels' shares may differ for the ink to be black."""

MIN_INK = 0.005
"""The least share of a region that must be ink for its colour to count: a glossy top's reflection
leaves the two pips of a two at 0.5 px/mm under 1 %, still clearly grey or red."""

TWO_COLOURS = {"S": "black", "H": "red", "D": "red", "C": "black"}
"""Each suit's colour in the usual pack, until the pack's own sure reads say otherwise."""

WEIGHT = 20.0
"""How much likelier the cards of the suits printed in the colour seen become."""

LEARN_FROM = 0.9
"""A read at least this sure teaches the pack's colour of its suit, and is not re-ranked: the few pips
of a two, sure at 0.96 on a printed layout at 720p, took in enough of the print around them to look red."""


def ink_shares(card_bgr: np.ndarray, region: tuple[float, float, float, float] = PIP_REGION
               ) -> tuple[float, float, float] | None:
    """The ink in ``region`` (shares of the card) of a rectified card as the share of the paper's
    blue, green and red it keeps; None with too little ink (or too little paper) to say."""
    middle = ink_in(card_bgr, region)
    if middle is None:
        return None
    patch, ink = middle[0].astype(np.float32), middle[1] > 0
    if ink.sum() < MIN_INK * ink.size or (~ink).sum() < 0.3 * ink.size:
        return None
    paper = np.median(patch[~ink], axis=0)
    b, g, r = (float(v) for v in patch[ink].mean(axis=0) / np.maximum(paper, 1.0))
    return b, g, r


def colour_name(shares: tuple[float, float, float] | None) -> str | None:
    """``"black"``, ``"red"``, ``"green"``, ``"blue"`` or None (no ink, or a colour between).

    >>> colour_name((0.40, 0.41, 0.40)), colour_name((0.40, 0.36, 0.80)), colour_name((0.88, 0.75, 0.50))
    ('black', 'red', 'blue')
    >>> colour_name((0.45, 0.90, 0.46)), colour_name((0.46, 0.64, 0.45)), colour_name(None)
    ('green', None, None)
    """
    if shares is None:
        return None
    v = np.asarray(shares, np.float64)
    tint = v - v.mean()
    if tint.max() >= TINT:
        return ("blue", "green", "red")[int(np.argmax(tint))]
    return "black" if np.ptp(v) <= GREY else None


def ink_colour(card_bgr: np.ndarray, court: bool = False) -> str | None:
    """The colour of a rectified card's print: a two to ten or an ace by its pips, a court card by
    its two index corners (its picture is printed in red, blue and black whatever its suit), which
    must agree.

    >>> import cv2
    >>> card = np.full((350, 250, 3), (200, 215, 225), np.uint8)     # paper under a warm light
    >>> red, black = card.copy(), card.copy()
    >>> _ = cv2.circle(red, (125, 175), 30, (40, 40, 190), -1)
    >>> _ = cv2.circle(black, (125, 175), 30, (30, 30, 35), -1)
    >>> ink_colour(red), ink_colour(black), ink_colour(card)
    ('red', 'black', None)
    """
    if not court:
        return colour_name(ink_shares(card_bgr))
    names = {colour_name(ink_shares(card_bgr, r)) for r in INDEX_REGIONS}
    return names.pop() if len(names) == 1 else None


class PackColours:
    """Each suit's colour in the pack on the table: the two-colour pack's, until the pack's sure reads
    say otherwise.  The two-colour pack counts as one sure read and wins a tie, so one sure read
    whose colour was misjudged changes nothing; two of another colour do.

    >>> pack = PackColours()
    >>> pack.expected("D"), pack.suits_in("blue")
    ('red', [])
    >>> pack.learn("D", "blue"); pack.expected("D")
    'red'
    >>> pack.learn("D", "blue"); pack.expected("D"), pack.suits_in("red")
    ('blue', ['H'])
    """

    def __init__(self, prior: Mapping[str, str] = TWO_COLOURS):
        self.prior = dict(prior)
        self.seen: dict[str, Counter[str]] = {s: Counter() for s in self.prior}

    def learn(self, suit: str, colour: str | None) -> None:
        if colour is not None and suit in self.seen:
            self.seen[suit][colour] += 1

    def expected(self, suit: str) -> str | None:
        prior = self.prior.get(suit)
        votes = Counter(self.seen.get(suit, ()))
        if prior is not None:
            votes[prior] += 1
        if not votes:
            return None
        best = max(votes.values())
        return prior if votes.get(prior) == best else max(votes, key=votes.__getitem__)

    def suits_in(self, colour: str) -> list[str]:
        return [s for s in self.prior if self.expected(s) == colour]


def weigh_by_colour(probs: Mapping[str, float], suits: list[str], weight: float = WEIGHT) -> dict[str, float]:
    """``probs`` with the cards of ``suits`` ``weight`` times likelier, renormalised.

    >>> p = weigh_by_colour({"D9": 0.8, "S9": 0.1, "C9": 0.05, "none": 0.05}, ["S", "C"])
    >>> max(p, key=p.get), round(p["S9"], 2)
    ('S9', 0.52)
    """
    return weigh_cards(probs, lambda c: len(c) == 2 and c[0] in suits, weight)


def coloured(r: Reading, crop: np.ndarray, pack: PackColours) -> Reading:
    """A face read ``r`` checked against the colour of the print of ``crop`` (its rectified card).

    Where the print of a read under :data:`LEARN_FROM` is in a colour the pack prints other suits in
    (a spade's black pips read as the nine of diamonds at 0.81), the cards of those suits become
    :data:`WEIGHT` times likelier and the read is uncertain (``witness="ink colour"``); a print of
    the read's own colour, or of a colour no suit is known to have, leaves it as it is, and a read of
    :data:`LEARN_FROM` or more teaches ``pack`` its suit's colour."""
    if len(r.card) != 2 or r.card == "JK":
        return r                                     # back, none, a joker: no suit to check
    suit, court = r.card[0], r.card[1] in "JQK"
    if r.conf >= LEARN_FROM:
        if r.witness is None:
            pack.learn(suit, ink_colour(crop, court))
        return r
    seen = ink_colour(crop, court)
    others = pack.suits_in(seen) if seen is not None else []
    if seen is None or pack.expected(suit) == seen or not others:
        return r
    p = weigh_by_colour(probs_dict(r.probs, r.classes), others)
    card = max(p, key=p.__getitem__)
    return Reading(card, p[card], p, None, witness="ink colour")


__all__ = ["ink_shares", "colour_name", "ink_colour", "PackColours", "weigh_by_colour", "coloured", "TWO_COLOURS",
           "INDEX_REGIONS", "WEIGHT", "LEARN_FROM"]
