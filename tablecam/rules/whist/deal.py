"""Checking an es-makker whist deal card by card (Kortgivningen, Jernhånd).

55 cards (52 and 3 jokers) go clockwise from the dealer's left, 13 to each
hand and 3 to the kitty ("katten"), which may only get one card at a time
(a card to a hand must come between two kitty cards) and never the very last
card. This module keeps the cards dealt and says what was wrong; the board
turns that into findings.

>>> from tablecam.cards import Seat, parse_card
>>> d = Deal(Seat.S, {"cards_each": 13, "kitty": 3, "jokers": 3})
>>> d.add(Seat.W, parse_card("SA")), d.add("kitty", parse_card("H2")), d.add("kitty", parse_card("H3"))
([], [], [('kitty_row', {})])
"""

from __future__ import annotations

from typing import Any

from ...cards import Card, Seat
from .bids import is_jernhand

Problem = tuple[str, dict[str, Any]]
"""(what, details): ``duplicate`` (n), ``kitty_row``, ``kitty_last``, ``out_of_order`` (expected) while
dealing; ``kitty_last``, ``kitty_count`` (count, expected), ``wrong_count`` (seat, count, expected) and
``jernhand`` (seat) when the deal is closed."""


class Deal:
    """The cards of one deal as they arrive from the shoe or the camera."""

    def __init__(self, dealer: Seat, rules: dict[str, Any]) -> None:
        self.forhaand = dealer.next()
        self.each = int(rules["cards_each"])
        self.kitty_size = int(rules["kitty"])
        self.jokers = int(rules["jokers"])
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
