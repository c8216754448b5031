"""Checking an es-makker whist deal card by card (Kortgivningen, Jernhånd).

55 cards (52 and 3 jokers) go clockwise from the dealer's left, 13 to each
hand and 3 to the kitty ("katten"), which may only get one card at a time
(a card to a hand must come between two kitty cards) and never the very last
card. This module keeps the cards dealt and says what was wrong; the board
turns that into findings.

>>> from tablecam.cards import Seat, parse_card
>>> d = Deal(Seat.S, WhistDeal(cards_each=13, kitty=3, jokers=3))
>>> d.add(Seat.W, parse_card("SA")), d.add("kitty", parse_card("H2")), d.add("kitty", parse_card("H3"))
([], [], [('kitty_row', {})])
"""

from __future__ import annotations

from typing import Any

from ... import kinds
from ...cards import Card, Seat
from ...events import Event
from ...findings import Finding
from ..tables import WhistDeal
from .bids import is_jernhand

Problem = tuple[str, dict[str, Any]]
"""(what, details): ``duplicate`` (n), ``kitty_row``, ``kitty_last``, ``out_of_order`` (expected) while
dealing; ``kitty_last``, ``kitty_count`` (count, expected), ``wrong_count`` (seat, count, expected) and
``jernhand`` (seat) when the deal is closed."""


class Deal:
    """The cards of one deal as they arrive from the shoe or the camera."""

    def __init__(self, dealer: Seat, rules: WhistDeal) -> None:
        self.forhaand = dealer.next()
        self.each = rules.cards_each
        self.kitty_size = rules.kitty
        self.jokers = rules.jokers
        self.total = 52 + self.jokers
        self.dealt: dict[Seat, list[Card]] = {s: [] for s in Seat}
        self.kitty: list[Card] = []
        self.seen: dict[Card, int] = {}
        self.count = 0
        self.last_to: Seat | str | None = None
        self.last_seat: Seat | None = None
        self.last_index: int | None = None  # event index of the last card dealt
        self.closed = False
        self._flagged: set[str] = set()  # problems reported once per deal

    def add(self, to: Seat | str, card: Card, index: int | None = None) -> list[Problem]:
        """One card dealt to a seat or to the kitty (``talong`` means the kitty)."""
        out: list[Problem] = []
        n = self.seen.get(card, 0) + 1
        self.seen[card] = n
        if n > (self.jokers if card.is_joker else 1):
            out.append(("duplicate", {"n": n}))
        self.count += 1
        if to == "talong":
            to = "kitty"
        if to == "kitty":
            if self.last_to == "kitty" and "kitty_row" not in self._flagged:
                self._flagged.add("kitty_row")
                out.append(("kitty_row", {}))
            self.kitty.append(card)
            if self.count == self.total:
                self._flagged.add("kitty_last")
                out.append(("kitty_last", {}))
        elif isinstance(to, Seat):
            # clockwise from the dealer's left; a packet may hold several cards to the same seat
            allowed = [self.forhaand] if self.last_seat is None else [self.last_seat, self.last_seat.next()]
            if to not in allowed and "order" not in self._flagged:
                self._flagged.add("order")
                out.append(("out_of_order", {"expected": allowed[-1]}))
            self.dealt[to].append(card)
            self.last_seat = to
        self.last_to = to
        self.last_index = index
        return out

    def close(self) -> list[Problem]:
        """The deal is over (the first event that is not a card dealt): check the counts."""
        if self.closed or not self.count:
            self.closed = True
            return []
        self.closed = True
        out: list[Problem] = []
        if self.last_to == "kitty" and "kitty_last" not in self._flagged:
            out.append(("kitty_last", {}))
        if len(self.kitty) != self.kitty_size:
            out.append(("kitty_count", {"count": len(self.kitty), "expected": self.kitty_size}))
        for s in Seat:
            if len(self.dealt[s]) != self.each:
                out.append(("wrong_count", {"seat": s, "count": len(self.dealt[s]), "expected": self.each}))
            elif is_jernhand(self.dealt[s]):
                out.append(("jernhand", {"seat": s}))
        return out

REDEAL_RECTIFIES = (kinds.MISDEAL, kinds.WRONG_CARD_COUNT, kinds.DUPLICATE_CARD, kinds.DEAL_OUT_OF_ORDER,
                    kinds.FALSE_JERNHAND)
"""The irregularities of the deal that a redeal (Omblanding) puts right."""


class DealRules:
    """The board's deal handlers (Kortgivningen, Jernhånd, Omblanding): a mixin of
    :class:`~tablecam.rules.whist.board.WhistBoard`, reporting through ``self.flag``."""

    def _reset_deal(self) -> None:
        self.deal = Deal(self.dealer, self.rules.deal)
        self.hands: dict[Seat, list[Card]] = {s: [] for s in Seat}  # cards held now
        self.kitty: list[Card] = []  # the kitty now (after any exchange)

    dealt = property(lambda self: self.deal.dealt)

    dealt_kitty = property(lambda self: self.deal.kitty)

    deal_closed = property(lambda self: self.deal.closed)

    def _misdeal(self, why: str, event: Event | int | None, fid: str, **fields: Any) -> Finding:
        """Kortgivningen: "Ved ureglementeret kortgivning er der omblanding" (always a redeal)."""
        return self.flag(kinds.MISDEAL, "Kortgivningen", why, event, seat=self.dealer, options=["redeal"],
                         remedy="Omblanding: the cards are shuffled and dealt again.", id=fid, **fields)

    def _on_deal(self, ev: Event) -> list[Finding]:
        out: list[Finding] = []
        card: Card = ev.card
        to = ev.get("to")
        if ev.get("face_up"):
            out.append(self.flag(kinds.CARD_EXPOSED_IN_DEAL, "Omblanding", f"{card} was turned face up while "
                                 f"dealing to {to}; other dealing errors that are corrected need no redeal.",
                                 ev, seat=str(self.dealer), status="info",
                                 options=["play on", "redeal, if asked before anyone looked at their cards"],
                                 card=str(card)))
        for what, d in self.deal.add(to, card, ev.index):
            if what == "duplicate":
                why = (f"a joker number {d['n']}; the pack has {self.deal.jokers}" if card.is_joker
                       else "it was already dealt in this board")
                out.append(self.flag(kinds.DUPLICATE_CARD, "Kortgivningen", f"{card} was dealt to {to} but {why}.",
                                     ev, status="pending", options=["find the stray card", "redeal"],
                                     id=self.finding_id("duplicate", card, ev.index), card=str(card)))
            elif what == "kitty_row":
                out.append(self._misdeal("Two cards in a row went to the kitty; only one kitty card may be laid "
                                         "between cards to the hands.", ev.index,
                                         self.finding_id("misdeal", "kitty-row")))
            elif what == "kitty_last":
                out.append(self._misdeal("The last card of the deal went to the kitty; it must go to a hand.",
                                         ev.index, self.finding_id("misdeal", "kitty-last")))
            elif what == "out_of_order":
                out.append(self.flag(
                    kinds.DEAL_OUT_OF_ORDER, "Kortgivningen", f"{card} went to {to} out of the clockwise order "
                    f"(expected {d['expected']}); cards are always dealt clockwise from the dealer's left.", ev,
                    seat=str(self.dealer), status="pending",
                    options=["correct the hands (Omblanding: no redeal once corrected)",
                             "redeal, if asked before anyone looked at their cards"],
                    id=self.finding_id("order"), expected_seat=str(d["expected"])))
        if isinstance(to, Seat):
            self.hands[to].append(card)
        else:
            self.kitty.append(card)
        return out

    def _close_deal(self, ev: Event) -> list[Finding]:
        out: list[Finding] = []
        for what, d in self.deal.close():
            if what == "kitty_last":  # reported at the card itself
                out.append(self._misdeal("The last card of the deal went to the kitty; it must go to a hand.",
                                         self.deal.last_index, self.finding_id("misdeal", "kitty-last")))
            elif what == "kitty_count":
                out.append(self._misdeal(f"The kitty holds {d['count']} cards instead of {d['expected']}.", ev.index,
                                         self.finding_id("misdeal", "kitty-count"), **d))
            elif what == "wrong_count":
                s = d["seat"]
                out.append(self.flag(kinds.WRONG_CARD_COUNT, "Kortgivningen",
                                     f"{s} was dealt {d['count']} cards instead of {d['expected']}.", ev,
                                     seat=str(s), status="pending",
                                     options=["correct the hand (Omblanding)", "redeal"],
                                     id=self.finding_id("count", s),
                                     count=d["count"], expected=d["expected"]))
            elif what == "jernhand":
                s = d["seat"]
                out.append(self.flag(kinds.JERNHAND, "Jernhånd", f"{s} holds jernhånd (no ace, court card or "
                                     "joker) and may have the deal restarted.", ev, seat=str(s),
                                     status="info", options=["declare jernhånd: redeal", "play the cards"],
                                     id=self.finding_id("jernhand", s)))
        return out

    def _on_jernhand(self, ev: Event) -> list[Finding]:
        seat = ev.seat
        if is_jernhand(self.hands[seat]) or is_jernhand(self.dealt[seat]):
            return []
        return [self.flag(kinds.FALSE_JERNHAND, "Jernhånd", f"{seat} claimed jernhånd but holds an ace, a court "
                          "card or a joker.", ev, seat=str(seat), status="pending",
                          options=["play on with the cards as dealt"], id=self.finding_id("falsejern", seat))]

    def _on_redeal(self, ev: Event) -> list[Finding]:
        out = []
        latest = {f.id: f for f in self.findings if f.id}  # each finding's latest lifecycle step
        for f in latest.values():
            if f.kind in REDEAL_RECTIFIES and f.status == "pending":
                out.append(self.restep(f, "rectified", ev, f"Redealt: {f.message}"))
        self._reset_deal()
        self._reset_auction()
        return out
