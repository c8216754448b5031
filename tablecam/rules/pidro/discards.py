"""The trump, the discards and the lay-down (Pidroregler 2-4).

A mixin of :class:`~tablecam.rules.pidro.board.PidroBoard`. The bidder names
the trump; every player lays away his non-trumps face down (never a trump);
a player left with more than six trumps lays non-point trumps face up until
six remain. A trump discarded and a point card laid down are offences the
rule table penalises (:mod:`.scoring`).
"""

from __future__ import annotations

from ... import kinds
from ...cards import Card, Seat
from ...events import Event
from ...findings import Finding, bad_event
from .cards import is_trump, parse_suit, point_value


class DiscardRules:
    """The ``trump``, ``discard`` and ``lay_down`` handlers."""

    def _on_trump(self, ev: Event) -> list[Finding]:
        suit = parse_suit(ev.get("suit"))
        if suit is None:
            return [bad_event(f"Unknown trump suit {ev.get('suit')!r}; expected S, H, D or C.", ev.index,
                              self.board)]
        out = self._close_bidding(ev)
        if ev.seat != self.bidder:
            out.append(self.flag(kinds.TRUMP_BY_WRONG_PLAYER, 2, f"{ev.seat} named the trump but {self.bidder} "
                                 "has the highest bid and names the suit.", ev, seat=str(ev.seat),
                                 status="pending", options=["let the bidder name the suit"],
                                 id=self.finding_id("trumpseat", ev.index)))
        self.trump = suit
        out += self._check_discards(ev)
        return out

    def _on_discard(self, ev: Event) -> list[Finding]:
        out = self._close_bidding(ev)
        seat = ev.seat
        for card in ev.get("cards") or []:
            if card in self.hands[seat]:
                self.hands[seat].remove(card)
            else:
                out.append(bad_event(f"{seat} discarded {card}, which the deal did not give them; recorded.",
                                     ev.index, self.board))
            self.discards[seat].append(card)
            self._discard_events[(seat, card)] = ev
            if self.trump is not None:
                out += self._check_discard(seat, card, ev)
        limit = self.rules.deal.final_hand
        if seat == self.dealer and not self.refill_started and len(self.hands[seat]) < limit:
            out.append(self.flag(kinds.DEALER_BELOW_SIX, 3, f"The dealer {seat} laid away cards down to "
                                 f"{len(self.hands[seat])}; the dealer always keeps at least {limit} cards in "
                                 "hand before the refill.", ev, seat=str(seat), status="info",
                                 count=len(self.hands[seat]), expected=limit))
        return out

    def _check_discards(self, ev: Event) -> list[Finding]:
        out = []
        for seat in Seat:
            for card in self.discards[seat]:
                out += self._check_discard(seat, card, self._discard_events.get((seat, card), ev))
        return out

    def _check_discard(self, seat: Seat, card: Card, ev: Event) -> list[Finding]:
        if not is_trump(card, self.trump):
            return []
        fid = self.finding_id("trumpdiscard", seat, card)
        if any(f.id == fid for f in self.findings):
            return []
        return [self._offence(kinds.TRUMP_DISCARDED, 4, seat, ev,
                              f"{seat} discarded {card}, a trump; players may not lay away cards of the suit "
                              "being played.", fid, card=card)]

    def _on_lay_down(self, ev: Event) -> list[Finding]:
        out = self._close_bidding(ev)
        cards = list(ev.get("cards") or []) + ([ev.card] if ev.card is not None else [])
        if not cards:
            return out + [bad_event("A lay_down event names no card; ignored.", ev.index, self.board)]
        for card in cards:
            out += self._lay_down_one(ev, ev.seat, card)
        return out

    def _lay_down_one(self, ev: Event, seat: Seat, card: Card) -> list[Finding]:
        out: list[Finding] = []
        if card in self.hands[seat]:
            self.hands[seat].remove(card)
        else:
            out.append(bad_event(f"{seat} laid down {card}, which the deal did not give them; recorded.",
                                 ev.index, self.board))
        self.laid_down[seat].append(card)
        if self.trump is not None and point_value(card, self.trump, self.rules.points):
            out.append(self._offence(kinds.POINT_CARD_LAID_DOWN, 4, seat, ev,
                                     f"{seat} laid down {card}, a point card; only cards without points may be "
                                     "laid down to get to six.", self.finding_id("pointdown", seat, card), card=card))
        elif self.trump is not None and not is_trump(card, self.trump):
            out.append(self.flag(kinds.LAY_DOWN_NON_TRUMP, 4, f"{seat} laid down {card} face up, which is not a "
                                 "trump; only surplus trumps are laid down (non-trumps are discarded).", ev,
                                 seat=str(seat), status="info"))
        return out
