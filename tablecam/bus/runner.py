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

from ..config import BusSection, TableConfig
from ..node import TableNode
from ..store import EventStore
from . import make_bus
from .base import Bus
from ..sim.session import session_events

log = logging.getLogger(__name__)


def bus_from_config(cfg: BusSection, client_id: str | None = None, username: str | None = None) -> Bus:
    if cfg.kind == "inproc":
        return make_bus("inproc")
    return make_bus("mqtt", host=cfg.host, port=cfg.port, client_id=client_id,
                    username=cfg.username or username, password=cfg.password(), prefix=cfg.prefix)


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


def run_table(cfg: TableConfig, stop: threading.Event | None = None) -> int:
    path = cfg.store.path or f"data/{cfg.table.id}.sqlite"
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    store = EventStore(path, durable=cfg.store.durable)
    bus = bus_from_config(cfg.bus, client_id=f"table-{cfg.table.id}", username=cfg.table.id)
    node = TableNode(cfg.table.id, store, bus)
    stop = stop or threading.Event()

    def _term(signum: int, frame: Any) -> None:
        stop.set()

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _term)
        signal.signal(signal.SIGINT, _term)
    node.start()
    done = store.last_seq(cfg.table.id)
    if node.recovered:
        print(f"tablecam run: {cfg.table.id}: recovered {node.recovered} events from {path}", file=sys.stderr)
    # The simulator is deterministic: after a crash, skip what the store already holds.
    source = session_events(cfg.table.game, cfg.sim.boards, cfg.sim.seed, cfg.sim.irregularities,
                              cfg.table.first_board)
    source = itertools.islice(source, done, None)
    n = 0
    for ev in paced(source, cfg.sim.speed, stop):
        node.emit(ev)
        n += 1
    print(f"tablecam run: {cfg.table.id}: {n} events emitted, {store.last_seq(cfg.table.id)} stored",
          file=sys.stderr)
    # Give the broker a moment to acknowledge the tail of the outbox.
    deadline = time.time() + 5
    while store.unpublished(cfg.table.id) and time.time() < deadline:
        time.sleep(0.05)
    node.stop(offline=True)
    store.close()
    return 0
