"""Gök and the tjuvpass convention (SM 2025 B.1).

After a gök bid, the first player to speak (first hand) may pass only with at
least two läggarder in different suits, the second hand with at least one;
otherwise his pass is a tjuvpass. A tjuvpass is allowed, but when the gök is
played home the tjuvpassare compensates the others (the table is data:
``gok.compensation`` in ``rules/vira/tables/sm-2025.json``).

Approved läggarder (B.1): "tian femte, åttan fjärde, sexan tredje, fyra och
trea samt tvåa, däremot ej dam sjätte" -- a suit holding *k* cards no higher
than 2k (k = 1..5): the deuce; two cards up to the four; three up to the six;
four up to the eight; five up to the ten. The queen sixth (k = 6) does not count.

>>> from tablecam.cards import parse_card as C
>>> limits = {1: 2, 2: 4, 3: 6, 4: 8, 5: 10}
>>> laggarde_suits([C(x) for x in ("S2", "H6", "H5", "H3", "DQ", "DJ", "DT", "D9", "D8", "D7")], limits)
['S', 'H']
>>> laggarde_suits([C(x) for x in ("CT", "C9", "C7", "C5", "C4")], limits)  # tian femte
['C']
"""

from __future__ import annotations

from typing import Iterable

from ...cards import Card


def value(card: Card) -> int:
    """Numeric rank: 2..10, J 11, Q 12, K 13, A 14."""
    return 14 - card.rank_index


def laggarde_suits(hand: Iterable[Card], limits: dict[int, int]) -> list[str]:
    """Suits (in S H D C order) in which ``hand`` holds an approved läggarde."""
    hand = list(hand)
    out = []
    for suit in "SHDC":
        vals = [value(c) for c in hand if c.suit == suit]
        if any(sum(1 for v in vals if v <= top) >= k for k, top in limits.items()):
            out.append(suit)
    return out


def compensation(tjuvpassare: list[str], partner_of: dict[str, str], sit_out: str | None,
                 table: dict) -> dict[str, int]:
    """Pinnar moved by B.1 when the gök went home (+ received)."""
    size = "4" if sit_out else "3"
    rule = table.get(size, {}).get("one" if len(tjuvpassare) == 1 else "two", {})
    out: dict[str, int] = {}
    for t in tjuvpassare:
        for who, n in rule.items():
            target = partner_of.get(t) if who == "partner" else sit_out
            if target is None or not n:
                continue
            out[t] = out.get(t, 0) - n
            out[target] = out.get(target, 0) + n
    return out
