"""The director station's side of the bus: exactly-once, in-order events per table.

MQTT QoS 1 delivers at least once and, across reconnects, not always in
order. The station therefore keeps, per table, the next sequence number it
expects: a lower number is a duplicate and is dropped; a higher one is held
back until the gap is filled; a gap that stays open for ``gap_timeout``
seconds triggers a resend request on the table's ``control`` topic.

With a store, the station persists every event it accepts and, after its own
crash, replays the store to its sink before taking new messages: the director
loses neither events nor acknowledgements.

A table node whose store was lost (a replaced edge computer, a wiped disk)
numbers its events from 1 again, under a new log id (``Message.log``).  The
station appends that log after the old one (``base``: where it starts in the
station's numbering) and reports it with a ``table_link`` finding - instead
of dropping the new events as duplicates of the old ones.  Events the old
log still owed (a gap when it ended) cannot be resent by anyone: the finding
counts them.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable

from ..store import EventStore
from .base import Bus, Message

Sink = Callable[[str, int, dict[str, Any]], None]

RECENT = 4096
"""Delivered events a station remembers per table, to tell a resent copy
from a different event under the same number (a forked log)."""


def _remember(link: "TableLink", seq: int, event: dict[str, Any]) -> None:
    """Keep a delivered event among the table's last :data:`RECENT`."""
    link.recent[seq] = event
    if len(link.recent) > RECENT:
        link.recent.popitem(last=False)


def _same_event(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Equal as JSON: a live event on the in-process bus may hold a tuple
    where its copy resent from the store holds a list."""
    if a == b:
        return True
    try:
        return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return False


@dataclass
class TableLink:
    next_seq: int = 1
    held: dict[int, dict[str, Any]] = field(default_factory=dict)
    gap_since: float | None = None
    online: bool | None = None
    state: dict[str, Any] | None = None
    state_log: str | None = None    # the log the retained state came from
    last_seen: float = 0.0
    duplicates: int = 0
    resend_requests: int = 0
    log: str | None = None          # the node's current event log
    base: int = 0                   # its seq 1 is the station's base + 1
    old_logs: dict[str, int] = field(default_factory=dict)   # ended log -> its last seq (own numbers)
    conflicts: set[str] = field(default_factory=set)         # ended logs heard sending new events
    gap_tries: int = 0              # resend requests for this gap that the node heard and did not fill
    gap_at: int = 0                 # next_seq when they began
    asked_at: float = 0.0           # when the last one went out
    recent: "OrderedDict[int, dict[str, Any]]" = field(default_factory=OrderedDict)  # delivered, by seq
    forked: bool = False            # the current log sent a delivered number with other content
    health: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # source -> (status, detail)


class Station:
    def __init__(self, bus: Bus, sink: Sink, store: EventStore | None = None,
                 gap_timeout: float = 2.0,
                 on_status: Callable[[str, TableLink], None] | None = None,
                 on_finding: Callable[[str, dict[str, Any]], None] | None = None,
                 max_gap_requests: int = 8,
                 on_health: Callable[[str, str, str, str | None], None] | None = None) -> None:
        self.bus, self.sink, self.store = bus, sink, store
        self.on_finding = on_finding
        self.on_health = on_health
        self.gap_timeout = gap_timeout
        self.max_gap_requests = max_gap_requests
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
                logs = self.store.log_segments(table)
                if logs:
                    link.log, link.base, _ = logs[-1]
                    # each ended log's last seq: up to where the next one starts
                    link.old_logs = {log: logs[i + 1][1] - base for i, (log, base, _) in enumerate(logs[:-1])}
                for se in self.store.events(table):
                    self.sink(table, se.seq, se.event)
                    _remember(link, se.seq, se.event)
                    link.next_seq = se.seq + 1
                    self.delivered += 1
                for (old, _, _), (log, base, lost) in zip(logs, logs[1:]):
                    self._log_started(table, old, log, base, lost)    # the director's alert, again
        self.bus.subscribe(self._on_message)
        self.bus.start()
        self._watch = threading.Thread(target=self._watch_gaps, name="station-gaps", daemon=True)
        self._watch.start()

    def stop(self) -> None:
        self._stop.set()
        self.bus.stop()

    def send_events(self, table: str, events: list[dict[str, Any]]) -> bool:
        """Hand events entered at the station (the operator page, a director's ruling) to the
        table's node on its ``control`` topic, so they are stored, folded and numbered there like
        the shoe's and the camera's, and come back as the table's own events.  False when no node
        is known to run the table (never heard of, or offline): the caller folds them itself."""
        with self._lock:
            link = self.links.get(table)
            if link is None or link.online is not True:
                return False
        self.bus.publish(Message(table, "control", {"events": events}))
        return True

    # -- messages -----------------------------------------------------------
    def _on_message(self, msg: Message) -> None:
        with self._lock:
            link = self.links.setdefault(msg.table, TableLink())
            link.last_seen = time.time()
            if (msg.kind == "events" and isinstance(msg.seq, int) and not isinstance(msg.seq, bool)
                    and isinstance(msg.payload, dict)):
                if self._in_log(msg.table, link, msg.log, msg.seq):
                    self._accept(msg.table, link, link.base + msg.seq, msg.payload)
            elif msg.kind == "findings" and isinstance(msg.payload, dict):
                # Engine findings are recomputed here from the events; pass on the sources' own.
                if msg.payload.get("origin") not in (None, "engine") and self.on_finding:
                    self.on_finding(msg.table, msg.payload)
            elif msg.kind == "health" and isinstance(msg.payload, dict):
                self._health(msg.table, link, msg.payload)
            elif msg.kind == "availability":
                link.online = msg.payload == "online"
                if not link.online:
                    link.health.clear()     # the node's next report is news again, even if unchanged
                if self.on_status:
                    self.on_status(msg.table, link)
            elif msg.kind == "state" and isinstance(msg.payload, dict):
                link.state, link.state_log = msg.payload, msg.log
                # A table whose state is ahead of what we hold: ask for the rest now.
                seq = msg.payload.get("seq")
                if msg.log is not None and link.log is not None and msg.log != link.log:
                    seq = None                  # another log's numbers: its events will tell
                # (no log heard yet - a station started after the table: the first log it
                # hears continues what it holds, as in _in_log, so its numbers are ours)
                if isinstance(seq, int) and link.base + seq >= link.next_seq and not link.held \
                        and link.gap_since is None:
                    link.gap_since = time.time() - self.gap_timeout / 2

    def _health(self, table: str, link: TableLink, report: dict[str, Any]) -> None:
        """The table's retained health report: each source that changed goes
        to ``on_health``.  An entry without a text status is passed over (the
        hub checks the words themselves).  A table known to be offline is
        passed over: its last report, retained by the broker, is older than
        its last will."""
        if link.online is False:
            return
        for source, rep in report.items():
            if not isinstance(rep, dict) or not isinstance(rep.get("status"), str):
                continue
            detail = rep.get("detail")
            now = (rep["status"], None if detail is None else str(detail))
            if link.health.get(source) == now:
                continue
            link.health[source] = now
            if self.on_health:
                self.on_health(table, str(source), *now)

    def _in_log(self, table: str, link: TableLink, log: str | None, seq: int) -> bool:
        """Is a message of ``log`` one of the current log's?  A new log
        starts here; an ended one's late copies are not (and an ended log
        still sending new events is a second node on the table: said once)."""
        if log is None or log == link.log:
            return True                 # (a node from before log ids: one log)
        if log in link.old_logs:
            link.duplicates += 1
            if seq > link.old_logs[log] and log not in link.conflicts:
                link.conflicts.add(log)
                self._report(table, {
                    "kind": "table_link", "status": "pending", "old_log": log, "new_log": link.log,
                    "message": f"Two table nodes publish as {table} (event logs {log} and {link.log}): "
                               f"events of {log} after its number {link.old_logs[log]} are not taken. "
                               "Give each edge computer its own table id."})
            return False
        lost = 0
        if link.log is None:
            # The first log id this station hears for the table continues what
            # it holds (a node upgraded mid-session numbers on).
            link.log = log
        else:
            lost = self._new_log(table, link, log)
        if self.store is not None:
            self.store.add_log_segment(table, log, link.base, lost)
        return True

    def _new_log(self, table: str, link: TableLink, log: str) -> int:
        """The node started a new event log: the old one has ended.  What it
        still owed (a gap) is gone with its store; what arrived after the gap
        is delivered in order; the new log's seq 1 follows.  Returns how many
        events the old log owed."""
        owed = self._skip_gaps(table, link)
        said = (link.state or {}).get("seq") if link.state_log == link.log else None
        if isinstance(said, int) and not isinstance(said, bool):
            # the old node's last state named events that never came: its tail
            owed += max(0, link.base + said - (link.next_seq - 1))
        old, first = link.log, link.next_seq
        if old is not None:
            link.old_logs[old] = link.next_seq - 1 - link.base
        link.log, link.base, link.gap_since, link.forked = log, link.next_seq - 1, None, False
        self._log_started(table, old, log, first - 1, owed)
        return owed

    def _skip_gaps(self, table: str, link: TableLink) -> int:
        """Deliver every held event in order, past the gaps before them
        (no one can fill those any more); return how many events the gaps
        held."""
        owed = 0
        while link.held:
            seq = min(link.held)
            owed += seq - link.next_seq
            link.next_seq = seq
            self._accept(table, link, seq, link.held.pop(seq))
        return owed

    def _log_started(self, table: str, old: str | None, log: str, after: int, lost: int) -> None:
        message = (f"The table node of {table} started a new event log (its store was replaced or wiped): "
                   f"its events continue after event {after}.")
        if lost:
            message += (f" {lost} event(s) of the old log never arrived and no store holds them any more: "
                        "enter them by hand.")
        self._report(table, {"kind": "table_link", "id": f"table_link-{log}", "message": message,
                             "status": "pending" if lost else "info", "after": after, "lost": lost,
                             "old_log": old, "new_log": log})

    def _report(self, table: str, finding: dict[str, Any]) -> None:
        if self.on_finding:
            self.on_finding(table, {**finding, "rule": "tablecam bus (tablecam/bus/base.py)", "origin": "station"})

    def _accept(self, table: str, link: TableLink, seq: int, event: dict[str, Any]) -> None:
        if seq < link.next_seq or seq in link.held:
            link.duplicates += 1
            had = link.recent.get(seq) if seq < link.next_seq else link.held.get(seq)
            if had is not None and not _same_event(had, event) and not link.forked:
                # Not a copy: the node's store was restored from an older copy,
                # or a second node shares its log.  Its numbers now mean other
                # events; taking them would corrupt the table, dropping them
                # silently would lose them - so the director is told, once.
                link.forked = True
                self._report(table, {
                    "kind": "table_link", "status": "pending", "event_number": seq,
                    "message": f"The table node of {table} sent event {seq} again with other content: "
                               "its store was restored from an older copy, or a second node shares it. "
                               "Events under numbers already taken are not taken, and later ones may mix "
                               "the two histories: start that node with an empty store (a new event log) "
                               "or give it its own table id."})
            return
        link.held[seq] = event
        while link.next_seq in link.held:
            ev = link.held.pop(link.next_seq)
            if self.store is not None:
                self.store.append(table, ev, seq=link.next_seq)
            self.sink(table, link.next_seq, ev)
            _remember(link, link.next_seq, ev)
            self.delivered += 1
            link.next_seq += 1
        link.gap_since = (link.gap_since or time.time()) if link.held else None

    def _watch_gaps(self) -> None:
        while not self._stop.wait(self.gap_timeout / 4):
            now = time.time()
            with self._lock:
                for table, link in self.links.items():
                    if link.gap_since is not None and now - link.gap_since >= self.gap_timeout:
                        if link.next_seq != link.gap_at:          # progress: count afresh
                            link.gap_at, link.gap_tries = link.next_seq, 0
                        elif link.last_seen > link.asked_at:      # heard, yet not filled
                            link.gap_tries += 1
                        if link.gap_tries >= self.max_gap_requests and link.held:
                            self._give_up_gap(table, link)
                            continue
                        link.gap_since = link.asked_at = now
                        link.resend_requests += 1
                        # (the node counts within its own log)
                        self.bus.publish(Message(table, "control",
                                                 {"resend_after": link.next_seq - 1 - link.base}))

    def _give_up_gap(self, table: str, link: TableLink) -> None:
        """A gap the node, heard all along, did not fill after
        ``max_gap_requests`` requests: its store does not hold those events
        (restored from an older copy, rows lost).  Waiting longer would hold
        the table's later events back for ever; so they go on, in order,
        and the director is told how many are missing (like the shoe link's
        frames lost).  A silent node (network down) uses up no tries."""
        first = link.next_seq
        owed = self._skip_gaps(table, link)
        link.gap_since, link.gap_tries = None, 0
        self._report(table, {
            "kind": "table_link", "status": "pending", "lost": owed, "after": first - 1,
            "message": f"{owed} event(s) of table {table} after event {first - 1} never arrived although "
                       f"its node answered {self.max_gap_requests} requests for them: its store does not "
                       "hold them. Enter them by hand; later events are shown."})
