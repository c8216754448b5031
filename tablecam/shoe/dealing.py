"""Which seat each card from the shoe goes to: the dealing order per game.

The shoe only sees cards leave its slot; the table config (game, dealer,
who sits out) says where each one goes. The patterns are data
(``dealing.json``): a list of packet sizes dealt to each active player in
turn from the dealer's left, repeated ``rounds`` times, then piles such as
Vira's talong.

- bridge: one at a time clockwise from the dealer's left, 13 each;
- Vira: 3 active players (at a 4-table one sits out: the player on the
  dealer's right unless the board says otherwise - the dealer plays, as
  efterhand, in Vira SM 2025), 4 each then three rounds of 3 (13 each), the
  remaining 13 to the talong;
- Pidro: 3 at a time from the dealer's left, 9 each; 16 stay in the shoe for
  the refill after the discard;
- es-makker whist: 55 cards (3 jokers), 13 each one at a time; 3 to the
  kitty. The shoe cannot see where the dealer puts a card, so the dealer
  presses the KITTY button before a kitty card: the CARD arrives with the
  KITTY flag, goes to the kitty and does not use a player's slot.

>>> plan = dealing_plan("bridge", "N")
>>> "".join(plan.slots[:5]), plan.total, plan.expected["E"]
('ESWNE', 52, 13)
>>> vira = dealing_plan("vira", "S")
>>> "".join(vira.slots[:8]), vira.active, vira.slots[-1], vira.expected["talong"]
('WWWWNNNN', ('W', 'N', 'S'), 'talong', 13)
>>> pidro = dealing_plan("pidro", "W")
>>> "".join(pidro.slots[:6]), pidro.total, pidro.left_in_shoe
('NNNEEE', 36, 16)
>>> whist = dealing_plan("whist", "E")
>>> whist.total, whist.kitty, whist.expected["kitty"]
(55, 3, 3)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, Iterable

SEATS = "NESW"


@lru_cache(maxsize=1)
def game_table() -> dict[str, Any]:
    """The dealing patterns (``dealing.json``)."""
    text = resources.files(__package__).joinpath("dealing.json").read_text(encoding="utf-8")
    data = json.loads(text)
    data.pop("about", None)
    return data


def _seat(s: Any) -> str:
    t = str(s).strip().upper()
    if t not in SEATS or len(t) != 1:
        raise ValueError(f"unknown seat {s!r}")
    return t


def left_of(seat: str, steps: int = 1) -> str:
    """The seat ``steps`` places clockwise. ``left_of("W") == "N"``."""
    return SEATS[(SEATS.index(seat) + steps) % 4]


@dataclass(frozen=True)
class DealPlan:
    """The dealing order of one board.

    ``slots`` holds one destination per card the dealer takes from the shoe
    (seat letters, or ``talong``); kitty cards (whist) come on top of these,
    marked by the KITTY flag. ``expected`` is the final count per destination.
    """

    game: str
    dealer: str
    active: tuple[str, ...]
    slots: tuple[str, ...]
    kitty: int = 0
    left_in_shoe: int = 0
    jokers: int = 0
    rule: str = ""
    count_rule: str = ""
    expected: dict[str, int] = field(default_factory=dict)
    refill_to: int = 0

    @property
    def total(self) -> int:
        """Cards that leave the shoe during the deal (slots and kitty)."""
        return len(self.slots) + self.kitty

    @property
    def sitting_out(self) -> tuple[str, ...]:
        return tuple(s for s in SEATS if s not in self.active)


def active_players(game: str, dealer: str, players: Iterable[str] | None = None,
                   sit_out: str | None = None) -> tuple[str, ...]:
    """Active seats in dealing order (clockwise from the dealer's left).

    >>> active_players("vira", "N")
    ('E', 'S', 'N')
    >>> active_players("vira", "N", sit_out="S")
    ('E', 'W', 'N')
    >>> active_players("vira", "N", players="NES")
    ('E', 'S', 'N')
    """
    spec = game_table()[game]
    dealer = _seat(dealer)
    order = [left_of(dealer, i) for i in range(1, 5)]  # dealer last
    if players:
        chosen = {_seat(p) for p in players}
        order = [s for s in order if s in chosen]
    elif spec["active"] < 4:
        # The dealer is efterhand and plays; the player on his right sits out
        # (the same default as tablecam.rules.vira).
        out = _seat(sit_out) if sit_out else left_of(dealer, 3)
        order = [s for s in order if s != out]
    if len(order) != spec["active"]:
        raise ValueError(f"{game} needs {spec['active']} active players, got {''.join(order)}")
    return tuple(order)


def dealing_plan(game: str, dealer: Any, players: Iterable[str] | None = None,
                 sit_out: str | None = None) -> DealPlan:
    """The :class:`DealPlan` for one board of ``game`` dealt by ``dealer``."""
    table = game_table()
    if game not in table:
        raise ValueError(f"unknown game {game!r} (one of {', '.join(table)})")
    spec = table[game]
    dealer = _seat(dealer)
    active = active_players(game, dealer, players, sit_out)
    slots: list[str] = []
    for _ in range(spec["rounds"]):
        for packet in spec["packets"]:
            for seat in active:
                slots.extend([seat] * packet)
    for pile, n in spec["after"]:
        slots.extend([pile] * n)
    expected: dict[str, int] = {}
    for s in slots:
        expected[s] = expected.get(s, 0) + 1
    if spec["kitty_flagged"]:
        expected["kitty"] = spec["kitty_flagged"]
    return DealPlan(game, dealer, active, tuple(slots), spec["kitty_flagged"], spec["left_in_shoe"],
                    spec["jokers"], spec["rule"], spec["count_rule"], expected, spec.get("refill_to", 0))


def next_dealer(game: str, dealer: str) -> str:
    """The deal passes to the left in all four games."""
    return left_of(_seat(dealer)) if game_table()[game]["rotate_dealer"] else _seat(dealer)
