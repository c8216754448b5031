"""The es-makker whist bid ladder: parsing calls and ordering bids (Meldingernes rækkefølge, Påhæng).

Everything here reads the rule table (``rules/whist/tables/<name>.json``): the
ladder, the nolo contracts and the session's påhæng order are data.

>>> r = default_rules()
>>> str(parse_bid("8 vip", r)), str(parse_bid("solo nolo", r)), parse_bid("gå med", r)
('8 vip', 'ren sol', 'join')
>>> bid_key(parse_bid("9", r), r) < bid_key(parse_bid("sol", r), r) < bid_key(parse_bid("9 vip", r), r)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...cards import Card
from ..tables import WhistTable, load_table

GAME = "whist"


def default_rules() -> WhistTable:
    """The shipped Whistklubben table: what a board plays by when its own table is unusable."""
    return load_table(GAME, None, "whistklubben", shipped=True)


@dataclass(frozen=True)
class Bid:
    """A rung of the ladder, with the påhæng for a "+" rung (``8+`` with ``vip`` is "8 vip")."""

    rung: str
    paahaeng: str | None = None

    def __str__(self) -> str:
        if self.paahaeng:
            return f"{self.rung.rstrip('+')} {self.paahaeng}"
        return self.rung

    @property
    def is_plus(self) -> bool:
        return self.rung.endswith("+")


_ALIASES = {"staerke": "stærke", "stærk": "stærke", "bordlaegger": "bordlægger", "solo nolo": "ren sol",
            "nolo": "ren sol", "ren bordlaegger": "ren bordlægger", "solo": "sol"}


def parse_bid(text: Any, rules: WhistTable) -> Bid | str | None:
    """A call: a :class:`Bid`, ``"pass"``, ``"join"`` (gå med), or None if unknown."""
    if not isinstance(text, str):
        return None
    t = " ".join(text.strip().lower().replace("-", " ").split())
    if t in ("p", "pas", "pass", "passe"):
        return "pass"
    if t in ("gå med", "ga med", "gaa med", "med", "join"):
        return "join"
    t = _ALIASES.get(t, t)
    ladder: list[str] = rules.ladder
    if t in ladder and not t.endswith("+"):
        return Bid(t)
    parts = t.split()
    if len(parts) == 2 and parts[0].isdigit():
        p = _ALIASES.get(parts[1], parts[1])
        if p in rules.paahaeng and f"{parts[0]}+" in ladder:
            return Bid(f"{parts[0]}+", p)
    return None


def bid_key(bid: Bid, rules: WhistTable) -> tuple[int, int]:
    """Order of bids: the ladder rung, then the session's påhæng order inside a "+" rung."""
    sub = rules.paahaeng_order.index(bid.paahaeng) + 1 if bid.paahaeng else 0
    return (rules.ladder.index(bid.rung), sub)


def is_nolo(bid: Bid | None, rules: WhistTable) -> bool:
    return bid is not None and bid.rung in rules.nolo


def tricks_needed(bid: Bid) -> int:
    return int(bid.rung.rstrip("+"))


def joinable(bid: Bid, rules: WhistTable) -> bool:
    """"Gå med" is possible on nolo bids and on vip (Gå med på en melding)."""
    return bid.rung in rules.nolo or bool(bid.paahaeng and rules.paahaeng[bid.paahaeng].joinable)


def is_jernhand(cards: list[Card]) -> bool:
    """13 cards with no court card (K Q J), no ace and no joker (Jernhånd)."""
    return len(cards) == 13 and all(not c.is_joker and c.rank not in "AKQJ" for c in cards)
