"""Events as a download: PBN, LIN or JSON Lines, the same writers as ``tablecam export``."""

from __future__ import annotations

import io
import json
from typing import Any

from fastapi import HTTPException
from fastapi.responses import Response

from ..hub import TableHub

ARCHIVE_FORMATS = ("pbn", "lin", "jsonl")
MEDIA = {"pbn": "application/x-pbn", "lin": "text/plain", "jsonl": "application/x-ndjson"}


def download(events: list[Any], fmt: str, name: str) -> Response:
    """``events`` written as ``fmt``, as an attachment called ``name.fmt``."""
    buf = io.StringIO()
    if fmt == "jsonl":
        from ...events import write_events
        write_events(events, buf)
    else:
        try:
            from ...archive.export import export
        except ImportError:
            raise HTTPException(503, f"the {fmt.upper()} writer is not installed in this build") from None
        try:
            export(events, fmt, buf)
        except Exception as e:  # a writer bug must not look like a server crash
            # e.g. a Vira board has no PBN form: the content, not the server, is at fault
            raise HTTPException(422, f"could not write {fmt.upper()}: {type(e).__name__}: {e}") from None
    return Response(buf.getvalue(), media_type=MEDIA[fmt] + "; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{name}.{fmt}"'})


def session_download(hub: TableHub, fmt: str) -> Response:
    """Every table's events; JSON Lines keeps each event's table, the archive formats do not need it."""
    with hub.lock:
        ids = list(hub.tables)
    if fmt == "jsonl":
        lines = []
        for tid in ids:
            for ev in hub.events_for(tid):
                lines.append(json.dumps({**ev.to_dict(), "table": tid}, ensure_ascii=False))
        return Response("\n".join(lines) + ("\n" if lines else ""), media_type=MEDIA["jsonl"],
                        headers={"Content-Disposition": 'attachment; filename="session.jsonl"'})
    events = [ev for tid in ids for ev in hub.events_for(tid)]
    return download(events, fmt, "session")
