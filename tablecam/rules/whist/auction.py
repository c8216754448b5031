"""The es-makker whist auction as a duel (Afgivelse af meldinger, Gå med på en melding).

Why a duel: the text's examples ("meldingen går tilbage til Spiller 1/2")
show that when a bid is beaten, the beaten player answers next (beat it
again, pass, or go along), and only when one of the two drops out does the
next player in turn get a say. A player who passed or went along ("gå med")
has no further say. The auction ends when everyone has spoken and nobody is
left to answer.

This module only keeps the state and says what was wrong with a call; the
board turns those problems into findings.

>>> from tablecam.cards import Seat
>>> from .bids import default_rules, parse_bid
>>> r = default_rules()
>>> a = Auction(Seat.N, r)      # Eks. 2: 1: 9, 2: 9 vip, 1 and 3 go along, 4: 10 -> back to 2
>>> for seat, text in [("N", "9"), ("E", "9 vip"), ("N", "gå med"), ("S", "gå med"), ("W", "10")]:
...     _ = a.call(Seat(seat), parse_bid(text, r))
>>> a.next_to_call(), str(a.high), a.holder
(Seat.E, '10', Seat.W)
"""

from __future__ import annotations

from typing import Any

from ...cards import Seat
from .bids import Bid, bid_key, is_nolo, joinable

Problem = tuple[str, dict[str, Any]]
"""(what, details): ``after_auction``, ``after_pass``, ``out_of_turn`` (expected), ``invalid_join``
(high), ``insufficient`` (high), ``passed_out``."""


class Auction:
    """State of one auction; :meth:`call` folds one call and returns what was irregular about it."""

    def __init__(self, forhaand: Seat, rules: dict[str, Any]) -> None:
        self.rules = rules
        self.calls: list[tuple[Seat, str]] = []
        self.queue: list[Seat] = [forhaand.next(i) for i in range(4)]  # not yet spoken, in turn
        self.holder: Seat | None = None
        self.high: Bid | None = None
        self.due: Seat | None = None  # the beaten holder, who must answer
        self.out: set[Seat] = set()  # passed or went along: no further say
        self.joined: list[Seat] = []  # went along with the current high bid, in order
        self.over = False
        self.passed_out = False

    def next_to_call(self) -> Seat | None:
        if self.over:
            return None
        if self.due is not None:
            return self.due
        return self.queue[0] if self.queue else None

    def call(self, seat: Seat, call: Bid | str) -> list[Problem]:
        """Fold one parsed call (a :class:`Bid`, ``"pass"`` or ``"join"``)."""
        if self.over:
            return [("after_auction", {})]
        if seat in self.out:
            return [("after_pass", {})]
        problems: list[Problem] = []
        expected = self.next_to_call()
        if seat != expected:
            problems.append(("out_of_turn", {"expected": expected}))
        if seat in self.queue:
            self.queue.remove(seat)
        self.calls.append((seat, str(call)))
        if call in ("pass", "join"):
            if call == "join":
                if self.high is None or not joinable(self.high, self.rules):
                    problems.append(("invalid_join", {"high": self.high}))
                else:
                    self.joined.append(seat)
            self._drop(seat)
            if seat == self.holder:  # the holder passed his own bid (out of turn): the bid lapses
                self.holder, self.high = None, None
        elif self.high is not None and bid_key(call, self.rules) <= bid_key(self.high, self.rules):
            problems.append(("insufficient", {"high": self.high}))
            self._drop(seat)
        else:
            if self.holder is not None and self.holder != seat:
                self.due = self.holder
            elif seat == self.due:
                self.due = None
            self.holder, self.high = seat, call  # type: ignore[assignment]
            self.joined = []
        if self.next_to_call() is None:
            self.over = True
            if self.high is None:
                self.passed_out = True
                problems.append(("passed_out", {}))
        return problems

    def _drop(self, seat: Seat) -> None:
        self.out.add(seat)
        if seat == self.due:
            self.due = None

    def soloists(self) -> list[Seat]:
        """Nolo: the declarer and everyone who went along, each playing alone."""
        if not is_nolo(self.high, self.rules) or self.holder is None:
            return []
        return [self.holder] + [s for s in self.joined if s != self.holder]
