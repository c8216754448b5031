"""The alert queue: list, open one with its evidence, acknowledge, rule."""

from __future__ import annotations

import time
from typing import Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Query

from ..hub import TABLE_ID
from ..rulings import apply_ruling
from . import responses as R
from .deps import DIRECTOR, Station, station
from .models import AckIn, RulingIn

router = APIRouter(tags=["director"], dependencies=DIRECTOR, responses=R.DIRECTOR)

TableId = Query(None, pattern=TABLE_ID.pattern)


def _known_alert(st: Station, alert_id: int) -> dict[str, Any]:
    a = st.hub.alert(alert_id)
    if a is None:
        raise HTTPException(404, f"no alert {alert_id}")
    return a


@router.get("/api/alerts", summary="The alert queue")
def alerts(state: Literal["open", "acknowledged", "ruled"] | None = None,
           table: str | None = TableId, st: Station = Depends(station)) -> dict[str, Any]:
    return {"now": time.time(), "alerts": st.hub.alerts(state, table)}


@router.get("/api/alerts/{alert_id}", responses=R.NOT_FOUND, summary="One alert with evidence")
def alert(alert_id: int, st: Station = Depends(station)) -> dict[str, Any]:
    return _known_alert(st, alert_id)


@router.post("/api/alerts/{alert_id}/acknowledge", responses={**R.NOT_FOUND, **R.TOO_LARGE, **R.BAD_BODY},
             summary="Acknowledge an alert")
def acknowledge(alert_id: int, body: AckIn, st: Station = Depends(station)) -> dict[str, Any]:
    _known_alert(st, alert_id)
    return st.hub.acknowledge(alert_id, body.by)


@router.post("/api/alerts/{alert_id}/ruling", responses={**R.NOT_FOUND, **R.TOO_LARGE, **R.BAD_BODY},
             summary="Record the director's ruling (and apply it to the board)")
def ruling(alert_id: int, body: RulingIn, st: Station = Depends(station)) -> dict[str, Any]:
    alert = _known_alert(st, alert_id)
    if body.apply is None:
        return st.hub.rule(alert_id, body.by, body.text, body.option)
    return apply_ruling(st, alert, body)
