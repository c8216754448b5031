"""The operator's side of the station: the dashboard page and what this station is."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends
from fastapi.responses import HTMLResponse

from .deps import DIRECTOR, Station, station
from .pages import page

router = APIRouter()


@router.get("/", include_in_schema=False)
def dashboard_page() -> HTMLResponse:
    return page("index.html")


@router.get("/api/whoami", tags=["director"], dependencies=DIRECTOR, summary="Check the director token")
def whoami(st: Station = Depends(station)) -> dict[str, Any]:
    return {"director": True, "insecure_demo": st.insecure_demo, "broadcast_delay": st.delay.describe()}
