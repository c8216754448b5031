"""The bus between table nodes and director stations.

One interface (:class:`~tablecam.bus.base.Bus`), two implementations: an
in-process bus for a club's single laptop, and MQTT (Mosquitto) for a
championship with one edge computer per table. Topic layout, QoS and
retained/last-will semantics are the same for both, so the station code does
not know which one it runs on.

Transport only: what feeds a table node (shoe, camera, simulator) and the
``tablecam run`` / ``tablecam demo`` commands are in :mod:`tablecam.node`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Bus, Message, topic_for, parse_topic

if TYPE_CHECKING:
    from ..config import BusSection

__all__ = ["Bus", "Message", "topic_for", "parse_topic", "make_bus", "bus_from_config"]


def make_bus(kind: str = "inproc", **kwargs):
    """Build a bus by name: ``inproc`` or ``mqtt`` (kwargs go to the class)."""
    if kind == "inproc":
        from .inproc import InProcessBus

        return InProcessBus(**kwargs)
    if kind == "mqtt":
        from .mqtt import MqttBus

        return MqttBus(**kwargs)
    raise ValueError(f"unknown bus {kind!r} (expected 'inproc' or 'mqtt')")


def bus_from_config(cfg: BusSection, client_id: str | None = None, username: str | None = None) -> Bus:
    """The bus a table config's ``[bus]`` section names (``username``: used when the section gives none)."""
    if cfg.kind == "inproc":
        return make_bus("inproc")
    return make_bus("mqtt", host=cfg.host, port=cfg.port, client_id=client_id,
                    username=cfg.username or username, password=cfg.password(), prefix=cfg.prefix)
