"""Cards and seats in the notation of ``shared/contracts.md``.

Input is forgiving because it comes from many sources (an operator typing
``10h``, a LIN file with ``SA``, a dealer app using ``♠A``); output is always
the canonical two-letter form so logs from different sources compare equal.

>>> parse_card("sa")
Card('SA')
>>> str(parse_card("♥10"))
'HT'
>>> str(parse_card("10d"))
'DT'
>>> parse_card("JK").is_joker
True
>>> parse_card("S1")
Traceback (most recent call last):
...
ValueError: unknown card 'S1'
>>> Seat.N.next(), Seat.W.next(), Seat.N.partner, Seat.E.lho, Seat.E.rho
(Seat.E, Seat.N, Seat.S, Seat.S, Seat.N)
>>> parse_seat("e")
Seat.E
"""

from __future__ import annotations

import enum
import random
from functools import total_ordering
from typing import Iterable

SUITS = "SHDC"
"""Suit letters in the contract's (and bridge's ranking) order: spades high."""

RANKS = "AKQJT98765432"
"""Rank letters from high to low."""

SUIT_SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C", "♤": "S", "♡": "H", "♢": "D", "♧": "C"}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
JOKER = "JK"


class Seat(enum.Enum):
    """A seat at the table; ``N E S W`` clockwise, used by all four games."""

    N = "N"
    E = "E"
    S = "S"
    W = "W"

    def __repr__(self) -> str:
        return f"Seat.{self.value}"

    def __str__(self) -> str:
        return self.value

    @property
    def index(self) -> int:
        return "NESW".index(self.value)

    def next(self, steps: int = 1) -> "Seat":
        """The seat ``steps`` places clockwise (to the left of this player)."""
        return SEATS[(self.index + steps) % 4]

    @property
    def lho(self) -> "Seat":
        """Left-hand opponent: the next player clockwise."""
        return self.next(1)

    @property
    def partner(self) -> "Seat":
        return self.next(2)

    @property
    def rho(self) -> "Seat":
        """Right-hand opponent: the previous player clockwise."""
        return self.next(3)

    @property
    def side(self) -> str:
        """``NS`` or ``EW``."""
        return "NS" if self.value in "NS" else "EW"


SEATS: tuple[Seat, ...] = (Seat.N, Seat.E, Seat.S, Seat.W)


def parse_seat(text: object) -> Seat:
    """Parse ``N E S W`` in any case; raise ``ValueError`` otherwise."""
    if isinstance(text, Seat):
        return text
    if isinstance(text, str) and text.strip().upper() in ("N", "E", "S", "W"):
        return Seat(text.strip().upper())
    raise ValueError(f"unknown seat {text!r}")


@total_ordering
class Card:
    """A playing card (or a joker); immutable, hashable, canonical ``str``.

    Cards compare by suit in ``SHDC`` order, then by rank from high to low,
    which is the order bridge players sort a hand in.
    """

    __slots__ = ("suit", "rank")

    def __init__(self, suit: str, rank: str) -> None:
        object.__setattr__(self, "suit", suit)
        object.__setattr__(self, "rank", rank)

    def __setattr__(self, name: str, value: object) -> None:  # pragma: no cover
        raise AttributeError("Card is immutable")

    @property
    def is_joker(self) -> bool:
        return self.suit == "J" and self.rank == "K"

    @property
    def rank_index(self) -> int:
        """0 for the ace, 12 for the deuce (jokers: -1)."""
        return -1 if self.is_joker else RANKS.index(self.rank)

    @property
    def is_honour(self) -> bool:
        """A, K, Q, J or 10: the honours of Law 50 (major penalty cards)."""
        return not self.is_joker and self.rank in "AKQJT"

    @property
    def is_red(self) -> bool:
        return self.suit in "HD"

    def __str__(self) -> str:
        return self.suit + self.rank

    def __repr__(self) -> str:
        return f"Card('{self}')"

    def __hash__(self) -> int:
        return hash((self.suit, self.rank))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Card):
            return self.suit == other.suit and self.rank == other.rank
        if isinstance(other, str):
            return str(self) == other
        return NotImplemented

    def _key(self) -> tuple[int, int]:
        if self.is_joker:
            return (-1, -1)
        return (SUITS.index(self.suit), RANKS.index(self.rank))

    def __lt__(self, other: "Card") -> bool:
        return self._key() < other._key()


def parse_card(text: object) -> Card:
    """Parse a card in any accepted spelling; raise ``ValueError`` otherwise.

    Accepted: suit then rank (``SA``, ``s10``, ``♠A``), rank then suit
    (``10S``, ``AS``) and ``JK`` / ``joker`` for a joker.
    """
    if isinstance(text, Card):
        return text
    hit = _CANONICAL.get(text) if isinstance(text, str) else None
    if hit is not None:
        return hit
    if not isinstance(text, str):
        raise ValueError(f"unknown card {text!r}")
    t = text.strip()
    for sym, letter in SUIT_SYMBOLS.items():
        t = t.replace(sym, letter)
    t = t.upper().replace("10", "T")
    if t in ("JK", "JOKER", "*"):
        return _CANONICAL["JK"]
    if len(t) == 2:
        a, b = t[0], t[1]
        if a in SUITS and b in RANKS:
            return _CANONICAL[a + b]
        if a in RANKS and b in SUITS:
            return _CANONICAL[b + a]
    raise ValueError(f"unknown card {text!r}")


_CANONICAL: dict[str, Card] = {s + r: Card(s, r) for s in SUITS for r in RANKS}
_CANONICAL["JK"] = Card("J", "K")
"""Interned cards: parsing the canonical form is one dict lookup."""


def is_card(text: object) -> bool:
    """True if ``text`` parses as a card."""
    try:
        parse_card(text)
    except ValueError:
        return False
    return True


def full_deck() -> list[Card]:
    """The 52 cards, spades ace first."""
    return [_CANONICAL[s + r] for s in SUITS for r in RANKS]


DECK: tuple[Card, ...] = tuple(full_deck())


def shuffled_deck(seed: int | None = None, jokers: int = 0) -> list[Card]:
    """A shuffled 52-card deck plus ``jokers`` jokers (es-makker whist uses 3)."""
    deck = full_deck() + [_CANONICAL["JK"]] * jokers
    random.Random(seed).shuffle(deck)
    return deck


def sort_hand(cards: Iterable[Card]) -> list[Card]:
    """Sort a hand as a bridge player would: by suit S H D C, high to low."""
    return sorted(cards)


def hand_str(cards: Iterable[Card]) -> str:
    """PBN-style hand: ``AKQ.T98.-.5432`` (suits S H D C, ``-`` void omitted as empty).

    >>> hand_str([parse_card(c) for c in ["SA", "SK", "H2", "C3"]])
    'AK.2..3'
    """
    by_suit = {s: [] for s in SUITS}
    for c in sort_hand(cards):
        if not c.is_joker:
            by_suit[c.suit].append(c.rank)
    return ".".join("".join(by_suit[s]) for s in SUITS)
