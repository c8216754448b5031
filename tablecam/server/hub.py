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

import collections
import dataclasses
import itertools
import json
import re
import threading
import time
from typing import Any, Callable, Iterable

from ..engine import Table
from ..events import Event, parse_event
from ..findings import Finding, _jsonable, bad_event
from . import strictjson
from .rules_index import rule_reference

TABLE_ID = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
"""Table ids travel in URLs, MQTT topics and file names: keep them plain."""

HEALTH_SOURCES = ("shoe", "camera")
HEALTH_STATUSES = ("ok", "degraded", "down", "unknown")
EVIDENCE_EVENTS = 12
"""How many events before (and including) the triggering one an alert carries."""
FRAMES_KEPT = 120
"""Camera frames kept per table (a ring); frames an alert refers to are kept for good."""
FRAME_WINDOW = (-3.0, 6.0)
"""A frame belongs to an event if it arrived this many seconds before / after it (the
camera pipeline decides a card some frames after it came to rest)."""

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


@dataclasses.dataclass
class Frame:
    """A camera frame with what the recogniser saw (``tablecam detect`` records)."""

    id: int
    table: str
    at: float
    image: bytes
    media_type: str
    cards: list[dict[str, Any]]
    width: int | None = None
    height: int | None = None

    def meta(self) -> dict[str, Any]:
        return {"id": self.id, "table": self.table, "at": self.at, "cards": self.cards,
                "width": self.width, "height": self.height, "media_type": self.media_type}


@dataclasses.dataclass
class Alert:
    """A finding the director must handle, with its handling history.

    ``state`` is the director's lifecycle (``open`` -> ``acknowledged`` ->
    ``ruled``); ``finding["status"]`` is the engine's (``pending`` ->
    ``established`` ...). They are independent: a corrected revoke may still
    need a ruling on the penalty card.
    """

    id: int
    table: str
    finding: dict[str, Any]
    severity: str
    found_at: float
    evidence: list[dict[str, Any]]
    state: str = "open"
    updated_at: float = 0.0
    history: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    acknowledged: dict[str, Any] | None = None
    ruling: dict[str, Any] | None = None
    events: list[int] = dataclasses.field(default_factory=list)   # the event each step cited
    rules: list[str] = dataclasses.field(default_factory=list)    # every rule cited, in order
    frame: Frame | None = None                                    # the camera's view of the moment
    event_at: float | None = None                                 # when the first cited event arrived

    @property
    def key(self) -> str:
        """Stable across a restart that replays the same events: the finding id, else kind, board, event."""
        f = self.finding
        if f.get("id"):
            return str(f["id"])
        return f"{f.get('kind')}@{f.get('board')}#{self.events[0] if self.events else f.get('event')}"

    def to_dict(self) -> dict[str, Any]:
        f = self.finding
        return {
            "id": self.id,
            "table": self.table,
            "key": self.key,
            "finding_id": f.get("id"),
            "kind": f.get("kind"),
            "board": f.get("board"),
            "severity": self.severity,
            "state": self.state,
            "status": f.get("status"),
            "rule": f.get("rule"),
            "rule_ref": rule_reference(f.get("rule") or ""),
            "message": f.get("message"),
            "options": f.get("options") or [],
            "remedy": f.get("remedy"),
            "seat": f.get("seat"),
            "trick": f.get("trick"),
            "event": f.get("event"),
            "found_at": self.found_at,
            "updated_at": self.updated_at or self.found_at,
            "finding": f,
            "history": self.history,
            "evidence": self.evidence,
            "events": self.events,
            "rules": [{"citation": r, "ref": rule_reference(r)} for r in self.rules],
            "frame": self.frame.meta() if self.frame else None,
            "acknowledged": self.acknowledged,
            "ruling": self.ruling,
        }


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
        self.frames: collections.deque[Frame] = collections.deque(maxlen=FRAMES_KEPT)
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
        out: dict[str, dict[str, Any]] = {}
        for src in HEALTH_SOURCES:
            seen = self.source_seen.get(src)
            rep = self.health.get(src)
            if rep is not None:
                status = rep["status"]
                detail = rep.get("detail")
            elif seen is None:
                status, detail = "unknown", "no events from this source yet"
            elif now - seen > silent_after:
                status, detail = "down", f"silent for {int(now - seen)} s"
            else:
                status, detail = "ok", None
            out[src] = {"status": status, "detail": detail, "last_seen": seen}
        return out

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
        self._alerts: dict[int, Alert] = {}
        self._alert_keys: dict[tuple[str, str], int] = {}     # (table, finding id) -> alert
        self._stable_keys: dict[tuple[str, str], int] = {}    # (table, Alert.key) -> alert
        self._alert_seq = itertools.count(1)
        self._frame_seq = itertools.count(1)
        self._frames: dict[int, Frame] = {}   # frames by id: the rings' and those alerts keep
        self._listeners: list[Listener] = []
        self.lock = threading.RLock()
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
            ev, text, passthrough = self._decode(item, index)
            if ev is not None and ev.type == "health":
                self._health(t, ev.raw or ev.data, now)
                return []
            if passthrough is not None:
                return self._findings(t, [passthrough], now)
            ordinal = len(t.board_starts) + (1 if ev is not None and ev.type == "board" else 0)
            entry = LogEntry(index, now, ev, ordinal, None if ev is not None else _raw_text(item))
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

    @staticmethod
    def _decode(item: Any, index: int) -> tuple[Event | None, str | None, Finding | None]:
        """-> (event, unreadable text, pass-through finding)."""
        if isinstance(item, Finding):
            return None, None, item
        if isinstance(item, Event):
            return dataclasses.replace(item, index=index), None, None
        if isinstance(item, (bytes, bytearray)):
            item = bytes(item).decode("utf-8", errors="replace")
        if isinstance(item, str):
            try:
                item = strictjson.loads(item)
            except (ValueError, RecursionError) as e:   # ValueError: also NaN, a 5,000-digit number
                return None, f"not valid JSON ({getattr(e, 'msg', None) or e or 'too deeply nested'})", None
        if isinstance(item, dict) and "kind" in item and "type" not in item:
            return None, None, _finding_from_dict(item)
        if isinstance(item, dict) and item.get("type") == "health":
            return Event("health", {}, index, raw=item), None, None
        try:
            return parse_event(item, index), None, None
        except ValueError as e:
            return None, str(e), None
        except Exception as e:  # pragma: no cover - defensive: never lose the stream
            return None, f"{type(e).__name__}: {e}", None

    def _health(self, t: TableState, rep: dict[str, Any], now: float) -> None:
        src = str(rep.get("source", ""))[:32]
        status = rep.get("status")
        if src not in HEALTH_SOURCES or status not in HEALTH_STATUSES:
            return
        self.set_health(t.id, src, status, rep.get("detail"), now)

    def set_health(self, table_id: str, source: str, status: str, detail: Any = None,
                   at: float | None = None) -> None:
        """Record an explicit health report (the shoe or camera node says how it is)."""
        if source not in HEALTH_SOURCES or status not in HEALTH_STATUSES:
            raise ValueError(f"health: source must be one of {HEALTH_SOURCES}, status one of {HEALTH_STATUSES}")
        now = time.time() if at is None else at
        with self.lock:
            t = self.table(table_id, create=True)
            assert t is not None
            t.health[source] = {"status": status, "detail": None if detail is None else str(detail)[:200],
                                "at": now}
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
        for f in out:
            d = f.to_dict()
            d["table"] = t.id
            t.findings.append(d)
            self._publish({"type": "finding", "table": t.id, "finding": d, "found_at": now})
            if f.severity != "info":
                self._alert(t, f, d, now)
        return out

    def _alert(self, t: TableState, f: Finding, d: dict[str, Any], now: float) -> None:
        key = (t.id, f.id) if f.id else None
        aid = self._alert_keys.get(key) if key else None
        if aid is not None:  # the same irregularity moved on (e.g. revoke established)
            a = self._alerts[aid]
            if a.finding == d:
                return  # the same step delivered twice (e.g. by the table node and the station): nothing new
            a.history.append({"at": now, "status": d.get("status"), "message": d.get("message")})
            a.finding = d
            a.updated_at = now
            if f.event is not None and f.event not in a.events:
                a.events.append(f.event)
            if f.rule and f.rule not in a.rules:
                a.rules.append(f.rule)
            a.evidence = self.evidence(t, f.event, a.events[0] if a.events else None)
        else:
            aid = next(self._alert_seq)
            a = Alert(aid, t.id, d, f.severity, now, self.evidence(t, f.event),
                      history=[{"at": now, "status": d.get("status"), "message": d.get("message")}],
                      events=[f.event] if f.event is not None else [], rules=[f.rule] if f.rule else [])
            # when the cited event arrived (a remote engine's finding: when the finding did)
            a.event_at = t.log[f.event].at if f.event is not None and 0 <= f.event < len(t.log) else now
            a.frame = self._frame_near(t, a.event_at)
            self._alerts[aid] = a
            if key:
                self._alert_keys[key] = aid
            self._stable_keys[(t.id, a.key)] = aid
            t.open_alerts += 1
            t.open_by_severity[a.severity] = t.open_by_severity.get(a.severity, 0) + 1
        self._publish({"type": "alert", "alert": a.to_dict(), "found_at": now})

    def evidence(self, t: TableState, event: int | None, first: int | None = None) -> list[dict[str, Any]]:
        """The events that led to a finding: its board's events before the first
        event the irregularity cited (``first``), through the latest (``event``)."""
        if not t.log:
            return []
        end = len(t.log) - 1 if event is None or not (0 <= event < len(t.log)) else event
        begin = end if first is None or not (0 <= first <= end) else first
        start = 0
        for s in t.board_starts:
            if s <= begin:
                start = s
        lo = max(start, begin - EVIDENCE_EVENTS + 1, end - 3 * EVIDENCE_EVENTS)
        return [e.to_dict() for e in t.log[lo:end + 1]]

    # -- alerts --------------------------------------------------------------
    def alerts(self, state: str | None = None, table: str | None = None) -> list[dict[str, Any]]:
        with self.lock:
            return [a.to_dict() for a in self._alerts.values()
                    if (state is None or a.state == state) and (table is None or a.table == table)]

    def alert(self, alert_id: int) -> dict[str, Any] | None:
        with self.lock:
            a = self._alerts.get(alert_id)
            return a.to_dict() if a else None

    def acknowledge(self, alert_id: int, by: str) -> dict[str, Any]:
        """The director has seen the alert (is walking to the table). KeyError if unknown."""
        with self.lock:
            a = self._alerts[alert_id]
            if a.acknowledged is None:
                a.acknowledged = {"by": by, "at": time.time()}
                if a.state == "open":
                    a.state = "acknowledged"
                a.updated_at = a.acknowledged["at"]
                a.history.append({"at": a.updated_at, "state": "acknowledged", "by": by})
            self._publish({"type": "alert", "alert": a.to_dict()})
            return a.to_dict()

    def rule(self, alert_id: int, by: str, text: str, option: str | None = None,
             applied: dict[str, Any] | None = None) -> dict[str, Any]:
        """Record the director's ruling (free text plus the chosen option).

        A ruling implies acknowledgement. Ruling again replaces the ruling (an
        appeal or a correction) and the earlier one stays in ``history``.
        ``applied``: the ``director_ruling`` event that applied it to the board
        (:mod:`tablecam.server.rulings`).
        """
        with self.lock:
            a = self._alerts[alert_id]
            now = time.time()
            if a.acknowledged is None:
                a.acknowledged = {"by": by, "at": now}
            if a.state != "ruled":
                t = self.tables.get(a.table)
                if t is not None:
                    t.open_alerts = max(0, t.open_alerts - 1)
                    t.open_by_severity[a.severity] = max(0, t.open_by_severity.get(a.severity, 0) - 1)
            a.ruling = {"by": by, "at": now, "option": option, "text": text}
            if applied is not None:
                a.ruling["applied"] = applied
            a.state = "ruled"
            a.updated_at = now
            a.history.append({"at": now, "state": "ruled", "by": by, "option": option, "text": text,
                              **({"applied": applied} if applied is not None else {})})
            self._publish({"type": "alert", "alert": a.to_dict()})
            return a.to_dict()

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
            fr = Frame(next(self._frame_seq), table_id, now, bytes(image), media_type, list(cards), width, height)
            if len(t.frames) == t.frames.maxlen:
                old = t.frames[0]
                if not any(a.frame is old for a in self._alerts.values()):
                    self._frames.pop(old.id, None)
            t.frames.append(fr)
            self._frames[fr.id] = fr
            t.source_seen["camera"] = now
            lo, hi = FRAME_WINDOW
            for a in self._alerts.values():
                if a.table == table_id and a.frame is None and a.event_at is not None \
                        and lo <= now - a.event_at <= hi:
                    a.frame = fr
                    a.updated_at = now
                    self._publish({"type": "alert", "alert": a.to_dict()})
            return fr.id

    def frame(self, frame_id: int) -> Frame | None:
        with self.lock:
            return self._frames.get(frame_id)

    @staticmethod
    def _frame_near(t: TableState, at: float) -> Frame | None:
        lo, hi = FRAME_WINDOW
        best = None
        for fr in t.frames:
            d = fr.at - at
            if lo <= d <= hi and (best is None or abs(d) < abs(best.at - at)):
                best = fr
        return best

    def alert_id_for(self, table_id: str, key: str) -> int | None:
        """The alert for a finding id or an alert ``key`` (stable across restarts, unlike the number)."""
        with self.lock:
            return self._alert_keys.get((table_id, key)) or self._stable_keys.get((table_id, key))

    def restore(self, table_id: str, finding_id: str, acknowledged: dict[str, Any] | None = None,
                ruling: dict[str, Any] | None = None) -> bool:
        """Re-apply a stored acknowledgement / ruling after a restart (the event store's seam).

        Call it after the table's events were replayed (which re-raises the
        alert under the same finding id, or the same ``key``). ``ruling`` is ``{"by", "at",
        "option", "text"}`` as published. Returns False if no such alert.
        """
        with self.lock:
            aid = self.alert_id_for(table_id, finding_id)
            if aid is None:
                return False
            a = self._alerts[aid]
            if acknowledged and a.acknowledged is None:
                a.acknowledged = dict(acknowledged)
                if a.state == "open":
                    a.state = "acknowledged"
            if ruling:
                if a.acknowledged is None:
                    a.acknowledged = {"by": ruling.get("by"), "at": ruling.get("at")}
                if a.state != "ruled":
                    t = self.tables.get(table_id)
                    if t is not None:
                        t.open_alerts = max(0, t.open_alerts - 1)
                        t.open_by_severity[a.severity] = max(0, t.open_by_severity.get(a.severity, 0) - 1)
                a.ruling = dict(ruling)
                a.state = "ruled"
                a.history.append({"at": ruling.get("at"), "state": "ruled", "by": ruling.get("by"),
                                  "option": ruling.get("option"), "text": ruling.get("text"), "restored": True})
            a.updated_at = time.time()
            self._publish({"type": "alert", "alert": a.to_dict()})
            return True

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


def _raw_text(item: Any) -> str:
    """What was received, for the log and the ``bad_event``'s ``line`` (bounded)."""
    if isinstance(item, (bytes, bytearray)):
        item = bytes(item).decode("utf-8", errors="replace")
    if not isinstance(item, str):
        try:
            item = json.dumps(item, default=str, ensure_ascii=False)
        except (ValueError, RecursionError):
            item = repr(item)
    return item[:200]


def _finding_from_dict(d: dict[str, Any]) -> Finding:
    """Rebuild a Finding from its ``to_dict()`` form (a remote engine's output)."""
    known = {"kind", "rule", "message", "board", "event", "seat", "trick", "status", "options", "remedy", "id"}
    kw: dict[str, Any] = {k: d[k] for k in known if k in d}
    kw["kind"] = str(kw.get("kind") or "unknown")[:64]
    for k in ("rule", "message", "status", "remedy", "id"):
        if k in kw and kw[k] is not None:
            kw[k] = str(kw[k])[:2000]
    if not isinstance(kw.get("options", []), list):
        kw["options"] = [str(kw["options"])]
    if "event" in kw and not isinstance(kw["event"], int) or isinstance(kw.get("event"), bool):
        kw["event"] = None
    if "trick" in kw and not isinstance(kw["trick"], int) or isinstance(kw.get("trick"), bool):
        kw["trick"] = None
    extra = {k: v for k, v in d.items() if k not in known and k != "table"}
    return Finding(extra=extra, **kw)
