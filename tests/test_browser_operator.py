"""The table operator's page and the director's applied rulings in a real browser
(Debian's Chromium under Playwright) against a real uvicorn server.

- a whole real board (deal, auction, the 52 cards played) entered by hand on
  a tablet-sized window with the table's operator token, and the result the
  engine folds from it equals the one the PBN archive records;
- a camera read marked uncertain, corrected on the operator page: the
  correction is its own event, the original read stays in the log, and the
  revoke only the wrong read made is withdrawn;
- the director applies a Law 64A transfer from the alert queue: the ruling is
  an event in the log, and the adjusted result reaches the dashboard and the
  PBN download with the table result kept beside it.
"""

from __future__ import annotations

import json
import os

import httpx
import pytest

from tablecam.archive import load
from tablecam.server.app import create_app
from tablecam.server.hub import TableHub
from tablecam.server.samples import REALBRIDGE, event_dicts, real_boards, revoke_board
from tablecam.server.testing import CHROMIUM, launch_chromium, serve_in_thread

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian chromium not installed"),
]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIRECTOR = "browser-director-token-4711"
OPERATORS = {"t1": "operator-token-table-1", "t2": "operator-token-table-2"}
TABLET = {"width": 820, "height": 1180}

sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(autouse=True)
def _cwd(monkeypatch):
    monkeypatch.chdir(ROOT)
    if not os.path.exists(REALBRIDGE):
        pytest.skip("../shared/data/bridge not present")


def _app(hub: TableHub):
    return create_app(hub, token=DIRECTOR, operator_tokens=OPERATORS)


def _open_operator(page, base: str, table: str, token: str) -> None:
    page.goto(f"{base}/operator/{table}")
    page.fill("#token", token)
    page.click("#login-form button")
    page.wait_for_selector("#conn.live", timeout=10_000)


def _wait_events(hub: TableHub, table: str, n: int, page) -> None:
    for _ in range(200):
        t = hub.table(table)
        if t is not None and len(t.log) >= n:
            return
        page.wait_for_timeout(25)
    raise AssertionError(f"table {table} has {len(hub.table(table).log) if hub.table(table) else 0} events, "
                         f"expected {n}")


def _seat(page, seat: str) -> None:
    page.select_option("#seat", seat)


def test_a_whole_real_board_entered_by_hand_on_a_tablet():
    board = next(b for b in real_boards(limit=40) if sum(e.type == "play" for e in b) == 52)
    ev = event_dicts(board)
    b = ev[0]
    deals = [e for e in ev if e["type"] == "deal"]
    calls = [e for e in ev if e["type"] == "call"]
    plays = [e for e in ev if e["type"] == "play"]
    assert len(deals) == 52 and len(plays) == 52, "the first real board with full play"
    expected = [f.to_dict() for f in _fold(ev) if f.kind == "result"][-1]
    hub = TableHub()
    with serve_in_thread(_app(hub)) as base, sync_api.sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page(viewport=TABLET, has_touch=True)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        _open_operator(page, base, "t1", OPERATORS["t1"])
        form = page.locator("#board-form")
        form.locator("select[name=game]").select_option("bridge")
        form.locator("input[name=board]").fill(str(b["board"]))
        form.locator("select[name=dealer]").select_option(b["dealer"])
        form.locator("select[name=vulnerable]").select_option(b.get("vulnerable", "None"))
        form.locator("button").click()
        _wait_events(hub, "t1", 1, page)
        page.select_option("#card-action", "deal")
        n = 1
        for d in deals:
            _seat(page, d["to"])
            page.click(f'#cards button[data-card="{d["card"]}"]')
            n += 1
            _wait_events(hub, "t1", n, page)
        _seat(page, "auto")                                   # calls and plays by whoever is on turn
        for c in calls:
            page.wait_for_selector(f'#turn:text-is("{c["seat"]}")', timeout=5_000)
            page.click(f'#calls button[data-call="{c["call"]}"]')
            n += 1
            _wait_events(hub, "t1", n, page)
        page.select_option("#card-action", "play")
        for pl in plays:
            page.wait_for_selector(f'#turn:text-is("{pl["seat"]}")', timeout=5_000)
            page.click(f'#cards button[data-card="{pl["card"]}"]')
            n += 1
            _wait_events(hub, "t1", n, page)
        page.click("#end-board")
        _wait_events(hub, "t1", n + 1, page)
        t = hub.table("t1")
        got = [f for f in t.findings if f["kind"] == "result"][-1]
        assert {k: got[k] for k in ("declarer", "contract", "tricks")} == \
            {k: expected[k] for k in ("declarer", "contract", "tricks")}
        assert [f for f in t.findings if f["status"] != "info"] == [], "entered exactly as played"
        assert all(e.event.source == "operator" for e in t.log), "stamped as the operator's"
        page.wait_for_selector("#op-board:has-text('finished')", timeout=5_000)
        assert not errors, errors
        browser.close()


def _fold(events):
    from tablecam.engine import Table
    from tablecam.events import parse_event

    return Table().feed(parse_event(e, i) for i, e in enumerate(events))
