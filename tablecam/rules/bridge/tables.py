"""Precomputed lookup tables for the bridge engine's hot path.

The archive replays ~800,000 events, so the fold must not parse strings or
build objects per event. Cards and seats from :mod:`tablecam.cards` are
interned, which lets us key tables on ``id(obj)``: one builtin call and one
integer dict lookup, instead of ``Card.__hash__`` (a Python-level method).

Internally a card is an index 0..51 (``SA`` = 0, ``S2`` = 12, ``HA`` = 13 ...
``C2`` = 51), a suit is 0..3 in ``S H D C`` order, a seat is 0..3 in
``N E S W`` order (so ``seat & 1`` is the side: 0 = NS, 1 = EW) and a hand is
a 52-bit integer mask.

>>> CARD_INDEX[id(parse_card("HA"))], SUIT[13], RANK_VALUE[13], CARD_TEXT[51]
(13, 1, 12, 'C2')
>>> parse_call("1nt"), parse_call("Pass"), parse_call("d"), parse_call("4♠"), parse_call("8C")
('1N', 'P', 'X', '4S', None)
>>> BID_RANK["1C"] < BID_RANK["1D"] < BID_RANK["1N"] < BID_RANK["2C"] < BID_RANK["7N"]
True
"""

from __future__ import annotations

from ...cards import DECK, RANKS, SEATS, SUITS, Card, Seat, parse_card

SEAT_LETTERS = "NESW"
SEAT_INDEX: dict[int, int] = {id(s): i for i, s in enumerate(SEATS)}
"""``id(Seat)`` -> 0..3."""
SEAT_OBJ: tuple[Seat, ...] = SEATS
SIDE_NAME = ("NS", "EW")

CARD_INDEX: dict[int, int] = {id(c): i for i, c in enumerate(DECK)}
"""``id(Card)`` -> 0..51 for the interned cards."""
CARD_BY_TEXT: dict[str, int] = {str(c): i for i, c in enumerate(DECK)}
CARD_OBJ: tuple[Card, ...] = DECK
CARD_TEXT: tuple[str, ...] = tuple(str(c) for c in DECK)
SUIT: tuple[int, ...] = tuple(i // 13 for i in range(52))
RANK_VALUE: tuple[int, ...] = tuple(12 - i % 13 for i in range(52))
"""Higher wins: ace 12 ... deuce 0."""
BIT: tuple[int, ...] = tuple(1 << i for i in range(52))
HONOUR: tuple[bool, ...] = tuple(RANKS[i % 13] in "AKQJT" for i in range(52))
SUIT_MASK: tuple[int, ...] = tuple(0x1FFF << (13 * s) for s in range(4))
LOW_MASK = sum(BIT[i] for i in range(52) if not HONOUR[i])
"""The cards below the 10 (Law 50B/50C)."""
FULL_MASK = (1 << 52) - 1
SUIT_LETTER = SUITS  # "SHDC"
SUIT_WORD = ("spades", "hearts", "diamonds", "clubs")


def card_index(card: object) -> int | None:
    """Index of a card object (interned fast path, canonical text fallback)."""
    i = CARD_INDEX.get(id(card))
    if i is None and isinstance(card, Card):
        i = CARD_BY_TEXT.get(str(card))
    return i


def seat_index(seat: object) -> int | None:
    i = SEAT_INDEX.get(id(seat))
    if i is None and isinstance(seat, Seat):
        i = SEAT_LETTERS.find(seat.value)
    return i


def mask_cards(mask: int) -> list[str]:
    """The cards of a hand mask, sorted S H D C high to low."""
    out = []
    while mask:
        low = mask & -mask
        out.append(CARD_TEXT[low.bit_length() - 1])
        mask ^= low
    return out


# -- calls --------------------------------------------------------------------
STRAINS = "CDHSN"
"""Bidding order of the strains (clubs lowest, notrump highest)."""
STRAIN_TRUMP = {"C": 3, "D": 2, "H": 1, "S": 0, "N": -1}
"""Strain letter -> trump suit index (-1 = notrump)."""

BID_RANK: dict[str, int] = {f"{lvl}{st}": (lvl - 1) * 5 + k for lvl in range(1, 8) for k, st in enumerate(STRAINS)}
BID_TEXT: dict[int, str] = {v: k for k, v in BID_RANK.items()}
PASS, DOUBLE, REDOUBLE = "P", "X", "XX"

_STRAIN_SPELLINGS = {"C": "C", "D": "D", "H": "H", "S": "S", "N": "N", "NT": "N", "SA": "N",
                     "♣": "C", "♦": "D", "♥": "H", "♠": "S"}
CALL_SPELLINGS: dict[str, str] = {
    "P": "P", "PASS": "P", "PAS": "P", "-": "P",
    "X": "X", "D": "X", "DBL": "X", "DOUBLE": "X",
    "XX": "XX", "R": "XX", "RDBL": "XX", "REDOUBLE": "XX",
}
for _lvl in range(1, 8):
    for _sp, _st in _STRAIN_SPELLINGS.items():
        CALL_SPELLINGS[f"{_lvl}{_sp}"] = f"{_lvl}{_st}"
CALL_SPELLINGS.update({k.lower(): v for k, v in list(CALL_SPELLINGS.items())})


def parse_call(text: object) -> str | None:
    """Canonical call (``P X XX 1C..7N``) or ``None`` if not a bridge call."""
    if not isinstance(text, str):
        return None
    c = CALL_SPELLINGS.get(text)
    if c is None:
        c = CALL_SPELLINGS.get(text.strip().upper().replace(" ", ""))
    return c


def bid_above_seven(text: object) -> str | None:
    """A bid of more than seven tricks (Law 38) in canonical form, else ``None``.

    Such a bid is a call the Laws deal with (it is cancelled and a pass
    substituted), not an unreadable line, so it is recognised apart from
    :func:`parse_call`.

    >>> bid_above_seven("8H"), bid_above_seven("9nt"), bid_above_seven("10♠"), bid_above_seven("7S")
    ('8H', '9N', '10S', None)
    """
    if not isinstance(text, str):
        return None
    t = text.strip().upper().replace(" ", "")
    k = 0
    while k < len(t) and t[k].isdigit():
        k += 1
    if not k or k > 2 or int(t[:k]) <= 7:
        return None
    strain = _STRAIN_SPELLINGS.get(t[k:])
    return f"{int(t[:k])}{strain}" if strain else None


def contract_text(bid: str, doubled: int) -> str:
    """``4S`` + ``X`` / ``XX``: the contract's notation for a result."""
    return bid + ("", "X", "XX")[doubled]


__all__ = [n for n in dir() if not n.startswith("_")] + ["parse_card"]
