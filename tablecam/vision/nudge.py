"""Nudge a card rectangle until the classifier can read it.

Where cards overlap, the localiser's box around a card is often right
while every card rectangle made from it is a little off: the box takes in
a strip of a neighbour, or the table's perspective makes the card a
trapezoid, so the rectangle inscribed in the box misses the index corner by
a few pixels and the classifier reads ``none`` or the neighbour's index.
On 60 tuning scenes of training decks, 35 of the 42 cards still missed read
right through their true outline.  Nudging the rectangle - shift, turn,
scale, one step at a time, kept when the classifier sees more of *some*
card not yet found - puts the window back on the index.

The search climbs the *mass* of the cards not yet found (one minus the
``none`` and found cards' probabilities), not the surest single card: a
climb towards the surest card seeks out any pattern that looks like an
index (a four read in a pile of clubs), a climb towards "a card" only
lines the rectangle up with a card's edges and leaves reading to the read.

A rectangle is ``(cx, cy, a, t)``: centre, width, and turn in radians, the
height ``CARD_ASPECT * a`` (the corner order of
:func:`~tablecam.vision.proposals.box_quads`).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Callable, Sequence

import numpy as np

from .proposals import CARD_ASPECT, _card_at

Rect = tuple[float, float, float, float]


def rect_of(quad: np.ndarray) -> Rect:
    """The card rectangle nearest a quad: its centre, the width of its
    first edge, and that edge's turn.

    >>> q = card_quad((100.0, 50.0, 40.0, 0.5))
    >>> [round(v, 3) for v in rect_of(q)]
    [100.0, 50.0, 40.0, 0.5]
    """
    q = np.asarray(quad, np.float64)
    cx, cy = q.mean(axis=0)
    vx, vy = q[1] - q[0]
    return float(cx), float(cy), float(math.hypot(vx, vy)), float(math.atan2(vy, vx))


def card_quad(rect: Rect, aspect: float = CARD_ASPECT) -> np.ndarray:
    """The four corners of a card rectangle (float32, as the warps take).

    >>> card_quad((0.0, 0.0, 10.0, 0.0)).tolist()
    [[-5.0, -7.0], [5.0, -7.0], [5.0, 7.0], [-5.0, 7.0]]
    """
    cx, cy, a, t = rect
    return (_card_at(a, t, aspect) + np.array([cx, cy])).astype(np.float32)


def _neighbours(rect: Rect, step: float, turn: float) -> list[Rect]:
    """The eight rectangles one step away: x, y and width by ``step`` of
    the width, the turn by ``turn`` radians, each way."""
    cx, cy, a, t = rect
    d = step * a
    return [(cx - d, cy, a, t), (cx + d, cy, a, t), (cx, cy - d, a, t), (cx, cy + d, a, t),
            (cx, cy, a - d, t), (cx, cy, a + d, t), (cx, cy, a, t - turn), (cx, cy, a, t + turn)]


def nudge(starts: Sequence[np.ndarray], score: Callable[[list[np.ndarray]], list[tuple[float, object]]],
          fits: Callable[[int, np.ndarray], bool], rounds: int = 4, step: float = 0.08,
          turn_deg: float = 5.0, shrink: float = 0.6, groups: Sequence[int] | None = None,
          keep: int = 0) -> list[tuple[np.ndarray, float, object]]:
    """Climb each start quad to the best score within ``rounds`` rounds.

    ``score`` reads a batch of quads (one classifier call per round, for
    every start at once) and gives (score, what it read) per quad; a step
    is taken only to a quad that ``fits(start index, quad)`` allows (it
    stays on its box).  Steps shrink by ``shrink`` each round.  With
    ``groups`` (a group per start: its box) and ``keep``, only the ``keep``
    best starts of each group climb (the others stay where they began: a
    start far off its card costs reads and seldom wins).  Returns (quad,
    score, read) per start.

    >>> target = np.array([6.4, 0.0])  # two steps away: 0.08 and 0.048 of 50
    >>> def score(qs):
    ...     return [(-float(np.hypot(*(q.mean(axis=0) - target))), None) for q in qs]
    >>> [[round(float(v), 2) for v in q.mean(axis=0)] for q, _, _ in
    ...  nudge([card_quad((0.0, 0.0, 50.0, 0.0))], score, lambda i, q: True, rounds=3)]
    [[6.4, 0.0]]
    """
    rects = [rect_of(q) for q in starts]
    best = list(score([card_quad(r) for r in rects])) if rects else []
    climb = set(range(len(rects)))
    if groups is not None and keep > 0:
        climb, taken = set(), Counter()
        for i in sorted(range(len(rects)), key=lambda i: -best[i][0]):
            if taken[groups[i]] < keep:
                climb.add(i)
                taken[groups[i]] += 1
    s, turn = step, math.radians(turn_deg)
    for _ in range(rounds):
        tries = [(i, n, q) for i in sorted(climb) for n in _neighbours(rects[i], s, turn) if n[2] > 1
                 for q in (card_quad(n),) if fits(i, q)]
        for (i, n, _), v in zip(tries, score([q for _, _, q in tries])):
            if v[0] > best[i][0]:
                best[i], rects[i] = v, n
        s *= shrink
        turn *= shrink
    return [(card_quad(r), b[0], b[1]) for r, b in zip(rects, best)]


__all__ = ["rect_of", "card_quad", "nudge"]
