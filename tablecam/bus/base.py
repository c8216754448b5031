"""Bus interface, message shape and topic names.

Topics (``{prefix}`` defaults to ``tablecam``):

=====================================  =========  ========  =====================================
topic                                  QoS        retained  payload
=====================================  =========  ========  =====================================
``{prefix}/{table}/events``            1          no        ``{"seq": n, "log": id, "event": {...}}``
``{prefix}/{table}/findings``          1          no        ``{"seq": n, "finding": {...}}``
``{prefix}/{table}/state``             1          yes       ``{"seq": n, "log": id, "state": {...}}``
``{prefix}/{table}/availability``      1          yes       ``"online"`` / ``"offline"`` (last will)
``{prefix}/{table}/health``            1          yes       ``{"seq": null, "health": {"shoe": {...}}}``
``{prefix}/{table}/control``           1          no        ``{"seq": null, "control": {"resend_after": n}}``
=====================================  =========  ========  =====================================

Events are idempotent by ``(table, log, seq)``: a receiver drops a sequence
number it has already applied, so at-least-once delivery is safe.  ``log``
names the table node's event log (its store); a node whose store was lost
starts a new log at seq 1, which a station appends after the old one
instead of taking it for duplicates.

``health`` is what the table's own sources say of themselves (the shoe
driver: link open, heartbeats late, cable pulled; the camera: frames
coming or stopped), each source as ``{"status", "detail", "at"}``.  It
is retained and carries every source at once, so a station that starts
later still learns that a shoe has been unplugged since before it came.

>>> topic_for("t07", "events")
'tablecam/t07/events'
>>> parse_topic("tablecam/t07/state")
('t07', 'state')
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Any, Callable

DATA_KINDS = ("events", "findings", "state", "availability", "health")
"""What a table publishes."""
KINDS = DATA_KINDS + ("control",)
"""Plus ``control``: requests from a director station to one table (resend)."""
PREFIX = "tablecam"


def topic_for(table: str, kind: str, prefix: str = PREFIX) -> str:
    if kind not in KINDS:
        raise ValueError(f"unknown topic kind {kind!r}")
    if not table or any(c in table for c in "/+#"):
        raise ValueError(f"table id {table!r} may not contain '/', '+' or '#'")
    return f"{prefix}/{table}/{kind}"


def parse_topic(topic: str, prefix: str = PREFIX) -> tuple[str, str] | None:
    parts = topic.split("/")
    if len(parts) != 3 or parts[0] != prefix or parts[2] not in KINDS:
        return None
    return parts[1], parts[2]


@dataclass
class Message:
    """One bus message. ``seq`` is the table's event sequence number."""

    table: str
    kind: str
    payload: Any
    seq: int | None = None
    retained: bool = False
    log: str | None = None      # the sender's event log (see EventStore.log_id); seq counts within it
    received_at: float | None = field(default=None, compare=False)


Handler = Callable[[Message], None]


class Bus(abc.ABC):
    """What table nodes publish to and director stations subscribe to."""

    @abc.abstractmethod
    def start(self) -> None: ...

    @abc.abstractmethod
    def stop(self) -> None: ...

    @abc.abstractmethod
    def publish(self, msg: Message, on_ack: Callable[[], None] | None = None) -> None:
        """Send ``msg``; call ``on_ack`` once the bus has taken responsibility
        for it (in-process: at once; MQTT: on the broker's PUBACK)."""

    @abc.abstractmethod
    def subscribe(self, handler: Handler, table: str = "+", kinds: tuple[str, ...] = DATA_KINDS) -> None:
        """Deliver messages for ``table`` (``+``: all tables) to ``handler``."""

    @property
    def connected(self) -> bool:
        return True

    def set_will(self, table: str) -> None:
        """Announce ``table`` offline if this publisher disappears (MQTT last will)."""
