"""Errors a client can cause, answered as a 4xx that says what was wrong - never a 500.

- Request bodies are bounded while they are read (:class:`LimitBody`), so a
  chunked upload without ``Content-Length`` stops at :data:`MAX_BODY` too.
- Validation errors are answered without echoing the input: an 8 MiB body
  is not sent back, and a ``NaN`` that Python's JSON reader accepted cannot
  make the answer unserialisable.
"""

from __future__ import annotations

from typing import Any

from fastapi import HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

MAX_BODY = 8 * 1024 * 1024
"""Bytes of one request body; more is answered 413, whether announced (Content-Length) or streamed."""
MAX_ERRORS = 20
"""Validation errors reported per request (a list of 100,000 bad items needs only the first few)."""


class BodyTooLarge(HTTPException):
    def __init__(self) -> None:
        super().__init__(413, f"request body larger than {MAX_BODY} bytes")


class LimitBody:
    """ASGI middleware: count the body's bytes as they arrive and stop at :data:`MAX_BODY`."""

    def __init__(self, app: Any, limit: int = MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        seen = 0

        async def limited() -> Any:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise BodyTooLarge()
            return message

        await self.app(scope, limited, send)


def validation_failed(_request: Request, exc: Exception) -> JSONResponse:
    """422 with where and what, in FastAPI's list form, without the input that failed."""
    errors = exc.errors() if isinstance(exc, RequestValidationError) else []
    detail = [{"loc": [str(p) if not isinstance(p, int) else p for p in e.get("loc", ())],
               "msg": str(e.get("msg", "invalid")), "type": str(e.get("type", "value_error"))}
              for e in errors[:MAX_ERRORS]]
    return JSONResponse({"detail": detail}, status_code=422)

