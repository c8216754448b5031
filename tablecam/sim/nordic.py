"""Simulated tables for the Nordic games: one entry point, one module per game.

:func:`tablecam.sim.session.boards_of` calls :func:`simulate_board` for every
game but bridge. Each game's simulator produces a complete, reproducible
deal in that engine's event vocabulary (``docs/vira.md``, ``docs/pidro.md``,
``docs/whist.md``) and, with probability ``rate``, one irregularity of the
kind the engine reports (``IRREGULARITIES[game]``).

>>> evs = simulate_board("pidro", 1, seed=1, rate=0.0)
>>> evs[0]["game"], evs[-1]["type"]
('pidro', 'end')
"""

from __future__ import annotations

import importlib
from typing import Any

GAMES = ("vira", "pidro", "whist")

# Seconds each kind of action takes at a real table (speed 1.0), for the Nordic event types.
PACE = {"deal": 0.4, "bid": 4.0, "call": 4.0, "trump": 5.0, "first_suit": 2.0, "discard": 6.0, "buy": 5.0,
        "lay_down": 3.0, "partner_ace": 4.0, "kitty_take": 3.0, "kitty_give": 3.0, "play": 5.0,
        "retract": 8.0, "redeal": 10.0, "board": 20.0, "end": 5.0}


class EngineFold:
    """The events of a deal being simulated, folded through the game's real engine as they are made.

    Why: whose turn it is, which cards are legal and who won a trick are the
    engine's job; a simulator asks it (``board.legal_plays()``, its turn
    helpers) and only decides *which* legal action a player takes.
    """

    def __init__(self) -> None:
        from ..engine import Table

        self.events: list[dict[str, Any]] = []
        self.table = Table()

    def emit(self, ev: dict[str, Any]) -> None:
        from ..events import parse_event

        self.events.append(ev)
        self.table.apply(parse_event(ev, len(self.events) - 1))

    @property
    def board(self) -> Any:
        return self.table.board


def _module(game: str) -> Any:
    if game not in GAMES:
        raise ValueError(f"no Nordic simulator for {game!r} (one of {', '.join(GAMES)})")
    return importlib.import_module(f"{__package__}.{game}")


def irregularities(game: str) -> tuple[str, ...]:
    """The irregularities the simulator for ``game`` can inject."""
    return tuple(_module(game).IRREGULARITIES)


def simulate_board(game: str, board: int, seed: int = 1, rate: float = 0.25,
                   irregularity: str | None = "random") -> list[dict[str, Any]]:
    """One simulated deal of ``game`` as event dicts (``irregularity``: a name from
    :func:`irregularities`, ``None`` for a clean deal, ``"random"``: drawn with probability ``rate``)."""
    return _module(game).simulate_board(board, seed, irregularity, rate)


def pace(event: dict[str, Any]) -> float:
    """Seconds a real table takes for this event (before a speed factor)."""
    return PACE.get(event.get("type", ""), 1.0)
