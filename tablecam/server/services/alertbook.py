"""The alert queue: one alert per incident, its status moving, its handling kept; bounded.

Why incidents and not findings: an engine reports each step of one
irregularity (a revoke found, corrected, the penalty card it leaves; at the
end of the board the tricks it costs), and a table that sends garbage
reports every line. A director handles incidents; four cards to acknowledge
for one revoke, or twenty thousand for one broken cable, hide the next real
one. So a finding becomes part of an existing alert when

1. it has the finding id of one of the alert's findings (a step of the same
   irregularity: its ``status`` moves, pending -> corrected / established);
2. it names one of them as its cause (``extra["revoke"]``: the tricks a
   revoke costs);
3. it arrives in the same engine step as a step of an open alert, on the
   same board and seat (the penalty card a corrected revoke leaves);
4. it has no finding id (a ``bad_event``, a bus problem) and the table has an
   alert of the same kind not yet ruled: the alert counts it (``count``).

The queue is bounded: at most :data:`MAX_OPEN_PER_TABLE` alerts not yet
ruled per table and :data:`MAX_ALERTS` in all (the oldest ruled ones go
first); past that, a table's new findings are counted on one ``alert_flood``
alert. Each alert keeps at most :data:`HISTORY_KEPT` history entries and
:data:`FINDINGS_KEPT` findings.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from typing import Any, Callable, Iterable

from ...findings import Finding
from ..rules_index import rule_reference
from .evidence import evidence
from .frames import Frame, FrameStore

MAX_ALERTS = 20_000
MAX_OPEN_PER_TABLE = 500
HISTORY_KEPT = 50
FINDINGS_KEPT = 20
EVENTS_KEPT = 50
LINKS = ("revoke", "cause")
"""Fields of a finding's extras that name the finding id it is a consequence of."""
FLOOD = "alert_flood"


def _bounded(items: list[Any], kept: int) -> None:
    """Keep the first entry (how it began) and the latest ``kept - 1``."""
    if len(items) > kept:
        del items[1:len(items) - kept + 1]


@dataclasses.dataclass
class Alert:
    """An incident the director must handle, with its handling history.

    ``state`` is the director's lifecycle (``open`` -> ``acknowledged`` ->
    ``ruled``); ``finding["status"]`` is the engine's (``pending`` ->
    ``corrected`` / ``established`` ...). They are independent: a corrected
    revoke may still need a ruling on the penalty card. ``finding`` is the
    incident's own finding (its latest step); ``others`` the findings that
    joined it, by id.
    """

    id: int
    table: str
    finding: dict[str, Any]
    severity: str
    found_at: float
    evidence: list[dict[str, Any]]
    key: str = ""
    """Stable across a restart that replays the same events: the finding id, else kind, board, event."""
    state: str = "open"
    updated_at: float = 0.0
    history: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    acknowledged: dict[str, Any] | None = None
    ruling: dict[str, Any] | None = None
    events: list[int] = dataclasses.field(default_factory=list)   # the event each step cited
    rules: list[str] = dataclasses.field(default_factory=list)    # every rule cited, in order
    frame: Frame | None = None                                    # the camera's view of the moment
    event_at: float | None = None                                 # when the first cited event arrived
    others: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    count: int = 1                                                # findings gathered (repeats included)

    def step(self, d: dict[str, Any], now: float) -> None:
        """Note one more finding of this incident in its history, events and rules."""
        self.history.append({"at": now, "kind": d.get("kind"), "status": d.get("status"),
                             "message": d.get("message")})
        _bounded(self.history, HISTORY_KEPT)
        ev, rule = d.get("event"), d.get("rule")
        if isinstance(ev, int) and ev not in self.events:
            self.events.append(ev)
            _bounded(self.events, EVENTS_KEPT)
        if rule and rule not in self.rules and len(self.rules) < EVENTS_KEPT:
            self.rules.append(rule)
        self.updated_at = now

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
            "count": self.count,
            "found_at": self.found_at,
            "updated_at": self.updated_at or self.found_at,
            "finding": f,
            "findings": [f, *self.others.values()],
            "finding_ids": [i for i in (f.get("id"), *self.others) if i],
            "history": self.history,
            "evidence": self.evidence,
            "events": self.events,
            "rules": [{"citation": r, "ref": rule_reference(r)} for r in self.rules],
            "frame": self.frame.meta() if self.frame else None,
            "acknowledged": self.acknowledged,
            "ruling": self.ruling,
        }


def _key(d: dict[str, Any]) -> str:
    return str(d["id"]) if d.get("id") else f"{d.get('kind')}@{d.get('board')}#{d.get('event')}"


class AlertBook:
    """Every table's alerts, by number, finding id, stable key and repeated kind.

    Not locked: the hub calls it under its own lock. ``tables`` is the hub's
    table dict (for the cited events' arrival times and the open counts);
    ``publish`` hands each changed alert to the hub's subscribers.
    """

    def __init__(self, tables: dict[str, Any], frames: FrameStore, publish: Callable[[dict[str, Any]], None],
                 max_alerts: int = MAX_ALERTS, max_open_per_table: int = MAX_OPEN_PER_TABLE) -> None:
        self.tables = tables
        self.frames = frames
        self.publish = publish
        self.max_alerts = max_alerts
        self.max_open_per_table = max_open_per_table
        self._alerts: dict[int, Alert] = {}
        self._by_finding: dict[tuple[str, str], int] = {}   # (table, finding id) -> alert
        self._by_key: dict[tuple[str, str], int] = {}       # (table, Alert.key) -> alert
        self._repeats: dict[tuple[str, str], int] = {}      # (table, kind) -> alert counting id-less findings
        self._seq = itertools.count(1)

    # -- raising -----------------------------------------------------------------
    def take(self, t: Any, found: Iterable[tuple[Finding, dict[str, Any]]], now: float) -> None:
        """The alert-worthy findings of one engine step at table ``t`` (``(finding, its dict)``)."""
        moved: dict[tuple[Any, Any], Alert] = {}   # existing alerts this step moved, by (board, seat)
        for f, d in found:
            a, how = self._existing(t.id, f, d, moved)
            if a is None:
                a = self._new(t, f, d, now)
            elif how == "moved":
                if not self._moved(a, d, now):
                    continue                            # the same step delivered twice: nothing new
                moved[(d.get("board"), d.get("seat"))] = a
            else:
                self._join(a, f, d, now)
            a.evidence = evidence(t, d.get("event"), a.events[0] if a.events else None)
            self.publish({"type": "alert", "alert": a.to_dict(), "found_at": now})

    def _existing(self, table: str, f: Finding, d: dict[str, Any],
                  moved: dict[tuple[Any, Any], Alert]) -> tuple[Alert | None, str]:
        """The alert ``f`` belongs to and how: ``moved`` (one of its findings took a step) or
        ``joined`` (a consequence or a repeat); ``(None, "")`` for a new incident."""
        if f.id:
            aid = self._by_finding.get((table, f.id))
            if aid is not None and aid in self._alerts:
                return self._alerts[aid], "moved"
            for link in LINKS:
                cause = f.extra.get(link)
                aid = self._by_finding.get((table, cause)) if isinstance(cause, str) else None
                if aid is not None and aid in self._alerts:
                    return self._alerts[aid], "joined"
            a = moved.get((d.get("board"), d.get("seat")))
            return (a, "joined") if a is not None and a.state != "ruled" else (None, "")
        aid = self._repeats.get((table, f.kind))
        a = self._alerts.get(aid) if aid is not None else None
        return (a, "joined") if a is not None and a.state != "ruled" else (None, "")

    def _moved(self, a: Alert, d: dict[str, Any], now: float) -> bool:
        """A finding already in ``a`` took another step; False if nothing changed."""
        fid = d.get("id")
        if a.finding.get("id") == fid:
            if a.finding == d:
                return False
            a.finding = d
        else:
            if a.others.get(fid) == d:
                return False
            if fid in a.others or len(a.others) < FINDINGS_KEPT:
                a.others[fid] = d
        a.step(d, now)
        return True

    def _join(self, a: Alert, f: Finding, d: dict[str, Any], now: float) -> None:
        """A consequence or a repeat of ``a``'s incident."""
        a.count += 1
        if f.id:
            if len(a.others) < FINDINGS_KEPT:
                a.others[f.id] = d
            self._by_finding[(a.table, f.id)] = a.id
        else:
            a.finding = d   # a repeat: the latest one shows (the key keeps the first)
        a.step(d, now)

    def _new(self, t: Any, f: Finding, d: dict[str, Any], now: float) -> Alert:
        if self._open(t) >= self.max_open_per_table or not self._room():
            return self._flood(t, f, d, now)
        aid = next(self._seq)
        ev = d.get("event")
        a = Alert(aid, t.id, d, f.severity, now, [], key=_key(d), updated_at=now,
                  history=[{"at": now, "kind": d.get("kind"), "status": d.get("status"),
                            "message": d.get("message")}],
                  events=[ev] if isinstance(ev, int) else [], rules=[f.rule] if f.rule else [])
        # when the cited event arrived (a remote engine's finding: when the finding did)
        a.event_at = t.log[ev].at if isinstance(ev, int) and 0 <= ev < len(t.log) else now
        a.frame = self.frames.near(t.id, a.event_at)
        self._alerts[aid] = a
        if f.id:
            self._by_finding[(t.id, f.id)] = aid
        else:
            self._repeats[(t.id, f.kind)] = aid
        self._by_key[(t.id, a.key)] = aid
        t.open_alerts += 1
        t.open_by_severity[a.severity] = t.open_by_severity.get(a.severity, 0) + 1
        return a

    def _flood(self, t: Any, f: Finding, d: dict[str, Any], now: float) -> Alert:
        """Past the bounds: the table's one ``alert_flood`` alert counts the finding."""
        aid = self._repeats.get((t.id, FLOOD))
        a = self._alerts.get(aid) if aid is not None else None
        if a is not None and a.state != "ruled":
            a.count += 1
            a.step(d, now)
            return a
        flood = Finding(FLOOD, rule="tablecam station", board=d.get("board"), event=d.get("event"),
                        message=f"Table {t.id} raised more alerts than the queue holds "
                                f"({self.max_open_per_table} open a table, {self.max_alerts} in all); "
                                "its further findings are counted here, each in the table's findings.",
                        options=["rule the open alerts of this table", "check the table's node and input"])
        fd = flood.to_dict()
        fd["table"] = t.id
        aid = next(self._seq)
        a = Alert(aid, t.id, fd, flood.severity, now, [], key=f"{FLOOD}@{now:.3f}", updated_at=now,
                  history=[{"at": now, "kind": FLOOD, "status": fd.get("status"), "message": fd.get("message")}])
        a.step(d, now)
        self._alerts[aid] = a
        self._repeats[(t.id, FLOOD)] = aid
        self._by_key[(t.id, a.key)] = aid
        t.open_alerts += 1
        t.open_by_severity[a.severity] = t.open_by_severity.get(a.severity, 0) + 1
        return a

    def _open(self, t: Any) -> int:
        return int(t.open_alerts)

    def _room(self) -> bool:
        """Whether one more alert fits, forgetting the oldest ruled one if need be."""
        if len(self._alerts) < self.max_alerts:
            return True
        old = next((a for a in self._alerts.values() if a.state == "ruled"), None)
        if old is None:
            return False
        self._forget(old)
        return True

    def _forget(self, a: Alert) -> None:
        del self._alerts[a.id]
        for index in (self._by_finding, self._by_key, self._repeats):
            for k in [k for k, v in index.items() if v == a.id]:
                del index[k]
        if a.frame is not None and not any(b.frame is a.frame for b in self._alerts.values()):
            self.frames.forget(a.frame)

    # -- reading -------------------------------------------------------------------
    def list(self, state: str | None = None, table: str | None = None) -> list[dict[str, Any]]:
        return [a.to_dict() for a in self._alerts.values()
                if (state is None or a.state == state) and (table is None or a.table == table)]

    def get(self, alert_id: int) -> Alert | None:
        return self._alerts.get(alert_id)

    def id_for(self, table_id: str, key: str) -> int | None:
        """The alert for a finding id or an alert ``key`` (stable across restarts, unlike the number)."""
        return self._by_finding.get((table_id, key)) or self._by_key.get((table_id, key))

    def keeps(self, frame: Frame) -> bool:
        return any(a.frame is frame for a in self._alerts.values())

    def frame_arrived(self, fr: Frame, belongs: Callable[[float, float], bool]) -> None:
        """Alerts of the frame's table without a frame, whose event it shows, take it."""
        for a in self._alerts.values():
            if a.table == fr.table and a.frame is None and a.event_at is not None and belongs(fr.at, a.event_at):
                a.frame = fr
                a.updated_at = fr.at
                self.publish({"type": "alert", "alert": a.to_dict()})

    # -- the director's handling -------------------------------------------------
    def acknowledge(self, alert_id: int, by: str) -> dict[str, Any]:
        """The director has seen the alert (is walking to the table). KeyError if unknown."""
        a = self._alerts[alert_id]
        if a.acknowledged is None:
            a.acknowledged = {"by": by, "at": time.time()}
            if a.state == "open":
                a.state = "acknowledged"
            a.updated_at = a.acknowledged["at"]
            a.history.append({"at": a.updated_at, "state": "acknowledged", "by": by})
        self.publish({"type": "alert", "alert": a.to_dict()})
        return a.to_dict()

    def rule(self, alert_id: int, by: str, text: str, option: str | None = None,
             applied: dict[str, Any] | None = None) -> dict[str, Any]:
        """Record the director's ruling (free text plus the chosen option).

        A ruling implies acknowledgement. Ruling again replaces the ruling (an
        appeal or a correction) and the earlier one stays in ``history``.
        ``applied``: the ``director_ruling`` event that applied it to the board
        (:mod:`tablecam.server.rulings`).
        """
        a = self._alerts[alert_id]
        now = time.time()
        if a.acknowledged is None:
            a.acknowledged = {"by": by, "at": now}
        self._ruled(a)
        a.ruling = {"by": by, "at": now, "option": option, "text": text}
        if applied is not None:
            a.ruling["applied"] = applied
        a.updated_at = now
        a.history.append({"at": now, "state": "ruled", "by": by, "option": option, "text": text,
                          **({"applied": applied} if applied is not None else {})})
        self.publish({"type": "alert", "alert": a.to_dict()})
        return a.to_dict()

    def _ruled(self, a: Alert) -> None:
        if a.state != "ruled":
            t = self.tables.get(a.table)
            if t is not None:
                t.open_alerts = max(0, t.open_alerts - 1)
                t.open_by_severity[a.severity] = max(0, t.open_by_severity.get(a.severity, 0) - 1)
        a.state = "ruled"

    def restore(self, table_id: str, key: str, acknowledged: dict[str, Any] | None = None,
                ruling: dict[str, Any] | None = None) -> bool:
        """Re-apply a stored acknowledgement / ruling after a restart (the event store's seam).

        Call it after the table's events were replayed (which re-raises the
        alert under the same finding id, or the same ``key``). ``ruling`` is ``{"by", "at",
        "option", "text"}`` as published. Returns False if no such alert.
        """
        aid = self.id_for(table_id, key)
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
            self._ruled(a)
            a.ruling = dict(ruling)
            a.history.append({"at": ruling.get("at"), "state": "ruled", "by": ruling.get("by"),
                              "option": ruling.get("option"), "text": ruling.get("text"), "restored": True})
        a.updated_at = time.time()
        self.publish({"type": "alert", "alert": a.to_dict()})
        return True
