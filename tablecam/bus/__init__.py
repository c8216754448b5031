"""The bus between table nodes and director stations.

One interface (:class:`~tablecam.bus.base.Bus`), two implementations: an
in-process bus for a club's single laptop, and MQTT (Mosquitto) for a
championship with one edge computer per table. Topic layout, QoS and
retained/last-will semantics are the same for both, so the station code does
not know which one it runs on.
"""

from .base import Bus, Message, topic_for, parse_topic

__all__ = ["Bus", "Message", "topic_for", "parse_topic", "make_bus"]


def make_bus(kind: str = "inproc", **kwargs):
    """Build a bus by name: ``inproc`` or ``mqtt`` (kwargs go to the class)."""
    if kind == "inproc":
        from .inproc import InProcessBus

        return InProcessBus(**kwargs)
    if kind == "mqtt":
        from .mqtt import MqttBus

        return MqttBus(**kwargs)
    raise ValueError(f"unknown bus {kind!r} (expected 'inproc' or 'mqtt')")
