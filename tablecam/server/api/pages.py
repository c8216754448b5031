"""The static pages (the director dashboard, the public broadcast) and their assets."""

from __future__ import annotations

from importlib import resources
from typing import Any

from fastapi.responses import HTMLResponse

STATIC: Any = resources.files("tablecam.server").joinpath("static")


def page(name: str) -> HTMLResponse:
    """A page from ``server/static`` (no data in it: the page's script asks the API)."""
    return HTMLResponse(STATIC.joinpath(name).read_text("utf-8"))
