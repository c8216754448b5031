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

from ... import kinds
from ...cards import Seat
from ...events import Event
from ...findings import Finding, bad_event
from ..tables import WhistTable
from .bids import Bid, bid_key, is_nolo, joinable, parse_bid

Problem = tuple[str, dict[str, Any]]
"""(what, details): ``after_auction``, ``after_pass``, ``out_of_turn`` (expected), ``invalid_join``
(high), ``insufficient`` (high), ``passed_out``."""


class Auction:
    """State of one auction; :meth:`call` folds one call and returns what was irregular about it."""

    def __init__(self, forhaand: Seat, rules: WhistTable) -> None:
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


class AuctionRules:
    """The board's ``call`` handler and its view of the auction (Afgivelse af meldinger, Gå med,
    Nolomeldinger, Påhæng): a mixin of :class:`~tablecam.rules.whist.board.WhistBoard`."""

    def _reset_auction(self) -> None:
        self.auction = Auction(self.forhaand, self.rules)

    calls = property(lambda self: self.auction.calls)

    high = property(lambda self: self.auction.high)

    joined = property(lambda self: self.auction.joined)

    out = property(lambda self: self.auction.out)

    @property
    def holder(self) -> Seat | None:
        return self.auction.holder

    @holder.setter
    def holder(self, seat: Seat | None) -> None:
        self.auction.holder = seat

    @property
    def auction_over(self) -> bool:
        return self.auction.over

    @auction_over.setter
    def auction_over(self, value: bool) -> None:
        self.auction.over = value

    def next_to_call(self) -> Seat | None:
        return self.auction.next_to_call()

    def soloists(self) -> list[Seat]:
        return self.auction.soloists()

    @property
    def declarer(self) -> Seat | None:
        return self.holder

    def _on_call(self, ev: Event) -> list[Finding]:
        seat: Seat = ev.seat
        call = parse_bid(ev.get("call"), self.rules)
        if call is None:
            return [bad_event(f"Whist call {ev.get('call')!r} is not on the bid ladder; skipped.", ev.index,
                              self.board)]
        out: list[Finding] = []
        for what, d in self.auction.call(seat, call):
            if what == "after_auction":
                out.append(self.flag(kinds.CALL_AFTER_AUCTION, "Afgivelse af meldinger", f"{seat} called "
                                     f"'{call}' after the auction was over; ignored.", ev, seat=str(seat),
                                     status="info"))
            elif what == "after_pass":
                out.append(self.flag(kinds.CALL_AFTER_PASS, "Gå med på en melding", f"{seat} called '{call}' "
                                     "after passing or going along; such a player has no further say. "
                                     "Ignored.", ev, seat=str(seat), status="pending",
                                     id=self.finding_id("afterpass", seat, ev.index)))
            elif what == "out_of_turn":
                out.append(self.flag(kinds.CALL_OUT_OF_TURN, "Afgivelse af meldinger", f"{seat} called before "
                                     f"{d['expected']}; the bidding goes clockwise from forhånd. Recorded.",
                                     ev, seat=str(seat), status="pending",
                                     options=["accept the call", "cancel it"],
                                     id=self.finding_id("oot", seat, ev.index),
                                     expected_seat=str(d["expected"])))
            elif what == "invalid_join":
                what_bid = f"'{d['high']}'" if d["high"] else "no bid"
                out.append(self.flag(kinds.INVALID_JOIN, "Gå med på en melding", f"{seat} went along with "
                                     f"{what_bid}; only nolo bids and vip can be joined. Counted as a pass.",
                                     ev, seat=str(seat), status="established",
                                     id=self.finding_id("join", seat, ev.index)))
            elif what == "insufficient":
                out.append(self.flag(kinds.INSUFFICIENT_BID, "Afgivelse af meldinger", f"{seat} bid '{call}', "
                                     f"which does not beat '{d['high']}'; a bid can only be beaten by a "
                                     "higher one. Counted as a pass.", ev, seat=str(seat),
                                     status="established", options=[f"bid higher than '{d['high']}'", "pass"],
                                     id=self.finding_id("insufficient", seat, ev.index),
                                     bid=str(call), high_bid=str(d["high"])))
            elif what == "passed_out":
                out.append(self.flag(kinds.PASSED_OUT, "Afgivelse af meldinger", "Everyone passed; the round is "
                                     "restarted with a new deal.", ev, status="info", options=["redeal"]))
        if self.auction_over:
            self._fix_trump()
        return out
