"""The two WebSockets: the director's live feed (``/api/ws``) and the public broadcast (``/ws/broadcast``)."""

from __future__ import annotations

import json
import time

from fastapi import APIRouter, WebSocket
from fastapi.responses import JSONResponse

from ..fanout import MAX_PUBLIC_SOCKETS, Client, serve_client
from ..security import check_token
from .deps import station
from .middleware import too_many_guesses

router = APIRouter()


@router.websocket("/ws/broadcast")
async def ws_public(ws: WebSocket) -> None:
    st = station(ws)
    fan, view = st.fanout, st.view
    client = ws.client.host if ws.client else "?"
    if not st.public_limiter.allow(client, time.monotonic()) or len(fan.public) >= MAX_PUBLIC_SOCKETS:
        await ws.close(code=1013)  # try again later
        return
    await ws.accept()
    c = Client(ws, director=False)
    fan.public.add(c)
    view.advance()
    c.put(json.dumps({"type": "hello", "delay": st.delay.describe(), "tables": view.states()}))
    await serve_client(c, fan.public)


@router.websocket("/api/ws")
async def ws_director(ws: WebSocket) -> None:
    st = station(ws)
    if not st.insecure_demo:
        header, query = ws.headers.get("authorization"), ws.query_params.get("token")
        client = ws.client.host if ws.client else "?"
        wait = st.auth_failures.locked(client, time.monotonic()) if header or query else 0.0
        if not wait and not check_token(header, query, st.token):
            if header or query:   # a wrong token is a guess, by header or ?token= alike
                wait = st.auth_failures.failed(client, time.monotonic())
            if not wait:
                await ws.send_denial_response(JSONResponse({"detail": "director token required"}, status_code=401))
                return
        if wait:
            await ws.send_denial_response(too_many_guesses(wait))
            return
    await ws.accept()
    c = Client(ws, director=True)
    st.fanout.directors.add(c)
    c.put(json.dumps({"type": "tables", "now": time.time(), "tables": st.hub.summaries()}, default=str))
    await serve_client(c, st.fanout.directors, hub=st.hub)
