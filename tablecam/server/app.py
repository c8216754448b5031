"""The director station's web app: dashboard, alert queue, broadcast and archive.

``create_app(hub, token=...)`` returns a FastAPI app around a
:class:`~tablecam.server.hub.TableHub`. Everything under ``/api/`` (and the
director WebSocket ``/api/ws``) needs ``Authorization: Bearer <token>``;
``/healthz``, ``/broadcast``, ``/public/...`` and the static page assets are
public, read-only and rate-limited, and the public data come only from the
delayed fold (:mod:`tablecam.server.broadcast`).

The routes live in :mod:`tablecam.server.api`, one router per concern; live
pushes in :mod:`tablecam.server.fanout`. This module only puts them together.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Any, AsyncIterator

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.staticfiles import StaticFiles

from .api import alerts, archive, operator, public, tables, websockets
from .api.deps import Station
from .api.errors import MAX_BODY, LimitBody, validation_failed
from .api.middleware import guard
from .api.pages import STATIC
from .broadcast import BroadcastDelay, BroadcastView
from .fanout import CLIENT_QUEUE, Client, Fanout
from .gcfreeze import keep_heap_frozen
from .hub import TABLE_ID, TableHub
from .security import GuessGuard, RateLimiter, token_problem

__all__ = ["create_app", "Client", "CLIENT_QUEUE", "MAX_BODY"]

ROUTERS = (public.router, operator.router, tables.router, alerts.router, archive.router, websockets.router)


def create_app(hub: TableHub | None = None, token: str | None = None, broadcast_delay: Any = None,
               insecure_demo: bool = False, broadcast_tables: list[str] | None = None,
               public_rate_per_minute: float = 240.0, public_burst: int = 60,
               title: str = "tablecam director station", operator_tokens: dict[str, str] | None = None,
               forward: Any = None) -> FastAPI:
    """Build the app. Without a good ``token`` it refuses (ValueError) unless ``insecure_demo``.

    ``broadcast_delay``: :class:`BroadcastDelay`, ``{"boards", "minutes"}`` or a number of boards
    (default: one board, i.e. a board is public once its table has started the next one).
    ``operator_tokens``: table id -> that table's operator token (its own table only).
    ``forward(table, events) -> bool``: hands events entered here to the table's node (see
    :mod:`tablecam.server.services.delivery`); may also be set later on ``app.state.station``.
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
    st = Station(hub=hub, view=view, fanout=fan, delay=delay, token=token, insecure_demo=insecure_demo,
                 public_limiter=RateLimiter(public_rate_per_minute, public_burst),
                 auth_failures=GuessGuard(),
                 operator_tokens=_operator_tokens(operator_tokens, token), forward=forward)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        fan.loop = asyncio.get_running_loop()
        fan.loop_thread = threading.get_ident()
        tasks = [asyncio.create_task(fan.pusher()), asyncio.create_task(fan.broadcaster()),
                 asyncio.create_task(keep_heap_frozen())]   # no multi-second GC pauses (gcfreeze.py)
        try:
            yield
        finally:
            fan.loop = None
            for t in tasks:
                t.cancel()

    app = FastAPI(title=title, version="1", docs_url=None, redoc_url=None, lifespan=lifespan,
                  description="Director dashboard API (bearer token) and the public, delayed broadcast.")
    app.state.station = st
    app.state.hub = hub
    app.state.view = view
    app.state.fanout = fan
    app.state.insecure_demo = insecure_demo
    # LimitBody inside the guard: its 413 is raised where the route reads the body, not in the
    # guard's own reading task (which would turn it into an exception group, a 500)
    app.add_middleware(LimitBody)
    app.middleware("http")(guard)
    app.add_exception_handler(RequestValidationError, validation_failed)
    for router in ROUTERS:
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    return app


def _operator_tokens(tokens: dict[str, str] | None, director: str | None) -> dict[str, str]:
    """Check the tables' operator tokens as strictly as the director's (ValueError names the table)."""
    out = dict(tokens or {})
    for table, secret in out.items():
        if not TABLE_ID.match(table):
            raise ValueError(f"operator token for {table!r}: not a table id")
        problem = token_problem(secret)
        if problem:
            raise ValueError(f"operator token of table {table}: {problem.replace('director', 'operator')}")
        if director and secret == director:
            raise ValueError(f"operator token of table {table} is the director token")
    if len(set(out.values())) != len(out):
        raise ValueError("two tables have the same operator token")
    return out
