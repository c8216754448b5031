"""Connect a director station's hub to the tables' MQTT bus.

``tablecam serve --mqtt HOST:PORT`` calls :func:`attach_station`: the
station subscribes to every table, delivers each table's events exactly once
and in order into the dashboard's hub (which judges them with the same
engines as the tables), passes the sources' own findings and health reports
on, and greys a table whose node went offline (its MQTT last will) until the
node is back (it says it is online, or its events arrive again).

With ``store_path`` the station keeps its own event store: after a restart it
rebuilds the hub from it, and its persistent MQTT session (fixed client id)
gets from the broker whatever was published while it was down.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

from ..store import EventStore
from . import make_bus
from .station import Station, TableLink

log = logging.getLogger(__name__)


def parse_hostport(text: str, default_port: int = 1883) -> tuple[str, int]:
    """``host:port``, ``host`` or ``mqtt://host:port``.

    >>> parse_hostport("broker.lan:1884"), parse_hostport("mqtt://10.0.0.2"), parse_hostport(":1883")
    (('broker.lan', 1884), ('10.0.0.2', 1883), ('127.0.0.1', 1883))
    """
    t = text.strip()
    if "://" in t:
        t = t.split("://", 1)[1]
    host, sep, port = t.rpartition(":")
    if not sep:
        return t or "127.0.0.1", default_port
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"bad MQTT port in {text!r}")
    return host or "127.0.0.1", int(port)


def health_to_hub(hub: Any) -> Callable[[str, str, str, str | None], None]:
    """The station's ``on_health``: a table's source report onto the
    dashboard as the hub's own ``{"type": "health"}`` item (``ingest``
    drops a source or status word it does not know, never raising)."""
    return lambda table, source, status, detail: hub.ingest(
        table, {"type": "health", "source": source, "status": status, "detail": detail})


OFFLINE = "table node offline"
"""The health detail the station gives a table's sources while its node is gone."""


def link_station(hub: Any, bus: Any, store: EventStore | None = None, gap_timeout: float = 2.0) -> Station:
    """A :class:`Station` on ``bus`` that feeds ``hub`` (not started).

    A table whose node went offline (its last will) shows its shoe and camera
    down; the mark goes as soon as the node is back: when it says it is
    online, or when its events arrive again (a killed node's last will can
    reach the broker after the restarted node's "online").
    """
    offline: set[str] = set()

    def mark(table: str, down: bool) -> None:
        if down:
            offline.add(table)
            for source in ("shoe", "camera"):
                try:
                    hub.ingest(table, {"type": "health", "source": source, "status": "down", "detail": OFFLINE})
                except (ValueError, OverflowError):   # a table id or a table too many for the hub
                    return
        elif table in offline:
            offline.discard(table)
            for source in ("shoe", "camera"):
                hub.clear_health(table, source, OFFLINE)

    def on_status(table: str, link: TableLink) -> None:
        if link.online is not None:
            mark(table, not link.online)

    def on_event(table: str, seq: int, ev: Any) -> None:
        hub.ingest(table, ev)
        if table in offline:
            mark(table, False)   # its events arrive: the node is running again

    return Station(bus, sink=on_event, store=store, gap_timeout=gap_timeout, on_status=on_status,
                   on_finding=lambda t, f: hub.ingest(t, f), on_health=health_to_hub(hub))


def attach_station(hub: Any, url: str, username: str | None = "director", password: str | None = None,
                   store_path: str | None = None, client_id: str = "director-station",
                   gap_timeout: float = 2.0) -> Station:
    """Subscribe ``hub`` to every table on the MQTT broker at ``url``; returns the started station."""
    host, port = parse_hostport(url)
    bus = make_bus("mqtt", host=host, port=port, client_id=client_id, username=username,
                   password=password)
    station = link_station(hub, bus, EventStore(store_path) if store_path else None, gap_timeout)
    station.start()
    return station
