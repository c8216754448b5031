"""Tables: the grid, one table's state and log, and what tables upload (events, health, frames)."""

from __future__ import annotations

import time
from typing import Any

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ..services.delivery import deliver, stamp
from ..services.uploads import event_items, frame_image
from . import responses as R
from .deps import DIRECTOR, Station, TableIdPath, known_table, operator_of, station
from .errors import MAX_BODY
from .models import INGEST_BODY, FrameIn, HealthIn

router = APIRouter(tags=["director"], dependencies=DIRECTOR, responses=R.DIRECTOR)

INLINE_ITEMS = 200
"""Uploads up to this many items are folded on the event loop; bigger ones in a worker thread."""


@router.get("/api/tables", summary="All tables with their state")
def tables(st: Station = Depends(station)) -> dict[str, Any]:
    return {"now": time.time(), "tables": st.hub.summaries()}


@router.get("/api/tables/{table_id}", responses=R.NOT_FOUND, summary="One table: summary, state of the board in progress, findings")
def table(table_id: str = TableIdPath, st: Station = Depends(station)) -> dict[str, Any]:
    hub = st.hub
    with hub.lock:
        t = known_table(hub, table_id)
        return {"summary": t.summary(None, hub.silent_after), "state": t.snapshot(),
                "findings": t.findings[-200:], "alerts": hub.alerts(table=table_id)}


@router.get("/api/tables/{table_id}/events", responses=R.NOT_FOUND, summary="The table's event log (paged)")
def table_events(table_id: str = TableIdPath, since: int = Query(0, ge=0, le=10**9),
                 limit: int = Query(500, ge=1, le=5000), st: Station = Depends(station)) -> dict[str, Any]:
    with st.hub.lock:
        t = known_table(st.hub, table_id)
        return {"table": table_id, "total": len(t.log),
                "events": [e.to_dict() for e in t.log[since:since + limit]]}


@router.post("/api/tables/{table_id}/events", openapi_extra=INGEST_BODY, responses={**R.TOO_LARGE, **R.BAD_BODY},
             summary="Fold events into a table (replay a log into the running server)")
async def ingest(request: Request, table_id: str = TableIdPath,
                 close: bool = Query(False, description="finish the board in progress afterwards"),
                 st: Station = Depends(station)) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise HTTPException(413, f"request body larger than {MAX_BODY} bytes")
    items = event_items(raw, request.headers.get("content-type", ""))
    if operator_of(request) is not None:
        items = stamp(items, "operator")   # entered by hand at the table

    def work() -> dict[str, Any]:
        return deliver(st, table_id, items, close)

    try:
        done = work() if len(items) <= INLINE_ITEMS else await run_in_threadpool(work)
    except OverflowError as e:
        raise HTTPException(429, str(e)) from None
    return {"table": table_id, "received": len(items), **done}


@router.post("/api/tables/{table_id}/health", responses={**R.TOO_LARGE, **R.BAD_BODY}, summary="Report shoe or camera health for a table")
def health(body: HealthIn, table_id: str = TableIdPath, st: Station = Depends(station)) -> dict[str, Any]:
    try:
        st.hub.set_health(table_id, body.source, body.status, body.detail)
    except OverflowError as e:
        raise HTTPException(429, str(e)) from None
    return {"table": table_id, "source": body.source, "status": body.status}


@router.post("/api/tables/{table_id}/frames", responses={**R.TOO_LARGE, **R.BAD_BODY},
             summary="A camera frame with its recognised cards (evidence for alerts at that moment)")
def add_frame(body: FrameIn, table_id: str = TableIdPath, st: Station = Depends(station)) -> dict[str, Any]:
    raw, media = frame_image(body.image)
    try:
        fid = st.hub.add_frame(table_id, raw, [d.model_dump() for d in body.cards], media, body.width, body.height)
    except OverflowError as e:
        raise HTTPException(429, str(e)) from None
    return {"table": table_id, "frame": fid}


@router.get("/api/frames/{frame_id}", responses=R.NOT_FOUND, summary="A kept camera frame (image)", response_class=Response)
def get_frame(frame_id: int, st: Station = Depends(station)) -> Response:
    fr = st.hub.frame(frame_id)
    if fr is None:
        raise HTTPException(404, f"no frame {frame_id} (frames no alert refers to roll off)")
    return Response(fr.image, media_type=fr.media_type)
