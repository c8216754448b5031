"""Replay archives and event logs into a running hub at table speed.

Used by ``tablecam serve --replay`` and ``bench/dashboard``. Pacing uses the
events' own ``ts`` when they have one (a recorded session plays back as it
happened), else a fixed interval per event (archives carry no clock).
"""

from __future__ import annotations

import os
import re
import threading
import time
from typing import Any, Iterable

from .hub import TableHub


def table_id_for(path: str) -> str:
    """A table id from a file name.

    >>> table_id_for("/data/Room 1/table 3.jsonl")
    'table_3'
    """
    stem = os.path.splitext(os.path.basename(path))[0]
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", stem)[:64] or "table"


def replay_into(hub: TableHub, table_id: str, items: Iterable[Any], speed: float = 1.0,
                interval: float = 2.0, stop: threading.Event | None = None) -> int:
    """Feed ``items`` into ``hub`` paced by ``ts`` (or ``interval`` s) divided by ``speed``.

    ``speed <= 0`` means as fast as possible. Returns how many items were fed.
    """
    n = 0
    last_ts: float | None = None
    t0 = time.monotonic()
    due = 0.0
    for it in items:
        if stop is not None and stop.is_set():
            break
        if speed > 0:
            ts = getattr(it, "ts", None)
            if ts is not None and last_ts is not None:
                due += max(0.0, ts - last_ts) / speed
            elif n:
                due += interval / speed
            last_ts = ts if ts is not None else last_ts
            wait = t0 + due - time.monotonic()
            if wait > 0:
                if stop is not None:
                    if stop.wait(wait):
                        break
                else:
                    time.sleep(wait)
        hub.ingest(table_id, it)
        n += 1
    hub.close_table(table_id)
    return n


def start_replays(hub: TableHub, paths: list[str], speed: float = 1.0, interval: float = 2.0,
                  stop: threading.Event | None = None) -> list[threading.Thread]:
    """One daemon thread per file, each its own table (named after the file)."""
    from ..archive import load

    threads = []
    used: set[str] = set()
    for path in paths:
        tid = table_id_for(path)
        while tid in used:
            tid = (tid + "_")[:64]
        used.add(tid)
        items = load(path)
        th = threading.Thread(target=replay_into, args=(hub, tid, items, speed, interval, stop),
                              name=f"replay-{tid}", daemon=True)
        th.start()
        threads.append(th)
    return threads
