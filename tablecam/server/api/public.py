"""The public side: liveness, the broadcast page and the delayed broadcast data.

Everything here is read from the delayed fold (:mod:`tablecam.server.broadcast`)
only; no route reads the hub's live state.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, HTTPException
from fastapi.responses import HTMLResponse

from . import responses as R
from .deps import Station, TableIdPath, station
from .pages import page

router = APIRouter(tags=["public"])


@router.get("/healthz", summary="Liveness (no credentials)")
def healthz(st: Station = Depends(station)) -> dict[str, Any]:
    return {"ok": True, "mode": "insecure-demo" if st.insecure_demo else "secure"}


@router.get("/broadcast", responses=R.TOO_MANY, summary="Public broadcast page", response_class=HTMLResponse)
def broadcast_page() -> HTMLResponse:
    return page("broadcast.html")


@router.get("/public/tables", responses=R.TOO_MANY, summary="Broadcast tables, delayed")
def public_tables(st: Station = Depends(station)) -> dict[str, Any]:
    st.view.advance()
    return {"delay": st.delay.describe(), "tables": st.view.states()}


@router.get("/public/tables/{table_id}", responses={**R.PUBLIC, **R.NOT_FOUND}, summary="One broadcast table, delayed")
def public_table(table_id: str = TableIdPath, st: Station = Depends(station)) -> dict[str, Any]:
    st.view.advance()
    s = st.view.state(table_id)
    if s is None:
        raise HTTPException(404, "no such broadcast table")
    return s
