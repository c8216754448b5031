"""The broadcast shows how a board ended - its claim and its result - once the board is public.

Real boards of the RealBridge PBN: one that ended in a claim (its play stops
before trick 13), then another board at the same table. While the claimed
board is the table's last, nothing of it is public; once the table has moved
on, the broadcast shows the claim and the result beside the cards left in
hand, through the whitelist only. Checked in the delayed fold and in Chromium.
"""

from __future__ import annotations

import json
import os

import pytest

from tablecam.server.broadcast import OUTCOME_FIELDS, BroadcastDelay, BroadcastView
from tablecam.server.hub import TableHub
from tablecam.sim.real_deals import REALBRIDGE, event_dicts, real_boards

pytestmark = pytest.mark.skipif(not os.path.exists(REALBRIDGE), reason="../shared/data/bridge not present")


def _then_another(wanted) -> tuple[list, list]:
    """A real board for which ``wanted(board)`` holds, and a board of another number to follow it at the
    same table (the same number next would be the same deal, in play again: still hidden)."""
    boards = real_boards(REALBRIDGE, limit=200)
    b = next(b for b in boards if wanted(b))
    return b, next(n for n in boards if n[0].get("board") != b[0].get("board"))


def _claimed_and_next() -> tuple[list, list]:
    return _then_another(lambda b: any(e.type == "claim" for e in b))


def test_broadcast_shows_the_claim_and_result_only_after_the_delay():
    claimed, following = _claimed_and_next()
    claim = next(e for e in claimed if e.type == "claim")
    hub = TableHub()
    view = BroadcastView(hub, BroadcastDelay(boards=1, minutes=0))
    for e in event_dicts(claimed):
        hub.ingest("t1", e, received=100.0)
    view.advance(now=1000.0)
    st = view.state("t1")
    assert "claim" not in st and "result" not in st and st["board"] is None   # still the table's board: hidden

    for e in event_dicts(following)[:1]:                    # the table moves on to the next board
        hub.ingest("t1", e, received=200.0)
    view.advance(now=1000.0)
    st = view.state("t1")
    assert st["board"] == claimed[0].get("board") and st["phase"] == "finished"
    assert st["claim"] == {"seat": str(claim.get("seat")), "tricks": claim.get("tricks")}
    res = st["result"]
    assert set(res) <= {"text", *OUTCOME_FIELDS} and res["contract"] and res["declarer"]
    assert res["tricks"] is not None and res["text"].startswith(res["contract"])
    left = sum(len(v) for v in st["hands"].values())
    assert left > 0                                          # the cards the claim left unplayed are still shown


def test_a_board_played_out_shows_its_result_and_no_claim():
    played, nxt = _then_another(lambda b: not any(e.type == "claim" for e in b)
                                         and sum(e.type == "play" for e in b) == 52)
    hub = TableHub()
    view = BroadcastView(hub, BroadcastDelay(boards=1))
    for e in event_dicts(played) + event_dicts(nxt)[:1]:
        hub.ingest("t1", e, received=1.0)
    view.advance(now=10.0)
    st = view.state("t1")
    assert "claim" not in st and st["result"]["tricks"] is not None
    assert json.dumps(st).count("result") == 1


@pytest.mark.browser
def test_broadcast_page_shows_claim_and_result():
    from tablecam.server.app import create_app
    from live_server import CHROMIUM, launch_chromium, serve_in_thread

    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian chromium not installed")
    sync_api = pytest.importorskip("playwright.sync_api")
    claimed, following = _claimed_and_next()
    claim = next(e for e in claimed if e.type == "claim")
    hub = TableHub()
    for e in event_dicts(claimed) + event_dicts(following)[:1]:
        hub.ingest("t1", e)
    app = create_app(hub, token="browser-test-token-4711", broadcast_delay=BroadcastDelay(boards=1))
    with serve_in_thread(app) as base, sync_api.sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(base + "/broadcast#t1")
        page.locator(".tricksum .result").wait_for(timeout=10_000)
        text = page.locator(".tricksum").inner_text()
        assert f"Claim: {claim.get('seat')} claims {claim.get('tricks')} trick" in text
        assert "the cards left in hand were not played" in text and "Result:" in text
        shots = os.environ.get("TABLECAM_SCREENSHOTS")
        if shots:
            os.makedirs(shots, exist_ok=True)
            page.screenshot(path=os.path.join(shots, "broadcast-claim.png"), full_page=True)
        assert not errors, errors
        browser.close()
