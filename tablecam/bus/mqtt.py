"""MQTT bus (paho-mqtt 2.x) for many tables through a Mosquitto broker.

Why these choices:
- QoS 1 everywhere: at-least-once delivery; receivers drop duplicates by
  ``(table, seq)``, which is cheaper and simpler than QoS 2's handshake.
- Persistent sessions (``clean_session=False`` and a fixed client id): the
  broker queues QoS 1 messages for a director station that is restarting, so
  a station crash loses nothing either.
- A table node's last will marks its table ``offline`` (retained), so the
  dashboard greys the table when the edge computer dies or the cable is cut.
- ``on_ack`` fires on the broker's PUBACK; the table node uses it to mark the
  event published in its store's outbox. After a network loss, whatever is
  still unacknowledged in the outbox is sent again on reconnect.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from typing import Any, Callable

import paho.mqtt.client as mqtt

from .base import DATA_KINDS, PREFIX, Bus, Handler, Message, parse_topic, topic_for

log = logging.getLogger(__name__)


class MqttBus(Bus):
    def __init__(self, host: str = "127.0.0.1", port: int = 1883, client_id: str | None = None,
                 username: str | None = None, password: str | None = None, prefix: str = PREFIX,
                 clean_session: bool = False, keepalive: int = 10,
                 on_connect: Callable[[], None] | None = None) -> None:
        self.host, self.port, self.prefix = host, port, prefix
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id or "",
                                  clean_session=clean_session if client_id else True,
                                  protocol=mqtt.MQTTv311)
        if username:
            self.client.username_pw_set(username, password)
        self.client.max_inflight_messages_set(200)
        self.client.max_queued_messages_set(0)  # unlimited while offline; the outbox is the real guarantee
        self.client.reconnect_delay_set(min_delay=1, max_delay=4)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.client.on_publish = self._on_publish
        self.client.on_subscribe = self._on_subscribe
        self.keepalive = keepalive
        self._subs: list[tuple[Handler, str, tuple[str, ...]]] = []
        self._acks: dict[int, Callable[[], None]] = {}
        self._lock = threading.RLock()
        self._connected = threading.Event()
        self._unacked_subs: set[int] = set()     # SUBSCRIBEs the broker has not confirmed yet
        self._early_subacks: set[int] = set()    # confirmed before subscribe() returned its mid
        self._subscribed = threading.Event()
        self._user_on_connect = on_connect
        self.denied = 0

    # -- lifecycle ----------------------------------------------------------
    def set_will(self, table: str) -> None:
        self.client.will_set(topic_for(table, "availability", self.prefix), "offline", qos=1, retain=True)

    def start(self, wait: float = 10.0) -> None:
        """Connect; with ``wait``, return once the broker has confirmed every
        subscription (or ``wait`` seconds passed): only from then on does the
        broker route the topics to us, so a caller that says "subscribed"
        after ``start`` (``tablecam serve --mqtt``) says the truth."""
        self.client.connect_async(self.host, self.port, keepalive=self.keepalive)
        self.client.loop_start()
        if wait and not (self._connected.wait(wait) and self._subscribed.wait(wait)):
            log.warning("MQTT broker %s:%s not reachable yet; will keep retrying", self.host, self.port)

    def stop(self) -> None:
        try:
            self.client.disconnect()
        finally:
            self.client.loop_stop()

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    def wait_connected(self, timeout: float = 10.0) -> bool:
        return self._connected.wait(timeout)

    def wait_subscribed(self, timeout: float = 10.0) -> bool:
        """Connected, and every subscription confirmed by the broker (SUBACK)."""
        return self._connected.wait(timeout) and self._subscribed.wait(timeout)

    # -- paho callbacks -----------------------------------------------------
    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if getattr(reason, "is_failure", False):
            log.error("MQTT connect refused: %s", reason)
            return
        with self._lock:
            subs = list(self._subs)
        self._subscribed.clear()
        for _, table, kinds in subs:
            self._send_subscribe(table, kinds)
        with self._lock:
            if not self._unacked_subs:
                self._subscribed.set()
        self._connected.set()
        if self._user_on_connect:
            self._user_on_connect()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        self._connected.clear()
        self._subscribed.clear()
        with self._lock:
            self._unacked_subs.clear()     # resent on the next connect
            self._early_subacks.clear()

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, reasons: Any, props: Any) -> None:
        with self._lock:
            if mid in self._unacked_subs:
                self._unacked_subs.discard(mid)
            else:
                self._early_subacks.add(mid)
            if not self._unacked_subs:
                self._subscribed.set()

    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int, reason: Any, props: Any) -> None:
        cb = self._acks.pop(mid, None)  # dict.pop is atomic: no lock (see publish)
        if cb:
            try:
                cb()
            except Exception:  # pragma: no cover - a bad callback must not kill paho's thread
                log.exception("on_ack callback failed")

    def _on_message(self, client: mqtt.Client, userdata: Any, m: mqtt.MQTTMessage) -> None:
        parsed = parse_topic(m.topic, self.prefix)
        if parsed is None:
            return
        table, kind = parsed
        try:
            body = json.loads(m.payload.decode("utf-8")) if kind != "availability" else m.payload.decode()
        except (UnicodeDecodeError, json.JSONDecodeError):
            log.warning("undecodable message on %s dropped", m.topic)
            return
        seq = body.get("seq") if isinstance(body, dict) else None
        payload = body.get(kind[:-1] if kind.endswith("s") else kind, body) if isinstance(body, dict) else body
        log_id = body.get("log") if isinstance(body, dict) else None
        msg = Message(table, kind, payload, seq, bool(m.retain), received_at=time.time(),
                      log=log_id if isinstance(log_id, str) else None)
        with self._lock:
            subs = list(self._subs)
        for handler, t, kinds in subs:
            if (t == "+" or t == table) and kind in kinds:
                try:
                    handler(msg)
                except Exception:
                    log.exception("bus handler failed on %s", m.topic)

    # -- API ----------------------------------------------------------------
    def publish(self, msg: Message, on_ack: Callable[[], None] | None = None) -> None:
        topic = topic_for(msg.table, msg.kind, self.prefix)
        if msg.kind == "availability":
            data: Any = str(msg.payload)
        else:
            key = {"events": "event", "findings": "finding", "state": "state", "control": "control",
                   "health": "health"}[msg.kind]
            body = {"seq": msg.seq, key: msg.payload} if msg.log is None else \
                {"seq": msg.seq, "log": msg.log, key: msg.payload}
            data = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
        # Never hold our lock across paho's publish: paho calls _on_publish
        # from its network thread while holding its own lock (lock order).
        info = self.client.publish(topic, data, qos=1, retain=msg.retained)
        if on_ack is None:
            return
        self._acks[info.mid] = on_ack
        # A PUBACK that raced ahead of the line above: ack it here. Whichever
        # side pops the callback first runs it; an ack lost in the remaining
        # window only means the outbox sends that event once more (harmless).
        try:
            published = info.is_published()
        except (RuntimeError, ValueError):  # not connected: paho keeps it queued, the outbox too
            published = False
        if published:
            cb = self._acks.pop(info.mid, None)
            if cb:
                cb()

    def subscribe(self, handler: Handler, table: str = "+", kinds: tuple[str, ...] = DATA_KINDS) -> None:
        with self._lock:
            self._subs.append((handler, table, tuple(kinds)))
        if self.connected:
            self._send_subscribe(table, kinds)

    def _send_subscribe(self, table: str, kinds: tuple[str, ...]) -> None:
        for k in kinds:
            # (not under our lock: paho's network thread may run _on_subscribe before
            # subscribe() returns; that SUBACK is kept in _early_subacks)
            rc, mid = self.client.subscribe(f"{self.prefix}/{table}/{k}", qos=1)
            if rc == mqtt.MQTT_ERR_SUCCESS:
                with self._lock:
                    if mid in self._early_subacks:
                        self._early_subacks.discard(mid)
                    else:
                        self._unacked_subs.add(mid)
                        self._subscribed.clear()

