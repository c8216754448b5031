"""The deal, the refill and the redeal (Pidroregler 1, 3).

A mixin of :class:`~tablecam.rules.pidro.board.PidroBoard`. The first deal
gives nine cards each, three at a time clockwise from the dealer's left;
after the trump is named and the non-trumps laid away, the dealer fills each
player up to six in turn from his left and robs the rest himself.
"""

from __future__ import annotations

from ... import kinds
from ...cards import Card, Seat
from ...events import Event
from ...findings import Finding

REDEAL_RECTIFIES = (kinds.MISDEAL, kinds.WRONG_CARD_COUNT, kinds.DUPLICATE_CARD)
"""The irregularities of the deal that a redeal puts right."""


class DealRules:
    """The ``deal`` and ``redeal`` handlers."""

    def _reset_deal(self) -> None:
        self.hands: dict[Seat, list[Card]] = {s: [] for s in Seat}
        self.dealt: dict[Seat, list[Card]] = {s: [] for s in Seat}
        self.seen: set[Card] = set()
        self.deal_count = 0
        self.deal_closed = False
        self.misdeal_flagged = False

    def _on_deal(self, ev: Event) -> list[Finding]:
        out: list[Finding] = []
        card: Card = ev.card
        to = ev.get("to")
        if card in self.seen or card.is_joker:
            why = "a joker is not part of a Pidro pack" if card.is_joker else "it was already dealt in this board"
            out.append(self.flag(kinds.DUPLICATE_CARD, 1, f"{card} was dealt to {to} but {why}.", ev,
                                 status="pending", options=["find the stray card", "redeal"],
                                 id=self.finding_id("duplicate", card, ev.index), card=str(card)))
        self.seen.add(card)
        if not isinstance(to, Seat):
            out.append(self.flag(kinds.MISDEAL, 1, f"{card} was dealt to the {to}; Pidro has no talong or kitty.",
                                 ev, seat=str(self.dealer), status="pending", options=["redeal"],
                                 id=self.finding_id("misdeal", "pile", ev.index)))
            return out
        if self.trump is None and not self.bidding_started():
            # the first deal: 9 each, 3 at a time, from the dealer's left
            packet = self.rules.deal.packet
            expected = self.dealer.next(1 + (self.deal_count // packet) % 4)
            if to != expected and not self.misdeal_flagged:
                self.misdeal_flagged = True
                out.append(self.flag(
                    kinds.MISDEAL, 1, f"Card {self.deal_count + 1} of the deal went to {to} instead of {expected}: "
                    f"Pidro is dealt {packet} at a time clockwise from the dealer's left.", ev,
                    seat=str(self.dealer), status="pending", options=["redeal", "let the deal stand"],
                    id=self.finding_id("misdeal", "order"), expected_seat=str(expected)))
            self.deal_count += 1
            self.dealt[to].append(card)
        else:
            self.refill_started = True
            self.refilled[to].append(card)
            limit = self.rules.deal.final_hand
            if to != self.dealer and len(self.hands[to]) >= limit:
                out.append(self.flag(
                    kinds.WRONG_CARD_COUNT, 3, f"{to} already held {len(self.hands[to])} cards and was given {card}; "
                    f"the refill only brings each player up to {limit}.", ev, seat=str(to), status="pending",
                    options=["return the extra card to the dealer"], id=self.finding_id("refill", to, ev.index),
                    count=len(self.hands[to]) + 1, expected=limit))
            out += self._check_refill_order(to, ev)
        self.hands[to].append(card)
        return out

    def _check_refill_order(self, to: Seat, ev: Event) -> list[Finding]:
        """The refill goes clockwise from the dealer's left, each player up to 6; the dealer robs last."""
        if self._refill_order_flagged:
            return []
        limit = self.rules.deal.final_hand
        order = [self.dealer.next(i) for i in (1, 2, 3)]
        before = order if to == self.dealer else order[:order.index(to)]
        short = [s for s in before if len(self.hands[s]) < limit]
        if not short:
            return []
        self._refill_order_flagged = True
        return [self.flag(kinds.REFILL_OUT_OF_ORDER, 3, f"{to} was given a refill card while {short[0]} still "
                          f"had {len(self.hands[short[0]])} cards; the dealer fills each player to {limit} in "
                          "turn from his left and takes the rest last.", ev, seat=str(self.dealer),
                          status="info", expected_seat=str(short[0]))]

    def _close_deal(self, ev: Event) -> list[Finding]:
        if self.deal_closed:
            return []
        self.deal_closed = True
        out = []
        n = self.rules.deal.cards_each
        for s in Seat:
            if len(self.dealt[s]) != n and self.deal_count:
                out.append(self.flag(
                    kinds.WRONG_CARD_COUNT, 1, f"{s} was dealt {len(self.dealt[s])} cards instead of {n}.", ev,
                    seat=str(s), status="pending", options=["redeal", "correct the hands before bidding"],
                    id=self.finding_id("count", s), count=len(self.dealt[s]), expected=n))
        return out

    def _on_redeal(self, ev: Event) -> list[Finding]:
        out = []
        latest = {f.id: f for f in self.findings if f.id}  # each finding's latest lifecycle step
        for f in latest.values():
            if f.kind in REDEAL_RECTIFIES and f.status == "pending":
                out.append(self.restep(f, "rectified", ev, f"Redealt: {f.message}", options=[]))
        self._reset_deal()
        return out
