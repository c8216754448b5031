"""The error answers, as the OpenAPI schema publishes them.

Every error body is ``{"detail": ...}``: a sentence, except a request that
failed validation, whose ``detail`` is FastAPI's list of where and what
(a 422 raised by a handler, e.g. an archive writer refusing a board, is a
sentence too). Listing them lets a client - and the schemathesis fuzz test -
check every answer against the schema.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


class Problem(BaseModel):
    """Why the request was refused, in words."""

    detail: str


class ValidationItem(BaseModel):
    loc: list[str | int]
    msg: str
    type: str


class ValidationProblem(BaseModel):
    """What in the request failed validation (a list), or why the content was refused (a sentence)."""

    detail: list[ValidationItem] | str


def _r(description: str, model: type[BaseModel] = Problem) -> dict[str, Any]:
    return {"model": model, "description": description}


UNAUTHORIZED = {401: _r("No director token, or a wrong one")}
FORBIDDEN = {403: _r("A table operator's token, used beyond its own table")}
TOO_MANY = {429: _r("Too many requests (public rate limit), or too many wrong tokens from this address")}
NOT_FOUND = {404: _r("No such table, alert, frame or board")}
TOO_LARGE = {413: _r("The request body is larger than 8 MiB")}
BAD_BODY = {400: _r("The body is not valid JSON (NaN and Infinity are not JSON)")}
INVALID = {422: _r("Validation failed", ValidationProblem)}
UNAVAILABLE = {503: _r("This build has no writer for the format")}

DIRECTOR = {**UNAUTHORIZED, **FORBIDDEN, **TOO_MANY, **INVALID}
"""What any director route may answer besides its own result."""
PUBLIC = {**TOO_MANY, **INVALID}
