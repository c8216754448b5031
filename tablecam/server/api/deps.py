"""What every router reads: the :class:`Station` and the director check.

The routers are module-level ``APIRouter`` objects; the station they serve
hangs on ``app.state.station``, so one process can run several apps (tests,
benchmarks) without globals.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from fastapi import Depends, HTTPException, Path, Request
from fastapi.security import HTTPBearer
from starlette.requests import HTTPConnection

from ..broadcast import BroadcastDelay, BroadcastView
from ..fanout import Fanout
from ..hub import TABLE_ID, TableHub, TableState
from ..security import GuessGuard, RateLimiter, check_token


@dataclasses.dataclass
class Station:
    """The running director station as the routers see it."""

    hub: TableHub
    view: BroadcastView
    fanout: Fanout
    delay: BroadcastDelay
    token: str | None
    insecure_demo: bool
    public_limiter: RateLimiter
    auth_failures: GuessGuard
    operator_tokens: dict[str, str] = dataclasses.field(default_factory=dict)
    """table id -> that table's operator token (``TABLECAM_OPERATOR_TOKENS``)."""
    forward: Callable[[str, list[dict[str, Any]]], bool] | None = None
    """Hands events for a table to its table node (bus ``control`` topic); False when no node runs it."""


def station(conn: HTTPConnection) -> Station:
    """The station of the app serving this request or WebSocket."""
    return conn.app.state.station  # type: ignore[no-any-return]


bearer = HTTPBearer(auto_error=False, description="the director token (TABLECAM_DIRECTOR_TOKEN)")

TOKEN_REQUIRED = "director token required: send 'Authorization: Bearer <token>'"


def director(request: Request, _cred: Any = Depends(bearer)) -> None:
    """Route dependency: the request carries the director token (or the station is a demo)."""
    st = station(request)
    if st.insecure_demo or operator_of(request) is not None:  # the guard let a table's operator through
        return
    if not check_token(request.headers.get("authorization"), None, st.token):
        raise HTTPException(401, TOKEN_REQUIRED, headers={"WWW-Authenticate": "Bearer"})


DIRECTOR = [Depends(director)]

TableIdPath: Any = Path(pattern=TABLE_ID.pattern, max_length=64,
                        description="the table id: letters, digits, '.', '_' or '-', at most 64")


def operator_of(conn: HTTPConnection) -> str | None:
    """The table whose operator made this request (set by the guard, only on the paths that
    operator may use); None for the director."""
    return getattr(conn.state, "operator_table", None)


def known_table(hub: TableHub, table_id: str) -> TableState:
    """The table, or 404 (an id that could never exist is a 404 too)."""
    t = hub.table(table_id) if TABLE_ID.match(table_id) else None
    if t is None:
        raise HTTPException(404, f"no table {table_id!r}")
    return t


def valid_table(table_id: str) -> str:
    """422 unless ``table_id`` is one the hub could create."""
    if not TABLE_ID.match(table_id):
        raise HTTPException(422, "table id: letters, digits, '.', '_' or '-', at most 64")
    return table_id
