"""Real browser (Debian's Chromium under Playwright) against a real uvicorn server.

A real PBN board with a revoke swapped into its play is replayed into the
running server over HTTP; the director sees the alert appear live, acknowledges
it and records a ruling. The broadcast page is watched byte by byte (HTML, API
responses, WebSocket frames) to prove it never holds a hand before its delay.
"""

from __future__ import annotations

import time

import pytest

from tablecam.server.app import create_app
from tablecam.server.hub import TableHub
from tablecam.sim.real_deals import event_dicts, real_boards, revoke_board
from live_server import launch_chromium, serve_in_thread

from browser_helpers import BROWSER, TOKEN, login, post  # noqa: E402

pytestmark = BROWSER
sync_api = pytest.importorskip("playwright.sync_api")


def test_revoke_alert_live_acknowledge_and_ruling():
    hub = TableHub()
    board, info = revoke_board()
    events = event_dicts(board)
    cut = info["event"]
    with serve_in_thread(create_app(hub, token=TOKEN)) as base, sync_api.sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        login(page, base)
        page.fill("#director-name", "Anna (TD)")
        page.dispatch_event("#director-name", "change")

        post(base, "table-1", events[:cut])                 # deal, auction, first trick: no alert yet
        page.wait_for_selector('.tile[data-table="table-1"]', timeout=5_000)
        assert page.locator(".tile.alerting").count() == 0
        page.click('nav a[data-view="alerts"]')
        assert page.locator(".alert").count() == 0

        t0 = time.monotonic()
        post(base, "table-1", events[cut:cut + 1])          # the revoke
        card = page.locator(".alert", has=page.locator(".kind", has_text="revoke"))
        card.first.wait_for(timeout=5_000)
        seen_after = time.monotonic() - t0
        assert seen_after < 2.0, f"alert took {seen_after:.2f} s to appear"
        text = card.first.inner_text()
        assert f"seat {info['seat']}" in text and f"trick {info['trick']}" in text and "Law 61" in text
        assert "open" in card.first.locator(".pill").inner_text().lower()

        page.click('nav a[data-view="grid"]')
        page.wait_for_selector('.tile.alerting[data-table="table-1"]', timeout=5_000)
        page.click('nav a[data-view="alerts"]')

        card.first.locator("button", has_text="Acknowledge").click()
        card.first.locator(".pill", has_text="acknowledged").wait_for(timeout=5_000)
        assert "acknowledged by Anna (TD)" in card.first.inner_text()

        post(base, "table-1", events[cut + 1:cut + 8])       # play goes on: the revoke becomes established
        card.first.locator("text=established").first.wait_for(timeout=5_000)

        form = card.first.locator("form[data-rule]")
        options = form.locator("select[name=option] option").all_inner_texts()
        assert len(options) >= 3, options                   # (no option) + the rules' options + Other
        form.locator("select[name=option]").select_option(index=1)
        form.locator("textarea").fill("Revoke established; two tricks to the non-offenders at the end (Law 64A).")
        form.locator("button").click()
        page.click('[data-filter="all"]')
        ruled = page.locator(".alert.state-ruled")
        ruled.first.wait_for(timeout=5_000)
        assert "Ruling by Anna (TD)" in ruled.first.inner_text()

        a = [x for x in hub.alerts() if x["kind"] == "revoke"][0]
        assert a["state"] == "ruled" and a["ruling"]["by"] == "Anna (TD)" and a["ruling"]["option"] == options[1]
        assert a["acknowledged"]["by"] == "Anna (TD)" and a["acknowledged"]["at"] <= a["ruling"]["at"]

        page.click('nav a[data-view="grid"]')
        page.wait_for_selector('.tile[data-table="table-1"]:not(.alerting)', timeout=5_000)
        page.click('.tile[data-table="table-1"]')
        page.wait_for_selector("#board .hand", timeout=5_000)
        page.locator("#log div").nth(cut + 7).wait_for(timeout=5_000)  # the whole log so far (no eval: CSP)
        assert page.locator(".trick .slot").count() + page.locator("#tricks li").count() > 0
        assert not errors, errors
        browser.close()


def test_broadcast_never_holds_a_hand_before_its_delay():
    hub = TableHub()
    bs = real_boards(limit=60)
    b1 = bs[0]
    b2 = next(b for b in bs if b[0].get("board") != b1[0].get("board"))
    dealt = sorted({str(e.card) for e in b1 if e.type == "deal"})
    with serve_in_thread(create_app(hub, token=TOKEN, broadcast_delay={"boards": 1})) as base, \
            sync_api.sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        frames: list[str] = []
        responses: list = []
        page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(f if isinstance(f, str) else f.decode())))
        page.on("response", lambda r: responses.append(r))
        page.goto(base + "/broadcast")
        page.wait_for_selector("#conn.live", timeout=10_000)

        ev = event_dicts(b1)
        for k in range(0, len(ev), 10):                     # board 1 is being played, live
            post(base, "7", ev[k:k + 10])
            time.sleep(0.1)
        time.sleep(2.5)                                     # several broadcast ticks pass

        def leaks(text: str) -> list[str]:
            return [c for c in dealt if f'"{c}"' in text]

        html = page.content()
        assert 'data-card=' not in html and not leaks(html)
        assert not any(leaks(f) for f in frames), "a WebSocket frame carried a card before the delay"
        for r in responses:
            try:
                body = r.text()
            except Exception:
                continue
            assert not leaks(body), f"{r.url} carried a card before the delay"

        post(base, "7", event_dicts(b2[:1]))                # the table moves on to the next board
        page.wait_for_selector("[data-card]", timeout=5_000)
        shown = sorted(page.eval_on_selector_all("[data-card]", "els => els.map(e => e.dataset.card)"))
        assert shown == dealt
        assert f"Board {b1[0].get('board')}" in page.inner_text("#stage")
        browser.close()


def test_grid_red_on_open_alert_grey_when_silent_and_live_health():
    hub = TableHub(silent_after=60)
    old = time.time() - 600
    hub.ingest("quiet", {"type": "board", "game": "bridge", "board": 1, "dealer": "N", "source": "shoe"},
               received=old)
    hub.ingest("busy", {"type": "board", "game": "bridge", "board": 2, "dealer": "E", "source": "shoe"})
    with serve_in_thread(create_app(hub, token=TOKEN)) as base, sync_api.sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": 1024, "height": 768})
        login(page, base)
        page.wait_for_selector('.tile.silent[data-table="quiet"]', timeout=5_000)
        assert "shoe down" in page.inner_text('.tile[data-table="quiet"]')
        assert "silent" not in page.get_attribute('.tile[data-table="busy"]', "class")
        hub.ingest("busy", {"kind": "lead_out_of_turn", "rule": "Law 56", "message": "W led out of turn.",
                            "seat": "W", "trick": 1, "id": "loot-1"})
        page.wait_for_selector('.tile.alerting[data-table="busy"]', timeout=5_000)
        hub.set_health("busy", "camera", "degraded", "glare")
        page.locator('.tile[data-table="busy"]', has_text="camera degraded").wait_for(timeout=5_000)
        assert page.title().startswith("(1)")
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        # a forged table's markup is shown as text, never run
        hub.ingest("busy", {"kind": "<b id=x>forged</b>", "rule": "<script>alert(1)</script>",
                            "message": "<img id=pwn src=x onerror=alert(2)>", "id": "xss"})
        page.click('nav a[data-view="alerts"]')
        page.locator(".alert .msg", has_text="<img id=pwn").wait_for(timeout=5_000)
        assert page.locator("#pwn").count() == 0 and page.locator("b#x").count() == 0
        page.click('nav a[data-view="grid"]')
        # the grid is shown on hashchange, which fires after the click returns: a hidden tile takes no focus
        page.locator('.tile[data-table="busy"]').wait_for(state="visible", timeout=5_000)
        page.focus('.tile[data-table="busy"]')
        page.keyboard.press("Enter")
        page.wait_for_selector("#table-head", timeout=5_000)
        assert "#/table/busy" in page.url
        assert not dialogs, "no script from a forged table ran"
        browser.close()


def test_focused_tile_keeps_focus_when_the_grid_redraws():
    """Every table update redraws the grid; a director on the keyboard
    keeps the focused tile and Enter still opens that table."""
    hub = TableHub()
    for t in ("1", "2"):
        hub.ingest(t, {"type": "board", "game": "bridge", "board": 1, "dealer": "N", "source": "shoe"})
    with serve_in_thread(create_app(hub, token=TOKEN)) as base, sync_api.sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page()
        login(page, base)
        page.wait_for_selector('.tile[data-table="2"]', timeout=5_000)
        page.focus('.tile[data-table="2"]')
        hub.ingest("1", {"type": "board", "game": "bridge", "board": 2, "dealer": "E", "source": "shoe"})
        page.locator('.tile[data-table="1"]', has_text="Board 2").wait_for(timeout=5_000)  # redrawn
        assert page.evaluate("document.activeElement.dataset.table") == "2"
        page.keyboard.press("Enter")
        page.wait_for_selector("#table-head", timeout=5_000)
        assert "#/table/2" in page.url
        browser.close()


def test_alert_queue_filters_by_table():
    hub = TableHub()
    for t in ("3", "12"):
        hub.ingest(t, {"kind": "lead_out_of_turn", "rule": "Law 56", "message": f"Lead out of turn at {t}.",
                       "seat": "W", "trick": 1, "id": f"l{t}"})
    with serve_in_thread(create_app(hub, token=TOKEN)) as base, sync_api.sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page()
        login(page, base, "/#/alerts")
        page.click('nav a[data-view="alerts"]')
        page.wait_for_selector(".alert", timeout=5_000)
        assert page.locator(".alert").count() == 2
        page.select_option("#alert-table", "12")
        assert page.locator(".alert").count() == 1 and "at 12" in page.inner_text(".alert")
        hub.ingest("3", {"kind": "revoke", "rule": "Law 61", "message": "Another at 3.", "id": "r3"})
        time.sleep(0.5)
        assert page.locator(".alert").count() == 1, "a new alert of another table stays filtered out"
        page.select_option("#alert-table", "")
        assert page.locator(".alert").count() == 3
        browser.close()
