"""The director station's memory: every table's event log, state, health and alerts.

:class:`TableHub` is the one seam between event sources and the web server.
Anything that produces events (an HTTP upload, ``tablecam serve --replay``,
the MQTT bus, the durable event store on start-up) calls
:meth:`TableHub.ingest`; anything that shows them (the dashboard's
WebSocket, the broadcast view, the archive download) reads the hub or
subscribes to it. The hub has no web dependencies so the bus and the tests
can drive it directly, from any thread.

Why the hub reassigns event indices: a finding's ``event`` field must point
into *this table's* log (the evidence a director opens), not into whichever
file or MQTT message the event came from.

>>> hub = TableHub()
>>> out = hub.ingest("t1", {"type": "play", "seat": "N", "card": "SA"})
>>> [f.kind for f in out], hub.table("t1").summary()["events"]
(['bad_event'], 1)
>>> hub.alerts()[0]["kind"], hub.alerts()[0]["state"]
('bad_event', 'open')
"""

from __future__ import annotations

import dataclasses
import re
import threading
import time
from typing import Any, Callable, Iterable

from ..engine import Table
from ..events import Event
from ..findings import Finding, _jsonable, bad_event
from .services import health
from .services.alertbook import Alert, AlertBook
from .services.decode import decode, raw_text
from .services.evidence import EVIDENCE_EVENTS, evidence
from .services.frames import FRAME_WINDOW, FRAMES_KEPT, Frame, FrameStore, belongs
from .services.health import HEALTH_SOURCES, HEALTH_STATUSES

__all__ = ["TABLE_ID", "TableHub", "TableState", "LogEntry", "Alert", "Frame", "unjudged_snapshot",
           "valid_table_id", "EVIDENCE_EVENTS", "FRAMES_KEPT", "FRAME_WINDOW", "HEALTH_SOURCES",
           "HEALTH_STATUSES", "evidence"]

TABLE_ID = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
"""Table ids travel in URLs, MQTT topics and file names: keep them plain."""
FINDINGS_KEPT = 5000
"""Findings a table keeps for its view (the alerts keep what the director must handle)."""

Listener = Callable[[dict[str, Any]], None]


def valid_table_id(table_id: str) -> bool:
    """Letters, digits, ``. _ -``; at most 64 characters.

    >>> valid_table_id("table-7"), valid_table_id("../etc"), valid_table_id("")
    (True, False, False)
    """
    return isinstance(table_id, str) and bool(TABLE_ID.match(table_id))


@dataclasses.dataclass
class LogEntry:
    """One ingested item as the director sees it in the event log."""

    index: int
    at: float                      # server receive time (epoch seconds)
    event: Event | None            # None for an unreadable item
    board_ordinal: int             # how many ``board`` events came before/at it (0 = none yet)
    text: str | None = None        # what was received when it could not be read

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"index": self.index, "at": self.at}
        if self.event is not None:
            d.update(self.event.to_dict())
        else:
            d["type"] = "unreadable"
            d["text"] = self.text
        return d


def unjudged_snapshot(board_event: Event | None) -> dict[str, Any]:
    """What is known of a board no engine could judge (unknown game, engine missing).

    The director still sees the table's game, board and dealer; the phase
    says why nothing more is shown.
    """
    if board_event is None:
        return {"game": None, "board": None, "phase": "idle"}
    d = board_event.to_dict()
    out = {k: d.get(k) for k in ("game", "board", "dealer", "vulnerable")}
    out["phase"] = "unjudged"
    return out


class TableState:
    """One table: the fold (:class:`tablecam.engine.Table`), its log and health."""

    def __init__(self, table_id: str, rulesets: dict[str, dict[str, Any]] | None = None) -> None:
        self.id = table_id
        self.table = Table(rulesets, name=table_id)
        self.log: list[LogEntry] = []
        self.board_starts: list[int] = []          # log index of each ``board`` event
        self.findings: list[dict[str, Any]] = []   # every finding, in order (info included)
        self.created_at = time.time()
        self.last_event_at: float | None = None
        self.source_seen: dict[str, float] = {}
        self.health: dict[str, dict[str, Any]] = {}
        self.open_alerts = 0
        self.open_by_severity: dict[str, int] = {}
        self.board_event: Event | None = None     # the latest ``board`` event, judged or not
        self._snap: tuple[tuple[Any, ...], dict[str, Any]] | None = None

    # -- views ---------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """The board in progress (or the last one), as plain JSON.

        Cached until the next event: the grid, the table views and the REST
        API all ask for it after every change, the engine is asked once.
        Callers must not modify the returned dict.
        """
        b = self.table.board
        key = (self.table.count, id(b), bool(b and b.finished), len(self.log))
        if self._snap is not None and self._snap[0] == key:
            return self._snap[1]
        snap = self._snapshot()
        self._snap = (key, snap)
        return snap

    def _snapshot(self) -> dict[str, Any]:
        b = self.table.board
        if b is None or (self.board_event is not None and b.board_event is not self.board_event):
            return unjudged_snapshot(self.board_event)
        try:
            snap = _jsonable(b.snapshot())
        except Exception as e:  # an engine bug must not take the dashboard down
            snap = {"game": b.game, "board": b.board, "error": f"{type(e).__name__}: {e}"}
        if not isinstance(snap, dict):
            snap = {"game": b.game, "board": b.board}
        snap.setdefault("game", b.game or (b.board_event.get("game") if b.board_event else None))
        snap.setdefault("board", b.board)
        if "dealer" not in snap and b.board_event is not None and b.board_event.get("dealer") is not None:
            snap["dealer"] = str(b.board_event.get("dealer"))
        if b.finished:
            snap["phase"] = "finished"
        snap.setdefault("phase", "unknown")
        return snap

    def health_view(self, now: float, silent_after: float) -> dict[str, dict[str, Any]]:
        """Shoe and camera health: an explicit report wins, else derived from traffic."""
        return health.health_view(self.health, self.source_seen, now, silent_after)

    def summary(self, now: float | None = None, silent_after: float = 120.0) -> dict[str, Any]:
        now = time.time() if now is None else now
        snap = self.snapshot()
        since = None if self.last_event_at is None else max(0.0, now - self.last_event_at)
        return {
            "id": self.id,
            "game": snap.get("game"),
            "board": snap.get("board"),
            "dealer": snap.get("dealer"),
            "phase": snap.get("phase"),
            "contract": snap.get("contract"),
            "declarer": snap.get("declarer"),
            "tricks_won": snap.get("tricks_won"),
            "last_event_at": self.last_event_at,
            "seconds_since_event": since,
            "silent": since is None or since > silent_after,
            "health": self.health_view(now, silent_after),
            "open_alerts": self.open_alerts,
            "open_by_severity": dict(self.open_by_severity),
            "events": len(self.log),
            "boards": len(self.board_starts),
        }


class TableHub:
    """Tables by id, alerts across tables, and subscribers to both.

    Thread-safe: ``ingest`` may be called from an MQTT thread while the web
    server reads. Subscribers are called synchronously *inside* the lock (so
    they see messages in order) and must only hand the message on (e.g.
    ``loop.call_soon_threadsafe``), never block.

    ``max_tables`` bounds memory against a forged flood of table ids.
    """

    def __init__(self, rulesets: dict[str, dict[str, Any]] | None = None, *, silent_after: float = 120.0,
                 max_tables: int = 2000, max_events_per_table: int = 200_000) -> None:
        self.rulesets = rulesets or {}
        self.silent_after = silent_after
        self.max_tables = max_tables
        self.max_events_per_table = max_events_per_table
        self.tables: dict[str, TableState] = {}
        self._listeners: list[Listener] = []
        self.lock = threading.RLock()
        self.frames = FrameStore()
        self.book = AlertBook(self.tables, self.frames, self._publish)
        self.started_at = time.time()

    # -- subscription --------------------------------------------------------
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(message)`` for every change; returns an unsubscribe function.

        Messages: ``{"type": "event", "table", "entry"}``, ``{"type": "finding",
        "table", "finding", "found_at"}``, ``{"type": "alert", "alert"}``,
        ``{"type": "health", "table", "source", ...}``, ``{"type": "table", "table"}``
        (a new table appeared).
        """
        with self.lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self.lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)
        return unsubscribe

    def _publish(self, msg: dict[str, Any]) -> None:
        for fn in list(self._listeners):
            try:
                fn(msg)
            except Exception:  # a broken subscriber must not stop ingestion
                pass

    # -- tables --------------------------------------------------------------
    def table(self, table_id: str, create: bool = False) -> TableState | None:
        with self.lock:
            t = self.tables.get(table_id)
            if t is None and create:
                if not valid_table_id(table_id):
                    raise ValueError(f"invalid table id {table_id!r} (letters, digits, . _ - ; at most 64)")
                if len(self.tables) >= self.max_tables:
                    raise OverflowError(f"too many tables (limit {self.max_tables})")
                t = self.tables[table_id] = TableState(table_id, self.rulesets)
                self._publish({"type": "table", "table": table_id})
            return t

    def summaries(self) -> list[dict[str, Any]]:
        now = time.time()
        with self.lock:
            return [t.summary(now, self.silent_after) for t in self.tables.values()]

    # -- ingestion -----------------------------------------------------------
    def ingest(self, table_id: str, item: Event | Finding | dict[str, Any] | str,
               received: float | None = None) -> list[Finding]:
        """Fold one item into a table (created on first use); return its findings.

        ``item`` may be an :class:`Event`, a contract event dict or JSON line,
        a :class:`Finding` (or finding dict, with ``kind``) produced by a
        remote engine, or a ``{"type": "health", "source", "status"}`` report.
        Unreadable input becomes a ``bad_event`` finding; nothing raises
        except an invalid table id (``ValueError``) or the table limit
        (``OverflowError``).
        """
        now = time.time() if received is None else received
        with self.lock:
            t = self.table(table_id, create=True)
            assert t is not None
            index = len(t.log)
            if index >= self.max_events_per_table:
                f = bad_event(f"Table {table_id} reached {self.max_events_per_table} events; input dropped.",
                              None)
                return [f]
            ev, text, passthrough = decode(item, index)
            if ev is not None and ev.type == "health":
                self._health(t, ev.raw or ev.data, now)
                return []
            if passthrough is not None:
                return self._findings(t, [passthrough], now)
            ordinal = len(t.board_starts) + (1 if ev is not None and ev.type == "board" else 0)
            entry = LogEntry(index, now, ev, ordinal, None if ev is not None else raw_text(item))
            t.log.append(entry)
            t.last_event_at = now
            if ev is not None and ev.type == "board":
                t.board_starts.append(index)
                t.board_event = ev
            if ev is not None and ev.source:
                src = "camera" if ev.source in ("camera", "vision") else ev.source
                t.source_seen[src] = now
            self._publish({"type": "event", "table": table_id, "entry": entry.to_dict()})
            if ev is None:
                out = t.table.apply(bad_event(f"Item {index} was not understood: {text}; skipped.", index,
                                              line=entry.text))
            else:
                out = t.table.apply(ev)
            return self._findings(t, out, now)

    def ingest_many(self, table_id: str, items: Iterable[Any]) -> list[Finding]:
        out: list[Finding] = []
        for it in items:
            out += self.ingest(table_id, it)
        return out

    def close_table(self, table_id: str) -> list[Finding]:
        """End of a replayed source: finish the board in progress (end-of-board findings)."""
        with self.lock:
            t = self.table(table_id)
            if t is None:
                return []
            return self._findings(t, t.table.close(), time.time())

    def _health(self, t: TableState, rep: dict[str, Any], now: float) -> None:
        src = str(rep.get("source", ""))[:32]
        status = rep.get("status")
        if src not in HEALTH_SOURCES or status not in HEALTH_STATUSES:
            return
        self.set_health(t.id, src, status, rep.get("detail"), now)

    def set_health(self, table_id: str, source: str, status: str, detail: Any = None,
                   at: float | None = None) -> None:
        """Record an explicit health report (the shoe or camera node says how it is)."""
        health.check(source, status)
        now = time.time() if at is None else at
        with self.lock:
            t = self.table(table_id, create=True)
            assert t is not None
            t.health[source] = health.report(status, detail, now)
            t.source_seen.setdefault(source, now)
            self._publish({"type": "health", "table": table_id, "source": source, "status": status,
                           "detail": t.health[source]["detail"]})

    def clear_health(self, table_id: str, source: str, detail: str | None = None) -> bool:
        """Forget an explicit health report (only the one whose detail is ``detail``, if given),
        so the source's health is derived from its traffic again. True if one was forgotten."""
        with self.lock:
            t = self.tables.get(table_id)
            rep = t.health.get(source) if t is not None else None
            if t is None or rep is None or (detail is not None and rep.get("detail") != detail):
                return False
            del t.health[source]
            self._publish({"type": "health", "table": table_id, "source": source, "status": None, "detail": None})
            return True

    def _findings(self, t: TableState, out: list[Finding], now: float) -> list[Finding]:
        """One engine step's findings: into the table's list and to the subscribers; those
        the director must handle to the alert book (one alert per incident)."""
        alerts = []
        for f in out:
            d = f.to_dict()
            d["table"] = t.id
            t.findings.append(d)
            self._publish({"type": "finding", "table": t.id, "finding": d, "found_at": now})
            if f.severity != "info":
                alerts.append((f, d))
        if len(t.findings) > 2 * FINDINGS_KEPT:
            del t.findings[:-FINDINGS_KEPT]
        if alerts:
            self.book.take(t, alerts, now)
        return out

    def evidence(self, t: TableState, event: int | None, first: int | None = None) -> list[dict[str, Any]]:
        """The events that led to a finding (:func:`.services.evidence.evidence`)."""
        return evidence(t, event, first)

    # -- alerts --------------------------------------------------------------
    def alerts(self, state: str | None = None, table: str | None = None) -> list[dict[str, Any]]:
        with self.lock:
            return self.book.list(state, table)

    def alert(self, alert_id: int) -> dict[str, Any] | None:
        with self.lock:
            a = self.book.get(alert_id)
            return a.to_dict() if a else None

    def acknowledge(self, alert_id: int, by: str) -> dict[str, Any]:
        """The director has seen the alert (is walking to the table). KeyError if unknown."""
        with self.lock:
            return self.book.acknowledge(alert_id, by)

    def rule(self, alert_id: int, by: str, text: str, option: str | None = None,
             applied: dict[str, Any] | None = None) -> dict[str, Any]:
        """Record the director's ruling (:meth:`.services.alertbook.AlertBook.rule`). KeyError if unknown."""
        with self.lock:
            return self.book.rule(alert_id, by, text, option, applied)

    def alert_id_for(self, table_id: str, key: str) -> int | None:
        """The alert for a finding id or an alert ``key`` (stable across restarts, unlike the number)."""
        with self.lock:
            return self.book.id_for(table_id, key)

    def restore(self, table_id: str, finding_id: str, acknowledged: dict[str, Any] | None = None,
                ruling: dict[str, Any] | None = None) -> bool:
        """Re-apply a stored acknowledgement / ruling after a restart (the event store's seam)."""
        with self.lock:
            return self.book.restore(table_id, finding_id, acknowledged, ruling)

    # -- camera frames ---------------------------------------------------------
    def add_frame(self, table_id: str, image: bytes, cards: list[dict[str, Any]], media_type: str = "image/jpeg",
                  width: int | None = None, height: int | None = None, at: float | None = None) -> int:
        """Keep a camera frame and what was recognised on it; return its id.

        Alerts whose event arrived within :data:`FRAME_WINDOW` of the frame and
        have none yet take it as evidence (the frame usually lands a little
        after the event the pipeline derived from it).
        """
        now = time.time() if at is None else at
        with self.lock:
            t = self.table(table_id, create=True)
            assert t is not None
            fr = self.frames.add(table_id, now, image, media_type, cards, width, height, self.book.keeps)
            t.source_seen["camera"] = now
            self.book.frame_arrived(fr, belongs)
            return fr.id

    def frame(self, frame_id: int) -> Frame | None:
        with self.lock:
            return self.frames.get(frame_id)

    # -- archive -------------------------------------------------------------
    def events_for(self, table_id: str, board: Any = None) -> list[Event]:
        """The readable events of a table (optionally one board number) for export."""
        with self.lock:
            t = self.tables.get(table_id)
            if t is None:
                return []
            out: list[Event] = []
            keep = True
            for e in t.log:
                if e.event is None:
                    continue
                if board is not None:
                    if e.event.type == "director_ruling" and str(e.event.get("board")) == str(board):
                        out.append(e.event)   # a ruling is often given while a later board is played
                        continue
                    if e.event.type == "board":
                        keep = str(e.event.get("board")) == str(board)
                    if not keep or e.board_ordinal == 0:
                        continue
                out.append(e.event)
            return out

