"""The events an alert shows as evidence: what led to the irregularity, from its board only."""

from __future__ import annotations

from typing import Any, Protocol, Sequence

EVIDENCE_EVENTS = 12
"""How many events before (and including) the triggering one an alert carries."""


class _Log(Protocol):
    log: Sequence[Any]
    board_starts: Sequence[int]


def evidence(t: _Log, event: int | None, first: int | None = None) -> list[dict[str, Any]]:
    """The events that led to a finding: its board's events before the first
    event the irregularity cited (``first``), through the latest (``event``).

    At most :data:`EVIDENCE_EVENTS` before ``first`` and three times that in
    all, never reaching back past the start of the board."""
    if not t.log:
        return []
    end = len(t.log) - 1 if event is None or not (0 <= event < len(t.log)) else event
    begin = end if first is None or not (0 <= first <= end) else first
    start = 0
    for s in t.board_starts:
        if s <= begin:
            start = s
    lo = max(start, begin - EVIDENCE_EVENTS + 1, end - 3 * EVIDENCE_EVENTS)
    return [e.to_dict() for e in t.log[lo:end + 1]]
