"""The people at the station: the director's dashboard page and what this station is, and each
table's operator page (a tablet at the table, a VuGraph operator: ``/operator/{table}``)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends
from fastapi.responses import HTMLResponse

from . import responses as R
from .deps import DIRECTOR, Station, station, valid_table
from .pages import page

router = APIRouter()


@router.get("/", include_in_schema=False)
def dashboard_page() -> HTMLResponse:
    return page("index.html")


@router.get("/api/whoami", tags=["director"], dependencies=DIRECTOR, responses=R.DIRECTOR, summary="Check the director token")
def whoami(st: Station = Depends(station)) -> dict[str, Any]:
    return {"director": True, "insecure_demo": st.insecure_demo, "broadcast_delay": st.delay.describe()}


@router.get("/operator/{table_id}", include_in_schema=False)
def operator_page(table_id: str) -> HTMLResponse:
    """The table's operator page: bidding and card pads, claims, contract/lead/result, camera reads
    to confirm or correct, the Nordic games' own entries.  It asks for the table's operator token
    (or the director's); the data come from ``/api/tables/{table}``."""
    valid_table(table_id)
    return page("operator.html")
