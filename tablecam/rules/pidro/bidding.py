"""The single bidding round (Pidroregler 2).

A mixin of :class:`~tablecam.rules.pidro.board.PidroBoard`. Each player
calls once, clockwise from the dealer's left, the dealer last; a bid must be
higher than the one before (the dealer may take 14 over 14 where the rule
table allows it); an insufficient bid may be corrected by its bidder before
anyone else calls, else it counts as a pass; if all pass, the dealer must
play the rule table's forced bid.
"""

from __future__ import annotations

from ... import kinds
from ...cards import Seat
from ...events import Event
from ...findings import Finding, bad_event


class BiddingRules:
    """The ``call`` handler and the order of the bidding."""

    def _uncorrected(self, corr: Finding, ev: Event) -> Finding:
        """The insufficient bid was not corrected before the next call: it counts as a pass."""
        return self.restep(corr, "established", ev, f"{corr.seat}'s bid stood uncorrected and counts as a pass.",
                           options=[])

    def bidding_started(self) -> bool:
        return bool(self.calls) or self.bidding_closed

    def bid_order(self) -> list[Seat]:
        return [self.dealer.next(i) for i in (1, 2, 3, 4)]

    def next_to_call(self) -> Seat | None:
        for s in self.bid_order():
            if s not in self.called:
                return s
        return None

    def _on_call(self, ev: Event) -> list[Finding]:
        out: list[Finding] = []
        seat: Seat = ev.seat
        text = str(ev.get("call")).strip().lower()
        if self.bidding_closed:
            return [self.flag(kinds.CALL_AFTER_BIDDING, 2, f"{seat} called '{ev.get('call')}' after the single "
                              "bidding round was over; the call is ignored.", ev, seat=str(seat), status="info")]
        bid: int | None
        if text in ("p", "pass", "0"):
            bid = None
        else:
            try:
                bid = int(text)
            except ValueError:
                return [bad_event(f"Pidro call {ev.get('call')!r} is neither a bid 6-14 nor pass; skipped.",
                                  ev.index, self.board)]
        # a correction of the player's own insufficient bid, before anyone else called
        corr = self._open_insufficient
        if corr is not None and corr.seat == str(seat) and self.calls and self.calls[-1][0] == seat:
            self._open_insufficient = None
            out.append(self.restep(corr, "corrected", ev, f"{seat} corrected the bid to "
                                   f"{'pass' if bid is None else bid}.", options=[]))
            self.called.discard(seat)
        elif corr is not None:
            self._open_insufficient = None
            out.append(self._uncorrected(corr, ev))
        expected = self.next_to_call()
        if seat in self.called:
            out.append(self.flag(kinds.CALL_OUT_OF_TURN, 2, f"{seat} called again; Pidro has one bidding round "
                                 "and each player calls once. The call is ignored.", ev, seat=str(seat),
                                 status="pending", id=self.finding_id("twice", seat, ev.index)))
            return out
        if expected is not None and seat != expected:
            out.append(self.flag(kinds.CALL_OUT_OF_TURN, 2, f"{seat} called before {expected}; bidding goes "
                                 f"clockwise from the dealer's left. The call is recorded.", ev,
                                 seat=str(seat), status="pending", options=["accept the call", "cancel it"],
                                 id=self.finding_id("oot", seat, ev.index), expected_seat=str(expected)))
        self.called.add(seat)
        lo, hi = self.rules.bidding.min_bid, self.rules.bidding.max_bid
        if bid is not None and not lo <= bid <= hi:
            out.append(self.flag(kinds.BID_OUT_OF_RANGE, 2, f"{seat} bid {bid}; a bid is {lo} to {hi}. It counts "
                                 "as a pass.", ev, seat=str(seat), status="established",
                                 id=self.finding_id("range", seat, ev.index), bid=bid))
            bid = None
        if bid is not None and self.high_bid is not None and bid <= self.high_bid:
            over = (seat == self.dealer and bid == hi and self.high_bid == hi)
            if over and self.rules.dealer_14_over_14:
                self.fourteen_over_fourteen = True
            else:
                why = (" (this tournament does not allow the dealer's 14 over 14)" if over else "")
                f = self.flag(kinds.INSUFFICIENT_BID, 2, f"{seat} bid {bid}, not higher than {self.high_bid}"
                              f"{why}; a bid must always be higher than the one before.", ev, seat=str(seat),
                              status="pending", options=[f"bid higher than {self.high_bid}", "pass"],
                              id=self.finding_id("insufficient", seat, ev.index),
                              bid=bid, high_bid=self.high_bid)
                out.append(f)
                self._open_insufficient = f
                self.calls.append((seat, text, None))
                return out
        self.calls.append((seat, text, bid))
        if bid is not None:
            self.high_bid, self.bidder = bid, seat
        return out

    def _close_bidding(self, ev: Event) -> list[Finding]:
        out: list[Finding] = []
        if self.bidding_closed:
            return out
        corr = self._open_insufficient
        if corr is not None:
            self._open_insufficient = None
            out.append(self._uncorrected(corr, ev))
        self.bidding_closed = True
        if self.bidder is None:
            self.forced = True
            self.bidder, self.high_bid = self.dealer, self.rules.bidding.all_pass_dealer_bid
            out.append(self.flag(kinds.FORCED_BID, 2, f"Everyone passed: the dealer {self.dealer} must play "
                                 f"{self.high_bid} in a suit of his choice.", ev, seat=str(self.dealer),
                                 status="info"))
        return out
