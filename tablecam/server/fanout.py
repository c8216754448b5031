"""Live updates to the dashboards and broadcast pages over WebSockets.

The hub calls :class:`Fanout` for every event, finding and alert, from
whichever thread ingested it. Alerts and findings are pushed to every
director socket at once (the < 100 ms promise); table summaries and table
snapshots are coalesced and pushed a few times a second, so 200 busy tables
cost the browsers a handful of messages, not thousands.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
from typing import Any

from fastapi import WebSocket, WebSocketDisconnect

from .broadcast import BroadcastView
from .hub import TABLE_ID, TableHub

PUSH_INTERVAL = 0.5
FULL_REFRESH = 10.0
"""Seconds between coalesced summary/snapshot pushes (alerts never wait for it)."""
BROADCAST_INTERVAL = 1.0
CLIENT_QUEUE = 2000
MAX_PUBLIC_SOCKETS = 2000
"""Spectators' broadcast sockets at once; more are asked to come back later (1013)."""


class Client:
    """One connected WebSocket and its outgoing queue.

    Alerts and findings jump the queue (priority 0) ahead of coalesced grid
    refreshes and table snapshots (priority 1): a director must never wait
    for a 10 KB tables update to learn about a revoke.
    """

    def __init__(self, ws: WebSocket, director: bool) -> None:
        self.ws = ws
        self.director = director
        self.queue: asyncio.PriorityQueue[tuple[int, int, str | None]] = asyncio.PriorityQueue(CLIENT_QUEUE)
        self.seq = itertools.count()
        self.tables: set[str] = set()   # table views this client has open
        self.all_events = False         # wants every event (bench / wall display)
        self.dropped = False

    def put(self, text: str, urgent: bool = False) -> None:
        if self.dropped:
            return
        try:
            self.queue.put_nowait((0 if urgent else 1, next(self.seq), text))
        except asyncio.QueueFull:  # a stuck client is disconnected, never waited for
            self.dropped = True
            while not self.queue.empty():  # drop the backlog; the sender wakes to the close marker
                self.queue.get_nowait()
            self.queue.put_nowait((-1, 0, None))


class Fanout:
    """Turns hub messages into WebSocket messages, on the event loop thread."""

    def __init__(self, hub: TableHub, view: BroadcastView) -> None:
        self.hub = hub
        self.view = view
        self.directors: set[Client] = set()
        self.public: set[Client] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.loop_thread: int | None = None
        self.dirty: set[str] = set()
        self.public_versions: dict[str, int] = {}   # each delayed fold's version last pushed
        self.unsubscribe = hub.subscribe(self.on_hub)

    def on_hub(self, msg: dict[str, Any]) -> None:
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        if threading.get_ident() == self.loop_thread:
            self.dispatch(msg)
        else:
            loop.call_soon_threadsafe(self.dispatch, msg)

    def dispatch(self, msg: dict[str, Any]) -> None:
        t = msg.get("type")
        if t == "alert":
            msg = {**msg, "sent_at": time.time()}
            text = json.dumps(msg, default=str)
            for c in self.directors:
                c.put(text, urgent=True)
            # open-alert counts live in the table summary: refresh the tile too
            self.dirty.add(msg["alert"]["table"])
        elif t == "finding":
            # every finding (results included) to the table views that show it; alerts go to all
            self.dirty.add(msg["table"])
            text = None
            for c in self.directors:
                if c.all_events or msg["table"] in c.tables:
                    text = text or json.dumps({**msg, "sent_at": time.time()}, default=str)
                    c.put(text, urgent=True)
        elif t == "event":
            self.dirty.add(msg["table"])
            text = None
            for c in self.directors:
                if c.all_events or msg["table"] in c.tables:
                    text = text or json.dumps(msg, default=str)
                    c.put(text)
        elif t in ("health", "table"):
            self.dirty.add(msg["table"])

    async def pusher(self) -> None:
        """Coalesced pushes: table summaries to everyone, snapshots to open table views.

        Every ``FULL_REFRESH`` seconds all tables are sent, so health derived
        from silence (a shoe that stopped talking) reaches the grid too.
        """
        last_full = time.monotonic()
        while True:
            await asyncio.sleep(PUSH_INTERVAL)
            try:
                if not self.directors:
                    self.dirty.clear()
                    continue
                if time.monotonic() - last_full > FULL_REFRESH:
                    last_full = time.monotonic()
                    with self.hub.lock:
                        self.dirty |= set(self.hub.tables)
                if not self.dirty:
                    continue
                self._push_dirty()
            except Exception:  # a bad snapshot must not stop the live grid; try again next tick
                continue

    def _push_dirty(self) -> None:
        dirty, self.dirty = self.dirty, set()
        now = time.time()
        with self.hub.lock:
            sums = [self.hub.tables[t].summary(now, self.hub.silent_after) for t in dirty
                    if t in self.hub.tables]
            wanted = set().union(*(c.tables for c in self.directors))
            snaps = {t: json.dumps({"type": "snapshot", "table": t, "state": self.hub.tables[t].snapshot()},
                                   default=str)
                     for t in dirty & wanted if t in self.hub.tables}
        text = json.dumps({"type": "tables", "now": now, "tables": sums}, default=str)
        for c in list(self.directors):
            c.put(text)
            for t in c.tables & snaps.keys():
                c.put(snaps[t])

    def moved_tables(self) -> list[str]:
        """Broadcast tables whose delayed fold moved since the last push.

        Read from each fold's version, not from what :meth:`BroadcastView.advance`
        returns: a ``GET /public/tables`` or a new ``/ws/broadcast`` also advances
        the view, and the sockets already open must still hear of what it released.
        """
        out = []
        for tid, d in list(self.view.delayed.items()):
            if self.public_versions.get(tid) != d.version:
                self.public_versions[tid] = d.version
                out.append(tid)
        return out

    async def broadcaster(self) -> None:
        """Advance the delayed public folds and push the tables that moved."""
        while True:
            try:
                self.view.advance()
                changed = self.moved_tables()
                if changed and self.public:
                    for tid in changed:
                        state = self.view.state(tid)
                        if state is None:
                            continue
                        text = json.dumps({"type": "table", "state": state})
                        for c in self.public:
                            c.put(text)
            except Exception:  # never let the public side die; it retries next tick
                pass
            await asyncio.sleep(BROADCAST_INTERVAL)


async def send_queue(client: Client) -> None:
    while True:
        _, _, text = await client.queue.get()
        if text is None:
            await client.ws.close(code=1013)  # "try again later": the client was too slow
            return
        await client.ws.send_text(text)


async def serve_client(c: Client, pool: set[Client], hub: TableHub | None = None) -> None:
    """Run a WebSocket: send its queue; read subscriptions (director) or ignore input (public)."""
    sender = asyncio.create_task(send_queue(c))
    try:
        while True:
            try:
                text = await c.ws.receive_text()
            except (WebSocketDisconnect, RuntimeError):
                break
            if hub is None or len(text) > 2000:
                continue  # the public socket is read-only
            try:
                msg = json.loads(text)
            except json.JSONDecodeError:
                continue
            if not isinstance(msg, dict):
                continue
            tid = msg.get("table")
            if msg.get("op") == "watch" and isinstance(tid, str) and TABLE_ID.match(tid):
                c.tables = {tid}
                with hub.lock:
                    t = hub.table(tid)
                    if t is not None:
                        c.put(json.dumps({"type": "snapshot", "table": tid, "state": t.snapshot()}, default=str))
            elif msg.get("op") == "unwatch":
                c.tables = set()
            elif msg.get("op") == "all_events":
                c.all_events = bool(msg.get("on", True))
    finally:
        pool.discard(c)
        sender.cancel()
