"""The Pidro trump suit: 14 cards, ranks and point values (Termer i pidron, Pidroregler 4-5).

Why the suit a card belongs to depends on the trump: both fives of the trump
colour belong to it ("rätt pidro" the trump five, "fel pidro" the other five
of that colour), so :func:`suit_of` takes the trump.

>>> from tablecam.cards import parse_card as C
>>> [str(c) for c in sorted(trump_cards("H"), key=lambda c: -trump_rank(c, "H"))][8:11]
['H6', 'H5', 'D5']
>>> suit_of(C("D5"), "H"), suit_of(C("D5"), "S"), point_value(C("D5"), "H")
('H', 'D', 5)
"""

from __future__ import annotations

from typing import Any

from ...cards import Card, Seat, parse_card

SIDES = ("NS", "EW")
SAME_COLOUR = {"H": "D", "D": "H", "S": "C", "C": "S"}
TRUMP_ORDER = "AKQJT9876"  # then rätt pidro, fel pidro, 4 3 2


def parse_suit(text: Any) -> str | None:
    """``S H D C`` from a letter, symbol or Swedish/Danish/English name; None if unknown."""
    if not isinstance(text, str) or not text.strip():
        return None
    t = text.strip().lower()
    names = {"s": "S", "♠": "S", "spader": "S", "spar": "S", "spades": "S", "stærke": "S",
             "h": "H", "♥": "H", "hjärter": "H", "hjerter": "H", "hearts": "H",
             "d": "D", "♦": "D", "ruter": "D", "diamonds": "D",
             "c": "C", "♣": "C", "klöver": "C", "klør": "C", "clubs": "C", "gode": "C"}
    return names.get(t)


def suit_of(card: Card, trump: str | None) -> str | None:
    """The suit a card belongs to: the off-colour five ("fel pidro") joins the trump suit."""
    if card.is_joker:
        return None
    if trump and card.rank == "5" and card.suit == SAME_COLOUR[trump]:
        return trump
    return card.suit


def is_trump(card: Card, trump: str | None) -> bool:
    return trump is not None and suit_of(card, trump) == trump


def trump_rank(card: Card, trump: str) -> int:
    """Rank within the 14-card trump suit: A=13 ... 6=5, rätt pidro 4, fel pidro 3, 4 3 2 = 2 1 0."""
    if card.rank == "5":
        return 4 if card.suit == trump else 3
    if card.rank in TRUMP_ORDER:
        return 13 - TRUMP_ORDER.index(card.rank)
    return "234".index(card.rank)


def trump_cards(trump: str) -> list[Card]:
    """The 14 cards of the trump suit."""
    return [parse_card(trump + r) for r in "AKQJT98765432"] + [parse_card(SAME_COLOUR[trump] + "5")]


def point_value(card: Card, trump: str | None, points: dict[str, int] | None = None) -> int:
    """Points a trump card is worth (A, J, 10, 2: 1; each pidro: 5); non-trumps 0."""
    points = points or {"A": 1, "J": 1, "T": 1, "2": 1, "pidro": 5}
    if not is_trump(card, trump):
        return 0
    if card.rank == "5":
        return int(points["pidro"])       # a rules table must give it (rules/tables.py)
    return int(points.get(card.rank, 0))


def side_of(seat: Seat) -> str:
    return seat.side


def other_side(side: str) -> str:
    return "EW" if side == "NS" else "NS"
