"""A table node: one table's sources -> store -> engine -> bus.

Order of operations for every event, and why:

1. **store** (SQLite, fsync'd): once written, the event survives a crash;
2. **engine** fold: findings for this table (the node judges locally, so a
   table keeps working when the network to the director is down);
3. **bus**: the event (QoS 1; marked published in the store's outbox when the
   broker acknowledges), its findings, and the retained table state.

After a restart the node rebuilds the engine by replaying its store (state
equals the state before the crash, engines being pure folds) and re-sends its
outbox. A director station that notices a gap asks for a resend on the
table's ``control`` topic, like the shoe protocol's RESEND.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Callable

from ..bus.base import Bus, Message
from ..engine import Table
from ..findings import Finding
from ..store import EventStore, to_item

log = logging.getLogger(__name__)


class TableNode:
    """Runs one table. Thread-safe: shoe, camera and operator may call :meth:`emit`."""

    def __init__(self, table_id: str, store: EventStore, bus: Bus,
                 rulesets: dict[str, dict[str, Any]] | None = None,
                 on_findings: Callable[[list[Finding]], None] | None = None,
                 state_interval: float = 1.0) -> None:
        self.id = table_id
        self.store = store
        self.bus = bus
        self.table = Table(rulesets, name=table_id)
        self.on_findings = on_findings
        self.listeners: list[Callable[[dict[str, Any]], None]] = []  # e.g. the camera's fusion wants the deal
        self._lock = threading.RLock()
        # The retained state is a convenience for late subscribers; building and
        # parsing a full snapshot per event costs more than the event itself, so
        # it goes out at most every ``state_interval`` s and at each board's start
        # and end (events and findings always go out at once).
        self.state_interval = state_interval
        self._state_at = 0.0
        self.recovered = 0
        self.health: dict[str, dict[str, Any]] = {}  # source -> its last report (``set_health``)
        self.log = store.log_id(table_id)   # stations tell this log from a later one by it
        for se in store.events(table_id):
            self.table.apply(to_item(se.event, se.seq - 1))
            self.recovered += 1
        bus.set_will(table_id)

    def board_so_far(self) -> list[dict[str, Any]]:
        """The stored events of the board under way, from its ``board`` event
        ([] before the first board): what a source that (re)starts mid-board
        takes up (the shoe's deal tracker, the camera's current trick)."""
        start = self.store.last_of_type(self.id, "board")
        return [] if start is None else [se.event for se in self.store.events(self.id, after=start - 1)]

    # -- lifecycle ----------------------------------------------------------
    def start(self) -> None:
        self.bus.subscribe(self._on_control, table=self.id, kinds=("control",))
        self.bus.start()
        self.announce()

    def announce(self) -> None:
        """Online + current state and sources' health (retained), then whatever the outbox still holds."""
        self.bus.publish(Message(self.id, "availability", "online", retained=True))
        self._publish_state()
        with self._lock:
            if self.health:
                self._publish_health()
        self.flush_outbox()

    def stop(self, offline: bool = True) -> None:
        if offline:
            self.bus.publish(Message(self.id, "availability", "offline", retained=True))
        self.bus.stop()

    # -- the hot path ---------------------------------------------------------
    def emit(self, event: dict[str, Any]) -> list[Finding]:
        """Record one event from any source; return the findings it caused."""
        with self._lock:
            seq = self.store.append(self.id, event)
            findings = self.table.apply(to_item(event, seq - 1))
            self._publish_event(seq, event)
            for f in findings:
                self.bus.publish(Message(self.id, "findings", dict(f.to_dict(), origin="engine"), seq))
            now = time.monotonic()
            if now - self._state_at >= self.state_interval or event.get("type") in ("board", "end"):
                self._state_at = now
                self._publish_state(seq)
        for listener in self.listeners:
            listener(event)
        if findings and self.on_findings:
            self.on_findings(findings)
        return findings

    def report(self, finding: Finding, origin: str) -> None:
        """A finding from a source itself (a shoe misread, a camera doubt).

        Engines' findings are recomputed by every station from the events;
        source findings are not, so they travel on the bus marked with their
        ``origin`` and the station passes them on.
        """
        self.bus.publish(Message(self.id, "findings", dict(finding.to_dict(), origin=origin),
                                 self.store.last_seq(self.id)))

    def set_health(self, source: str, status: str, detail: str | None = None) -> bool:
        """A source says how it is (``status``: ok, degraded, down, unknown).

        Why here and not as an event: health is not part of the deal, so it
        is not stored or folded; it goes out on the retained ``health`` topic
        (every source at once), so the director sees an unplugged shoe
        before the next card would have shown it, even from a station that
        starts later.  A report that changes nothing is not sent again.
        Returns whether it was sent.
        """
        with self._lock:
            old = self.health.get(source)
            if old is not None and (old["status"], old["detail"]) == (status, detail):
                return False
            self.health[source] = {"status": status, "detail": detail, "at": round(time.time(), 3)}
            self._publish_health()
            return True

    def _publish_health(self) -> None:
        self.bus.publish(Message(self.id, "health", {k: dict(v) for k, v in self.health.items()},
                                 retained=True))

    def _publish_event(self, seq: int, event: dict[str, Any]) -> None:
        self.bus.publish(Message(self.id, "events", event, seq, log=self.log),
                         on_ack=lambda s=seq: self.store.mark_published(self.id, s))

    def _publish_state(self, seq: int | None = None) -> None:
        b = self.table.board
        state = b.snapshot() if b is not None else {"phase": "idle"}
        state = {"table": self.id, "seq": seq if seq is not None else self.store.last_seq(self.id), **state}
        self.bus.publish(Message(self.id, "state", state, state["seq"], retained=True, log=self.log))

    def flush_outbox(self) -> int:
        """Re-send every event the broker has not acknowledged; return how many."""
        with self._lock:
            pending = self.store.unpublished(self.id)
            for se in pending:
                self._publish_event(se.seq, se.event)
        return len(pending)

    def resend(self, after: int) -> int:
        """Re-send every stored event after ``after`` (a station's gap request)."""
        with self._lock:
            n = 0
            for se in self.store.events(self.id, after=after):
                self._publish_event(se.seq, se.event)
                n += 1
        return n

    def _on_control(self, msg: Message) -> None:
        p = msg.payload if isinstance(msg.payload, dict) else {}
        if isinstance(p.get("events"), list):
            # entered at the station (operator page, director's ruling): stored and judged here first
            for ev in p["events"]:
                self.emit(ev if isinstance(ev, dict) else {"type": "unreadable", "text": str(ev)[:200]})
        if "resend_after" in p:
            try:
                self.resend(int(p["resend_after"]))
            except (TypeError, ValueError):
                log.warning("bad control message on %s: %r", self.id, p)
