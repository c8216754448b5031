"""Connect a director station's hub to the tables' MQTT bus.

``tablecam serve --mqtt HOST:PORT`` calls :func:`attach_station`: the
station subscribes to every table, delivers each table's events exactly once
and in order into the dashboard's hub (which judges them with the same
engines as the tables), passes the sources' own findings and health reports
on, and greys a table whose node went offline (its MQTT last will).

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


def attach_station(hub: Any, url: str, username: str | None = "director", password: str | None = None,
                   store_path: str | None = None, client_id: str = "director-station",
                   gap_timeout: float = 2.0) -> Station:
    host, port = parse_hostport(url)
    bus = make_bus("mqtt", host=host, port=port, client_id=client_id, username=username,
                   password=password)

    def on_status(table: str, link: TableLink) -> None:
        if link.online is False:
            for source in ("shoe", "camera"):
                try:
                    hub.set_health(table, source, "down", "table node offline")
                except ValueError:
                    pass

    station = Station(bus, sink=lambda t, seq, ev: hub.ingest(t, ev),
                      store=EventStore(store_path) if store_path else None,
                      gap_timeout=gap_timeout, on_status=on_status,
                      on_finding=lambda t, f: hub.ingest(t, f), on_health=health_to_hub(hub))
    station.start()
    return station
