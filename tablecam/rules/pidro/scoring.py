"""Scoring one Pidro deal and the game to 62 (Pidroregler 4, 5, 6).

Bid made: both sides add what they took. Set ("hålar"): the bidders go back
by the bid (the dealer's 14 over 14: by 28, a rule-table value) and the
others add what they took. Penalties (14 / 62) go to the wronged side. The
first side to reach 62 wins; both in the same deal: the bidders.

>>> from tablecam.rules.tables import load_table
>>> r = load_table("pidro", None, "sou")
>>> s = settle({"NS": 13, "EW": 1}, "NS", 9, False, [], {"NS": 50, "EW": 61}, r)
>>> s.made, s.delta, s.score, s.winner
(True, {'NS': 13, 'EW': 1}, {'NS': 63, 'EW': 62}, 'NS')
>>> settle({"NS": 2, "EW": 12}, "EW", 14, True, [], {"NS": 0, "EW": 0}, r).delta
{'NS': 2, 'EW': -28}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ... import kinds
from ...cards import Card, Seat
from ...events import Event
from ...findings import Finding, next_step
from ..tables import PidroTable
from .cards import SIDES, other_side, side_of


@dataclass
class DealScore:
    made: bool
    delta: dict[str, int]
    score: dict[str, int]
    winner: str | None


def settle(points: dict[str, int], bid_side: str, bid: int, fourteen_over_fourteen: bool,
           penalties: list[dict[str, Any]], score_before: dict[str, int], rules: PidroTable) -> DealScore:
    """The deal's result: ``points`` taken per side, ``penalties`` as ``{"points", "to_side"}`` dicts."""
    other = other_side(bid_side)
    made = points[bid_side] >= bid
    delta = {"NS": 0, "EW": 0}
    delta[other] = points[other]
    if made:
        delta[bid_side] = points[bid_side]
    elif fourteen_over_fourteen:
        delta[bid_side] = rules.dealer_14_over_14_set
    else:
        delta[bid_side] = -bid
    for p in penalties:
        delta[p["to_side"]] += int(p["points"])
    after = {s: int(score_before.get(s, 0)) + delta[s] for s in SIDES}
    over = [s for s in SIDES if after[s] >= rules.game_to]
    winner = bid_side if len(over) == 2 else (over[0] if over else None)
    return DealScore(made, delta, after, winner)


class ScoringRules:
    """Offences and their penalties (Pidroregler 4), the deal's ``score`` finding (5, 6): a mixin of
    :class:`~tablecam.rules.pidro.board.PidroBoard`."""

    def _offence(self, kind: str, section: int, seat: Seat, ev: Event, message: str, fid: str,
                 card: Card | None = None) -> Finding:
        """A section-4 error: penalised with 14 points (62 when the same player repeats it in the match)."""
        penalised = kind in self.rules.penalised
        extra: dict[str, Any] = {"card": str(card)} if card else {}
        remedy = None
        if penalised:
            pts = self._penalty_for(seat)
            extra.update({"penalty": pts, "to_side": other_side(side_of(seat))})
            remedy = f"{pts} points to {other_side(side_of(seat))}" + (" (repeated offence in this match)"
                                                                  if pts != self.rules.penalty else "")
        f = self.flag(kind, section, message, ev, seat=seat, status="pending", remedy=remedy, id=fid, **extra)
        if penalised:
            self.offences.append(f)
        return f

    def _penalty_for(self, seat: Seat) -> int:
        who = self.player(seat)
        repeat = who in self.prior_offenders or str(seat) in self.prior_offenders or \
            any(f.seat == str(seat) for f in self.offences)
        return self.rules.repeat_penalty if repeat else self.rules.penalty

    def _settle(self, event: Event | None) -> list[Finding]:
        """End of play: the offences' penalties, then the deal's ``score`` (and the game's, to 62)."""
        out: list[Finding] = []
        idx = event.index if event else None
        if self.trick is not None and self.trick.cards:
            out.append(self.flag(kinds.INCOMPLETE_ROUND, 4, f"Round {self.trick.number} was not finished; its "
                                 "cards score for nobody.", idx, status="info"))
        bid_side = side_of(self.bidder) if self.bidder else "NS"
        other = other_side(bid_side)
        penalties = []
        for f in self.offences:
            pts, to = int(f.extra["penalty"]), f.extra["to_side"]
            penalties.append({"seat": f.seat, "kind": f.kind, "points": pts, "to_side": to})
            out.append(self.emit(next_step(f, "rectified", idx, f"{f.message[:-1]}: {pts} points to {to}.",
                                           options=[])))
        res = settle(self.points, bid_side, self.high_bid or 0, self.fourteen_over_fourteen, penalties,
                     self.score_before, self.rules)
        made, delta, after, winner = res.made, res.delta, res.score, res.winner
        contract = f"{self.high_bid}" + (" (14 over 14)" if self.fourteen_over_fourteen else "") + \
            (" (forced)" if self.forced else "")
        msg = (f"{self.bidder} bid {contract} in {self.trump}: {bid_side} took {self.points[bid_side]}, "
               f"{other} {self.points[other]}; the bid was {'made' if made else 'set'}."
               + (f" {winner} wins the game at {after[winner]}." if winner else ""))
        self._end_match_deal(after, winner)
        out.append(self.flag(
            kinds.SCORE, 5, msg, idx, seat=self.bidder, status="info",
            bidder=str(self.bidder), bid=self.high_bid, trump=self.trump,
            fourteen_over_fourteen=self.fourteen_over_fourteen, forced=self.forced, points=dict(self.points),
            made=made, delta=delta, penalties=penalties, score_before=dict(self.score_before), score=after,
            game_over=winner is not None, winner=winner, ruleset=self.rules.name))
        return out
