"""Camera frames kept as evidence: a ring per table, and for good the frames an alert shows."""

from __future__ import annotations

import collections
import dataclasses
import itertools
from typing import Any, Callable, Iterable

FRAMES_KEPT = 120
"""Camera frames kept per table (a ring); frames an alert refers to are kept for good."""
FRAME_WINDOW = (-3.0, 6.0)
"""A frame belongs to an event if it arrived this many seconds before / after it (the
camera pipeline decides a card some frames after it came to rest)."""


@dataclasses.dataclass
class Frame:
    """A camera frame with what the recogniser saw (``tablecam detect`` records)."""

    id: int
    table: str
    at: float
    image: bytes
    media_type: str
    cards: list[dict[str, Any]]
    width: int | None = None
    height: int | None = None

    def meta(self) -> dict[str, Any]:
        return {"id": self.id, "table": self.table, "at": self.at, "cards": self.cards,
                "width": self.width, "height": self.height, "media_type": self.media_type}


class FrameStore:
    """Every table's ring of recent frames, and every frame by id (the rings' and those kept).

    Not locked: the hub calls it under its own lock.
    """

    def __init__(self) -> None:
        self._seq = itertools.count(1)
        self._by_id: dict[int, Frame] = {}
        self._rings: dict[str, collections.deque[Frame]] = {}

    def add(self, table: str, at: float, image: bytes, media_type: str, cards: list[dict[str, Any]],
            width: int | None, height: int | None, kept: Callable[[Frame], bool]) -> Frame:
        """Keep a new frame; the one it pushes out of the ring is forgotten unless ``kept(frame)``."""
        ring = self._rings.setdefault(table, collections.deque(maxlen=FRAMES_KEPT))
        fr = Frame(next(self._seq), table, at, bytes(image), media_type, list(cards), width, height)
        if len(ring) == ring.maxlen:
            old = ring[0]
            if not kept(old):
                self._by_id.pop(old.id, None)
        ring.append(fr)
        self._by_id[fr.id] = fr
        return fr

    def get(self, frame_id: int) -> Frame | None:
        return self._by_id.get(frame_id)

    def ring(self, table: str) -> Iterable[Frame]:
        return self._rings.get(table, ())

    def near(self, table: str, at: float) -> Frame | None:
        """The table's frame closest to ``at`` within :data:`FRAME_WINDOW`, if any."""
        lo, hi = FRAME_WINDOW
        best = None
        for fr in self.ring(table):
            d = fr.at - at
            if lo <= d <= hi and (best is None or abs(d) < abs(best.at - at)):
                best = fr
        return best

    def forget(self, frame: Frame) -> None:
        """A frame no alert keeps any more and no ring holds."""
        if all(f is not frame for f in self.ring(frame.table)):
            self._by_id.pop(frame.id, None)


def belongs(frame_at: float, event_at: float) -> bool:
    """Whether a frame that arrived at ``frame_at`` shows the event that arrived at ``event_at``."""
    lo, hi = FRAME_WINDOW
    return lo <= frame_at - event_at <= hi
