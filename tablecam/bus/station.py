"""The director station's side of the bus: exactly-once, in-order events per table.

MQTT QoS 1 delivers at least once and, across reconnects, not always in
order. The station therefore keeps, per table, the next sequence number it
expects: a lower number is a duplicate and is dropped; a higher one is held
back until the gap is filled; a gap that stays open for ``gap_timeout``
seconds triggers a resend request on the table's ``control`` topic.

With a store, the station persists every event it accepts and, after its own
crash, replays the store to its sink before taking new messages: the director
loses neither events nor acknowledgements.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from ..store import EventStore
from .base import Bus, Message

Sink = Callable[[str, int, dict[str, Any]], None]


@dataclass
class TableLink:
    next_seq: int = 1
    held: dict[int, dict[str, Any]] = field(default_factory=dict)
    gap_since: float | None = None
    online: bool | None = None
    state: dict[str, Any] | None = None
    last_seen: float = 0.0
    duplicates: int = 0
    resend_requests: int = 0


class Station:
    def __init__(self, bus: Bus, sink: Sink, store: EventStore | None = None,
                 gap_timeout: float = 2.0,
                 on_status: Callable[[str, TableLink], None] | None = None,
                 on_finding: Callable[[str, dict[str, Any]], None] | None = None) -> None:
        self.bus, self.sink, self.store = bus, sink, store
        self.on_finding = on_finding
        self.gap_timeout = gap_timeout
        self.on_status = on_status
        self.links: dict[str, TableLink] = {}
        self._lock = threading.RLock()
        self.delivered = 0
        self._stop = threading.Event()
        self._watch: threading.Thread | None = None

    def start(self) -> None:
        if self.store is not None:
            for table in self.store.tables():
                link = self.links.setdefault(table, TableLink())
                for se in self.store.events(table):
                    self.sink(table, se.seq, se.event)
                    link.next_seq = se.seq + 1
                    self.delivered += 1
        self.bus.subscribe(self._on_message)
        self.bus.start()
        self._watch = threading.Thread(target=self._watch_gaps, name="station-gaps", daemon=True)
        self._watch.start()

    def stop(self) -> None:
        self._stop.set()
        self.bus.stop()

    # -- messages -----------------------------------------------------------
    def _on_message(self, msg: Message) -> None:
        with self._lock:
            link = self.links.setdefault(msg.table, TableLink())
            link.last_seen = time.time()
            if msg.kind == "events" and isinstance(msg.seq, int) and isinstance(msg.payload, dict):
                self._accept(msg.table, link, msg.seq, msg.payload)
            elif msg.kind == "findings" and isinstance(msg.payload, dict):
                # Engine findings are recomputed here from the events; pass on the sources' own.
                if msg.payload.get("origin") not in (None, "engine") and self.on_finding:
                    self.on_finding(msg.table, msg.payload)
            elif msg.kind == "availability":
                link.online = msg.payload == "online"
                if self.on_status:
                    self.on_status(msg.table, link)
            elif msg.kind == "state" and isinstance(msg.payload, dict):
                link.state = msg.payload
                # A table whose state is ahead of what we hold: ask for the rest now.
                seq = msg.payload.get("seq")
                if isinstance(seq, int) and seq >= link.next_seq and not link.held and link.gap_since is None:
                    link.gap_since = time.time() - self.gap_timeout / 2

    def _accept(self, table: str, link: TableLink, seq: int, event: dict[str, Any]) -> None:
        if seq < link.next_seq or seq in link.held:
            link.duplicates += 1
            return
        link.held[seq] = event
        while link.next_seq in link.held:
            ev = link.held.pop(link.next_seq)
            if self.store is not None:
                self.store.append(table, ev, seq=link.next_seq)
            self.sink(table, link.next_seq, ev)
            self.delivered += 1
            link.next_seq += 1
        link.gap_since = (link.gap_since or time.time()) if link.held else None

    def _watch_gaps(self) -> None:
        while not self._stop.wait(self.gap_timeout / 4):
            now = time.time()
            with self._lock:
                for table, link in self.links.items():
                    if link.gap_since is not None and now - link.gap_since >= self.gap_timeout:
                        link.gap_since = now
                        link.resend_requests += 1
                        self.bus.publish(Message(table, "control", {"resend_after": link.next_seq - 1}))
