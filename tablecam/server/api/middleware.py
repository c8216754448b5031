"""The guard every HTTP request passes first: body size, token, rate limits, headers.

Every ``/api/`` path (even an unknown one, or a wrong method) answers 401
without the token, so nothing about the director API is revealed to an
unauthenticated caller; public paths are rate-limited per client address.
"""

from __future__ import annotations

import time
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse, Response

from ..security import check_token
from .deps import TOKEN_REQUIRED, station

MAX_BODY = 8 * 1024 * 1024

SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": (
        "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data: blob:; "
        "style-src 'self'; script-src 'self'; frame-ancestors 'none'"),
}


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
    elif path.startswith("/api/") and not st.insecure_demo and not check_token(
            request.headers.get("authorization"), None, st.token):
        if request.headers.get("authorization") and not st.auth_failures.allow(client, time.monotonic()):
            # a client *guessing* tokens is slowed down; one without credentials just gets 401
            return JSONResponse({"detail": "too many failed logins; wait a minute"}, status_code=429,
                                headers={"Retry-After": "60"})
        if path != "/api/ws":  # the WebSocket does its own check (header or ?token=)
            return JSONResponse({"detail": TOKEN_REQUIRED}, status_code=401,
                                headers={"WWW-Authenticate": "Bearer"})
    response: Response = await call_next(request)
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    if path.startswith("/api/") or path.startswith("/public/"):
        response.headers.setdefault("Cache-Control", "no-store")
    return response
