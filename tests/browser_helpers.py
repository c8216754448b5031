"""What every browser test shares: Debian's Chromium, the director's token, posting events, logging in.

Each ``tests/test_browser_*.py`` sets ``pytestmark = BROWSER`` (browser mark,
skipped without Chromium, run in the checkout beside the real deals).
"""

from __future__ import annotations

import json
import os

import httpx
import pytest

from live_server import CHROMIUM

BROWSER = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian chromium not installed"),
    pytest.mark.usefixtures("real_bridge_data"),
]
TOKEN = "browser-test-token-4711"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def post(base: str, table: str, events: list[dict], **params) -> dict:
    """Post events to a table as the director; the server's answer."""
    body = "\n".join(json.dumps(e) for e in events) + "\n"
    r = httpx.post(f"{base}/api/tables/{table}/events", content=body, params=params, timeout=10,
                   headers={**AUTH, "Content-Type": "application/x-ndjson"})
    assert r.status_code == 200, r.text
    return r.json()


def login(page, base: str, path: str = "/") -> None:
    """Open the dashboard at ``path``, log in as the director and wait for the live connection."""
    page.goto(base + path)
    page.fill("#token", TOKEN)
    page.click("#login-form button")
    page.wait_for_selector("#conn.live", timeout=10_000)
