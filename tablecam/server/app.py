"""The director station's web app: dashboard, alert queue, broadcast and archive.

``create_app(hub, token=...)`` returns a FastAPI app around a
:class:`~tablecam.server.hub.TableHub`. Everything under ``/api/`` (and the
director WebSocket ``/api/ws``) needs ``Authorization: Bearer <token>``;
``/healthz``, ``/broadcast``, ``/public/...`` and the static page assets are
public, read-only and rate-limited, and the public data come only from the
delayed fold (:mod:`tablecam.server.broadcast`).

Live updates: the hub calls :class:`Fanout` for every event, finding and
alert, from whichever thread ingested it. Alerts and findings are pushed to
every director socket at once (the < 100 ms promise); table summaries and
table snapshots are coalesced and pushed a few times a second, so 200 busy
tables cost the browsers a handful of messages, not thousands.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import itertools
import json
import threading
import time
from importlib import resources
from typing import Any, AsyncIterator, Literal

from fastapi import Depends, FastAPI, HTTPException, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.security import HTTPBearer
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from .broadcast import BroadcastDelay, BroadcastView
from .hub import TABLE_ID, TableHub
from .security import RateLimiter, check_token, token_problem

PUSH_INTERVAL = 0.5
FULL_REFRESH = 10.0
"""Seconds between coalesced summary/snapshot pushes (alerts never wait for it)."""
BROADCAST_INTERVAL = 1.0
MAX_BODY = 8 * 1024 * 1024
CLIENT_QUEUE = 2000
MAX_PUBLIC_SOCKETS = 2000
"""Spectators' broadcast sockets at once; more are asked to come back later (1013)."""
ARCHIVE_FORMATS = ("pbn", "lin", "jsonl")
MEDIA = {"pbn": "application/x-pbn", "lin": "text/plain", "jsonl": "application/x-ndjson"}

TableId = Query(None, pattern=TABLE_ID.pattern)


# -- request bodies ------------------------------------------------------------
class AckIn(BaseModel):
    """Acknowledge an alert: the director has seen it (and who that was)."""

    model_config = ConfigDict(extra="forbid")
    by: str = Field(min_length=1, max_length=80, description="director's name or initials")


class RulingIn(BaseModel):
    """A director's ruling on an alert: the option chosen and the reasons, in words."""

    model_config = ConfigDict(extra="forbid")
    by: str = Field(min_length=1, max_length=80)
    text: str = Field(min_length=1, max_length=4000, description="the ruling as the director wrote it")
    option: str | None = Field(None, max_length=300, description="one of the alert's options, or another")


class Detection(BaseModel):
    """One recognised card, as ``tablecam detect --json`` writes it."""

    model_config = ConfigDict(extra="ignore")
    card: str = Field(min_length=1, max_length=8)
    conf: float | None = Field(None, ge=0, le=1)
    box: list[float] = Field(min_length=4, max_length=4)


class FrameIn(BaseModel):
    """A camera frame (base64 JPEG or PNG) and the cards recognised on it."""

    model_config = ConfigDict(extra="forbid")
    image: str = Field(min_length=8, max_length=6_000_000, description="base64 of a JPEG or PNG file")
    cards: list[Detection] = Field(default_factory=list, max_length=200)
    width: int | None = Field(None, ge=1, le=20000)
    height: int | None = Field(None, ge=1, le=20000)


class HealthIn(BaseModel):
    """A shoe or camera node reporting how it is."""

    model_config = ConfigDict(extra="forbid")
    source: Literal["shoe", "camera"]
    status: Literal["ok", "degraded", "down", "unknown"]
    detail: str | None = Field(None, max_length=200)


INGEST_BODY = {
    "requestBody": {
        "required": True,
        "description": "Events to fold into the table: a JSON list (or one object) with "
                       "`Content-Type: application/json`, or JSON Lines (`application/x-ndjson` "
                       "or `text/plain`). Unreadable items become `bad_event` findings.",
        "content": {
            "application/json": {"schema": {"oneOf": [
                {"type": "array", "items": {"type": "object"}, "maxItems": 100000},
                {"type": "object"}]}},
            "application/x-ndjson": {"schema": {"type": "string"}},
            "text/plain": {"schema": {"type": "string"}},
        },
    }
}


# -- fan-out to WebSockets ------------------------------------------------------
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

    async def broadcaster(self) -> None:
        """Advance the delayed public folds and push the tables that moved."""
        while True:
            try:
                changed = self.view.advance()
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


async def _sender(client: Client) -> None:
    while True:
        _, _, text = await client.queue.get()
        if text is None:
            await client.ws.close(code=1013)  # "try again later": the client was too slow
            return
        await client.ws.send_text(text)


# -- the app ---------------------------------------------------------------------
def create_app(hub: TableHub | None = None, token: str | None = None, broadcast_delay: Any = None,
               insecure_demo: bool = False, broadcast_tables: list[str] | None = None,
               public_rate_per_minute: float = 240.0, public_burst: int = 60,
               title: str = "tablecam director station") -> FastAPI:
    """Build the app. Without a good ``token`` it refuses (ValueError) unless ``insecure_demo``.

    ``broadcast_delay``: :class:`BroadcastDelay`, ``{"boards", "minutes"}`` or a number of boards
    (default: one board, i.e. a board is public once its table has started the next one).
    """
    hub = hub or TableHub()
    if not insecure_demo:
        problem = token_problem(token)
        if problem:
            raise ValueError(f"refusing to start: {problem} (set TABLECAM_DIRECTOR_TOKEN, "
                             "or use --insecure-demo for a demo on a private machine)")
    delay = BroadcastDelay.coerce(broadcast_delay)
    view = BroadcastView(hub, delay, broadcast_tables)
    fan = Fanout(hub, view)
    limiter = RateLimiter(public_rate_per_minute, public_burst)
    auth_failures = RateLimiter(per_minute=60, burst=60)  # wrong tokens only: slows guessing
    static = resources.files(__package__).joinpath("static")

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        fan.loop = asyncio.get_running_loop()
        fan.loop_thread = threading.get_ident()
        tasks = [asyncio.create_task(fan.pusher()), asyncio.create_task(fan.broadcaster())]
        try:
            yield
        finally:
            fan.loop = None
            for t in tasks:
                t.cancel()

    app = FastAPI(title=title, version="1", docs_url=None, redoc_url=None, lifespan=lifespan,
                  description="Director dashboard API (bearer token) and the public, delayed broadcast.")
    app.state.hub = hub
    app.state.view = view
    app.state.fanout = fan
    app.state.insecure_demo = insecure_demo

    bearer = HTTPBearer(auto_error=False, description="the director token (TABLECAM_DIRECTOR_TOKEN)")

    def director(request: Request, _cred: Any = Depends(bearer)) -> None:
        if insecure_demo:
            return
        if not check_token(request.headers.get("authorization"), None, token):
            raise HTTPException(401, "director token required: send 'Authorization: Bearer <token>'",
                                headers={"WWW-Authenticate": "Bearer"})


    @app.middleware("http")
    async def guard(request: Request, call_next: Any) -> Response:
        path = request.url.path
        client = request.client.host if request.client else "?"
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
            return JSONResponse({"detail": f"request body larger than {MAX_BODY} bytes"}, status_code=413)
        if not path.startswith("/api/") and path != "/healthz":
            if not limiter.allow(client, time.monotonic()):
                return JSONResponse({"detail": "too many requests; slow down"}, status_code=429,
                                    headers={"Retry-After": "5"})
        elif path.startswith("/api/") and not insecure_demo and not check_token(
                request.headers.get("authorization"), None, token):
            # Every /api/ path (even an unknown one, or a wrong method) answers 401 without the
            # token: nothing about the director API is revealed to an unauthenticated caller.
            if request.headers.get("authorization") and not auth_failures.allow(client, time.monotonic()):
                # a client *guessing* tokens is slowed down; one without credentials just gets 401
                return JSONResponse({"detail": "too many failed logins; wait a minute"}, status_code=429,
                                    headers={"Retry-After": "60"})
            if path != "/api/ws":  # the WebSocket does its own check (header or ?token=)
                return JSONResponse({"detail": "director token required: send 'Authorization: Bearer <token>'"},
                                    status_code=401, headers={"WWW-Authenticate": "Bearer"})
        response: Response = await call_next(request)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data: blob:; "
            "style-src 'self'; script-src 'self'; frame-ancestors 'none'")
        if path.startswith("/api/") or path.startswith("/public/"):
            response.headers.setdefault("Cache-Control", "no-store")
        return response

    # -- public ------------------------------------------------------------------
    @app.get("/healthz", tags=["public"], summary="Liveness (no credentials)")
    def healthz() -> dict[str, Any]:
        return {"ok": True, "mode": "insecure-demo" if insecure_demo else "secure"}

    def page(name: str) -> HTMLResponse:
        return HTMLResponse(static.joinpath(name).read_text("utf-8"))

    @app.get("/", include_in_schema=False)
    def dashboard_page() -> HTMLResponse:
        return page("index.html")

    @app.get("/broadcast", tags=["public"], summary="Public broadcast page", response_class=HTMLResponse)
    def broadcast_page() -> HTMLResponse:
        return page("broadcast.html")

    @app.get("/public/tables", tags=["public"], summary="Broadcast tables, delayed")
    def public_tables() -> dict[str, Any]:
        view.advance()
        return {"delay": delay.describe(), "tables": view.states()}

    @app.get("/public/tables/{table_id}", tags=["public"], summary="One broadcast table, delayed")
    def public_table(table_id: str) -> dict[str, Any]:
        view.advance()
        s = view.state(table_id) if TABLE_ID.match(table_id) else None
        if s is None:
            raise HTTPException(404, "no such broadcast table")
        return s

    @app.websocket("/ws/broadcast")
    async def ws_public(ws: WebSocket) -> None:
        client = ws.client.host if ws.client else "?"
        if not limiter.allow(client, time.monotonic()) or len(fan.public) >= MAX_PUBLIC_SOCKETS:
            await ws.close(code=1013)  # try again later
            return
        await ws.accept()
        c = Client(ws, director=False)
        fan.public.add(c)
        view.advance()
        c.put(json.dumps({"type": "hello", "delay": delay.describe(), "tables": view.states()}))
        await _serve_client(c, fan.public)

    # -- director ----------------------------------------------------------------
    D = [Depends(director)]

    @app.get("/api/whoami", tags=["director"], dependencies=D, summary="Check the director token")
    def whoami() -> dict[str, Any]:
        return {"director": True, "insecure_demo": insecure_demo, "broadcast_delay": delay.describe()}

    @app.get("/api/tables", tags=["director"], dependencies=D, summary="All tables with their state")
    def tables() -> dict[str, Any]:
        return {"now": time.time(), "tables": hub.summaries()}

    def _table(table_id: str) -> Any:
        t = hub.table(table_id) if TABLE_ID.match(table_id) else None
        if t is None:
            raise HTTPException(404, f"no table {table_id!r}")
        return t

    @app.get("/api/tables/{table_id}", tags=["director"], dependencies=D,
             summary="One table: summary, state of the board in progress, findings")
    def table(table_id: str) -> dict[str, Any]:
        with hub.lock:
            t = _table(table_id)
            return {"summary": t.summary(None, hub.silent_after), "state": t.snapshot(),
                    "findings": t.findings[-200:], "alerts": hub.alerts(table=table_id)}

    @app.get("/api/tables/{table_id}/events", tags=["director"], dependencies=D,
             summary="The table's event log (paged)")
    def table_events(table_id: str, since: int = Query(0, ge=0, le=10**9),
                     limit: int = Query(500, ge=1, le=5000)) -> dict[str, Any]:
        with hub.lock:
            t = _table(table_id)
            return {"table": table_id, "total": len(t.log),
                    "events": [e.to_dict() for e in t.log[since:since + limit]]}

    @app.post("/api/tables/{table_id}/events", tags=["director"], dependencies=D, openapi_extra=INGEST_BODY,
              summary="Fold events into a table (replay a log into the running server)")
    async def ingest(table_id: str, request: Request,
                     close: bool = Query(False, description="finish the board in progress afterwards"),
                     ) -> dict[str, Any]:
        if not TABLE_ID.match(table_id):
            raise HTTPException(422, "table id: letters, digits, '.', '_' or '-', at most 64")
        raw = await request.body()
        if len(raw) > MAX_BODY:
            raise HTTPException(413, f"request body larger than {MAX_BODY} bytes")
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        items: list[Any]
        if ctype == "application/json":
            try:
                body = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as e:
                raise HTTPException(400, f"body is not valid JSON: {getattr(e, 'msg', e)}") from None
            if isinstance(body, dict):
                items = [body]
            elif isinstance(body, list):
                items = body
            else:
                raise HTTPException(422, "expected a JSON object or a list of event objects")
        else:
            # utf-8-sig: a log saved by a Windows editor starts with a byte-order
            # mark, which would make its first line - the board - invalid JSON
            items = raw.decode("utf-8-sig", errors="replace").splitlines()
            items = [ln for ln in items if ln.strip()]

        def work() -> list[dict[str, Any]]:
            out = []
            for it in items:
                out += [f.to_dict() for f in hub.ingest(table_id, it)]
            if close:
                out += [f.to_dict() for f in hub.close_table(table_id)]
            return out

        try:
            found = work() if len(items) <= 200 else await run_in_threadpool(work)
        except OverflowError as e:
            raise HTTPException(429, str(e)) from None
        return {"table": table_id, "received": len(items), "findings": found}

    @app.post("/api/tables/{table_id}/health", tags=["director"], dependencies=D,
              summary="Report shoe or camera health for a table")
    def health(table_id: str, body: HealthIn) -> dict[str, Any]:
        if not TABLE_ID.match(table_id):
            raise HTTPException(422, "invalid table id")
        try:
            hub.set_health(table_id, body.source, body.status, body.detail)
        except OverflowError as e:
            raise HTTPException(429, str(e)) from None
        return {"table": table_id, "source": body.source, "status": body.status}

    @app.post("/api/tables/{table_id}/frames", tags=["director"], dependencies=D,
              summary="A camera frame with its recognised cards (evidence for alerts at that moment)")
    def add_frame(table_id: str, body: FrameIn) -> dict[str, Any]:
        import base64
        import binascii

        if not TABLE_ID.match(table_id):
            raise HTTPException(422, "invalid table id")
        try:
            raw = base64.b64decode(body.image, validate=True)
        except (binascii.Error, ValueError):
            raise HTTPException(422, "image: not valid base64") from None
        if raw[:3] == b"\xff\xd8\xff":
            media = "image/jpeg"
        elif raw[:8] == b"\x89PNG\r\n\x1a\n":
            media = "image/png"
        else:
            raise HTTPException(422, "image: expected a JPEG or PNG file")
        try:
            fid = hub.add_frame(table_id, raw, [d.model_dump() for d in body.cards], media, body.width, body.height)
        except OverflowError as e:
            raise HTTPException(429, str(e)) from None
        return {"table": table_id, "frame": fid}

    @app.get("/api/frames/{frame_id}", tags=["director"], dependencies=D, summary="A kept camera frame (image)",
             response_class=Response)
    def get_frame(frame_id: int) -> Response:
        fr = hub.frame(frame_id)
        if fr is None:
            raise HTTPException(404, f"no frame {frame_id} (frames no alert refers to roll off)")
        return Response(fr.image, media_type=fr.media_type)

    @app.get("/api/alerts", tags=["director"], dependencies=D, summary="The alert queue")
    def alerts(state: Literal["open", "acknowledged", "ruled"] | None = None,
               table: str | None = TableId) -> dict[str, Any]:
        return {"now": time.time(), "alerts": hub.alerts(state, table)}

    def _alert(alert_id: int) -> None:
        if hub.alert(alert_id) is None:
            raise HTTPException(404, f"no alert {alert_id}")

    @app.get("/api/alerts/{alert_id}", tags=["director"], dependencies=D, summary="One alert with evidence")
    def alert(alert_id: int) -> dict[str, Any]:
        a = hub.alert(alert_id)
        if a is None:
            raise HTTPException(404, f"no alert {alert_id}")
        return a

    @app.post("/api/alerts/{alert_id}/acknowledge", tags=["director"], dependencies=D,
              summary="Acknowledge an alert")
    def acknowledge(alert_id: int, body: AckIn) -> dict[str, Any]:
        _alert(alert_id)
        return hub.acknowledge(alert_id, body.by)

    @app.post("/api/alerts/{alert_id}/ruling", tags=["director"], dependencies=D,
              summary="Record the director's ruling")
    def ruling(alert_id: int, body: RulingIn) -> dict[str, Any]:
        _alert(alert_id)
        return hub.rule(alert_id, body.by, body.text, body.option)

    def _export(events: list[Any], fmt: str, name: str) -> Response:
        buf = io.StringIO()
        if fmt == "jsonl":
            from ..events import write_events
            write_events(events, buf)
        else:
            try:
                from ..archive.export import export
            except ImportError:
                raise HTTPException(503, f"the {fmt.upper()} writer is not installed in this build") from None
            try:
                export(events, fmt, buf)
            except Exception as e:  # a writer bug must not look like a server crash
                # e.g. a Vira board has no PBN form: the content, not the server, is at fault
                raise HTTPException(422, f"could not write {fmt.upper()}: {type(e).__name__}: {e}") from None
        return Response(buf.getvalue(), media_type=MEDIA[fmt] + "; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{name}.{fmt}"'})

    @app.get("/api/tables/{table_id}/archive", tags=["archive"], dependencies=D,
             summary="Download a table's session, or one board, as PBN, LIN or JSON Lines")
    def table_archive(table_id: str, format: Literal["pbn", "lin", "jsonl"] = "pbn",
                      board: str | None = Query(None, max_length=20, pattern=r"^[A-Za-z0-9_.-]+$")) -> Response:
        _table(table_id)
        events = hub.events_for(table_id, board)
        if board is not None and not events:
            raise HTTPException(404, f"table {table_id} has no board {board}")
        return _export(events, format, f"{table_id}-board-{board}" if board else table_id)

    @app.get("/api/archive", tags=["archive"], dependencies=D,
             summary="Download the whole session (every table) as PBN, LIN or JSON Lines")
    def session_archive(format: Literal["pbn", "lin", "jsonl"] = "pbn") -> Response:
        with hub.lock:
            ids = list(hub.tables)
        if format == "jsonl":
            lines = []
            for tid in ids:
                for ev in hub.events_for(tid):
                    lines.append(json.dumps({**ev.to_dict(), "table": tid}, ensure_ascii=False))
            return Response("\n".join(lines) + ("\n" if lines else ""), media_type=MEDIA["jsonl"],
                            headers={"Content-Disposition": 'attachment; filename="session.jsonl"'})
        events = [ev for tid in ids for ev in hub.events_for(tid)]
        return _export(events, format, "session")

    @app.websocket("/api/ws")
    async def ws_director(ws: WebSocket) -> None:
        if not insecure_demo and not check_token(ws.headers.get("authorization"),
                                                 ws.query_params.get("token"), token):
            await ws.send_denial_response(JSONResponse({"detail": "director token required"}, status_code=401))
            return
        await ws.accept()
        c = Client(ws, director=True)
        fan.directors.add(c)
        c.put(json.dumps({"type": "tables", "now": time.time(), "tables": hub.summaries()}, default=str))
        await _serve_client(c, fan.directors, hub=hub)

    static_dir = str(static)
    app.mount("/static", StaticFiles(directory=static_dir), name="static")
    return app


async def _serve_client(c: Client, pool: set[Client], hub: TableHub | None = None) -> None:
    """Run a WebSocket: send its queue; read subscriptions (director) or ignore input (public)."""
    sender = asyncio.create_task(_sender(c))
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
