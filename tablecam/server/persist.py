"""Keep the director's acknowledgements and rulings in the durable event store.

The events are the station's store's job (the bus writes every event before
the hub sees it); this module adds what only the director produces: who
acknowledged or ruled on which alert, when, and what. After a restart the
station replays the stored events into the hub (re-raising every alert under
the same key), then :func:`keep_rulings` re-applies the stored rulings, so a
director never loses a ruling to a crash.

>>> from tablecam.store import EventStore
>>> from tablecam.server.hub import TableHub
>>> store = EventStore(":memory:")
>>> hub = TableHub()
>>> stop = keep_rulings(hub, store)
>>> _ = hub.ingest("t1", {"kind": "revoke", "rule": "Law 61", "message": "S revoked.", "id": "r1"})
>>> _ = hub.rule(hub.alert_id_for("t1", "r1"), "Anna", "Two tricks to EW.", "accept")
>>> [r["ruling"]["by"] for r in store.rulings("t1")]
['Anna']
>>> fresh = TableHub()
>>> _ = fresh.ingest("t1", {"kind": "revoke", "rule": "Law 61", "message": "S revoked.", "id": "r1"})
>>> _ = keep_rulings(fresh, store)
>>> fresh.alert(fresh.alert_id_for("t1", "r1"))["state"]
'ruled'
"""

from __future__ import annotations

from typing import Any, Callable

from .hub import TableHub


def keep_rulings(hub: TableHub, store: Any) -> Callable[[], None]:
    """Restore stored rulings into ``hub`` now, then record every new one; returns an unsubscribe.

    ``store`` is a :class:`tablecam.store.EventStore` (``record_ruling``,
    ``rulings``, ``tables``).
    """
    for table in store.tables() + [t for t in list(hub.tables) if t not in store.tables()]:
        for r in store.rulings(table):
            hub.restore(table, r["finding"], acknowledged=r.get("acknowledged"), ruling=r.get("ruling"))
    recorded: dict[tuple[str, str], tuple[Any, Any]] = {}

    def on_message(msg: dict[str, Any]) -> None:
        if msg.get("type") != "alert":
            return
        a = msg["alert"]
        if not a.get("acknowledged") and not a.get("ruling"):
            return
        key = (a["table"], a["key"])
        state = (a.get("acknowledged"), a.get("ruling"))
        if recorded.get(key) == state:
            return
        recorded[key] = state
        store.record_ruling(a["table"], a["key"], {"acknowledged": a.get("acknowledged"), "ruling": a.get("ruling")})

    return hub.subscribe(on_message)
