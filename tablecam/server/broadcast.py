"""The public broadcast: each table's play, held back until the delay has passed.

Why a second fold instead of filtering the director's state: the only way to
be sure nothing leaks is for the public side never to *have* the undelayed
events. Each :class:`DelayedTable` keeps its own :class:`~tablecam.engine.Table`
and is fed an event only once that event is old enough, both in boards and in
time, and only once its deal is in play at no table of the event (a board is
known by its game and number, not by where it stands in one table's log: a
restarted table node deals the same board again, a team match's other room
plays it later, a PBN file holds one board from several tables). The public
API, WebSocket and page are built from this fold alone, through a whitelist
of fields (:data:`PUBLIC_FIELDS`; of a finished board only its claim and its
result, :func:`public_claim`, :func:`public_outcome`), so engine extras and
findings never reach a spectator's phone.

>>> from tablecam.server.hub import TableHub
>>> hub = TableHub()
>>> _ = hub.ingest("t1", {"type": "board", "game": "bridge", "board": 1, "dealer": "N"}, received=100.0)
>>> view = BroadcastView(hub, BroadcastDelay(boards=1, minutes=0))
>>> view.advance(now=1000.0)
[]
>>> view.state("t1")["board"] is None   # board 1 is still being played
True
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from ..engine import Table
from ..findings import _jsonable
from .hub import TableHub, TableState, unjudged_snapshot

PUBLIC_FIELDS = ("game", "board", "dealer", "vulnerable", "phase", "hands", "dealt", "auction", "contract",
                 "declarer", "trump", "trick", "tricks", "tricks_won", "turn")
"""The only snapshot fields a spectator ever receives."""


@dataclasses.dataclass(frozen=True)
class BroadcastDelay:
    """A board reaches the public only when *both* conditions hold, and
    never while the same deal is in play at any table (:class:`BoardRun`).

    ``boards``: this many later boards, other deals than this one, have
    started at the same table (1 = a board is shown once the table has moved
    on to the next one).
    ``minutes``: every event is at least this old, and the deal has been out
    of play at every table for at least this long.
    """

    boards: int = 1
    minutes: float = 0.0

    def __post_init__(self) -> None:
        if self.boards < 0 or self.minutes < 0:
            raise ValueError("broadcast delay must not be negative")

    @property
    def seconds(self) -> float:
        return self.minutes * 60.0

    @classmethod
    def coerce(cls, value: Any) -> "BroadcastDelay":
        """Accept a BroadcastDelay, ``{"boards", "minutes"}``, or a bare number of boards.

        >>> BroadcastDelay.coerce({"minutes": 5}), BroadcastDelay.coerce(2).boards
        (BroadcastDelay(boards=1, minutes=5.0), 2)
        """
        if value is None:
            return cls()
        if isinstance(value, cls):
            return value
        if isinstance(value, dict):
            return cls(int(value.get("boards", 1)), float(value.get("minutes", 0.0)))
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return cls(int(value), 0.0)
        raise TypeError(f"broadcast_delay: expected BroadcastDelay, dict or number, got {value!r}")

    def describe(self) -> str:
        parts = []
        if self.boards:
            parts.append(f"{self.boards} board{'s' if self.boards != 1 else ''}")
        if self.minutes:
            parts.append(f"{self.minutes:g} minute{'s' if self.minutes != 1 else ''}")
        return " and ".join(parts) if parts else "no delay"


@dataclasses.dataclass(frozen=True)
class BoardRun:
    """One table's stretch of log under one ``board`` event.

    ``key`` is the deal (game and board number); a ``board`` event without a
    number is a deal of its own. The last run at a table is *in play* until
    the board is finished; an earlier run has been left (the table moved on,
    or restarted and dealt it again).
    """

    key: tuple[Any, ...]
    ordinal: int       # 1-based, as ``LogEntry.board_ordinal``
    last_at: float     # receive time of its latest log entry
    in_play: bool


def board_runs(t: TableState) -> list[BoardRun]:
    """The runs of one hub table, in order (``board_runs(t)[e.board_ordinal - 1]`` is ``e``'s)."""
    runs: list[BoardRun] = []
    b = t.table.board
    for i, start in enumerate(t.board_starts):
        end = t.board_starts[i + 1] if i + 1 < len(t.board_starts) else len(t.log)
        ev = t.log[start].event
        number = ev.get("board") if ev is not None else None
        key = (ev.get("game"), str(number)) if number is not None else ("unnumbered", t.id, start)
        last = i + 1 == len(t.board_starts)
        finished = b is not None and ev is not None and b.board_event is ev and b.finished
        runs.append(BoardRun(key, i + 1, t.log[end - 1].at, last and not finished))
    return runs


class DelayedTable:
    """The public fold of one table and how far into the table's log it has got."""

    def __init__(self, table_id: str) -> None:
        self.id = table_id
        self.table = Table(name=table_id)
        self.cursor = 0
        self.version = 0
        self.board_event: Any = None
        self.rulings: list[dict[str, Any]] = []   # adjusted results the director applied, as released
        self.claim: dict[str, Any] | None = None  # the board's claim, as released
        self.outcome: dict[str, Any] | None = None  # the board's result (bridge) or score (the Nordic games)

    def apply(self, event: Any) -> None:
        if event.type == "board":
            self.board_event = event
            self.claim = self.outcome = None
        elif event.type == "claim":
            self.claim = public_claim(event)
        for f in self.table.apply(event):
            if f.kind == "director_ruling" and f.extra.get("adjusted"):
                self.rulings.append(public_ruling(f))
            elif f.kind in ("result", "score") and self.board_event is not None \
                    and f.board == self.board_event.get("board"):
                self.outcome = public_outcome(f)

    def state(self) -> dict[str, Any]:
        b = self.table.board
        out: dict[str, Any] = {"table": self.id}
        if b is None or (self.board_event is not None and b.board_event is not self.board_event):
            if self.board_event is None:
                out.update({"game": None, "board": None, "phase": "waiting"})
            else:
                out.update(unjudged_snapshot(self.board_event))
            return out
        try:
            snap = _jsonable(b.snapshot())
        except Exception:
            snap = {}
        if not isinstance(snap, dict):
            snap = {}
        snap.setdefault("game", b.game or b.board_event.get("game"))
        snap.setdefault("board", b.board)
        ev = b.board_event
        if "dealer" not in snap and ev.get("dealer") is not None:
            snap["dealer"] = str(ev.get("dealer"))
        if "vulnerable" not in snap and ev.get("vulnerable") is not None:
            snap["vulnerable"] = str(ev.get("vulnerable"))
        if b.finished:
            snap["phase"] = "finished"
        for k in PUBLIC_FIELDS:
            if k in snap:
                out[k] = snap[k]
        out.setdefault("phase", "unknown")
        if self.claim is not None:
            out["claim"] = self.claim
        if self.outcome is not None:
            out["result"] = self.outcome
        if self.rulings:
            out["rulings"] = self.rulings[-RULINGS_SHOWN:]
        return out


def public_claim(event: Any) -> dict[str, Any]:
    """A claim as the public sees it: who claimed how many tricks for his side (the contract's words)."""
    seat = event.get("seat")
    return {"seat": str(seat) if seat is not None else None, "tricks": event.get("tricks")}


OUTCOME_FIELDS = ("contract", "declarer", "tricks", "complete")
"""What a spectator sees of a board's result besides its sentence (never the engine's other extras)."""


def public_outcome(f: Any) -> dict[str, Any]:
    """The board's result (bridge, Law 79A) or score (Vira, Pidro, whist) for the public:
    the director's one-line sentence and, for bridge, contract, declarer and tricks."""
    e = f.extra
    return {"text": f.message, **{k: e[k] for k in OUTCOME_FIELDS if k in e}}


RULINGS_SHOWN = 20
"""The latest applied rulings a spectator sees per table."""


def public_ruling(f: Any) -> dict[str, Any]:
    """A director's applied ruling as the public sees it: the board, the law and the adjusted result
    beside the table's (no card, no player's words: the ruling's ``text`` stays with the director)."""
    e = f.extra
    return {"board": f.board, "law": e.get("law"), "rule": f.rule,
            **{k: e[k] for k in ("contract", "declarer", "tricks", "score", "original") if k in e}}


class BroadcastView:
    """Delayed folds of the broadcast tables, advanced by :meth:`advance`.

    ``tables``: ids to broadcast (None = every table the hub knows).
    """

    def __init__(self, hub: TableHub, delay: BroadcastDelay | None = None,
                 tables: list[str] | None = None) -> None:
        self.hub = hub
        self.delay = delay or BroadcastDelay()
        self.tables = set(tables) if tables is not None else None
        self.delayed: dict[str, DelayedTable] = {}

    def public(self, table_id: str) -> bool:
        return self.tables is None or table_id in self.tables

    def advance(self, now: float | None = None) -> list[str]:
        """Release every event that is now old enough; return the tables that changed."""
        now = time.time() if now is None else now
        horizon = now - self.delay.seconds
        changed: list[str] = []
        with self.hub.lock:
            # every table of the event counts, broadcast or not: a deal in play
            # anywhere stays hidden everywhere
            runs = {tid: board_runs(t) for tid, t in self.hub.tables.items()}
            in_play = {r.key for rs in runs.values() for r in rs if r.in_play}
            last_at: dict[tuple[Any, ...], float] = {}
            for r in (r for rs in runs.values() for r in rs):
                last_at[r.key] = max(last_at.get(r.key, r.last_at), r.last_at)
            for tid, t in self.hub.tables.items():
                if not self.public(tid):
                    continue
                d = self.delayed.get(tid)
                if d is None:
                    d = self.delayed[tid] = DelayedTable(tid)
                moved = False
                while d.cursor < len(t.log):
                    e = t.log[d.cursor]
                    if e.at > horizon:
                        break
                    if e.board_ordinal > 0 and self._held(runs[tid], e.board_ordinal, in_play, last_at, horizon):
                        break
                    if e.event is not None:
                        d.apply(e.event)
                    d.cursor += 1
                    moved = True
                if moved:
                    d.version += 1
                    changed.append(tid)
        return changed

    def _held(self, runs: list[BoardRun], ordinal: int, in_play: set[tuple[Any, ...]],
              last_at: dict[tuple[Any, ...], float], horizon: float) -> bool:
        """Whether the board run ``ordinal`` of a table must still be kept from the public."""
        run = runs[ordinal - 1]
        if run.key in in_play or last_at[run.key] > horizon:
            return True
        return sum(1 for r in runs[ordinal:] if r.key != run.key) < self.delay.boards

    def state(self, table_id: str) -> dict[str, Any] | None:
        if not self.public(table_id):
            return None
        d = self.delayed.get(table_id)
        if d is None:
            if table_id not in self.hub.tables:
                return None
            d = DelayedTable(table_id)
        out = d.state()
        out["delay"] = self.delay.describe()
        return out

    def states(self) -> list[dict[str, Any]]:
        with self.hub.lock:
            ids = [tid for tid in self.hub.tables if self.public(tid)]
        return [s for s in (self.state(t) for t in ids) if s is not None]
