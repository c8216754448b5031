"""Scoring one Pidro deal and the game to 62 (Pidroregler 4, 5, 6).

Bid made: both sides add what they took. Set ("hålar"): the bidders go back
by the bid (the dealer's 14 over 14: by 28, a rule-table value) and the
others add what they took. Penalties (14 / 62) go to the wronged side. The
first side to reach 62 wins; both in the same deal: the bidders.

>>> r = {"dealer_14_over_14_set": -28, "game_to": 62}
>>> s = settle({"NS": 13, "EW": 1}, "NS", 9, False, [], {"NS": 50, "EW": 61}, r)
>>> s.made, s.delta, s.score, s.winner
(True, {'NS': 13, 'EW': 1}, {'NS': 63, 'EW': 62}, 'NS')
>>> settle({"NS": 2, "EW": 12}, "EW", 14, True, [], {"NS": 0, "EW": 0}, r).delta
{'NS': 2, 'EW': -28}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import SIDES, other_side


@dataclass
class DealScore:
    made: bool
    delta: dict[str, int]
    score: dict[str, int]
    winner: str | None


def settle(points: dict[str, int], bid_side: str, bid: int, fourteen_over_fourteen: bool,
           penalties: list[dict[str, Any]], score_before: dict[str, int], rules: dict[str, Any]) -> DealScore:
    """The deal's result: ``points`` taken per side, ``penalties`` as ``{"points", "to_side"}`` dicts."""
    other = other_side(bid_side)
    made = points[bid_side] >= bid
    delta = {"NS": 0, "EW": 0}
    delta[other] = points[other]
    if made:
        delta[bid_side] = points[bid_side]
    elif fourteen_over_fourteen:
        delta[bid_side] = int(rules["dealer_14_over_14_set"])
    else:
        delta[bid_side] = -bid
    for p in penalties:
        delta[p["to_side"]] += int(p["points"])
    after = {s: int(score_before.get(s, 0)) + delta[s] for s in SIDES}
    over = [s for s in SIDES if after[s] >= int(rules["game_to"])]
    winner = bid_side if len(over) == 2 else (over[0] if over else None)
    return DealScore(made, delta, after, winner)
