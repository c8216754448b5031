"""Where events entered at the station go: the table's node when one runs it, else the hub.

A table run by a table node (``tablecam run``, the demo) keeps its log in
the node's store, and the station's hub is a copy of it fed over the bus.
An event entered by hand (the operator page, a director's ruling) must go
the same way as the shoe's and the camera's: **node** (stored, fsync'd,
folded) -> **bus** -> **station** -> hub.  Folding it into the hub alone
would fork the table's log: the node would never judge it, and the next
event the node sends would take its number.  So the station hands it to
the node on the table's ``control`` topic and the hub sees it when it comes
back, in order.  A table no node runs (a replay, a test, a club laptop
without a bus) is folded into the hub at once.
"""

from __future__ import annotations

import time
from typing import Any

from .. import strictjson
from ..api.deps import Station

FORWARD_CHUNK = 500
"""Events per control message: a big upload goes to the node in pieces of this many."""
FINDINGS_RETURNED = 1000
"""Findings an upload's answer lists (``findings_total`` counts them all): 8 MiB of garbage
is 200,000 ``bad_event`` findings, which the alert queue counts on one alert."""


def as_event_dict(item: Any) -> dict[str, Any]:
    """An uploaded item as the event dict a node stores (an unreadable one is kept as text,
    so the node's fold reports it as a ``bad_event`` instead of it being lost).

    >>> as_event_dict('{"type": "end"}'), as_event_dict("nonsense")["type"]
    ({'type': 'end'}, 'unreadable')
    """
    if isinstance(item, dict):
        return item
    if isinstance(item, str):
        try:
            obj = strictjson.loads(item)
        except (ValueError, RecursionError):   # NaN, a 5,000-digit number: kept as text, reported
            obj = None
        if isinstance(obj, dict):
            return obj
    return {"type": "unreadable", "text": str(item)[:200]}


def stamp(items: list[Any], source: str) -> list[Any]:
    """Items from a person at the table: ``source`` and ``ts`` filled in where missing."""
    now = round(time.time(), 3)
    out = []
    for it in items:
        d = as_event_dict(it)
        if d.get("type") != "unreadable":
            d = {**d, "source": d.get("source") or source, "ts": d.get("ts", now)}
        out.append(d)
    return out


def deliver(st: Station, table_id: str, items: list[Any], close: bool = False) -> dict[str, Any]:
    """Send ``items`` to the table: its node if one runs it, else fold them into the hub.

    Returns ``{"forwarded": bool, "findings": [...], "findings_total": n}`` (the first
    :data:`FINDINGS_RETURNED` findings and how many there were; forwarded events come back over the
    bus; their findings reach the dashboard then).  ``close`` (finish the board after a
    replayed file) is a station-side operation: such an upload is folded into the hub.
    Raises OverflowError at the hub's table limit.
    """
    if not close and st.forward is not None and items:
        events = [as_event_dict(it) for it in items]
        if st.forward(table_id, events[:FORWARD_CHUNK]):
            for i in range(FORWARD_CHUNK, len(events), FORWARD_CHUNK):
                st.forward(table_id, events[i:i + FORWARD_CHUNK])
            return {"forwarded": True, "findings": [], "findings_total": 0}
    hub = st.hub
    out: list[dict[str, Any]] = []
    total = 0

    def keep(found: list[Any]) -> None:
        nonlocal total
        total += len(found)
        out.extend(f.to_dict() for f in found[:FINDINGS_RETURNED - len(out)])

    for it in items:
        keep(hub.ingest(table_id, it))
    if close:
        keep(hub.close_table(table_id))
    return {"forwarded": False, "findings": out, "findings_total": total}
