"""The guard every HTTP request passes first: body size, token, rate limits, headers.

Every ``/api/`` path (even an unknown one, or a wrong method) answers 401
without the token, so nothing about the director API is revealed to an
unauthenticated caller; public paths are rate-limited per client address.
"""

from __future__ import annotations

import math
import time
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse, Response

from ..security import check_token
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
