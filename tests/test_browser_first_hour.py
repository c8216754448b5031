"""The dashboard as a new director first sees it, in a real browser (Debian's Chromium under Playwright).

A real PBN board with a revoke swapped into its play is posted to a real
uvicorn server under a 64-character table id; the director's grid, table
view and alert queue are then read as laid out on screen: nothing cut off
or overlapping, cards shown with suit symbols in the findings too, a camera's
turned trick as cards, and the pages carry an icon.
"""

from __future__ import annotations

import os

import httpx
import pytest

from tablecam.server.app import create_app
from tablecam.server.hub import TableHub
from tablecam.sim.real_deals import event_dicts, revoke_board
from live_server import launch_chromium, serve_in_thread

from browser_helpers import BROWSER, TOKEN, post  # noqa: E402

pytestmark = BROWSER
LONG_ID = "championship-open-final-segment-3-room-a-table-17-north-south-xy"
SHOTS = os.environ.get("TABLECAM_SCREENSHOTS")   # a folder to keep the screenshots in, to look at them

sync_api = pytest.importorskip("playwright.sync_api")


def _shot(page, name):
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        page.screenshot(path=os.path.join(SHOTS, name), full_page=True)


def test_dashboard_first_hour_layout_symbols_trick_rows_and_icon():
    assert len(LONG_ID) == 64
    board, info = revoke_board()
    events = event_dicts(board)
    cut = info["event"]
    turned = {"type": "trick_turned", "source": "camera", "trick": 1, "cards": ["SA", "HK", "DT", "C2"],
              "seats": ["N", "E", "S", "W"], "conf": 0.93}
    with serve_in_thread(create_app(TableHub(), token=TOKEN)) as base, sync_api.sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(base + "/")
        page.fill("#token", TOKEN)
        page.click("#login-form button")
        page.wait_for_selector("#conn.live", timeout=10_000)

        post(base, LONG_ID, events[:cut + 8])            # the revoke, established by play going on
        post(base, LONG_ID, [turned])
        tile = page.locator(f'.tile[data-table="{LONG_ID}"]')
        tile.wait_for(timeout=5_000)
        _shot(page, "grid.png")
        name, game, box = (tile.locator(".name").bounding_box(), tile.locator(".game").bounding_box(),
                           tile.bounding_box())
        assert name["x"] + name["width"] <= game["x"] + 0.5, "the table id runs into the game label"
        assert game["x"] + game["width"] <= box["x"] + box["width"], "the game label is pushed out of the tile"
        assert tile.locator(".name").get_attribute("title") == LONG_ID

        tile.click()
        page.wait_for_selector("#findings div", timeout=5_000)
        page.locator("#log div", has_text="trick turned").wait_for(timeout=5_000)
        _shot(page, "table.png")

        # findings wrap inside their panel: every row as wide as the panel at most, the long one on several lines
        panel = page.locator("#findings").bounding_box()
        rows = page.locator("#findings div")
        revoke = rows.filter(has_text="revoke").first
        for i in range(rows.count()):
            r = rows.nth(i).bounding_box()
            assert r["x"] + r["width"] <= panel["x"] + panel["width"] + 0.5
        line = float(revoke.evaluate("el => parseFloat(getComputedStyle(el).lineHeight) || 20"))
        assert revoke.bounding_box()["height"] > 1.5 * line, "a long finding is cut off, not wrapped"
        assert revoke.evaluate("el => el.scrollWidth <= el.clientWidth + 1")

        # suit symbols in the findings as everywhere else on the page
        text = revoke.inner_text()
        card = info.get("card") or ""
        sym = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
        assert card and sym[card[0]] in text and f" {card} " not in f" {text} "
        assert "Law 61" in text                                # citations keep their letters
        assert revoke.locator(".card").count() >= 1

        # the camera's turned trick: the four cards with their seats, not raw lists
        row = page.locator("#log div", has_text="trick turned").last.inner_text()
        assert "[\"" not in row and "\"" not in row and "cards=" not in row
        assert all(s in row for s in ("N\u00a0\u2660A", "E\u00a0\u2665K", "S\u00a0\u266610", "W\u00a0\u26632"))
        assert "trick 1" in row

        # the alert queue: symbols in the message too (a revoke not yet established names its card)
        post(base, "t2", events[:cut + 1])
        page.click('nav a[data-view="alerts"]')
        alert = page.locator(".alert", has_text="table t2")
        alert.wait_for(timeout=5_000)
        msg = alert.locator(".msg").inner_text()
        assert sym[card[0]] in msg and f" {card} " not in f" {msg} ", msg
        _shot(page, "alerts.png")

        # a favicon on every page, served
        for path in ("/", "/broadcast", "/operator/x"):
            page.goto(base + path)
            href = page.locator('link[rel="icon"]').get_attribute("href")
            assert href == "/static/favicon.svg", path
        r = httpx.get(base + "/static/favicon.svg", timeout=5)
        assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg")
        assert not errors, errors
        browser.close()
