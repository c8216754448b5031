"""Archive downloads: a table's session or one board, or the whole session, as PBN, LIN or JSON Lines."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends, HTTPException, Query
from fastapi.responses import Response

from ..services.exports import download, session_download
from . import responses as R
from .deps import DIRECTOR, Station, TableIdPath, known_table, station

router = APIRouter(tags=["archive"], dependencies=DIRECTOR, responses={**R.DIRECTOR, **R.UNAVAILABLE})


@router.get("/api/tables/{table_id}/archive", responses=R.NOT_FOUND,
            summary="Download a table's session, or one board, as PBN, LIN or JSON Lines")
def table_archive(table_id: str = TableIdPath, format: Literal["pbn", "lin", "jsonl"] = "pbn",
                  board: str | None = Query(None, max_length=20, pattern=r"^[A-Za-z0-9_.-]+$"),
                  st: Station = Depends(station)) -> Response:
    known_table(st.hub, table_id)
    events = st.hub.events_for(table_id, board)
    if board is not None and not events:
        raise HTTPException(404, f"table {table_id} has no board {board}")
    return download(events, format, f"{table_id}-board-{board}" if board else table_id)


@router.get("/api/archive", summary="Download the whole session (every table) as PBN, LIN or JSON Lines")
def session_archive(format: Literal["pbn", "lin", "jsonl"] = "pbn", st: Station = Depends(station)) -> Response:
    return session_download(st.hub, format)
