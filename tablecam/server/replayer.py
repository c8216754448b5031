"""Replay archives and event logs into a running hub at table speed.

Used by ``tablecam serve --replay`` and ``bench/dashboard``. Pacing uses the
events' own ``ts`` when they have one (a recorded session plays back as it
happened); archives carry no clock, so each event takes what it takes at a
real table (:func:`tablecam.sim.bridge.pace`: a card dealt 0.4 s, a call 4 s,
a card played 6 s; about 7 minutes a board), or a fixed ``interval``.

An archive of several tables (a match's open and closed room, a pairs
event's tables) replays each table on its own table: the same board number
again in a file means another table played it.
"""

from __future__ import annotations

import os
import queue
import re
import threading
import time
from typing import Any, Iterable, Iterator

from .hub import TableHub

ARCHIVES = (".pbn", ".lin")
"""Files that may hold several tables; an event log (``.jsonl``, a store) is one table's."""


def table_id_for(path: str) -> str:
    """A table id from a file name.

    >>> table_id_for("/data/Room 1/table 3.jsonl")
    'table_3'
    """
    stem = os.path.splitext(os.path.basename(path))[0]
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", stem)[:64] or "table"


def unique_id(wanted: str, used: set[str]) -> str:
    """``wanted``, or ``wanted`` with the lowest free ``_N`` suffix, kept within 64 characters.

    >>> unique_id("t", {"t", "t_2"}), unique_id("x" * 64, {"x" * 64})[-4:]
    ('t_3', 'xx_2')
    """
    if wanted not in used:
        return wanted
    n = 2
    while True:
        suffix = f"_{n}"
        tid = wanted[:64 - len(suffix)] + suffix
        if tid not in used:
            return tid
        n += 1


def _seconds(item: Any, interval: float | None) -> float:
    """How long a real table takes before ``item`` (``interval``: a fixed time instead)."""
    if interval is not None:
        return interval
    from ..sim.bridge import pace

    return pace({"type": getattr(item, "type", "")})


def replay_into(hub: TableHub, table_id: str, items: Iterable[Any], speed: float = 1.0,
                interval: float | None = None, stop: threading.Event | None = None) -> int:
    """Feed ``items`` into ``hub`` paced by ``ts`` (else a real table's pace, or ``interval`` s) / ``speed``.

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
                due += _seconds(it, interval) / speed
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


_DONE = object()
_IDS = threading.Lock()   # table ids are handed out by several files' reader threads


class _Tables:
    """Splits one archive's stream into its tables, each replayed by its own thread.

    A board goes to the first table of the file that has not played its
    number yet. The reader stays at most ``ahead`` items ahead of the
    tables' replays, so a long file is never held in memory whole (a table
    whose first board lies deep in the file starts when the reader gets
    there)."""

    def __init__(self, hub: TableHub, first_id: str, used: set[str], speed: float, interval: float | None,
                 stop: threading.Event | None, ahead: int = 20_000) -> None:
        self.hub, self.first_id, self.used = hub, first_id, used
        self.speed, self.interval, self.stop = speed, interval, stop
        self.room = threading.Semaphore(ahead)
        self.queues: list[queue.SimpleQueue] = []
        self.boards: list[set[Any]] = []
        self.threads: list[threading.Thread] = []

    def _table_for(self, board: Any) -> int:
        for i, seen in enumerate(self.boards):
            if board not in seen:
                seen.add(board)
                return i
        with _IDS:
            tid = self.first_id if not self.queues else unique_id(self.first_id, self.used)
            self.used.add(tid)
        q: queue.SimpleQueue = queue.SimpleQueue()
        self.queues.append(q)
        self.boards.append({board})
        th = threading.Thread(target=replay_into, args=(self.hub, tid, self._drain(q), self.speed,
                                                        self.interval, self.stop),
                              name=f"replay-{tid}", daemon=True)
        th.start()
        self.threads.append(th)
        return len(self.queues) - 1

    def _drain(self, q: queue.SimpleQueue) -> Iterator[Any]:
        while True:
            it = q.get()
            if it is _DONE:
                return
            self.room.release()
            yield it

    def read(self, items: Iterable[Any]) -> None:
        current: int | None = None
        for it in items:
            if self.stop is not None and self.stop.is_set():
                break
            if getattr(it, "type", None) == "board":
                current = self._table_for(it.get("board"))
            elif current is None:
                current = self._table_for(object())  # items before any board: the first table
            while not self.room.acquire(timeout=0.5):
                if self.stop is not None and self.stop.is_set():
                    break
            self.queues[current].put(it)
        for q in self.queues:
            q.put(_DONE)
        for th in self.threads:   # this reader ends with its tables' replays
            th.join()


def start_replays(hub: TableHub, paths: list[str], speed: float = 1.0, interval: float | None = None,
                  stop: threading.Event | None = None) -> list[threading.Thread]:
    """Daemon threads replaying ``paths``: one table per event log, one per table of an archive or a store.

    Tables are named after the file (``realbridge-2021``, then
    ``realbridge-2021_2`` ... for an archive's further tables), a store's
    after the tables it holds (``club1``).
    """
    from ..archive import load
    from ..store import STORE_SUFFIXES, read_store

    threads = []
    used: set[str] = set()
    for path in paths:
        if os.path.splitext(path)[1].lower() in STORE_SUFFIXES:
            # a store keeps each table's log apart: each on its own table, by the node's own table id
            for table, items in read_store(path).items():
                with _IDS:
                    tid = unique_id(table_id_for(table), used)
                    used.add(tid)
                th = threading.Thread(target=replay_into, args=(hub, tid, items, speed, interval, stop),
                                      name=f"replay-{tid}", daemon=True)
                th.start()
                threads.append(th)
            continue
        with _IDS:
            tid = unique_id(table_id_for(path), used)
            used.add(tid)
        items = load(path)
        if os.path.splitext(path)[1].lower() in ARCHIVES:
            tables = _Tables(hub, tid, used, speed, interval, stop)
            th = threading.Thread(target=tables.read, args=(items,), name=f"replay-read-{tid}", daemon=True)
        else:
            th = threading.Thread(target=replay_into, args=(hub, tid, items, speed, interval, stop),
                                  name=f"replay-{tid}", daemon=True)
        th.start()
        threads.append(th)
    return threads
