"""The guard every HTTP request passes first: body size, token, rate limits, headers.

Every ``/api/`` path (even an unknown one, or a wrong method) answers 401
without the token, so nothing about the director API is revealed to an
unauthenticated caller; public paths are rate-limited per client address.
"""

from __future__ import annotations

import math
import re
import time
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse, Response

from ..security import check_token, operator_table
from .deps import TOKEN_REQUIRED, station
from .errors import MAX_BODY


SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": (
        "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data: blob:; "
        "style-src 'self'; script-src 'self'; frame-ancestors 'none'"),
}


def too_many_guesses(wait: float) -> JSONResponse:
    """429 for a client locked out after too many wrong tokens (:class:`~..security.GuessGuard`)."""
    seconds = max(1, math.ceil(wait))
    return JSONResponse({"detail": f"too many wrong director tokens from this address; wait {seconds} s"},
                        status_code=429, headers={"Retry-After": str(seconds)})


def _token_required() -> JSONResponse:
    return JSONResponse({"detail": TOKEN_REQUIRED}, status_code=401, headers={"WWW-Authenticate": "Bearer"})


def operator_may(table: str, method: str, path: str) -> bool:
    """A table's operator reads its own table and posts events to it, nothing else.

    >>> operator_may("t1", "POST", "/api/tables/t1/events"), operator_may("t1", "GET", "/api/tables/t1")
    (True, True)
    >>> operator_may("t1", "GET", "/api/tables/t2"), operator_may("t1", "GET", "/api/alerts")
    (False, False)
    """
    m = OPERATOR_PATH.match(path)
    if m is None or m.group(1) != table:
        return False
    return method in ("GET", "HEAD") or (method == "POST" and m.group(2) == "/events")


OPERATOR_PATH = re.compile(r"^/api/tables/([^/]+)(/events)?$")


async def guard(request: Request, call_next: Any) -> Response:
    """Refuse what must never reach a route; add the security headers to what does."""
    st = station(request)
    path = request.url.path
    client = request.client.host if request.client else "?"
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        return JSONResponse({"detail": f"request body larger than {MAX_BODY} bytes"}, status_code=413)
    if not path.startswith("/api/") and path != "/healthz":
        if not st.public_limiter.allow(client, time.monotonic()):
            return JSONResponse({"detail": "too many requests; slow down"}, status_code=429,
                                headers={"Retry-After": "5"})
    elif path.startswith("/api/") and not st.insecure_demo:
        given = request.headers.get("authorization")
        if given:
            # a client *guessing* tokens is locked out, right token or not; one without credentials gets 401
            wait = st.auth_failures.locked(client, time.monotonic())
            if not wait and not check_token(given, None, st.token):
                op = operator_table(given, None, st.operator_tokens) if st.operator_tokens else None
                if op is not None:  # a table's operator: its own table only (403 elsewhere)
                    if not operator_may(op, request.method, path):
                        return JSONResponse({"detail": f"the operator token of table {op} opens that table only"},
                                            status_code=403)
                    request.state.operator_table = op
                else:
                    wait = st.auth_failures.failed(client, time.monotonic())
                    if not wait:
                        return _token_required()
            if wait:
                return too_many_guesses(wait)
        else:
            return _token_required()
    response: Response = await call_next(request)
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    if path.startswith("/api/") or path.startswith("/public/"):
        response.headers.setdefault("Cache-Control", "no-store")
    return response
