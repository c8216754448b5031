"""Table input by hand and the director's rulings applied, on real boards.

- each table's operator token (``TABLECAM_OPERATOR_TOKENS``): its own table
  only, 403 elsewhere, 401 without, as ``shared/contracts.md`` has it;
- a read corrected (``correct``): the board is folded again with it, the
  original stays in the log, an irregularity only the wrong read made is
  withdrawn; ``confirm`` is kept and judged as nothing;
- a ``director_ruling``: Law 64A with one or two tricks (replacing the
  engine's transfer), 64B, 64C/12C with the director's own numbers, 50D2;
  the adjusted result in the replay, the PBN (``Result`` and a note), the
  LIN (``mc`` and a comment), JSON Lines, and the broadcast after its delay;
- events entered at the station go through the table's node (store, bus,
  station) where one runs.
"""

from __future__ import annotations

import io
import json
import os
import time

import pytest
from fastapi.testclient import TestClient

from tablecam.archive.export import export
from tablecam.bus import make_bus
from tablecam.bus.station import Station as BusStation
from tablecam.engine import Table
from tablecam.events import parse_event, read_event_file
from tablecam.node import TableNode
from tablecam.server.app import create_app
from tablecam.server.config import ServerConfig
from tablecam.server.hub import TableHub
from tablecam.sim.real_deals import REALBRIDGE, event_dicts, revoke_board
from tablecam.server.security import parse_operator_tokens
from tablecam.store import EventStore

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRANSFER_LOG = os.path.join(ROOT, "tests", "data", "bridge", "revoke_transfer.jsonl")
DIRECTOR = "director-token-for-tests"
OPS = {"t1": "operator-token-one", "t2": "operator-token-two"}


@pytest.fixture(autouse=True)
def _cwd(monkeypatch):
    monkeypatch.chdir(ROOT)   # the real boards are found relative to the checkout


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _client(hub: TableHub | None = None) -> tuple[TestClient, TableHub]:
    hub = hub or TableHub()
    return TestClient(create_app(hub, token=DIRECTOR, operator_tokens=OPS)), hub


def _transfer_table() -> tuple[Table, list, object]:
    t = Table()
    out = t.feed(read_event_file(TRANSFER_LOG))
    return t, out, next(f for f in out if f.kind == "trick_transfer")


def _rule(t: Table, index: int = 999, **fields):
    return t.apply(parse_event({"type": "director_ruling", **fields}, index))


# -- the operator's credential -------------------------------------------------------

def test_operator_token_posts_and_reads_its_own_table_only():
    c, hub = _client()
    board = {"type": "board", "game": "bridge", "board": 1, "dealer": "N"}
    r = c.post("/api/tables/t1/events", json=board, headers=_bearer(OPS["t1"]))
    assert r.status_code == 200 and r.json()["received"] == 1
    assert c.post("/api/tables/t1/events", json=board).status_code == 401
    assert c.post("/api/tables/t1/events", json=board, headers=_bearer("not-a-token-at-all")).status_code == 401
    assert c.post("/api/tables/t1/events", json=board, headers=_bearer(OPS["t2"])).status_code == 403
    assert c.get("/api/tables/t1", headers=_bearer(OPS["t1"])).status_code == 200
    assert c.get("/api/tables/t1/events", headers=_bearer(OPS["t1"])).status_code == 200
    for path in ("/api/tables/t2", "/api/tables", "/api/alerts", "/api/archive", "/api/whoami",
                 "/api/tables/t1/archive"):
        assert c.get(path, headers=_bearer(OPS["t1"])).status_code == 403, path
    assert c.post("/api/tables/t1/health", json={"source": "shoe", "status": "ok"},
                  headers=_bearer(OPS["t1"])).status_code == 403
    assert c.post("/api/alerts/1/ruling", json={"by": "x", "text": "y"}, headers=_bearer(OPS["t1"])).status_code == 403
    # the director's token still opens everything
    assert c.post("/api/tables/t2/events", json=board, headers=_bearer(DIRECTOR)).status_code == 200
    # what the operator entered is marked as the operator's and stamped with a time
    ev = hub.table("t1").log[0].event
    assert ev.source == "operator" and ev.ts is not None
    page = c.get("/operator/t1")
    assert page.status_code == 200 and "/static/operator.js" in page.text and "token" in page.text.lower()


def test_operator_tokens_from_the_environment_or_the_config_file(monkeypatch):
    assert parse_operator_tokens("t1:secret1,t2:secret2") == {"t1": "secret1", "t2": "secret2"}
    cfg = ServerConfig.from_toml('[server.operator_tokens]\nt7 = "seven-seven-seven"\n')
    monkeypatch.delenv("TABLECAM_OPERATOR_TOKENS", raising=False)
    assert cfg.operators() == {"t7": "seven-seven-seven"}
    monkeypatch.setenv("TABLECAM_OPERATOR_TOKENS", "t1:secret-number-1")
    assert cfg.operators() == {"t1": "secret-number-1"}
    with pytest.raises(ValueError, match="director token"):
        create_app(TableHub(), token=DIRECTOR, operator_tokens={"t1": DIRECTOR})
    with pytest.raises(ValueError, match="not a table id"):
        create_app(TableHub(), token=DIRECTOR, operator_tokens={"../x": "long-enough-secret"})


# -- corrections ------------------------------------------------------------------

@pytest.mark.skipif(not os.path.exists(os.path.join(ROOT, REALBRIDGE)), reason="../shared/data not present")
def test_a_corrected_camera_read_withdraws_the_revoke_it_made_and_keeps_the_original():
    board, info = revoke_board()
    ev = event_dicts(board)
    cut = info["event"]
    wrong = dict(ev[cut], source="camera", conf=0.38, uncertain=True)
    hub = TableHub()
    hub.ingest_many("t1", ev[:cut] + [wrong])
    revoke = [f for f in hub.table("t1").findings if f["kind"] == "revoke"]
    assert revoke and revoke[-1]["status"] == "pending"
    out = hub.ingest("t1", {"type": "correct", "event": cut, "card": info["held"], "was": info["card"],
                            "source": "operator"})
    assert [(f.kind, f.status) for f in out] == [("revoke", "withdrawn")]
    t = hub.table("t1")
    assert t.log[cut].event.get("card") is not None and str(t.log[cut].event.get("card")) == info["card"]
    assert t.log[-1].event.type == "correct"
    trick = t.snapshot()["trick"]["cards"]
    assert {"seat": info["seat"], "card": info["held"]} in trick
    # the real play goes on (the card the swap moved is played where it really was): nothing irregular
    rest = []
    for e in ev[cut + 1:]:
        if e.get("type") == "play" and e["seat"] == info["seat"] and e["card"] == info["held"]:
            e = dict(e, card=info["card"])
        rest.append(e)
    hub.ingest_many("t1", rest)
    hub.close_table("t1")
    last = {f["id"]: f for f in t.findings if f.get("id")}
    assert [f for f in last.values() if f["status"] == "pending"] == []
    assert {f["kind"] for f in t.findings if f["status"] not in ("info",)} == {"revoke"}   # the withdrawn one
    original = [f for f in Table().feed(parse_event(e, i) for i, e in enumerate(
        ev[:cut] + [dict(ev[cut], card=info["held"])] + rest)) if f.kind == "result"][-1]
    result = [f for f in t.findings if f["kind"] == "result"][-1]
    assert (result["contract"], result["tricks"]) == (original.extra["contract"], original.extra["tricks"])
    # the archive holds the play that stood; JSON Lines keeps the read and the correction
    pbn = io.StringIO()
    export(hub.events_for("t1"), "pbn", pbn)
    assert info["held"][0] + info["held"][1:] in pbn.getvalue()
    jl = io.StringIO()
    export(hub.events_for("t1"), "jsonl", jl)
    lines = [json.loads(x) for x in jl.getvalue().splitlines()]
    assert any(x["type"] == "correct" and x["event"] == cut for x in lines)
    assert lines[cut]["card"] == info["card"] and lines[cut]["uncertain"] is True


def test_a_correction_of_something_not_in_the_board_is_a_bad_event_and_confirm_is_kept():
    t = Table()
    t.feed([])
    items = list(read_event_file(TRANSFER_LOG))[:62]
    for it in items:
        t.apply(it)
    out = t.apply(parse_event({"type": "correct", "event": 9999, "card": "SA"}, 62))
    assert [f.kind for f in out] == ["bad_event"]
    out = t.apply(parse_event({"type": "correct", "event": 61, "call": "1S"}, 63))  # a play has no call
    assert [f.kind for f in out] == ["bad_event"]
    assert t.apply(parse_event({"type": "confirm", "event": 61}, 64)) == []
    assert t.board.events[-1].type == "confirm"
    t.apply(parse_event({"type": "end"}, 65))
    (late,) = t.apply(parse_event({"type": "correct", "event": 61, "card": "C8"}, 66))
    assert late.kind == "bad_event" and "ended" in late.message and "director" in late.message


# -- rulings in the engine ------------------------------------------------------------

def test_law_64a_ruling_replaces_the_engines_transfer_and_keeps_the_table_result():
    t, out, tt = _transfer_table()
    result = next(f for f in out if f.kind == "result")
    assert tt.extra["tricks"] == 2 and result.extra["tricks"] == 7
    assert tt.options[0].startswith("Law 64A1: transfer 2 tricks") and any("64A2" in o for o in tt.options)
    assert any(o.startswith("Law 64B") for o in tt.options) and any(o.startswith("Law 64C") for o in tt.options)
    (f,) = _rule(t, law="64A", board=1, finding=tt.id, tricks=1, seat="E", by="Anna")
    assert f.kind == "director_ruling" and f.rule == "Law 64A" and f.status == "info"
    assert (f.extra["contract"], f.extra["declarer"], f.extra["tricks"]) == ("4S", "S", 6)
    assert f.extra["original"] == {"contract": "4S", "declarer": "S", "tricks": 7}
    (g,) = _rule(t, 1000, law="64B", board=1, finding=tt.id, by="Anna")
    assert g.extra["tricks"] == 5                                 # no transfer: the tricks as played
    assert next(x for x in t.boards[-1].findings if x.kind == "result").extra["tricks"] == 7


def test_law_12c_adjusted_score_with_the_directors_own_numbers():
    t, _, _ = _transfer_table()
    (f,) = _rule(t, law="12C1", board=1, contract="3N", declarer="W", tricks=8, score={"NS": -100, "EW": 100})
    assert (f.extra["contract"], f.extra["declarer"], f.extra["tricks"]) == ("3N", "W", 8)
    assert f.extra["score"] == {"NS": -100, "EW": 100} and "score NS -100, EW 100" in f.message


def test_a_ruling_for_an_earlier_board_while_the_next_is_played_and_for_an_unknown_board():
    t, _, tt = _transfer_table()
    t.apply(parse_event({"type": "board", "game": "bridge", "board": 2, "dealer": "E"}, 200))
    (f,) = _rule(t, 201, law="64A", board=1, finding=tt.id, tricks=1)
    assert f.board == 1 and f.extra["tricks"] == 6
    assert t.board.board == 2 and not t.board.finished
    (bad,) = _rule(t, 202, law="64A", board=77, tricks=1)
    assert bad.kind == "bad_event"


def test_law_50d2_lead_restriction_applied_while_the_board_is_played():
    items = list(read_event_file(os.path.join(ROOT, "tests", "data", "bridge", "revoke_corrected.jsonl")))
    t = Table()
    for it in items[:63]:
        t.apply(it)
    assert t.board.snapshot()["extra"]["penalty_cards"]
    out = _rule(t, 63, law="50D2", suit="H", demand="forbid", by="Anna")
    assert out[-1].kind == "director_ruling" and out[-1].extra["lead"] == {"suit": "H", "demand": "forbid"}
    assert t.board.demand is not None and t.board.demand[2] == "forbid"


def test_a_ruling_on_a_nordic_board_is_recorded_with_the_directors_score():
    t = Table()
    t.apply(parse_event({"type": "board", "game": "whist", "board": 3, "dealer": "N"}, 0))
    (f,) = _rule(t, 1, law="Kortgivningen", board=3, score={"N": 10, "E": -10, "S": 10, "W": -10})
    assert f.kind == "director_ruling" and f.extra["score"]["N"] == 10


# -- the archive and the broadcast ---------------------------------------------------

def test_the_archive_shows_the_adjusted_result_with_the_original_kept():
    items = list(read_event_file(TRANSFER_LOG))
    _, _, tt = _transfer_table()
    items.append(parse_event({"type": "director_ruling", "law": "64A", "board": 1, "finding": tt.id,
                              "tricks": 1, "seat": "E", "by": "Anna"}, len(items)))
    pbn, lin, jl = io.StringIO(), io.StringIO(), io.StringIO()
    export(items, "pbn", pbn)
    export(items, "lin", lin)
    export(items, "jsonl", jl)
    assert '[Result "6"]' in pbn.getvalue()
    assert "{Director's ruling by Anna (Law 64A)" in pbn.getvalue() and "table result 4S by S, 7 tricks" in pbn.getvalue()
    line = lin.getvalue().strip()
    assert "|nt|Director's ruling by Anna (Law 64A)" in line and line.endswith("|mc|6|pg||")
    last = json.loads(jl.getvalue().splitlines()[-1])
    assert last["type"] == "director_ruling" and last["tricks"] == 1


def test_the_broadcast_shows_an_applied_ruling_only_after_its_delay():
    c, hub = _client()
    items = [e.to_dict() for e in read_event_file(TRANSFER_LOG)]
    c.post("/api/tables/t1/events", json=items, headers=_bearer(DIRECTOR))
    a = next(x for x in hub.alerts() if any(f["kind"] == "trick_transfer" for f in x["findings"]))  # the revoke's
    r = c.post(f"/api/alerts/{a['id']}/ruling", headers=_bearer(DIRECTOR),
               json={"by": "Anna", "text": "One trick only.", "apply": {"law": "64A", "tricks": 1}})
    assert r.status_code == 200, r.text
    ruled = r.json()
    assert ruled["state"] == "ruled" and ruled["ruling"]["applied"]["type"] == "director_ruling"
    assert ruled["ruling"]["option"] == "Law 64A: 1 trick transferred (applied)"
    t = hub.table("t1")
    assert t.log[-1].event.type == "director_ruling" and t.log[-1].event.get("seat") is not None
    adj = [f for f in t.findings if f["kind"] == "director_ruling"][-1]
    assert adj["tricks"] == 6 and adj["original"]["tricks"] == 7
    st = hub_state = c.get("/public/tables/t1").json()
    assert "rulings" not in hub_state                      # board 1 is the table's last board: private
    c.post("/api/tables/t1/events", json={"type": "board", "game": "bridge", "board": 2, "dealer": "E"},
           headers=_bearer(DIRECTOR))
    st = c.get("/public/tables/t1").json()
    assert st["rulings"][-1]["tricks"] == 6 and st["rulings"][-1]["original"]["tricks"] == 7
    assert "text" not in st["rulings"][-1]
    pbn = c.get("/api/tables/t1/archive", params={"format": "pbn", "board": 1}, headers=_bearer(DIRECTOR)).text
    assert '[Result "6"]' in pbn


def test_a_ruling_that_does_not_fit_the_alert_is_refused():
    c, hub = _client()
    hub.ingest("t1", {"type": "play", "seat": "N", "card": "SA"})   # a bad_event alert
    a = hub.alerts()[0]
    r = c.post(f"/api/alerts/{a['id']}/ruling", headers=_bearer(DIRECTOR),
               json={"by": "Anna", "text": "x", "apply": {"law": "64A", "tricks": 1}})
    assert r.status_code == 422 and "revoke" in r.text
    r = c.post(f"/api/alerts/{a['id']}/ruling", headers=_bearer(DIRECTOR),
               json={"by": "Anna", "text": "x", "apply": {"law": "12C1"}})
    assert r.status_code == 422
    assert hub.alert(a["id"])["state"] == "open"


# -- through the table's node -------------------------------------------------------

def test_events_entered_at_the_station_go_through_the_tables_node(tmp_path):
    bus = make_bus("inproc")
    hub = TableHub()
    station = BusStation(bus, sink=lambda t, seq, ev: hub.ingest(t, ev))
    station.start()
    store = EventStore(str(tmp_path / "t1.sqlite"))
    node = TableNode("t1", store, bus)
    node.start()
    node.emit({"type": "board", "game": "bridge", "board": 1, "dealer": "N", "source": "shoe"})
    app = create_app(hub, token=DIRECTOR, operator_tokens=OPS, forward=station.send_events)
    c = TestClient(app)
    r = c.post("/api/tables/t1/events", json=[{"type": "call", "seat": "N", "call": "1N"}],
               headers=_bearer(OPS["t1"]))
    assert r.status_code == 200 and r.json()["forwarded"] is True
    deadline = time.time() + 5
    while len(hub.table("t1").log) < 2 and time.time() < deadline:
        time.sleep(0.01)
    stored = [se.event for se in store.events("t1")]
    assert stored[-1]["type"] == "call" and stored[-1]["source"] == "operator"       # stored by the node
    assert hub.table("t1").log[-1].event.get("call") == "1N"                          # back over the bus
    assert node.table.board.snapshot()["auction"] == [{"seat": "N", "call": "1N"}]    # judged by the node
    # a table no node runs is folded at the station
    r = c.post("/api/tables/t2/events", json={"type": "board", "game": "bridge", "board": 1},
               headers=_bearer(OPS["t2"]))
    assert r.json()["forwarded"] is False and hub.table("t2") is not None
    station.stop()


@pytest.mark.mqtt
def test_mqtt_an_operators_call_goes_through_the_broker_to_the_node_and_back(mosquitto, tmp_path):
    """With the shipped ACL: the station may write a table's control topic, the node reads only its own."""
    def bus(user, cid):
        return make_bus("mqtt", host="127.0.0.1", port=mosquitto.port, username=user,
                        password=mosquitto.users[user], client_id=cid)

    hub = TableHub()
    station = BusStation(bus("director", "station-op"), sink=lambda t, seq, ev: hub.ingest(t, ev))
    station.start()
    store = EventStore(str(tmp_path / "t1.sqlite"))
    node = TableNode("t1", store, bus("t1", "table-t1-op"))
    node.start()
    node.emit({"type": "board", "game": "bridge", "board": 1, "dealer": "N", "source": "shoe"})
    deadline = time.time() + 10
    while (hub.table("t1") is None or station.links["t1"].online is not True) and time.time() < deadline:
        time.sleep(0.05)
    c = TestClient(create_app(hub, token=DIRECTOR, operator_tokens=OPS, forward=station.send_events))
    r = c.post("/api/tables/t1/events", json={"type": "call", "seat": "N", "call": "1N"}, headers=_bearer(OPS["t1"]))
    assert r.json()["forwarded"] is True
    while len(hub.table("t1").log) < 2 and time.time() < deadline:
        time.sleep(0.05)
    assert [se.event["type"] for se in store.events("t1")] == ["board", "call"]
    assert hub.table("t1").log[1].event.get("call") == "1N" and hub.table("t1").log[1].event.source == "operator"
    node.stop()
    station.stop()
