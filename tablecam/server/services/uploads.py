"""Read what a table uploads: an events body (JSON or JSON Lines) and a camera frame.

Both raise :class:`fastapi.HTTPException` with a 4xx a table's operator can
act on; nothing a client sends becomes a 500.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from fastapi import HTTPException

from .. import strictjson


def event_items(raw: bytes, content_type: str) -> list[Any]:
    """The items of an events upload: a JSON list (or one object), or JSON Lines.

    >>> event_items(b'{"type": "board"}', "application/json")
    [{'type': 'board'}]
    >>> event_items(b'\\xef\\xbb\\xbf{"a": 1}\\n\\n{"b": 2}\\n', "application/x-ndjson")
    ['{"a": 1}', '{"b": 2}']
    """
    ctype = content_type.split(";")[0].strip().lower()
    if ctype == "application/json":
        try:
            body = strictjson.loads(raw)
        except (ValueError, RecursionError) as e:   # ValueError: also bad UTF-8, NaN, a 5,000-digit number
            raise HTTPException(400, f"body is not valid JSON: {getattr(e, 'msg', e)}") from None
        if isinstance(body, dict):
            return [body]
        if isinstance(body, list):
            return body
        raise HTTPException(422, "expected a JSON object or a list of event objects")
    # utf-8-sig: a log saved by a Windows editor starts with a byte-order
    # mark, which would make its first line - the board - invalid JSON
    lines = raw.decode("utf-8-sig", errors="replace").splitlines()
    return [ln for ln in lines if ln.strip()]


def frame_image(b64: str) -> tuple[bytes, str]:
    """A frame's image bytes and media type, from base64 of a JPEG or PNG file."""
    try:
        raw = base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError):
        raise HTTPException(422, "image: not valid base64") from None
    if raw[:3] == b"\xff\xd8\xff":
        return raw, "image/jpeg"
    if raw[:8] == b"\x89PNG\r\n\x1a\n":
        return raw, "image/png"
    raise HTTPException(422, "image: expected a JPEG or PNG file")
