"""Run one table node from its config until its sources are done or it is stopped."""

from __future__ import annotations

import itertools
import logging
import os
import signal
import sys
import threading
import time
from typing import Any, Iterator

from ..bus import bus_from_config
from ..config import TableConfig
from ..sim.session import session_events
from ..store import EventStore
from .tablenode import TableNode

log = logging.getLogger(__name__)


def paced(events: Iterator[dict[str, Any]], speed: float, stop: threading.Event) -> Iterator[dict[str, Any]]:
    """Release events at table speed (``speed`` times faster), stamping ``ts``."""
    from ..sim.bridge import pace

    for ev in events:
        if stop.wait(pace(ev) / speed):
            return
        ev = dict(ev)
        ev.setdefault("ts", round(time.time(), 3))
        ev.setdefault("source", "sim")
        yield ev


def _run_simulator(cfg: TableConfig, node: TableNode, store: EventStore, stop: threading.Event) -> int:
    """``[shoe] port = "none"``: the simulator's events straight into the node.

    The simulation is deterministic, so after a crash the node skips exactly
    what its store already holds and goes on from the next event.
    """
    done = store.last_seq(cfg.table.id)
    source = session_events(cfg.table.game, cfg.sim.boards, cfg.sim.seed, cfg.sim.irregularities,
                            cfg.table.first_board)
    n = 0
    for ev in paced(itertools.islice(source, done, None), cfg.sim.speed, stop):
        node.emit(ev)
        n += 1
    return n


def _run_simulated_table(cfg: TableConfig, node: TableNode, store: EventStore, stop: threading.Event,
                         camera: bool) -> int:
    """``[shoe] port = "sim"``: deals through a virtual shoe on a pty and the real driver.

    After a crash the table goes on with the board that was interrupted,
    dealt again from the start (as a director would have it replayed).
    """
    from .sources import SimulatedTable, options

    first = cfg.table.first_board
    stored = list(store.events(cfg.table.id))
    boards = [se.event.get("board") for se in stored if se.event.get("type") == "board"]
    if boards and isinstance(boards[-1], int):
        first = boards[-1] + (1 if stored[-1].event.get("type") == "end" else 0)
    left = 0 if cfg.sim.boards == 0 else max(0, cfg.sim.boards - (first - cfg.table.first_board))
    if cfg.sim.boards and not left:
        return 0
    before = store.last_seq(cfg.table.id)
    opts = options(cfg.table.game, cfg.sim.speed, left, cfg.sim.irregularities, shoe=True, camera=camera,
                   first_board=first)
    table = SimulatedTable(cfg.table.id, node, opts, cfg.sim.seed, stop,
                           lambda src, st, detail: log.info("%s %s: %s (%s)", cfg.table.id, src, st, detail))
    table.start()
    while table.is_alive() and not stop.wait(0.2):
        pass
    return store.last_seq(cfg.table.id) - before


def _run_hardware(cfg: TableConfig, node: TableNode, stop: threading.Event) -> int:
    """A real shoe on a serial URL and, if configured, a real camera; until stopped."""
    from .sources import CameraReader, ShoeReader

    before = node.store.last_seq(node.id)

    def health(source: str, state: str, detail: str | None) -> None:
        # the node publishes it to the director (ShoeReader); this is the table's own log
        print(f"tablecam run: {node.id}: {source} {state}" + (f" ({detail})" if detail else ""), file=sys.stderr)

    if cfg.shoe.port != "none":
        ShoeReader(cfg.shoe.port, node, cfg.table.game, stop, health, own_boards=True,
                   dealer=cfg.table.dealer, board=cfg.table.first_board)
    if cfg.camera.source not in ("none", "sim"):
        CameraReader(cfg.camera.source, node, cfg.table.game, stop, cfg.camera.config)
    stop.wait()
    return node.store.last_seq(node.id) - before


class BoardLines:
    """One line on stderr per board the node finishes, so a run of minutes is never silent.

    ``tablecam run --config config/table.toml`` says, as each board ends::

        tablecam run: club1: board 2: 4H by N, 7 tricks; findings: revoke, penalty_card

    The node hands over each event (as a listener) before that event's
    findings (``on_findings``), so the line for a board is written when the
    findings of its ``end`` arrive, or at the next board (or the stop) if
    its end brought none.
    """

    def __init__(self, table_id: str, stream: Any = None) -> None:
        self.table_id = table_id
        self.stream = stream
        self.board: Any = None
        self.outcome: str | None = None
        self.kinds: list[str] = []
        self.ended = False
        self.lines = 0

    def event(self, event: dict[str, Any]) -> None:
        if event.get("type") == "board":
            self.flush()
            self.board, self.outcome, self.kinds, self.ended = event.get("board"), None, [], False
        elif event.get("type") == "end":
            self.ended = True

    def findings(self, findings: list[Any]) -> None:
        for f in findings:
            if f.kind in ("result", "score"):
                self.outcome = f.message
            elif f.status != "info" and f.kind not in self.kinds:
                self.kinds.append(f.kind)
        if self.ended:
            self.flush()

    def flush(self) -> None:
        """Write the board's line (once), if a board was under way."""
        if self.board is None:
            return
        misdealt = {"misdeal", "wrong_card_count", "duplicate_card", "missing_card"} & set(self.kinds)
        outcome = (self.outcome or ("misdealt" if misdealt else "ended" if self.ended
                                    else "stopped before its end")).rstrip(".")
        found = f"; findings: {', '.join(self.kinds)}" if self.kinds else ""
        print(f"tablecam run: {self.table_id}: board {self.board}: {outcome}{found}",
              file=self.stream or sys.stderr, flush=True)
        self.lines += 1
        self.board = None


def run_table(cfg: TableConfig, stop: threading.Event | None = None) -> int:
    path = cfg.store.path or f"data/{cfg.table.id}.sqlite"
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    store = EventStore(path, durable=cfg.store.durable)
    bus = bus_from_config(cfg.bus, client_id=f"table-{cfg.table.id}", username=cfg.table.id)
    lines = BoardLines(cfg.table.id)
    node = TableNode(cfg.table.id, store, bus, on_findings=lines.findings)
    node.listeners.append(lines.event)
    stop = stop or threading.Event()

    def _term(signum: int, frame: Any) -> None:
        stop.set()

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _term)
        signal.signal(signal.SIGINT, _term)
    node.start()
    if node.recovered:
        print(f"tablecam run: {cfg.table.id}: recovered {node.recovered} events from {path}", file=sys.stderr)
    shoe, camera = cfg.shoe.port, cfg.camera.source
    boards = f"{cfg.sim.boards} board(s)" if cfg.sim.boards else "boards until stopped"
    where = (f"simulated, {boards} at {cfg.sim.speed:g}x table speed" if shoe in ("none", "sim")
             else f"shoe {shoe}, camera {camera}")
    print(f"tablecam run: {cfg.table.id}: {cfg.table.game}, {where}; events stored in {path}", file=sys.stderr,
          flush=True)
    if shoe == "none" and camera == "none":
        n = _run_simulator(cfg, node, store, stop)
    elif shoe == "sim":
        n = _run_simulated_table(cfg, node, store, stop, camera == "sim")
    else:
        n = _run_hardware(cfg, node, stop)
    lines.flush()
    print(f"tablecam run: {cfg.table.id}: {n} events emitted, {store.last_seq(cfg.table.id)} stored",
          file=sys.stderr)
    # Give the broker a moment to acknowledge the tail of the outbox.
    deadline = time.time() + 5
    while store.unpublished(cfg.table.id) and time.time() < deadline:
        time.sleep(0.05)
    node.stop(offline=True)
    store.close()
    return 0
