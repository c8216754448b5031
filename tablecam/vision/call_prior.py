"""What call a player is likely to make next: the camera's prior for an unsure bid-card read.

A bid card seen small can show its strain clearly and its level only as a
few pixels (``3S`` or ``7S``?). People bid at the lowest level their
strain allows far more often than with a jump, and almost never open at
the seven level; a reader at the table uses that. This module turns a
table of how often real players made each kind of call in each situation
(``models/call_prior.json``, counted from championship auctions by
:mod:`tablecam.training.call_prior`) into a probability for every call
given the calls before it. The bid-card reader (:func:`tablecam.vision.bidcards.judge_read`) weighs
the calls of a read it is not sure of by it; a sure read is left as the
reader gives it, and a read the prior made likelier is still reported
``uncertain`` (the prior ranks the candidates, it never vouches for a
card).

>>> situation([]), situation(["1S"]), situation(["1S", "X"]), situation(["P", "P"])
('open', 'bid, X', 'bid, XX', 'open')
>>> category([], "3N"), category(["1S"], "2H"), category(["1S"], "3H"), category(["1S", "P"], "P")
('jump2', 'jump0', 'jump1', 'P')
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from .bidcards import BIDS, CALLS, STRAINS, call_possible
from .classify import MODELS_DIR

MODEL = MODELS_DIR / "call_prior.json"

SMOOTH = 0.5
"""Added to every count: a call no archived player made (an opening seven) is rare, not impossible."""


def _last_bid(before: list[str]) -> str | None:
    return next((c for c in reversed(before) if c in BIDS), None)


def lowest_level(before: list[str], strain: str) -> int:
    """The lowest level at which ``strain`` can be bid after ``before``.

    >>> lowest_level([], "C"), lowest_level(["1S"], "N"), lowest_level(["1S"], "H")
    (1, 1, 2)
    """
    last = _last_bid(before)
    if last is None:
        return 1
    level = int(last[0])
    return level if STRAINS.index(strain) > STRAINS.index(last[1]) else level + 1


def situation(before: list[str]) -> str:
    """The situation a call is made in: whether anyone has bid, and whether the player may double or redouble."""
    if _last_bid(before) is None:
        return "open"
    return ", ".join(["bid"] + [c for c in ("X", "XX") if call_possible(before, c)])


def category(before: list[str], call: str) -> str:
    """What kind of call ``call`` is after ``before``: ``P``, ``X``, ``XX`` or ``jump<N>`` (levels above the lowest)."""
    if call in BIDS:
        return f"jump{int(call[0]) - lowest_level(before, call[1])}"
    return call


class CallPrior:
    """Probabilities of the 38 calls (:data:`~tablecam.vision.bidcards.CALLS` order) given the calls before."""

    def __init__(self, path: str | Path | None = None) -> None:
        table = json.loads(Path(path or MODEL).read_text())
        self.counts: dict[str, dict[str, int]] = table["counts"]

    def probs(self, before: list[str]) -> np.ndarray:
        """A call's share is its kind's count in this situation, split among the calls of that kind.

        >>> p = CallPrior().probs([])
        >>> bool(p[CALLS.index("1S")] > 50 * p[CALLS.index("7S")]), round(float(p.sum()), 6)
        (True, 1.0)
        """
        counts = self.counts.get(situation(before), {})
        kinds = [category(before, c) for c in CALLS]
        legal = [call_possible(before, c) for c in CALLS]
        many: dict[str, int] = {}
        for k, ok in zip(kinds, legal):
            many[k] = many.get(k, 0) + ok
        w = np.array([(counts.get(k, 0) + SMOOTH) / max(many[k], 1) if ok else 0.0
                      for k, ok in zip(kinds, legal)], np.float64)
        if w.sum() <= 0:                                  # nothing legal (a misread before): no opinion
            w = np.ones(len(CALLS))
        floor = w[w > 0].min()
        w = np.where(w > 0, w, floor)                     # a call the reads before rule out stays possible
        return w / w.sum()


@lru_cache(maxsize=1)
def shipped() -> CallPrior:
    """The prior that ships with the models (loaded once)."""
    return CallPrior()

