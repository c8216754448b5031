"""Take screenshots of every dashboard view with Debian's Chromium: ``python tests/screenshots.py``.

Builds a realistic session from real PBN boards (one with an injected revoke,
one table silent, one camera degraded), serves it on a real uvicorn server
and saves PNGs into ``docs/screenshots/`` (laptop 1366x900 and tablet
820x1180; the table operator's page on the tablet). Run from the repository root (the data path is ``../shared``).
"""

from __future__ import annotations

import argparse
import os
import time

from live_server import launch_chromium, serve_in_thread

from tablecam.server.app import create_app
from tablecam.server.hub import TableHub
from tablecam.sim.real_deals import real_boards, real_photo_frame, revoke_board

TOKEN = "screenshot-token-not-secret"


def build_session(hub: TableHub) -> None:
    """Eight tables in different states of a real session."""
    bs = real_boards(limit=120)
    numbers: dict = {}
    for b in bs:  # one board per board number: a table plays each board once
        numbers.setdefault(b[0].get("board"), b)
    boards = list(numbers.values())
    now = time.time()
    rev, info = revoke_board()
    for i, e in enumerate(rev[:info["event"] + 6]):
        if i == info["event"]:   # the camera was not sure of the revoke card: the operator page lists it
            e = {**e.to_dict(), "source": "camera", "conf": 0.41, "uncertain": True}
        hub.ingest("1", e, received=now - 40 + i * 0.3)
    try:  # the camera's frame of the moment (a real photo with its annotated cards)
        jpg, cards, w, h = real_photo_frame()
        hub.add_frame("1", jpg, cards, "image/jpeg", w, h, at=now - 40 + info["event"] * 0.3 + 0.5)
    except OSError:
        pass
    for t in range(2, 9):
        seq = boards[(t * 2) % len(boards)] + boards[(t * 2 + 1) % len(boards)]
        cut = [len(seq) - 1, 20, 60, 75, 100, 130, 150][t - 2] if t - 2 < 7 else len(seq) // 2
        cut = min(cut, len(seq))
        base = now - (900 if t == 5 else 30)  # table 5 has gone silent
        for i, e in enumerate(seq[:cut]):
            hub.ingest(str(t), e, received=base + i * 0.1)
    # other games at the same venue: a Vira table (three active players, talong) and a whist table
    import glob

    from tablecam.archive import load

    for tid, pattern in (("9", "tests/data/vira/vira-8-spel-hemma.jsonl"),
                         ("10", "tests/data/whist/auction-example-2-ten.jsonl")):
        for path in sorted(glob.glob(pattern))[:1]:
            items = list(load(path))
            for i, e in enumerate(items[: len(items) * 2 // 3]):
                hub.ingest(tid, e, received=now - 25 + i * 0.05)
            hub.set_health(tid, "shoe", "ok")
            hub.set_health(tid, "camera", "ok")
    hub.set_health("1", "shoe", "ok")
    hub.set_health("1", "camera", "ok")
    hub.set_health("3", "camera", "degraded", "glare on the left quarter")
    hub.set_health("5", "shoe", "down", "serial line silent")
    for t in ("2", "4", "6", "7", "8"):
        hub.set_health(t, "shoe", "ok")
        hub.set_health(t, "camera", "ok")
    # one handled alert for the history
    alerts = [a for a in hub.alerts() if a["kind"] == "revoke"]
    if alerts:
        hub.acknowledge(alerts[0]["id"], "Anna (TD)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=os.path.join("docs", "screenshots"))
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)

    from playwright.sync_api import sync_playwright

    hub = TableHub(silent_after=120)
    build_session(hub)
    app = create_app(hub, token=TOKEN, broadcast_delay={"boards": 1})
    shots = []
    with serve_in_thread(app) as base, sync_playwright() as p:
        browser = launch_chromium(p)
        for name, size in (("laptop", {"width": 1366, "height": 900}), ("tablet", {"width": 820, "height": 1180})):
            ctx = browser.new_context(viewport=size, device_scale_factor=1)
            page = ctx.new_page()
            page.goto(base + "/")
            page.fill("#token", TOKEN)
            page.click("#login-form button")
            page.wait_for_selector("#conn.live")
            page.fill("#director-name", "Anna (TD)")
            page.wait_for_selector(".tile")
            time.sleep(0.5)

            def shot(view: str) -> None:
                path = os.path.join(args.out, f"{view}-{name}.png" if name != "laptop" else f"{view}.png")
                page.evaluate("window.scrollTo(0, 0)")
                time.sleep(0.2)
                page.screenshot(path=path, full_page=(view in ("alerts", "table")))
                shots.append(path)

            shot("tables")
            if name == "laptop" and page.locator('.tile[data-table="9"]').count():
                page.click('.tile[data-table="9"]')
                page.wait_for_selector("#board .hand")
                time.sleep(0.5)
                shot("table-vira")
                page.click('nav a[data-view="grid"]')
            page.click('.tile[data-table="1"]')
            page.wait_for_selector("#board .hand")
            time.sleep(0.5)
            shot("table")
            page.click('nav a[data-view="alerts"]')
            page.wait_for_selector(".alert")
            page.locator(".alert details").first.evaluate("d => d.open = true")
            page.wait_for_selector(".frame-box svg", timeout=5000)
            form = page.locator(".alert form[data-rule]").first
            if form.count():
                form.locator("select[name=option]").select_option(index=1)
                form.locator("textarea").fill("Revoke established at trick 3; adjust at the end of play.")
            shot("alerts")
            if name == "laptop":
                page.click('nav a[data-view="archive"]')
                page.wait_for_selector("#view-archive .panel")
                shot("archive")
            bpage = ctx.new_page()
            bpage.goto(base + "/broadcast#2")
            bpage.wait_for_selector("[data-card]")
            for _ in range(6):  # step back through the tricks: the viewer's trick-by-trick replay
                bpage.click('[data-step="prev"]')
            bpage.evaluate("window.scrollTo(0, 0)")
            time.sleep(0.3)
            path = os.path.join(args.out, "broadcast.png" if name == "laptop" else f"broadcast-{name}.png")
            bpage.screenshot(path=path)
            shots.append(path)
            if name == "tablet":  # the table's operator page (the director's token opens it too)
                opage = ctx.new_page()
                opage.goto(base + "/operator/1")
                opage.fill("#token", TOKEN)
                opage.click("#login-form button")
                opage.wait_for_selector("#reads .read")
                time.sleep(0.3)
                path = os.path.join(args.out, f"operator-{name}.png")
                opage.screenshot(path=path, full_page=True)
                shots.append(path)
            ctx.close()
        browser.close()
    for s in shots:
        print(s)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
