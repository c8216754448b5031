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
from tablecam.sim.real_deals import event_dicts, real_boards, revoke_board
from live_server import CHROMIUM, launch_chromium, serve_in_thread

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian chromium not installed"),
    pytest.mark.usefixtures("real_bridge_data"),
]
DIRECTOR = "browser-director-token-4711"
OPERATORS = {"t1": "operator-token-table-1", "t2": "operator-token-table-2"}
TABLET = {"width": 820, "height": 1180}

sync_api = pytest.importorskip("playwright.sync_api")


def _app(hub: TableHub):
    return create_app(hub, token=DIRECTOR, operator_tokens=OPERATORS)


def _page(browser, viewport: dict = TABLET) -> tuple:
    """A new page of the given size and the list its script errors go to (a test ends with none)."""
    page = browser.new_page(viewport=viewport, has_touch=viewport is TABLET)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return page, errors


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
        page, errors = _page(browser)
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


def _post(base: str, table: str, events: list[dict], token: str = DIRECTOR) -> dict:
    r = httpx.post(f"{base}/api/tables/{table}/events", json=events, timeout=10,
                   headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200, r.text
    return r.json()


def test_a_camera_read_marked_uncertain_corrected_on_the_operator_page():
    board, info = revoke_board()
    ev = event_dicts(board)
    cut = info["event"]
    wrong = dict(ev[cut], source="camera", conf=0.38, uncertain=True)
    hub = TableHub()
    with serve_in_thread(_app(hub)) as base, sync_api.sync_playwright() as p:
        _post(base, "t1", ev[:cut] + [wrong])
        assert [f["status"] for f in hub.table("t1").findings if f["kind"] == "revoke"] == ["pending"]
        browser = launch_chromium(p)
        page, errors = _page(browser)
        _open_operator(page, base, "t1", OPERATORS["t1"])
        read = page.locator(f'#reads .read[data-index="{cut}"]')
        read.wait_for(timeout=5_000)
        assert page.locator("#reads-count").inner_text() == "1"
        read.locator("input[name=value]").fill(info["held"])
        read.locator("button[type=submit]").click()
        page.wait_for_selector("#reads-count:text-is('0')", timeout=5_000)
        t = hub.table("t1")
        assert str(t.log[cut].event.get("card")) == info["card"], "the original read stays in the log"
        fix = t.log[-1].event
        assert fix.type == "correct" and fix.get("event") == cut and str(fix.get("card")) == info["held"]
        assert fix.get("was") == info["card"] and fix.source == "operator"
        steps = [f["status"] for f in t.findings if f["kind"] == "revoke"]
        assert steps == ["pending", "withdrawn"]
        assert {"seat": info["seat"], "card": info["held"]} in t.snapshot()["trick"]["cards"]
        # a second uncertain read, confirmed as it was
        nxt = dict(ev[cut + 1], source="camera", conf=0.5, uncertain=True)
        _post(base, "t1", [nxt])
        row = page.locator(f'#reads .read[data-index="{cut + 2}"]')
        row.wait_for(timeout=5_000)
        row.locator("button.confirm").click()
        page.wait_for_selector("#reads-count:text-is('0')", timeout=5_000)
        assert t.log[-1].event.type == "confirm" and t.log[-1].event.get("event") == cut + 2
        assert not errors, errors
        browser.close()


def _transfer_board() -> tuple[list[dict], dict]:
    """The first real board with an injected revoke for which the engine transfers tricks (Law 64A)."""
    for skip in range(12):
        board, info = revoke_board(skip=skip)
        ev = event_dicts(board)
        if any(f.kind == "trick_transfer" and f.extra.get("tricks") for f in _fold(ev)):
            return ev, info
    raise LookupError("no real board with a Law 64A transfer")


def test_the_director_applies_a_law_64a_transfer_and_the_result_changes_everywhere():
    ev, info = _transfer_board()
    hub = TableHub()
    with serve_in_thread(_app(hub)) as base, sync_api.sync_playwright() as p:
        _post(base, "t1", ev)
        t = hub.table("t1")
        if not any(f["kind"] == "result" for f in t.findings):
            _post(base, "t1", [{"type": "end"}])
        transfer = next(f for f in t.findings if f["kind"] == "trick_transfer" and f["tricks"])
        alert_id = next(a["id"] for a in hub.alerts() if transfer["id"] in a["finding_ids"])  # the revoke's alert
        result = [f for f in t.findings if f["kind"] == "result"][-1]
        n = transfer["tricks"]
        other = 2 if n == 1 else 1
        browser = launch_chromium(p)
        page, errors = _page(browser, {"width": 1280, "height": 900})
        page.goto(base + "/#/alerts")
        page.fill("#token", DIRECTOR)
        page.click("#login-form button")
        page.wait_for_selector("#conn.live", timeout=10_000)
        page.fill("#director-name", "Anna (TD)")
        page.dispatch_event("#director-name", "change")
        card = page.locator(f'.alert[data-alert="{alert_id}"]')
        card.wait_for(timeout=5_000)
        card.locator("button", has_text="Acknowledge").click()
        form = card.locator("form[data-rule]")
        form.wait_for(timeout=5_000)
        choices = form.locator("select[name=apply] option").all_inner_texts()
        assert choices[1].startswith(f"Law 64A: transfer {n} trick") and "(as computed)" in choices[1]
        assert any(c.startswith("Law 64B") for c in choices) and any(c.startswith("Law 64C") for c in choices)
        form.locator("select[name=apply]").select_option(f"64A:{other}")
        form.locator("textarea").fill(f"Law 64A: {other} trick(s) to the non-offenders.")
        form.locator("button[type=submit]").click()
        page.click('[data-filter="all"]')
        ruled = page.locator(f'.alert.state-ruled[data-alert="{alert_id}"]')
        ruled.wait_for(timeout=5_000)
        assert "Applied to board" in ruled.inner_text()
        applied = [e.event for e in t.log if e.event is not None and e.event.type == "director_ruling"]
        assert len(applied) == 1 and applied[0].get("tricks") == other and applied[0].get("by") == "Anna (TD)"
        adj = [f for f in t.findings if f["kind"] == "director_ruling"][-1]
        declarer_revoked = (result["declarer"] in "NS") == (transfer["seat"] in "NS")
        delta = other - n          # tricks moved beyond what the engine had moved
        assert adj["tricks"] == result["tricks"] + (-delta if declarer_revoked else delta)
        assert adj["original"]["tricks"] == result["tricks"]
        # the table view lists it; the PBN download carries the adjusted Result and a note
        page.goto(base + "/#/table/t1")
        page.wait_for_selector("text=Director's ruling by Anna (TD)", timeout=5_000)
        pbn = httpx.get(f"{base}/api/tables/t1/archive", params={"format": "pbn"},
                        headers={"Authorization": f"Bearer {DIRECTOR}"}).text
        assert f'[Result "{adj["tricks"]}"]' in pbn and "{Director's ruling by Anna (TD)" in pbn
        # the broadcast shows it once the next board has started (the default delay)
        _post(base, "t1", [{"type": "board", "game": "bridge", "board": 99, "dealer": "N"}])
        bpage = browser.new_page(viewport={"width": 1280, "height": 900})
        bpage.goto(base + "/broadcast")
        bpage.wait_for_selector(".rulings .ruling", timeout=10_000)
        assert f", {adj['tricks']} tricks" in bpage.locator(".rulings").inner_text()
        assert not errors, errors
        browser.close()


def _nordic_events(game: str) -> list[dict]:
    """A simulated board of ``game`` as a table would enter it: the board's seat-out player as its own
    ``sit_out`` event (the page's board form names the game, number and dealer only)."""
    from tablecam.sim.session import session_events

    out = []
    for e in session_events(game, 1, 3, 0.0, 1):
        if e["type"] == "board":
            out.append({k: e[k] for k in ("type", "game", "board", "dealer")})
            if e.get("sit_out"):
                out.append({"type": "sit_out", "seat": e["sit_out"]})
        else:
            out.append(e)
    return out


def _enter(page, e: dict, game: str) -> None:
    """Enter one event on the operator page as a person would: the seat, then a pad or a form."""
    t = e["type"]
    if t == "board":
        form = page.locator("#board-form")
        form.locator("select[name=game]").select_option(e["game"])
        form.locator("input[name=board]").fill(str(e["board"]))
        form.locator("select[name=dealer]").select_option(e["dealer"])
        form.locator("button").click()
        page.wait_for_selector(f"#game-panel[data-game={e['game']}]", timeout=5_000)
        return
    if t == "end":
        page.click("#end-board")
        return
    if "seat" in e or "to" in e:
        _seat(page, e.get("seat") or e.get("to"))
    if t in ("deal", "play"):
        page.select_option("#card-action", t)
        page.click(f'#cards button[data-card="{e["card"]}"]')
        return
    if t in ("call", "bid") and set(e) <= {"type", "seat", "call", "bid"}:
        page.fill("#call-text input[name=call]", e.get("call") or e.get("bid"))
        page.click("#call-text button")
        return
    label = _LABELS.get((game, t)) or _LABELS[t]
    form = page.locator(f"#game-panel form.entry:has(button:text-is('{label}'))")
    for name, value in e.items():
        if name in ("type", "seat"):
            continue
        field = form.locator(f"[name={name}]")
        if field.get_attribute("type") == "checkbox":
            if value:
                field.check()
        elif field.evaluate("el => el.tagName") == "SELECT":
            field.select_option(str(value))
        else:
            field.fill(" ".join(value) if isinstance(value, list) else str(value))
    form.locator("button[type=submit]").click()


_LABELS = {("vira", "discard"): "Discard (ekartering)", ("pidro", "discard"): "Discard (non-trumps)",
           "bid": "Bid", "contract_choice": "Contract choice", "trump": "Trump", "buy":
           "Purchase from the talong", "show": "Cards shown (open misär)", "sit_out": "Sits out",
           "first_suit": "Högsta färg", "lay_down": "Trumps laid down", "redeal": "Redeal",
           "partner_ace": "Partner ace", "kitty_take": "Takes from the kitty", "kitty_give": "Gives to the kitty",
           "turn_kitty": "Kitty card turned (vip)", "renons_card": "Renons card", "jernhand": "Jernhånd"}


@pytest.mark.parametrize("game", ["whist", "pidro", "vira"])
def test_a_whole_nordic_board_entered_by_hand(game):
    events = _nordic_events(game)
    expected = [(f.kind, f.status, f.message) for f in _fold(events)]
    hub = TableHub()
    with serve_in_thread(_app(hub)) as base, sync_api.sync_playwright() as p:
        browser = launch_chromium(p)
        page, errors = _page(browser)
        _open_operator(page, base, "t2", OPERATORS["t2"])
        for n, e in enumerate(events, 1):
            _enter(page, e, game)
            _wait_events(hub, "t2", n, page)
        t = hub.table("t2")
        got = [e.event.to_dict() for e in t.log]
        want = [{k: v for k, v in e.items() if k not in ("ts", "source")} for e in events]
        assert [{k: v for k, v in g.items() if k not in ("ts", "source")} for g in got] == want
        hub.close_table("t2")
        assert [(f["kind"], f["status"], f["message"]) for f in t.findings] == expected
        assert not errors, errors
        browser.close()
