"""Durable, append-only event store (SQLite in WAL mode).

The store is the table's memory: every event is written here *before* it is
published anywhere, with ``synchronous=FULL`` so that once :meth:`append`
returns the event survives a crash or power cut. State after a restart is
rebuilt by folding the stored events through the engine again, which is
exactly the state before the crash because engines are pure folds.

Rows are keyed by ``(table, seq)``: appending an event whose sequence number
is already stored is a no-op, which makes re-delivery after a reconnect (MQTT
QoS 1 sends at least once) harmless. The ``published`` column is the table
node's outbox: an event stays unpublished until the broker acknowledged it.

>>> s = EventStore(":memory:")
>>> s.append("t1", {"type": "board", "game": "bridge", "board": 1})
1
>>> s.append("t1", {"type": "end"})
2
>>> s.append("t1", {"type": "end"}, seq=2)   # a duplicate: ignored
2
>>> [r.seq for r in s.events("t1")], s.last_seq("t1"), s.tables()
([1, 2], 2, ['t1'])
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import urllib.parse
import uuid
from dataclasses import dataclass
from typing import Any, Iterator

from .events import Event, parse_event
from .findings import Finding, bad_event

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    table_id  TEXT    NOT NULL,
    seq       INTEGER NOT NULL,
    board     TEXT,
    ts        REAL    NOT NULL,
    type      TEXT    NOT NULL,
    body      TEXT    NOT NULL,
    published INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS events_unpublished ON events(table_id, published) WHERE published = 0;
CREATE TABLE IF NOT EXISTS logs (
    table_id  TEXT    NOT NULL,
    log       TEXT    NOT NULL,
    base      INTEGER NOT NULL,
    since     REAL    NOT NULL,
    lost      INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (table_id, log)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rulings (
    id        INTEGER PRIMARY KEY,
    table_id  TEXT NOT NULL,
    finding   TEXT NOT NULL,
    ts        REAL NOT NULL,
    body      TEXT NOT NULL
);
"""


@dataclass(frozen=True)
class StoredEvent:
    table: str
    seq: int
    board: str | None
    ts: float
    event: dict[str, Any]


class EventStore:
    """Append-only SQLite store, safe to share between threads of one process."""

    def __init__(self, path: str, durable: bool = True) -> None:
        self.path = path
        self._lock = threading.RLock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        if path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        self._db.executescript(SCHEMA)
        self._board: dict[str, str | None] = {}
        self._next: dict[str, int] = {}

    # -- writing -------------------------------------------------------------
    def append(self, table: str, event: dict[str, Any], seq: int | None = None,
               ts: float | None = None) -> int:
        """Store one event durably; return its sequence number.

        Without ``seq`` the next number for the table is assigned (the table
        node's case). With ``seq`` (the director station's case, receiving
        from the bus) an existing row is left untouched.
        """
        with self._lock:
            if seq is None:
                seq = self.last_seq(table) + 1
            if event.get("type") == "board":
                self._board[table] = str(event.get("board")) if event.get("board") is not None else None
            board = self._board.get(table)
            if board is None and table not in self._board:
                board = self._board_from_db(table)
            body = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
            self._db.execute(
                "INSERT OR IGNORE INTO events(table_id, seq, board, ts, type, body) VALUES (?,?,?,?,?,?)",
                (table, seq, board, ts if ts is not None else event.get("ts") or time.time(),
                 str(event.get("type")), body))
            if seq >= self._next.get(table, 1):
                self._next[table] = seq + 1
            return seq

    def _board_from_db(self, table: str) -> str | None:
        row = self._db.execute(
            "SELECT body FROM events WHERE table_id=? AND type='board' ORDER BY seq DESC LIMIT 1",
            (table,)).fetchone()
        b = json.loads(row[0]).get("board") if row else None
        self._board[table] = str(b) if b is not None else None
        return self._board[table]

    def mark_published(self, table: str, seq: int) -> None:
        with self._lock:
            self._db.execute("UPDATE events SET published=1 WHERE table_id=? AND seq=?", (table, seq))

    def log_id(self, table: str) -> str:
        """This store's own name for the table's event log, minted once.

        Why: a table node whose store is lost (a replaced edge computer, a
        wiped disk) numbers its events from 1 again; the log id on every bus
        message lets a station tell that new log from a resend of the old
        one, instead of dropping it as duplicates."""
        with self._lock:
            logs = self.log_segments(table)
            if logs:
                return logs[0][0]
            log = uuid.uuid4().hex[:12]
            self.add_log_segment(table, log, 0)
            return log

    def add_log_segment(self, table: str, log: str, base: int, lost: int = 0) -> None:
        """A station's record: events of ``log`` are stored at ``base`` + its
        own numbers; ``lost``: events the log before it never delivered."""
        with self._lock:
            self._db.execute("INSERT OR IGNORE INTO logs(table_id, log, base, since, lost) VALUES (?,?,?,?,?)",
                             (table, log, base, time.time(), lost))

    def log_segments(self, table: str) -> list[tuple[str, int, int]]:
        """(log, base, lost) of the table's event logs, oldest first."""
        with self._lock:
            return [(r[0], r[1], r[2]) for r in self._db.execute(
                "SELECT log, base, lost FROM logs WHERE table_id=? ORDER BY base, since", (table,))]

    def record_ruling(self, table: str, finding_id: str, ruling: dict[str, Any]) -> None:
        """Keep a director's acknowledgement or ruling (who, when, what)."""
        with self._lock:
            self._db.execute("INSERT INTO rulings(table_id, finding, ts, body) VALUES (?,?,?,?)",
                             (table, finding_id, time.time(), json.dumps(ruling)))

    # -- reading -------------------------------------------------------------
    def last_seq(self, table: str) -> int:
        with self._lock:
            if table in self._next:
                return self._next[table] - 1
            row = self._db.execute("SELECT MAX(seq) FROM events WHERE table_id=?", (table,)).fetchone()
            last = row[0] or 0
            self._next[table] = last + 1
            return last

    def last_of_type(self, table: str, type: str) -> int | None:
        """The sequence number of the table's last event of ``type`` (None: none)."""
        with self._lock:
            row = self._db.execute("SELECT MAX(seq) FROM events WHERE table_id=? AND type=?",
                                   (table, type)).fetchone()
        return row[0] if row else None

    def events(self, table: str, after: int = 0) -> Iterator[StoredEvent]:
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, board, ts, body FROM events WHERE table_id=? AND seq>? ORDER BY seq",
                (table, after)).fetchall()
        for seq, board, ts, body in rows:
            yield StoredEvent(table, seq, board, ts, json.loads(body))

    def unpublished(self, table: str) -> list[StoredEvent]:
        """The outbox: events the broker has not acknowledged yet, in order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, board, ts, body FROM events WHERE table_id=? AND published=0 ORDER BY seq",
                (table,)).fetchall()
        return [StoredEvent(table, s, b, t, json.loads(body)) for s, b, t, body in rows]

    def tables(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT DISTINCT table_id FROM events ORDER BY table_id")]

    def rulings(self, table: str) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute("SELECT finding, ts, body FROM rulings WHERE table_id=? ORDER BY id",
                                    (table,)).fetchall()
        return [{"finding": f, "ts": t, **json.loads(b)} for f, t, b in rows]

    def close(self) -> None:
        with self._lock:
            self._db.close()


def to_item(event: dict[str, Any], index: int) -> Event | Finding:
    """Parse a stored event dict; a bad one becomes a ``bad_event`` finding.

    Why here: the node judges each event as it stores it, and a store read
    back later (a restart, ``tablecam replay`` of a store) must judge it the
    same way, bad events included.
    """
    try:
        return parse_event(event, index)
    except ValueError as e:
        return bad_event(f"Event {index} was not understood: {e}; skipped.", index,
                         line=json.dumps(event)[:200])


STORE_SUFFIXES = (".sqlite", ".sqlite3", ".db")
"""File names a table node's store goes by (``[store] path`` in a table config)."""


def read_store(path: str) -> dict[str, Iterator[Any]]:
    """Each table's events in a store, as an event log reader gives them.

    Why: ``tablecam run`` leaves its events in a store, and a director wants
    to replay or export that table like any log. The store is opened
    read-only, so reading one that a node is still writing changes nothing;
    a stored event the engines cannot read becomes a ``bad_event`` finding
    at its place (``event`` = sequence number - 1, as the node judged it).
    Raises ``OSError`` for a missing file and ``ValueError`` for a file
    that is not a tablecam store.
    """
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no such file: {path}")
    uri = f"file:{urllib.parse.quote(os.path.abspath(path))}?mode=ro"
    try:
        db = sqlite3.connect(uri, uri=True)
        try:
            tables = [r[0] for r in db.execute("SELECT DISTINCT table_id FROM events ORDER BY table_id")]
        finally:
            db.close()
    except sqlite3.DatabaseError as e:
        raise ValueError(f"not a tablecam event store ({e})") from None

    def items(table: str) -> Iterator[Any]:
        # a connection of its own, opened where it is read (a replay reads each table in its own thread)
        conn = sqlite3.connect(uri, uri=True)
        try:
            for seq, body in conn.execute("SELECT seq, body FROM events WHERE table_id=? ORDER BY seq", (table,)):
                try:
                    event = json.loads(body)
                except ValueError:
                    event = body
                yield to_item(event, seq - 1)
        finally:
            conn.close()

    return {t: items(t) for t in tables}
