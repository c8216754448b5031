"""TableHub: the seam between event sources and the director station (no web involved)."""

from __future__ import annotations

import threading
import time

import pytest

from tablecam.events import make_event
from tablecam.server.hub import TableHub


def test_health_derived_from_traffic_until_a_node_reports():
    hub = TableHub(silent_after=60)
    t0 = 1000.0
    hub.ingest("t1", {"type": "board", "game": "bridge", "board": 1, "source": "shoe"}, received=t0)
    t = hub.table("t1")
    assert t.summary(now=t0 + 5, silent_after=60)["health"]["shoe"]["status"] == "ok"
    late = t.summary(now=t0 + 300, silent_after=60)
    assert late["silent"] is True and late["health"]["shoe"]["status"] == "down"
    assert late["health"]["camera"]["status"] == "unknown"
    hub.set_health("t1", "camera", "degraded", "lens fogged", at=t0 + 10)
    assert t.summary(now=t0 + 11)["health"]["camera"] == {"status": "degraded", "detail": "lens fogged",
                                                          "last_seen": t0 + 10}
    with pytest.raises(ValueError):
        hub.set_health("t1", "toaster", "ok")


def test_event_indices_are_positions_in_the_table_log():
    hub = TableHub()
    ev = make_event("board", index=917, game="bridge", board=1, dealer="N")
    hub.ingest("t1", ev)
    out = hub.ingest("t1", make_event("play", index=5, seat="N", card="SA"))
    assert ev.index == 917, "the caller's event is not modified"
    assert hub.table("t1").log[0].event.index == 0
    assert all(f.event == 1 for f in out)


def test_bad_input_never_raises_and_is_logged():
    hub = TableHub()
    for item in ["{", b"\xff\xfe", 42, None, [], {"type": "deal", "to": "X", "card": "ZZ"}, {"no": "type"}]:
        out = hub.ingest("t1", item)
        assert out and out[-1].kind == "bad_event"
    assert [e.to_dict()["type"] for e in hub.table("t1").log] == ["unreadable"] * 7


def test_table_ids_and_limits():
    hub = TableHub(max_tables=2)
    with pytest.raises(ValueError):
        hub.ingest("../../etc/passwd", {"type": "end"})
    hub.ingest("a", {"type": "end"})
    hub.ingest("b", {"type": "end"})
    with pytest.raises(OverflowError):
        hub.ingest("c", {"type": "end"})


def test_board_without_engine_still_shows_game_board_dealer(monkeypatch):
    from tablecam import engine

    monkeypatch.setitem(engine.ENGINES, "bridge", "tablecam.no_such_module:Nothing")
    hub = TableHub()
    out = hub.ingest("t1", {"type": "board", "game": "bridge", "board": 9, "dealer": "W"})
    assert out[0].kind == "bad_event"
    s = hub.table("t1").summary()
    assert (s["game"], s["board"], s["dealer"], s["phase"]) == ("bridge", 9, "W", "unjudged")


def test_subscribers_see_every_change_in_order_from_any_thread():
    hub = TableHub()
    seen: list[str] = []
    unsubscribe = hub.subscribe(lambda m: seen.append(m["type"]))

    def feed(n: int) -> None:
        for _ in range(n):
            hub.ingest("t1", {"type": "end"})

    threads = [threading.Thread(target=feed, args=(50,)) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert seen.count("event") == 200 and hub.table("t1").summary()["events"] == 200
    unsubscribe()
    hub.ingest("t1", {"type": "end"})
    assert seen.count("event") == 200


def test_broken_subscriber_does_not_stop_ingestion():
    hub = TableHub()
    hub.subscribe(lambda m: 1 / 0)
    assert hub.ingest("t1", {"type": "end"})[0].kind == "bad_event"


def test_frames_roll_off_unless_an_alert_keeps_them():
    from tablecam.server import hub as hubmod

    hub = TableHub()
    now = time.time()
    hub.ingest("t1", {"kind": "revoke", "rule": "Law 61", "message": "x", "id": "r"}, received=now)
    first = hub.add_frame("t1", b"\xff\xd8\xff-jpeg", [], at=now + 1)
    for i in range(hubmod.FRAMES_KEPT + 5):
        hub.add_frame("t1", b"\xff\xd8\xff-jpeg", [], at=now + 100 + i)
    assert hub.alerts()[0]["frame"]["id"] == first
    assert hub.frame(first) is not None, "the alert's frame is kept"
    assert hub.frame(first + 1) is None, "other old frames rolled off"


def test_same_finding_twice_is_one_alert_step():
    hub = TableHub()
    f = {"kind": "revoke", "rule": "Law 61", "message": "S revoked.", "event": 3, "seat": "S", "id": "r1"}
    hub.ingest("t1", f)
    hub.ingest("t1", dict(f))
    hub.ingest("t1", {**f, "status": "established", "rule": "Law 63A"})
    (a,) = hub.alerts()
    assert len(a["history"]) == 2 and a["status"] == "established"
    assert [r["citation"] for r in a["rules"]] == ["Law 61", "Law 63A"]


def test_rulings_survive_a_restart_through_the_event_store(tmp_path):
    """Real SQLite store on disk; an alert without a finding id is found again by kind, board and event."""
    from tablecam.server.persist import keep_rulings
    from tablecam.store import EventStore

    path = str(tmp_path / "station.sqlite")
    events = [{"type": "board", "game": "bridge", "board": 4, "dealer": "N"},
              {"type": "play", "seat": "Q", "card": "SA"}]  # no such seat: a bad_event warning, no finding id

    def station(store):
        hub = TableHub()
        for e in events:
            store.append("t1", e)
        for se in store.events("t1"):
            hub.ingest("t1", se.event)
        return hub

    store = EventStore(path)
    hub = station(store)
    keep_rulings(hub, store)
    (a,) = hub.alerts()
    assert a["finding_id"] is None and a["key"] == "bad_event@4#1"
    hub.acknowledge(a["id"], "Anna")
    hub.rule(a["id"], "Anna", "Play stands.", None)
    store.close()

    store2 = EventStore(path)                # the station restarts: events replayed from its store
    hub2 = TableHub()
    for se in store2.events("t1"):
        hub2.ingest("t1", se.event)
    keep_rulings(hub2, store2)
    b = hub2.alert(hub2.alert_id_for("t1", a["key"]))
    assert b["state"] == "ruled" and b["ruling"]["text"] == "Play stands." and b["acknowledged"]["by"] == "Anna"
