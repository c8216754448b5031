"""In-process bus: the default for a single machine, nothing to install.

Delivery is synchronous and in order; retained messages (table state,
availability) are kept and replayed to late subscribers, like a broker does.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

from .base import DATA_KINDS, Bus, Handler, Message


class InProcessBus(Bus):
    def __init__(self) -> None:
        self._subs: list[tuple[Handler, str, tuple[str, ...]]] = []
        self._retained: dict[tuple[str, str], Message] = {}
        self._lock = threading.RLock()
        self.published = 0

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def publish(self, msg: Message, on_ack: Callable[[], None] | None = None) -> None:
        msg.received_at = time.time()
        with self._lock:
            self.published += 1
            if msg.retained:
                self._retained[(msg.table, msg.kind)] = msg
            subs = list(self._subs)
        for handler, table, kinds in subs:
            if (table == "+" or table == msg.table) and msg.kind in kinds:
                handler(msg)
        if on_ack:
            on_ack()

    def subscribe(self, handler: Handler, table: str = "+", kinds: tuple[str, ...] = DATA_KINDS) -> None:
        with self._lock:
            self._subs.append((handler, table, tuple(kinds)))
            retained = [m for (t, k), m in self._retained.items()
                        if (table == "+" or t == table) and k in kinds]
        for m in retained:
            handler(m)
