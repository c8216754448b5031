"""The public broadcast page in Debian's Chromium with a board number that repeats.

A table node restarted in the middle of a real board deals it again; the
broadcast page, every HTTP response it loads and every WebSocket frame it
receives must hold none of that board's cards until the table has moved on
to another board.
"""

from __future__ import annotations

import time

import pytest

from tablecam.server.app import create_app
from tablecam.server.hub import TableHub
from tablecam.sim.real_deals import event_dicts, real_boards
from live_server import launch_chromium, serve_in_thread

from browser_helpers import BROWSER, TOKEN, post  # noqa: E402

pytestmark = BROWSER
sync_api = pytest.importorskip("playwright.sync_api")


def test_broadcast_page_hides_a_board_dealt_again_after_a_restart():
    bs = real_boards(limit=60)
    first, again = event_dicts(bs[0]), event_dicts(bs[1])            # one board number, two deals of it
    assert first[0]["board"] == again[0]["board"]
    other = event_dicts(next(b for b in bs if b[0].get("board") != bs[0][0].get("board")))
    hidden = {e["card"] for e in first + again if e["type"] == "deal"}
    with serve_in_thread(create_app(TableHub(), token=TOKEN, broadcast_delay={"boards": 1})) as base, \
            sync_api.sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        frames: list[str] = []
        responses: list = []
        page.on("websocket", lambda ws: ws.on("framereceived",
                                               lambda f: frames.append(f if isinstance(f, str) else f.decode())))
        page.on("response", lambda r: responses.append(r))
        page.goto(base + "/broadcast")
        page.wait_for_selector("#conn.live", timeout=10_000)

        post(base, "t1", first[:45])                                 # the node dies mid-play ...
        post(base, "t1", again[:30])                                 # ... and deals the same board again
        for k in range(30, len(again), 10):
            post(base, "t1", again[k:k + 10])
            time.sleep(0.1)
        page.reload()                                                 # a new viewer arrives mid-board
        page.wait_for_selector("#conn.live", timeout=10_000)
        time.sleep(2.5)                                               # several broadcast ticks pass

        def leaks(text: str) -> list[str]:
            return [c for c in hidden if f'"{c}"' in text]

        html = page.content()
        assert "data-card=" not in html and not leaks(html)
        assert not any(leaks(f) for f in frames), "a WebSocket frame carried a card of the board in play"
        for r in responses:
            try:
                body = r.text()
            except Exception:
                continue
            assert not leaks(body), f"{r.url} carried a card of the board in play"

        post(base, "t1", other[:1])                                  # the table moves on
        page.wait_for_selector("[data-card]", timeout=5_000)
        shown = set(page.eval_on_selector_all("[data-card]", "els => els.map(e => e.dataset.card)"))
        assert shown == {e["card"] for e in again if e["type"] == "deal"}
        browser.close()
