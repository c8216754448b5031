"""Shoe and camera health: what a source says of itself, else what its traffic shows."""

from __future__ import annotations

from typing import Any

HEALTH_SOURCES = ("shoe", "camera")
HEALTH_STATUSES = ("ok", "degraded", "down", "unknown")


def check(source: Any, status: Any) -> None:
    """ValueError unless ``source`` and ``status`` are words the dashboard knows."""
    if source not in HEALTH_SOURCES or status not in HEALTH_STATUSES:
        raise ValueError(f"health: source must be one of {HEALTH_SOURCES}, status one of {HEALTH_STATUSES}")


def report(status: str, detail: Any, at: float) -> dict[str, Any]:
    """An explicit report as kept (the detail bounded)."""
    return {"status": status, "detail": None if detail is None else str(detail)[:200], "at": at}


def health_view(reports: dict[str, dict[str, Any]], seen: dict[str, float], now: float,
                silent_after: float) -> dict[str, dict[str, Any]]:
    """Each source's health: an explicit report wins, else derived from its last event.

    >>> health_view({}, {"shoe": 100.0}, 130.0, 120.0)["shoe"]["status"]
    'ok'
    >>> health_view({}, {"shoe": 100.0}, 300.0, 120.0)["shoe"]["detail"]
    'silent for 200 s'
    """
    out: dict[str, dict[str, Any]] = {}
    for src in HEALTH_SOURCES:
        last = seen.get(src)
        rep = reports.get(src)
        if rep is not None:
            status, detail = rep["status"], rep.get("detail")
        elif last is None:
            status, detail = "unknown", "no events from this source yet"
        elif now - last > silent_after:
            status, detail = "down", f"silent for {int(now - last)} s"
        else:
            status, detail = "ok", None
        out[src] = {"status": status, "detail": detail, "last_seen": last}
    return out
