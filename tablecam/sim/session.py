"""Simulated sessions for any game: lists of event dicts, one list per board.

The bridge simulator lives in :mod:`tablecam.sim.bridge`; the Nordic games'
simulators (when present) in :mod:`tablecam.sim.nordic`.
"""

from __future__ import annotations

from typing import Any, Iterator


def boards_of(game: str, boards: int, seed: int, rate: float, first: int = 1) -> Iterator[list[dict[str, Any]]]:
    """Yield each board's events (``boards=0``: forever). A misdealt board
    carries its redeal in the same list."""
    if game == "bridge":
        from .bridge import simulate_board
    else:
        try:
            from .nordic import simulate_board  # type: ignore[no-redef]
        except ImportError:
            raise SystemExit(f"tablecam: no simulator for {game!r} yet (bridge only)") from None
    b = first
    while boards == 0 or b < first + boards:
        yield simulate_board(b, seed, "random", rate) if game == "bridge" else simulate_board(game, b, seed, rate)
        b += 1


def session_events(game: str, boards: int, seed: int, rate: float, first: int = 1) -> Iterator[dict[str, Any]]:
    """The same, flattened into one event stream."""
    for evs in boards_of(game, boards, seed, rate, first):
        yield from evs
