"""Director station API: the `tablecam serve` contract, alerts end to end, archive, security.

Real inputs: boards from ../shared/data/bridge/realbridge-2021.pbn, one with a
revoke swapped into its real play (tablecam.sim.real_deals.inject_revoke).
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import time

import pytest
from fastapi.testclient import TestClient

from tablecam.server.app import create_app
from tablecam.server.broadcast import BroadcastDelay
from tablecam.server.hub import TableHub
from tablecam.sim.real_deals import REALBRIDGE, event_dicts, real_boards, revoke_board

TOKEN = "test-director-token-0123"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HAS_DATA = os.path.exists(os.path.join(ROOT, REALBRIDGE))


def _has_bridge() -> bool:
    try:
        return hasattr(importlib.import_module("tablecam.rules.bridge"), "BridgeBoard")
    except ImportError:
        return False


needs_bridge = pytest.mark.skipif(not _has_bridge(), reason="bridge engine not built yet")
needs_data = pytest.mark.skipif(not HAS_DATA, reason="../shared/data/bridge not present")


@pytest.fixture(autouse=True)
def _cwd(monkeypatch):
    monkeypatch.chdir(ROOT)  # the contract's ../shared/... paths are relative to the repo root


@pytest.fixture
def hub():
    return TableHub()


@pytest.fixture
def client(hub):
    with TestClient(create_app(hub, token=TOKEN)) as c:
        yield c


def two_boards():
    """Two real boards with different numbers (the archive holds both rooms of each board)."""
    bs = real_boards(limit=60)
    b1 = bs[0]
    b2 = next(b for b in bs if b[0].get("board") != b1[0].get("board"))
    return b1, b2


def post_events(client, table, events, **params):
    body = "\n".join(json.dumps(e) for e in events) + "\n"
    r = client.post(f"/api/tables/{table}/events", content=body, params=params,
                    headers={**AUTH, "Content-Type": "application/x-ndjson"})
    assert r.status_code == 200, r.text
    return r.json()


REVOKE_FINDING = {"kind": "revoke", "board": 4, "rule": "Law 61", "message": "S did not follow suit.",
                  "event": 0, "seat": "S", "trick": 3, "established": False, "status": "pending",
                  "options": ["correct the revoke", "accept"], "id": "4-revoke-S-3"}


# -- the contract -------------------------------------------------------------------
def test_healthz_without_credentials(client):
    r = client.get("/healthz")
    assert r.status_code == 200 and r.json()["ok"] is True


def test_every_director_endpoint_401_without_token(client):
    # every operation the app publishes (routers are included lazily, so app.routes does not list them)
    checked = 0
    for path, operations in client.app.openapi()["paths"].items():
        if not path.startswith("/api/"):
            continue
        url = path.replace("{table_id}", "t1").replace("{alert_id}", "1").replace("{frame_id}", "1")
        for method in (m.upper() for m in operations):
            r = client.request(method, url, json={})
            assert r.status_code == 401, (method, url, r.status_code)
            assert r.headers.get("www-authenticate") == "Bearer"
            r = client.request(method, url, json={}, headers={"Authorization": "Bearer wrong-token-xyz"})
            assert r.status_code == 401, (method, url)
            checked += 1
    assert checked >= 10


def test_tables_listed_with_state_for_director(client):
    post_events(client, "t7", [{"type": "board", "game": "bridge", "board": 3, "dealer": "E", "source": "shoe"}])
    r = client.get("/api/tables", headers=AUTH)
    assert r.status_code == 200
    t = {x["id"]: x for x in r.json()["tables"]}["t7"]
    assert t["board"] == 3 and t["dealer"] == "E" and t["game"] == "bridge"
    assert t["health"]["shoe"]["status"] == "ok" and t["health"]["camera"]["status"] == "unknown"
    assert t["silent"] is False and t["events"] == 1


def test_director_websocket_requires_token(client):
    from starlette.testclient import WebSocketDenialResponse

    with pytest.raises(WebSocketDenialResponse) as e:
        with client.websocket_connect("/api/ws"):
            pass
    assert e.value.status_code == 401
    with pytest.raises(WebSocketDenialResponse):
        with client.websocket_connect("/api/ws?token=nope"):
            pass
    with client.websocket_connect(f"/api/ws?token={TOKEN}") as ws:
        assert ws.receive_json()["type"] == "tables"
    with client.websocket_connect("/api/ws", headers=AUTH) as ws:
        assert ws.receive_json()["type"] == "tables"


def test_create_app_refuses_without_token():
    with pytest.raises(ValueError, match="refusing to start"):
        create_app(TableHub())
    with TestClient(create_app(TableHub(), insecure_demo=True)) as c:
        assert c.get("/api/tables").status_code == 200


def test_serve_refuses_to_start_without_token(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "TABLECAM_DIRECTOR_TOKEN"}
    p = subprocess.run([sys.executable, "-m", "tablecam", "serve", "--port", "1"], capture_output=True,
                       text=True, env=env, timeout=60, cwd=ROOT)
    assert p.returncode != 0
    assert "TABLECAM_DIRECTOR_TOKEN" in p.stderr and "--insecure-demo" in p.stderr


def test_serve_starts_with_token_from_environment(tmp_path):
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    env = {**os.environ, "TABLECAM_DIRECTOR_TOKEN": TOKEN}
    log = tmp_path / "table-12.jsonl"
    log.write_text('{"type": "board", "game": "bridge", "board": 5, "dealer": "W"}\nnot json\n')
    p = subprocess.Popen([sys.executable, "-m", "tablecam", "serve", "--host", "127.0.0.1", "--port", str(port),
                          "--replay", str(log), "--speed", "0"],
                         env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        import httpx

        deadline = time.time() + 30
        while True:
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except httpx.HTTPError:
                assert time.time() < deadline and p.poll() is None, p.stderr.read() if p.poll() is not None else ""
                time.sleep(0.2)
        assert r.status_code == 200
        assert httpx.get(f"http://127.0.0.1:{port}/api/tables").status_code == 401
        tables = httpx.get(f"http://127.0.0.1:{port}/api/tables", headers=AUTH).json()["tables"]
        assert [(t["id"], t["board"], t["events"]) for t in tables] == [("table-12", 5, 1)], "--replay fed it"
        alerts = httpx.get(f"http://127.0.0.1:{port}/api/alerts", headers=AUTH).json()["alerts"]
        assert [a["kind"] for a in alerts] == ["bad_event"], "the unreadable line reached the director"
        import asyncio

        import websockets

        async def ws_status(url: str) -> int:
            try:
                async with websockets.connect(url) as ws:
                    await ws.recv()
                    return 101
            except websockets.exceptions.InvalidStatus as e:
                return e.response.status_code

        assert asyncio.run(ws_status(f"ws://127.0.0.1:{port}/api/ws")) == 401
        assert asyncio.run(ws_status(f"ws://127.0.0.1:{port}/api/ws?token={TOKEN}")) == 101
    finally:
        p.terminate()
        p.wait(10)


# -- ingestion and validation -----------------------------------------------------------
def test_ingest_bad_lines_become_bad_event_findings(client):
    body = '{"type":"board","game":"bridge","board":1,"dealer":"N"}\nnot json\n{"type":"teleport"}\n'
    r = client.post("/api/tables/t1/events", content=body, headers={**AUTH, "Content-Type": "text/plain"})
    assert r.status_code == 200
    kinds = [f["kind"] for f in r.json()["findings"]]
    assert kinds.count("bad_event") >= 2
    log = client.get("/api/tables/t1/events", headers=AUTH).json()
    assert log["total"] == 3 and log["events"][1]["type"] == "unreadable"


def test_ingest_a_log_saved_with_a_byte_order_mark_keeps_its_board(client):
    """`curl --data-binary @log.jsonl` of a log a Windows editor saved: the
    byte-order mark must not turn the board line into a bad event."""
    body = ("\ufeff" + json.dumps({"type": "board", "game": "bridge", "board": 1, "dealer": "N"}) + "\r\n"
            + json.dumps({"type": "deal", "to": "N", "card": "SA"}) + "\r\n").encode("utf-8")
    r = client.post("/api/tables/bom1/events", content=body,
                    headers={**AUTH, "Content-Type": "application/x-ndjson"})
    assert r.status_code == 200 and r.json()["received"] == 2
    assert not [f for f in r.json()["findings"] if f["kind"] == "bad_event"]


def test_ingest_json_list_and_clear_4xx(client):
    r = client.post("/api/tables/t1/events", json=[{"type": "board", "game": "vira", "board": 1}], headers=AUTH)
    assert r.status_code == 200 and r.json()["received"] == 1
    r = client.post("/api/tables/t1/events", content=b"[{", headers={**AUTH, "Content-Type": "application/json"})
    assert r.status_code == 400 and "not valid JSON" in r.json()["detail"]
    r = client.post("/api/tables/t1/events", json=42, headers=AUTH)
    assert r.status_code == 422
    r = client.post("/api/tables/bad%20id!/events", json=[], headers=AUTH)
    assert r.status_code in (404, 422)


def test_request_bodies_validated(client, hub):
    hub.ingest("t1", REVOKE_FINDING)
    aid = hub.alerts()[0]["id"]
    r = client.post(f"/api/alerts/{aid}/acknowledge", json={}, headers=AUTH)
    assert r.status_code == 422 and r.json()["detail"][0]["loc"][-1] == "by"
    r = client.post(f"/api/alerts/{aid}/acknowledge", json={"by": "TD", "admin": True}, headers=AUTH)
    assert r.status_code == 422
    r = client.post(f"/api/alerts/{aid}/ruling", json={"by": "TD", "text": ""}, headers=AUTH)
    assert r.status_code == 422
    r = client.post("/api/alerts/999/acknowledge", json={"by": "TD"}, headers=AUTH)
    assert r.status_code == 404
    r = client.post("/api/tables/t1/health", json={"source": "toaster", "status": "ok"}, headers=AUTH)
    assert r.status_code == 422


# -- alerts -------------------------------------------------------------------------
def test_alert_lifecycle_acknowledge_then_ruling_keeps_who_and_when(client, hub):
    post_events(client, "t3", [REVOKE_FINDING])
    post_events(client, "t3", [{**REVOKE_FINDING, "established": True, "status": "established",
                                "message": "S's revoke is established."}])
    alerts = client.get("/api/alerts", headers=AUTH).json()["alerts"]
    assert len(alerts) == 1, "the same finding id updates one alert"
    a = alerts[0]
    assert a["status"] == "established" and a["state"] == "open" and len(a["history"]) == 2
    assert a["rule_ref"]["title"].startswith("Failure to follow suit") and a["rule_ref"]["url"].startswith("https://")
    assert client.get("/api/tables", headers=AUTH).json()["tables"][0]["open_alerts"] == 1

    t0 = time.time()
    r = client.post(f"/api/alerts/{a['id']}/acknowledge", json={"by": "Anna (TD)"}, headers=AUTH)
    assert r.status_code == 200 and r.json()["state"] == "acknowledged"
    assert r.json()["acknowledged"]["by"] == "Anna (TD)" and r.json()["acknowledged"]["at"] >= t0
    r = client.post(f"/api/alerts/{a['id']}/ruling",
                    json={"by": "Anna (TD)", "option": "accept", "text": "Two tricks to EW at the end (Law 64A)."},
                    headers=AUTH)
    ruled = r.json()
    assert ruled["state"] == "ruled" and ruled["ruling"]["option"] == "accept"
    assert ruled["ruling"]["by"] == "Anna (TD)" and "Law 64A" in ruled["ruling"]["text"]
    assert client.get("/api/alerts?state=open", headers=AUTH).json()["alerts"] == []
    assert client.get("/api/tables", headers=AUTH).json()["tables"][0]["open_alerts"] == 0


def test_alert_pushed_on_websocket_within_100ms(client, hub):
    lat = []
    with client.websocket_connect("/api/ws", headers=AUTH) as ws:
        assert ws.receive_json()["type"] == "tables"
        for i in range(5):
            post_events(client, "t1", [{**REVOKE_FINDING, "id": f"r{i}"}])
            while True:
                msg = ws.receive_json()
                if msg["type"] == "alert":
                    lat.append(time.time() - msg["found_at"])
                    break
    lat.sort()
    assert lat[2] < 0.1, lat


@needs_bridge
@needs_data
def test_revoke_in_real_deal_raises_alert_with_evidence(client):
    board, info = revoke_board()
    out = post_events(client, "t9", event_dicts(board), close=True)
    revokes = [f for f in out["findings"] if f["kind"] == "revoke"]
    assert revokes and revokes[0]["seat"] == info["seat"] and revokes[0]["trick"] == info["trick"]
    alerts = [a for a in client.get("/api/alerts", headers=AUTH).json()["alerts"] if a["kind"] == "revoke"]
    assert len(alerts) == 1
    a = alerts[0]
    assert a["rule"].startswith("Law") and a["message"]
    trigger = [e for e in a["evidence"] if e["index"] == a["event"]]
    assert trigger, "evidence includes the triggering event"
    assert any(e["type"] == "play" and e["card"] == info["card"] and e["seat"] == info["seat"] for e in a["evidence"])


# -- broadcast ------------------------------------------------------------------------
@needs_bridge
@needs_data
def test_broadcast_holds_hands_until_next_board(client):
    b1, b2 = two_boards()
    dealt = {str(e.card) for e in b1 if e.type == "deal"}
    post_events(client, "t1", event_dicts(b1[:70]))
    pub = client.get("/public/tables")
    assert pub.status_code == 200
    text = pub.text + client.get("/public/tables/t1").text + client.get("/broadcast").text
    leaked = {c for c in dealt if f'"{c}"' in text}
    assert not leaked, f"public side showed {sorted(leaked)[:5]} before the delay"
    with client.websocket_connect("/ws/broadcast") as ws:
        hello = ws.receive_json()
        assert hello["type"] == "hello" and not any(f'"{c}"' in json.dumps(hello) for c in dealt)
    post_events(client, "t1", event_dicts(b1[70:] + b2[:1]))
    st = client.get("/public/tables/t1").json()
    assert st["board"] == b1[0].get("board")
    shown = {c for cards in st["dealt"].values() for c in cards}
    assert shown == dealt
    assert "open_findings" not in st and "extra" not in st


def test_broadcast_delay_in_minutes(hub):
    old = time.time() - 600
    hub.ingest("t1", {"type": "board", "game": "bridge", "board": 1, "dealer": "N"}, received=old)
    hub.ingest("t1", {"type": "board", "game": "bridge", "board": 2, "dealer": "E"}, received=time.time())
    with TestClient(create_app(hub, token=TOKEN, broadcast_delay=BroadcastDelay(boards=0, minutes=5))) as c:
        assert c.get("/public/tables/t1").json()["board"] == 1


def test_broadcast_only_chosen_tables(hub):
    hub.ingest("a", {"type": "board", "game": "bridge", "board": 1})
    hub.ingest("b", {"type": "board", "game": "bridge", "board": 1})
    with TestClient(create_app(hub, token=TOKEN, broadcast_tables=["a"])) as c:
        assert [t["table"] for t in c.get("/public/tables").json()["tables"]] == ["a"]
        assert c.get("/public/tables/b").status_code == 404


def test_public_endpoints_rate_limited_and_read_only(hub):
    with TestClient(create_app(hub, token=TOKEN, public_burst=5, public_rate_per_minute=1)) as c:
        codes = [c.get("/public/tables").status_code for _ in range(8)]
        assert codes[:5] == [200] * 5 and codes[-1] == 429
        assert c.get("/healthz").status_code == 200, "health checks are never rate-limited"
    with TestClient(create_app(hub, token=TOKEN)) as c:
        assert c.post("/public/tables", json={}).status_code == 405
        assert c.delete("/public/tables/a").status_code == 405


# -- archive --------------------------------------------------------------------------
@needs_data
def test_archive_jsonl_board_and_session(client):
    b1, b2 = two_boards()
    post_events(client, "t1", event_dicts(b1 + b2))
    board = b2[0].get("board")
    r = client.get(f"/api/tables/t1/archive?format=jsonl&board={board}", headers=AUTH)
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    lines = [json.loads(x) for x in r.text.splitlines()]
    assert lines[0]["type"] == "board" and lines[0]["board"] == board and len(lines) == len(b2)
    r = client.get("/api/archive?format=jsonl", headers=AUTH)
    assert len(r.text.splitlines()) == len(b1) + len(b2)
    assert client.get("/api/tables/t1/archive?format=jsonl&board=999", headers=AUTH).status_code == 404
    assert client.get("/api/tables/t1/archive?format=doc", headers=AUTH).status_code == 422


@needs_data
@pytest.mark.parametrize("fmt", ["pbn", "lin"])
def test_archive_pbn_lin_downloads(client, fmt):
    pytest.importorskip("tablecam.archive.export")
    b1 = real_boards(limit=1)[0]
    post_events(client, "t1", event_dicts(b1))
    r = client.get(f"/api/tables/t1/archive?format={fmt}&board={b1[0].get('board')}", headers=AUTH)
    assert r.status_code == 200, r.text
    deal_cards = sorted(str(e.card) for e in b1 if e.type == "deal")
    from tablecam.archive import load

    p = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"tablecam-test-archive.{fmt}")
    with open(p, "w", encoding="utf-8") as fp:
        fp.write(r.text)
    back = [e for e in load(p) if getattr(e, "type", None) == "deal"]
    assert sorted(str(e.card) for e in back) == deal_cards


# -- health and hygiene ----------------------------------------------------------------------
def test_health_reports_and_silent_tables(client, hub):
    r = client.post("/api/tables/t2/health", json={"source": "camera", "status": "degraded", "detail": "glare"},
                    headers=AUTH)
    assert r.status_code == 200
    t = client.get("/api/tables", headers=AUTH).json()["tables"][0]
    assert t["health"]["camera"] == {"status": "degraded", "detail": "glare", "last_seen": t["health"]["camera"]["last_seen"]}
    assert t["silent"] is True, "a table that never sent an event is silent"


def test_openapi_published_and_no_cdn(client):
    spec = client.get("/openapi.json").json()
    assert "/api/tables" in spec["paths"] and "/api/alerts/{alert_id}/ruling" in spec["paths"]
    assert client.get("/docs").status_code == 404, "Swagger UI loads from a CDN; not served"
    static = os.path.join(ROOT, "tablecam", "server", "static")
    for name in os.listdir(static):
        text = open(os.path.join(static, name), encoding="utf-8").read()
        text = text.replace('xmlns="http://www.w3.org/2000/svg"', "")   # an SVG's namespace name, not a resource
        assert "http://" not in text and "https://" not in text, f"{name} refers to an external resource"
    r = client.get("/")
    assert "default-src 'self'" in r.headers["content-security-policy"]


def test_rulings_restored_after_restart_by_finding_id():
    """The event store's seam: replay the events, then re-apply the stored ruling."""
    hub = TableHub()
    hub.ingest("t1", REVOKE_FINDING)
    aid = hub.alert_id_for("t1", REVOKE_FINDING["id"])
    ruled = hub.rule(aid, "Anna", "Score adjusted.", "accept")
    stored = ruled["ruling"]
    assert ruled["finding_id"] == REVOKE_FINDING["id"]

    fresh = TableHub()                       # the station restarted
    fresh.ingest("t1", REVOKE_FINDING)       # events replayed from the store
    assert fresh.restore("t1", REVOKE_FINDING["id"], ruling=stored)
    a = fresh.alert(fresh.alert_id_for("t1", REVOKE_FINDING["id"]))
    assert a["state"] == "ruled" and a["ruling"] == stored
    assert fresh.table("t1").open_alerts == 0
    assert not fresh.restore("t1", "no-such-finding", ruling=stored)


def test_config_file_and_environment_token(tmp_path, monkeypatch):
    from tablecam.server.config import ServerConfig

    p = tmp_path / "server.toml"
    p.write_text('[server]\nport = 9100\ndirector_token = "from-the-config-file"\n'
                 '[broadcast]\ndelay_boards = 2\ndelay_minutes = 1.5\ntables = ["3"]\n')
    monkeypatch.delenv("TABLECAM_DIRECTOR_TOKEN", raising=False)
    cfg = ServerConfig.load(str(p))
    assert (cfg.port, cfg.broadcast_delay_boards, cfg.broadcast_delay_minutes, cfg.broadcast_tables) == \
        (9100, 2, 1.5, ["3"])
    assert cfg.token() == "from-the-config-file"
    monkeypatch.setenv("TABLECAM_DIRECTOR_TOKEN", "from-the-environment")
    assert cfg.token() == "from-the-environment", "the environment wins over the file"


@needs_bridge
@needs_data
def test_replay_file_into_hub_gives_results():
    from tablecam.server.replayer import replay_into, table_id_for
    from tablecam.archive import load

    hub = TableHub()
    items = list(load(REALBRIDGE))[:400]
    n = replay_into(hub, table_id_for(REALBRIDGE), items, speed=0)
    assert n == 400
    t = hub.table("realbridge-2021")
    results = [f for f in t.findings if f["kind"] == "result"]
    assert results and all("contract" in r for r in results)
    assert not [a for a in hub.alerts() if a["severity"] == "alert"], "real boards raise no irregularity"


def test_slow_director_socket_is_dropped_not_waited_for():
    import asyncio

    from tablecam.server.app import CLIENT_QUEUE, Client

    async def go():
        c = Client(ws=None, director=True)
        for i in range(CLIENT_QUEUE + 5):
            c.put(f"m{i}", urgent=(i % 2 == 0))
        return c.dropped, c.queue.qsize(), c.queue.get_nowait()

    dropped, size, first = asyncio.run(go())
    assert dropped and size == 1 and first[2] is None  # only the close marker is left


def test_alerts_jump_the_queue():
    import asyncio

    from tablecam.server.app import Client

    async def go():
        c = Client(ws=None, director=True)
        c.put("tables-1")
        c.put("tables-2")
        c.put("alert", urgent=True)
        return [c.queue.get_nowait()[2] for _ in range(3)]

    assert asyncio.run(go()) == ["alert", "tables-1", "tables-2"]


@needs_data
def test_camera_frame_of_the_moment_is_alert_evidence(client, hub):
    import base64

    from tablecam.sim.real_deals import PHOTOS, real_photo_frame

    if not os.path.isdir(PHOTOS):
        pytest.skip("real photos not present")
    jpg, cards, w, h = real_photo_frame()
    post_events(client, "t5", [REVOKE_FINDING])          # the alert first, the frame a moment later
    r = client.post("/api/tables/t5/frames", headers=AUTH,
                    json={"image": base64.b64encode(jpg).decode(), "cards": cards, "width": w, "height": h})
    assert r.status_code == 200, r.text
    fid = r.json()["frame"]
    a = client.get("/api/alerts", headers=AUTH).json()["alerts"][0]
    assert a["frame"]["id"] == fid and len(a["frame"]["cards"]) == len(cards) >= 2
    img = client.get(f"/api/frames/{fid}", headers=AUTH)
    assert img.status_code == 200 and img.headers["content-type"] == "image/jpeg" and img.content == jpg
    assert client.get(f"/api/frames/{fid}").status_code == 401
    bad = client.post("/api/tables/t5/frames", headers=AUTH,
                      json={"image": base64.b64encode(b"not an image").decode()})
    assert bad.status_code == 422 and "JPEG or PNG" in bad.json()["detail"]
    assert client.post("/api/tables/t5/frames", headers=AUTH, json={"image": "%%%%%%%%%"}).status_code == 422


@needs_data
@pytest.mark.parametrize("fmt", ["pbn", "lin"])
def test_archive_download_opens_in_endplay(client, fmt):
    """The downloads open in another bridge tool: endplay's PBN and LIN parsers read the same deal and play."""
    pytest.importorskip("tablecam.archive.export")
    parsers = pytest.importorskip(f"endplay.parsers.{fmt}")
    b1, b2 = two_boards()
    post_events(client, "t1", event_dicts(b1 + b2))
    r = client.get(f"/api/tables/t1/archive?format={fmt}", headers=AUTH)
    assert r.status_code == 200
    boards = parsers.loads(r.text)
    assert len(boards) == 2
    for board, events in zip(boards, (b1, b2)):
        dealt = {str(e.to): set() for e in events if e.type == "deal"}
        for e in events:
            if e.type == "deal":
                dealt[str(e.to)].add(str(e.card))
        for seat, cards in dealt.items():
            hand = board.deal[{"N": 0, "E": 1, "S": 2, "W": 3}[seat]]
            got = {_ep(c) for c in hand}
            assert got == cards, (fmt, seat)
        plays = [str(e.card) for e in events if e.type == "play"]
        assert [_ep(c) for c in board.play][:len(plays)] == plays


def _ep(card) -> str:
    """An endplay card in the contract's notation (endplay writes suit symbols)."""
    from tablecam.cards import parse_card

    return str(parse_card(f"{card.suit.abbr}{card.rank.abbr}"))
