"""What a table sends, read into an event, a remote engine's finding, or a reason it is unreadable.

Nothing here raises on bad input: an item that cannot be read comes back
as its reason, and the hub logs it as an ``unreadable`` entry with a
``bad_event`` finding (bad input never crashes and is never lost).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from ...events import Event, parse_event
from ...findings import Finding
from .. import strictjson

RAW_KEPT = 200
"""Characters of an unreadable item kept in the log and in its ``bad_event``."""


def decode(item: Any, index: int) -> tuple[Event | None, str | None, Finding | None]:
    """``(event, why unreadable, pass-through finding)``: exactly one is not None.

    >>> decode('{"type": "play", "seat": "N", "card": "SA"}', 0)[0].type
    'play'
    >>> decode('{"board": NaN}', 3)[1]
    'not valid JSON (NaN is not a JSON number)'
    """
    if isinstance(item, Finding):
        return None, None, item
    if isinstance(item, Event):
        return dataclasses.replace(item, index=index), None, None
    if isinstance(item, (bytes, bytearray)):
        item = bytes(item).decode("utf-8", errors="replace")
    if isinstance(item, str):
        try:
            item = strictjson.loads(item)
        except (ValueError, RecursionError) as e:   # ValueError: also NaN, a 5,000-digit number
            return None, f"not valid JSON ({getattr(e, 'msg', None) or e or 'too deeply nested'})", None
    if isinstance(item, dict) and "kind" in item and "type" not in item:
        return None, None, finding_from_dict(item)
    if isinstance(item, dict) and item.get("type") == "health":
        return Event("health", {}, index, raw=item), None, None
    try:
        return parse_event(item, index), None, None
    except ValueError as e:
        return None, str(e), None
    except Exception as e:  # pragma: no cover - defensive: never lose the stream
        return None, f"{type(e).__name__}: {e}", None


def raw_text(item: Any) -> str:
    """What was received, for the log and the ``bad_event``'s ``line`` (bounded)."""
    if isinstance(item, (bytes, bytearray)):
        item = bytes(item).decode("utf-8", errors="replace")
    if not isinstance(item, str):
        try:
            item = json.dumps(item, default=str, ensure_ascii=False)
        except (ValueError, RecursionError):
            item = repr(item)
    return item[:RAW_KEPT]


def finding_from_dict(d: dict[str, Any]) -> Finding:
    """Rebuild a Finding from its ``to_dict()`` form (a remote engine's output), every field bounded."""
    known = {"kind", "rule", "message", "board", "event", "seat", "trick", "status", "options", "remedy", "id"}
    kw: dict[str, Any] = {k: d[k] for k in known if k in d}
    kw["kind"] = str(kw.get("kind") or "unknown")[:64]
    for k in ("rule", "message", "status", "remedy", "id"):
        if k in kw and kw[k] is not None:
            kw[k] = str(kw[k])[:2000]
    if not isinstance(kw.get("options", []), list):
        kw["options"] = [str(kw["options"])]
    if "event" in kw and not isinstance(kw["event"], int) or isinstance(kw.get("event"), bool):
        kw["event"] = None
    if "trick" in kw and not isinstance(kw["trick"], int) or isinstance(kw.get("trick"), bool):
        kw["trick"] = None
    extra = {k: v for k, v in d.items() if k not in known and k != "table"}
    return Finding(extra=extra, **kw)
