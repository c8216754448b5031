"""Store, bus, table node and station: durability and exactly-once delivery.

The MQTT tests run a real Mosquitto (tests/conftest.py) with the repo's ACL.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tablecam.bus import make_bus
from tablecam.bus.base import Message
from tablecam.bus.station import Station
from tablecam.config import ConfigError, load_table_config
from tablecam.engine import Table
from tablecam.node import TableNode
from tablecam.sim.bridge import simulate_board, simulate_session
from tablecam.store import EventStore, to_item

REPO = Path(__file__).resolve().parent.parent


def _strip(ev: dict) -> dict:
    return {k: v for k, v in ev.items() if k not in ("ts", "source")}


class Sink:
    def __init__(self) -> None:
        self.got: dict[str, list[tuple[int, dict]]] = {}
        self.lock = threading.Lock()

    def __call__(self, table: str, seq: int, ev: dict) -> None:
        with self.lock:
            self.got.setdefault(table, []).append((seq, ev))

    def seqs(self, table: str) -> list[int]:
        return [s for s, _ in self.got.get(table, [])]

    def wait(self, table: str, n: int, timeout: float = 20.0) -> bool:
        deadline = time.time() + timeout
        while time.time() < deadline:
            if len(self.got.get(table, [])) >= n:
                return True
            time.sleep(0.05)
        return False


# -- store --------------------------------------------------------------------

def test_store_append_is_durable_and_idempotent(tmp_path):
    path = str(tmp_path / "t.sqlite")
    s = EventStore(path)
    evs = simulate_board(1, seed=2, irregularity=None)
    for ev in evs:
        s.append("t1", ev)
    s.append("t1", evs[3], seq=4)  # redelivered: ignored
    s.close()
    s2 = EventStore(path)
    assert [e.event for e in s2.events("t1")] == evs
    assert s2.last_seq("t1") == len(evs)
    assert s2.append("t1", {"type": "end"}) == len(evs) + 1


def test_state_after_restart_equals_state_before(tmp_path):
    """Issue 7: state rebuilt by replaying the store equals the state before the crash."""
    path = str(tmp_path / "t.sqlite")
    evs = simulate_board(5, seed=4, irregularity="revoke")
    n = 60  # mid-play
    node = TableNode("t1", EventStore(path), make_bus("inproc"))
    for ev in evs[:n]:
        node.emit(ev)
    before = node.table.board.snapshot()
    findings_before = [f.to_dict() for f in node.table.findings]
    node2 = TableNode("t1", EventStore(path), make_bus("inproc"))
    assert node2.recovered == n
    assert node2.table.board.snapshot() == before
    assert [f.to_dict() for f in node2.table.findings] == findings_before


# -- in-process bus -----------------------------------------------------------

def test_inproc_node_to_station_in_order(tmp_path):
    bus = make_bus("inproc")
    sink = Sink()
    station = Station(bus, sink)
    station.start()
    node = TableNode("t1", EventStore(str(tmp_path / "n.sqlite")), bus)
    node.start()
    evs = list(simulate_session(2, seed=3, rate=0.0))
    for ev in evs:
        node.emit(ev)
    assert [ev for _, ev in sink.got["t1"]] == evs
    assert sink.seqs("t1") == list(range(1, len(evs) + 1))
    assert station.links["t1"].online is True
    assert station.links["t1"].state["seq"] == len(evs)


def test_station_drops_duplicates_and_reorders():
    bus = make_bus("inproc")
    sink = Sink()
    Station(bus, sink).start()
    for seq in (2, 1, 1, 3, 2):
        bus.publish(Message("t9", "events", {"type": "end", "n": seq}, seq))
    assert sink.seqs("t9") == [1, 2, 3]


def test_station_requests_resend_of_a_gap(tmp_path):
    bus = make_bus("inproc")
    sink = Sink()
    station = Station(bus, sink, gap_timeout=0.2)
    station.start()
    node = TableNode("t1", EventStore(str(tmp_path / "n.sqlite")), bus)
    node.start()
    # Lose event 2 on the way (as a broken network would), then carry on.
    real_publish = bus.publish

    def lossy(msg, on_ack=None):
        if msg.kind == "events" and msg.seq == 2 and not getattr(lossy, "lost", False):
            lossy.lost = True
            return
        real_publish(msg, on_ack)

    bus.publish = lossy
    for ev in simulate_board(1, seed=1, irregularity=None)[:10]:
        node.emit(ev)
    assert sink.seqs("t1") == [1]
    assert sink.wait("t1", 10, timeout=3)
    assert sink.seqs("t1") == list(range(1, 11))
    assert station.links["t1"].resend_requests >= 1


def test_a_table_node_with_a_new_store_is_appended_not_dropped(tmp_path):
    """A replaced edge computer (or a wiped disk) numbers its events from 1
    again.  Before log ids the station took them for duplicates of the old
    node's first events and dropped every one, silently."""
    bus = make_bus("inproc")
    sink = Sink()
    found: list[dict] = []
    station_store = EventStore(str(tmp_path / "station.sqlite"))
    station = Station(bus, sink, store=station_store, on_finding=lambda t, f: found.append(f))
    station.start()
    evs = list(simulate_session(2, seed=3, rate=0.0))
    old = TableNode("t1", EventStore(str(tmp_path / "old.sqlite")), bus)
    old.start()
    for ev in evs[:10]:
        old.emit(ev)
    new = TableNode("t1", EventStore(str(tmp_path / "new.sqlite")), bus)   # the store is gone
    new.start()
    assert new.log != old.log
    for ev in evs[10:16]:
        new.emit(ev)
    assert [ev for _, ev in sink.got["t1"]] == evs[:16]
    assert sink.seqs("t1") == list(range(1, 17))
    assert [(f["kind"], f["after"], f["lost"], f["status"]) for f in found] == [("table_link", 10, 0, "info")]
    # a late copy of the old log's event 3 is a duplicate, not event 13
    bus.publish(Message("t1", "events", evs[2], 3, log=old.log))
    assert sink.seqs("t1") == list(range(1, 17)) and station.links["t1"].duplicates >= 1
    assert len(found) == 1
    # ... but the old log sending an event it never had is a second node on the table: said once
    bus.publish(Message("t1", "events", evs[16], 11, log=old.log))
    bus.publish(Message("t1", "events", evs[16], 12, log=old.log))
    assert sink.seqs("t1") == list(range(1, 17))
    assert [f["message"].startswith("Two table nodes publish as t1") for f in found] == [False, True]
    # the station restarts: its store remembers where the new log starts
    sink2 = Sink()
    again: list[dict] = []
    station2 = Station(bus, sink2, store=station_store, on_finding=lambda t, f: again.append(f))
    station2.start()
    new.emit(evs[16])
    assert sink2.seqs("t1") == list(range(1, 18)) and sink2.got["t1"][-1][1] == evs[16]
    assert again == [found[0]]              # the director's alert is raised again, under the same id


def test_a_gap_the_old_log_never_filled_is_counted(tmp_path):
    bus = make_bus("inproc")
    sink = Sink()
    found: list[dict] = []
    Station(bus, sink, gap_timeout=60, on_finding=lambda t, f: found.append(f)).start()
    evs = simulate_board(1, seed=1, irregularity=None)
    old = TableNode("t1", EventStore(str(tmp_path / "old.sqlite")), bus)
    real_publish = bus.publish

    def lossy(msg, on_ack=None):
        if msg.kind == "events" and msg.seq == 4 and msg.log == old.log:
            return                                     # lost, and the old node dies before a resend
        real_publish(msg, on_ack)

    bus.publish = lossy
    for ev in evs[:6]:
        old.emit(ev)
    assert sink.seqs("t1") == [1, 2, 3]
    new = TableNode("t1", EventStore(str(tmp_path / "new.sqlite")), bus)
    new.emit(evs[6])
    assert sink.seqs("t1") == [1, 2, 3, 5, 6, 7]       # what arrived after the gap, in order, then the new log
    assert [ev for _, ev in sink.got["t1"]] == evs[:3] + evs[4:7]
    assert found[0]["lost"] == 1 and found[0]["status"] == "pending" and "enter them by hand" in found[0]["message"]


def test_the_old_logs_lost_tail_is_counted_from_its_last_state(tmp_path):
    """Events the old node sent last and that never arrived leave no gap
    behind them; its retained state, which named its last event, tells
    how many."""
    bus = make_bus("inproc")
    sink = Sink()
    found: list[dict] = []
    Station(bus, sink, gap_timeout=60, on_finding=lambda t, f: found.append(f)).start()
    evs = simulate_board(1, seed=1, irregularity=None)
    old = TableNode("t1", EventStore(str(tmp_path / "old.sqlite")), bus, state_interval=0.0)
    real_publish = bus.publish

    def lossy(msg, on_ack=None):
        if msg.kind == "events" and msg.seq in (5, 6) and msg.log == old.log:
            return                                     # the last two, lost as the old node died
        real_publish(msg, on_ack)

    bus.publish = lossy
    for ev in evs[:6]:
        old.emit(ev)
    new = TableNode("t1", EventStore(str(tmp_path / "new.sqlite")), bus)
    new.emit(evs[6])
    assert sink.seqs("t1") == [1, 2, 3, 4, 5]
    assert (found[0]["lost"], found[0]["after"], found[0]["status"]) == (2, 4, "pending")


def test_a_node_restored_from_an_older_copy_of_its_store_is_reported_not_merged(tmp_path):
    """A store restored from a backup keeps its log id but has fewer events:
    the node numbers on from the backup, and its new events reuse numbers
    the station already holds.  They are not taken (they would corrupt the
    table), and not dropped silently either: the director is told, once."""
    import shutil

    bus = make_bus("inproc")
    sink = Sink()
    found: list[dict] = []
    station = Station(bus, sink, on_finding=lambda t, f: found.append(f))
    station.start()
    first, second = simulate_board(1, seed=1, irregularity=None), simulate_board(2, seed=2, irregularity=None)
    node = TableNode("t1", EventStore(str(tmp_path / "n.sqlite")), bus)
    for ev in first[:6]:
        node.emit(ev)
    node.store.close()
    shutil.copy(tmp_path / "n.sqlite", tmp_path / "backup.sqlite")      # the backup, at event 6
    node = TableNode("t1", EventStore(str(tmp_path / "n.sqlite")), bus)
    for ev in first[6:10]:
        node.emit(ev)
    restored = TableNode("t1", EventStore(str(tmp_path / "backup.sqlite")), bus)
    assert restored.log == node.log
    for ev in second[:3]:
        restored.emit(ev)                                               # numbers 7, 8, 9 again
    assert sink.seqs("t1") == list(range(1, 11)) and [e for _, e in sink.got["t1"]] == first[:10]
    assert len(found) == 1 and found[0]["status"] == "pending" and "sent event 7 again" in found[0]["message"]
    node.resend(0)                                                      # copies of its own: no alarm
    assert len(found) == 1


def test_a_gap_the_node_cannot_fill_does_not_hold_the_table_back_for_ever(tmp_path):
    """Event 4 is lost on the way and missing from the node's store too
    (rows lost, a restore): before, the station asked for it every 2 s for
    ever and never showed events 5 on.  After the node answered the
    requests without it, the rest goes on and the director is told."""
    bus = make_bus("inproc")
    sink = Sink()
    found: list[dict] = []
    station = Station(bus, sink, gap_timeout=0.1, max_gap_requests=3, on_finding=lambda t, f: found.append(f))
    station.start()
    node = TableNode("t1", EventStore(str(tmp_path / "n.sqlite")), bus)
    node.start()
    real_publish = bus.publish

    def lossy(msg, on_ack=None):
        if msg.kind == "events" and msg.seq == 4:
            return
        real_publish(msg, on_ack)

    bus.publish = lossy
    evs = simulate_board(1, seed=1, irregularity=None)
    for ev in evs[:8]:
        node.emit(ev)
    node.store._db.execute("DELETE FROM events WHERE seq=4")     # the store lacks it too
    assert sink.seqs("t1") == [1, 2, 3]
    assert sink.wait("t1", 7, timeout=5)
    assert sink.seqs("t1") == [1, 2, 3, 5, 6, 7, 8]
    assert station.links["t1"].resend_requests >= 3
    assert [(f["lost"], f["after"], f["status"]) for f in found] == [(1, 3, "pending")]


def test_a_silent_node_uses_up_no_gap_requests(tmp_path):
    """The network to the node is down: its events will come when it is
    back, so the station keeps asking and never declares them lost."""
    bus = make_bus("inproc")
    sink = Sink()
    found: list[dict] = []
    station = Station(bus, sink, gap_timeout=0.05, max_gap_requests=2, on_finding=lambda t, f: found.append(f))
    station.start()
    for seq in (1, 3):
        bus.publish(Message("t1", "events", {"type": "end", "n": seq}, seq, log="abc"))
    time.sleep(0.6)                                     # many requests, nobody answering
    assert station.links["t1"].resend_requests >= 4 and found == [] and sink.seqs("t1") == [1]


def test_a_gap_in_a_new_log_is_resent_in_the_new_logs_numbers(tmp_path):
    bus = make_bus("inproc")
    sink = Sink()
    station = Station(bus, sink, gap_timeout=0.2)
    station.start()
    evs = simulate_board(1, seed=1, irregularity=None)
    old = TableNode("t1", EventStore(str(tmp_path / "old.sqlite")), bus)
    for ev in evs[:5]:
        old.emit(ev)
    new = TableNode("t1", EventStore(str(tmp_path / "new.sqlite")), bus)
    new.start()
    real_publish = bus.publish

    def lossy(msg, on_ack=None):
        if msg.kind == "events" and msg.seq == 2 and msg.log == new.log and not getattr(lossy, "lost", False):
            lossy.lost = True
            return
        real_publish(msg, on_ack)

    bus.publish = lossy
    for ev in evs[5:10]:
        new.emit(ev)
    assert sink.wait("t1", 10, timeout=3)
    assert sink.seqs("t1") == list(range(1, 11)) and [ev for _, ev in sink.got["t1"]] == evs[:10]
    assert station.links["t1"].resend_requests >= 1


def test_a_camera_started_on_a_node_mid_board_is_given_the_board_so_far(tmp_path):
    """CameraReader hands its pipeline the stored events of the board under
    way (tests/test_camera_pipeline.py shows what the pipeline does with them)."""
    from tablecam.node.sources import CameraReader

    node = TableNode("t1", EventStore(str(tmp_path / "n.sqlite")), make_bus("inproc"))
    first, second = simulate_board(1, seed=1, irregularity=None), simulate_board(2, seed=2, irregularity=None)
    for ev in first + second[:70] + [{"type": "play", "seat": "N"}]:     # the last one is malformed
        node.emit(ev)
    got = CameraReader._board_so_far(node)
    assert got[0].type == "board" and got[0].get("board") == 2
    assert [e.type for e in got] == [e["type"] for e in second[:70]]


def test_the_camera_says_when_it_runs_and_when_it_stops(tmp_path):
    """CameraReader's health on the node: ok from the first frame of a real
    video file, down when the frames end; down with the reason when the
    source cannot be opened at all."""
    import cv2
    import numpy as np

    from tablecam.node.sources import CameraReader

    video = str(tmp_path / "table.avi")
    out = cv2.VideoWriter(video, cv2.VideoWriter_fourcc(*"MJPG"), 25, (320, 240))
    for i in range(5):
        out.write(np.full((240, 320, 3), 40 + i, np.uint8))
    out.release()
    node = TableNode("t1", EventStore(str(tmp_path / "n.sqlite")), make_bus("inproc"))
    sent: list[dict] = []
    node.bus.subscribe(lambda m: sent.append(m.payload), kinds=("health",))
    CameraReader(video, node, "bridge", threading.Event()).thread.join(60)
    assert [h["camera"]["status"] for h in sent] == ["ok", "down"]
    assert node.health["camera"]["detail"] == "no more frames from the camera"
    CameraReader(str(tmp_path / "missing.mp4"), node, "bridge", threading.Event()).thread.join(60)
    assert node.health["camera"]["status"] == "down" and "cannot open" in node.health["camera"]["detail"]


def test_a_table_node_restarted_mid_deal_takes_up_the_shoe_where_it_stopped(tmp_path):
    """A real driver and tracker on a virtual shoe's pty: the node goes down
    after 20 cards of board 3, restarts from its store and the dealer goes
    on.  The board is still board 3, the other 32 cards go to the right
    players, and the cards the shoe still held unacknowledged are not dealt
    twice.  Before, the restarted tracker began board 1 again (dealer N's
    order from its first slot) and the link asked the shoe to replay
    everything it kept."""
    from tablecam.node.sources import LiveShoe, ShoeReader
    from tablecam.shoe.dealing import dealing_plan
    from tablecam.shoe.sim import shuffled_deal

    stop_shoe = threading.Event()
    shoe = LiveShoe(stop_shoe)
    path = str(tmp_path / "n.sqlite")
    deal = [c.card for c in shuffled_deal("bridge", seed=5)]
    try:
        node = TableNode("t1", EventStore(path), make_bus("inproc"))
        stop1 = threading.Event()
        first = ShoeReader(shoe.path, node, "bridge", stop1, lambda *a: None, own_boards=True, dealer="E", board=3)
        shoe.load()
        for c in deal[:20]:
            shoe.deal(c)
        assert first.wait_dealt(20, 15), first.dealt
        stop1.set()                                   # the node goes down, its driver with it
        first.thread.join(5)
        node = TableNode("t1", EventStore(path), make_bus("inproc"))   # restarted from its store
        reported: list = []
        node.report = lambda f, origin: reported.append(f.message)   # type: ignore[method-assign]
        stop2 = threading.Event()
        second = ShoeReader(shoe.path, node, "bridge", stop2, lambda *a: None, own_boards=True,
                            dealer="N", board=1)       # (what the config says; the store knows better)
        for c in deal[20:]:
            shoe.deal(c)
        assert second.wait_dealt(32, 15), (second.dealt, second.driver.link.stats)
        time.sleep(0.6)                                # a heartbeat or two: nothing more may come
        stop2.set()
        second.thread.join(5)
    finally:
        stop_shoe.set()
    evs = [se.event for se in EventStore(path).events("t1")]
    story = ([first.driver.link.stats, second.driver.link.stats, reported]   # what a failure shows
             + [(e["type"], e.get("to"), e.get("card"), e.get("shoe_seq")) for e in evs[19:26]])
    assert [(e["board"], e["dealer"]) for e in evs if e["type"] == "board"] == [(3, "E")], story
    deals = [e for e in evs if e["type"] == "deal"]
    assert [e["card"] for e in deals] == deal, story
    assert [e["to"] for e in deals] == list(dealing_plan("bridge", "E").slots), story
    assert [e["shoe_seq"] for e in deals] == sorted({e["shoe_seq"] for e in deals}), story
    # the earlier run's late replay (its RESEND answered after the restart) is no restart
    assert second.driver.link.stats.reboots == 0 and reported == [], story


# -- config ---------------------------------------------------------------------

def test_config_unknown_key_names_the_key(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text('[table]\nid = "t1"\n[bus]\nkind = "mqtt"\nprot = 1883\n')
    with pytest.raises(ConfigError, match=r"unknown key 'bus.prot'"):
        load_table_config(str(p))


def test_example_configs_load():
    from tablecam.config import load_championship_config

    assert load_table_config(str(REPO / "config/table.toml")).table.id == "club1"
    assert load_table_config(str(REPO / "config/championship-table.toml")).bus.kind == "mqtt"
    champ = load_championship_config(str(REPO / "config/championship.toml"))
    assert len(champ.table_ids()) == 200 and champ.table_ids()[0] == "t001"


def test_run_with_bad_config_exits_with_clear_message(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text('[table]\nid = "t1"\ncolour = "red"\n')
    r = subprocess.run([sys.executable, "-m", "tablecam", "run", "--config", str(p)],
                       capture_output=True, text=True, cwd=REPO, timeout=60)
    assert r.returncode == 2 and "unknown key 'table.colour'" in r.stderr


def test_a_sources_health_reaches_the_station_once_and_again_after_the_node_returns(tmp_path):
    """A source's health is not an event (not stored, not folded); it goes out
    retained, every source at once, and a report that changes nothing is not
    sent again."""
    bus = make_bus("inproc")
    heard: list[tuple] = []
    station = Station(bus, Sink(), on_health=lambda *a: heard.append(a))
    station.start()
    node = TableNode("t1", EventStore(str(tmp_path / "n.sqlite")), bus)
    node.start()
    assert node.set_health("shoe", "down", "cannot open /dev/ttyUSB0")
    assert not node.set_health("shoe", "down", "cannot open /dev/ttyUSB0")
    node.set_health("camera", "ok")
    assert heard == [("t1", "shoe", "down", "cannot open /dev/ttyUSB0"), ("t1", "camera", "ok", None)]
    assert node.store.last_seq("t1") == 0                      # nothing went into the deal's log
    late: list[tuple] = []
    Station(bus, Sink(), on_health=lambda *a: late.append(a)).start()   # a station started later
    assert sorted(late) == [("t1", "camera", "ok", None), ("t1", "shoe", "down", "cannot open /dev/ttyUSB0")]
    # the node drops off the network and comes back, its shoe still unplugged:
    # the station, which greyed the table meanwhile, is told again
    bus.publish(Message("t1", "availability", "offline", retained=True))
    node.announce()
    assert heard[-2:] == [("t1", "shoe", "down", "cannot open /dev/ttyUSB0"), ("t1", "camera", "ok", None)]
    # a station that starts after the node died hears its last report after its last will: still offline
    bus.publish(Message("t1", "availability", "offline", retained=True))
    after_death: list[tuple] = []
    Station(bus, Sink(), on_health=lambda *a: after_death.append(a)).start()
    assert after_death == []
    node.announce()
    assert len(after_death) == 2 and len(heard) == 6
    # a report the station cannot read is passed over, not raised into the bus
    bus.publish(Message("t1", "health", {"shoe": "unplugged", "camera": {"status": 5}}, retained=True))
    assert len(heard) == 6


# -- MQTT with a real Mosquitto ----------------------------------------------------

def _mqtt(broker, user, client_id=None):
    return make_bus("mqtt", host="127.0.0.1", port=broker.port, username=user,
                    password=broker.users[user], client_id=client_id)


@pytest.mark.mqtt
def test_mqtt_table_to_station_exactly_once(mosquitto, tmp_path):
    sink = Sink()
    station = Station(_mqtt(mosquitto, "director", "station-1"), sink)
    station.start()
    node = TableNode("t1", EventStore(str(tmp_path / "t1.sqlite")), _mqtt(mosquitto, "t1", "table-t1"))
    node.start()
    evs = list(simulate_session(2, seed=5, rate=0.5))
    for ev in evs:
        node.emit(ev)
    assert sink.wait("t1", len(evs))
    assert [ev for _, ev in sink.got["t1"]] == evs
    deadline = time.time() + 5
    while node.store.unpublished("t1") and time.time() < deadline:
        time.sleep(0.05)
    assert node.store.unpublished("t1") == []  # every event acknowledged by the broker
    assert station.links["t1"].log == node.log       # the log id travels in the message
    node.stop()
    station.stop()


@pytest.mark.mqtt
def test_mqtt_a_station_started_after_the_table_gets_the_whole_log(mosquitto, tmp_path):
    """The broker keeps no events for a subscriber that did not exist yet;
    the node's retained state says how far its log goes, and the station's
    gap request makes the node replay it from its store."""
    node = TableNode("t1", EventStore(str(tmp_path / "t1.sqlite")), _mqtt(mosquitto, "t1", "table-late"))
    node.start()
    evs = list(simulate_session(2, seed=5, rate=0.5))
    for ev in evs:
        node.emit(ev)
    deadline = time.time() + 20
    while node.store.unpublished("t1") and time.time() < deadline:
        time.sleep(0.05)
    assert node.store.unpublished("t1") == []  # all published before any station listened
    sink = Sink()
    station = Station(_mqtt(mosquitto, "director", "station-late"), sink, gap_timeout=0.5)
    station.start()
    try:
        assert sink.wait("t1", len(evs), timeout=30), len(sink.got.get("t1", []))
        assert sink.seqs("t1") == list(range(1, len(evs) + 1))
        assert [ev for _, ev in sink.got["t1"]] == evs
        assert station.links["t1"].resend_requests >= 1
    finally:
        node.stop()
        station.stop()


@pytest.mark.mqtt
def test_mqtt_a_replaced_table_node_with_a_new_store_is_appended(mosquitto, tmp_path):
    """The same, through the broker: the replacement edge computer (same
    table id, same credentials, an empty store) numbers from 1 again; the
    station keeps both logs, in order, and says so."""
    sink = Sink()
    found: list[dict] = []
    station = Station(_mqtt(mosquitto, "director", "station-1"), sink, on_finding=lambda t, f: found.append(f))
    station.start()
    evs = list(simulate_session(2, seed=5, rate=0.0))
    old = TableNode("t1", EventStore(str(tmp_path / "old.sqlite")), _mqtt(mosquitto, "t1", "table-t1"))
    old.start()
    for ev in evs[:12]:
        old.emit(ev)
    assert sink.wait("t1", 12)
    old.stop()
    new = TableNode("t1", EventStore(str(tmp_path / "new.sqlite")), _mqtt(mosquitto, "t1", "table-t1-spare"))
    new.start()
    for ev in evs[12:20]:
        new.emit(ev)
    assert sink.wait("t1", 20)
    time.sleep(0.3)
    assert [ev for _, ev in sink.got["t1"]] == evs[:20] and sink.seqs("t1") == list(range(1, 21))
    assert [(f["kind"], f["after"], f["lost"]) for f in found] == [("table_link", 12, 0)]
    new.stop()
    station.stop()


@pytest.mark.mqtt
def test_mqtt_acl_table_cannot_write_another_tables_topics(mosquitto, tmp_path):
    sink = Sink()
    station = Station(_mqtt(mosquitto, "director", "station-acl"), sink)
    station.start()
    forger = _mqtt(mosquitto, "t2", "forger")
    forger.start()
    assert forger.wait_connected(5)
    forger.publish(Message("t1", "events", {"type": "board", "game": "bridge", "board": 99}, 1))
    forger.publish(Message("t2", "events", {"type": "board", "game": "bridge", "board": 1}, 1))
    assert sink.wait("t2", 1, timeout=5)
    time.sleep(0.5)
    assert "t1" not in sink.got  # the broker dropped t2's forged event for t1
    forger.stop()
    station.stop()


@pytest.mark.mqtt
def test_mqtt_broker_outage_loses_nothing(mosquitto, tmp_path):
    sink = Sink()
    station = Station(_mqtt(mosquitto, "director", "station-outage"), sink)
    station.start()
    node = TableNode("t1", EventStore(str(tmp_path / "t1.sqlite")), _mqtt(mosquitto, "t1", "table-t1"))
    node.bus._user_on_connect = node.announce  # re-announce and flush the outbox on every reconnect
    node.start()
    evs = simulate_board(1, seed=9, irregularity="revoke")
    for ev in evs[:30]:
        node.emit(ev)
    assert sink.wait("t1", 30)
    mosquitto.stop()
    for ev in evs[30:70]:  # the broker is down: events go to the outbox
        node.emit(ev)
    time.sleep(3)
    mosquitto.start()
    for ev in evs[70:]:
        node.emit(ev)
    assert sink.wait("t1", len(evs), timeout=30), f"got {len(sink.got.get('t1', []))} of {len(evs)}"
    assert [ev for _, ev in sink.got["t1"]] == evs
    node.stop()
    station.stop()


def _write_table_config(tmp_path: Path, table: str, broker, boards: int, speed: float) -> Path:
    cfg = tmp_path / f"{table}.toml"
    cfg.write_text(
        f'[table]\nid = "{table}"\ngame = "bridge"\n'
        f'[bus]\nkind = "mqtt"\nhost = "127.0.0.1"\nport = {broker.port}\nusername = "{table}"\n'
        f'password_env = "MQTT_PW_{table}"\n'
        f'[store]\npath = "{tmp_path / (table + ".sqlite")}"\n'
        f'[shoe]\nport = "none"\n'  # the simulator straight into the node: resumes exactly after a crash
        f'[sim]\nboards = {boards}\nspeed = {speed}\nseed = 11\nirregularities = 0.5\n')
    return cfg


def _node_proc(cfg: Path, broker, table: str) -> subprocess.Popen:
    env = dict(os.environ, **{f"MQTT_PW_{table}": broker.users[table]})
    return subprocess.Popen([sys.executable, "-m", "tablecam", "run", "--config", str(cfg)],
                            cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


@pytest.mark.mqtt
def test_several_table_nodes_as_processes_through_the_broker(mosquitto, tmp_path):
    sink = Sink()
    station = Station(_mqtt(mosquitto, "director", "station-multi"), sink)
    station.start()
    tables = ["t1", "t2", "t3"]
    procs = [_node_proc(_write_table_config(tmp_path, t, mosquitto, 1, 400.0), mosquitto, t) for t in tables]
    for p in procs:
        assert p.wait(60) == 0, p.stderr.read().decode()
    expected = list(simulate_session(1, seed=11, rate=0.5))
    for t in tables:
        assert sink.wait(t, len(expected))
        assert [_strip(ev) for _, ev in sink.got[t]] == expected
        # clean shutdown announces offline: on its own topic, so it may land after the last event
        deadline = time.monotonic() + 10
        while station.links[t].online is not False and time.monotonic() < deadline:
            time.sleep(0.05)
        assert station.links[t].online is False
    station.stop()


@pytest.mark.mqtt
def test_sigkill_table_node_mid_board_loses_and_duplicates_nothing(mosquitto, tmp_path):
    sink = Sink()
    station = Station(_mqtt(mosquitto, "director", "station-kill"), sink)
    station.start()
    cfg = _write_table_config(tmp_path, "t1", mosquitto, 2, 60.0)
    p = _node_proc(cfg, mosquitto, "t1")
    assert sink.wait("t1", 40, timeout=30)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    # The broker publishes the node's last will: the table shows offline.
    deadline = time.time() + 25
    while station.links["t1"].online is not False and time.time() < deadline:
        time.sleep(0.1)
    assert station.links["t1"].online is False
    killed_at = len(sink.got["t1"])
    p2 = _node_proc(cfg, mosquitto, "t1")
    assert p2.wait(120) == 0, p2.stderr.read().decode()
    assert "recovered" in p2.stderr.read().decode()
    expected = list(simulate_session(2, seed=11, rate=0.5))
    assert sink.wait("t1", len(expected), timeout=20)
    got = sink.got["t1"]
    assert [s for s, _ in got] == list(range(1, len(expected) + 1))  # none lost, none duplicated
    assert [_strip(ev) for _, ev in got] == expected
    assert killed_at < len(expected)
    # The station's state equals a fresh fold of the node's own store.
    store = EventStore(str(tmp_path / "t1.sqlite"))
    a, b = Table(), Table()
    a.feed([to_item(se.event, se.seq - 1) for se in store.events("t1")])
    b.feed([to_item(ev, s - 1) for s, ev in got])
    assert [f.to_dict() for f in a.findings] == [f.to_dict() for f in b.findings]
    station.stop()


@pytest.mark.mqtt
def test_director_station_process_serves_tables_from_the_broker(mosquitto, tmp_path):
    """`tablecam serve --mqtt` as its own process, table nodes as theirs."""
    import json as _json
    import urllib.request

    from conftest import free_port, wait_port

    port = free_port()
    token = "t" * 40
    env = dict(os.environ, TABLECAM_DIRECTOR_TOKEN=token, TABLECAM_MQTT_PASSWORD=mosquitto.users["director"])
    station = subprocess.Popen([sys.executable, "-m", "tablecam", "serve", "--port", str(port), "--mqtt",
                                f"127.0.0.1:{mosquitto.port}", "--station-store", str(tmp_path / "st.sqlite")],
                               cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # The port listens before the station has subscribed (it is bound first), and these nodes
    # run one board and exit - a late station could ask no one to replay it: wait for the
    # station's own word that the broker confirmed its subscriptions.
    said: list[str] = []
    subscribed = threading.Event()

    def read_stderr() -> None:
        for line in station.stderr:
            said.append(line.decode(errors="replace"))
            if "subscribed to all tables" in said[-1]:
                subscribed.set()

    threading.Thread(target=read_stderr, daemon=True).start()
    try:
        assert subscribed.wait(60), "".join(said)
        wait_port(port, 60)
        tables = ["t1", "t2"]
        procs = [_node_proc(_write_table_config(tmp_path, t, mosquitto, 1, 400.0), mosquitto, t) for t in tables]
        for p in procs:
            assert p.wait(90) == 0, p.stderr.read().decode()
        expected = len(list(simulate_session(1, seed=11, rate=0.5)))
        req = urllib.request.Request(f"http://127.0.0.1:{port}/api/tables",
                                     headers={"Authorization": f"Bearer {token}"})
        deadline = time.time() + 30
        while True:
            data = _json.loads(urllib.request.urlopen(req, timeout=10).read())
            counts = {t["id"]: t["events"] for t in data["tables"]}
            if all(counts.get(t) == expected for t in tables) or time.time() > deadline:
                break
            time.sleep(0.3)
        assert counts == {t: expected for t in tables}
        # Without the token the station answers 401.
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables", timeout=10)
        assert e.value.code == 401
    finally:
        station.terminate()
        station.wait(10)


def test_demo_acl_matches_the_shipped_mosquitto_acl():
    from tablecam.node.demo import MOSQUITTO_ACL

    assert (REPO / "config/mosquitto/mosquitto.acl").read_text() == MOSQUITTO_ACL


def test_run_with_a_simulated_shoe_deals_through_the_shoe_driver(tmp_path):
    """[shoe] port = "sim": a virtual shoe on a pty, the real driver and tracker."""
    cfg = tmp_path / "club.toml"
    cfg.write_text(f'[table]\nid = "club9"\n[store]\npath = "{tmp_path / "club9.sqlite"}"\n'
                   '[shoe]\nport = "sim"\n[sim]\nboards = 1\nspeed = 400.0\nseed = 3\nirregularities = 0.0\n')
    r = subprocess.run([sys.executable, "-m", "tablecam", "run", "--config", str(cfg)], cwd=REPO,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    evs = [se.event for se in EventStore(str(tmp_path / "club9.sqlite")).events("club9")]
    deals = [e for e in evs if e["type"] == "deal"]
    assert len(deals) == 52 and {e["source"] for e in deals} == {"shoe"}
    expected = [e for e in simulate_board(1, seed=3, irregularity=None) if e["type"] == "deal"]
    assert [(e["to"], e["card"]) for e in deals] == [(e["to"], e["card"]) for e in expected]
    assert evs[-1]["type"] == "end"


@pytest.mark.mqtt
def test_mqtt_a_pulled_shoe_cable_shows_on_the_director_station(mosquitto, tmp_path):
    """`tablecam run` with a shoe on a serial port (here a virtual shoe on a
    pty, speaking the real protocol) as its own process; the director's
    station and hub in this one.  The shoe's link state reaches the
    dashboard: ok while heartbeats come, down when the cable is pulled, and
    the table greyed when the node stops.  Another table cannot forge it."""
    from tablecam.node.sources import LiveShoe
    from tablecam.bus.stationlink import attach_station
    from tablecam.server.hub import TableHub

    hub = TableHub()
    station = attach_station(hub, f"127.0.0.1:{mosquitto.port}", password=mosquitto.users["director"],
                             client_id="station-health")

    def shoe_health(table: str = "t1") -> dict:
        t = hub.table(table)
        return t.summary()["health"]["shoe"] if t is not None else {}

    def wait_for(pred, timeout: float = 20.0) -> bool:
        deadline = time.time() + timeout
        while time.time() < deadline:
            if pred():
                return True
            time.sleep(0.1)
        return False

    stop_shoe = threading.Event()
    shoe = LiveShoe(stop_shoe)
    cfg = tmp_path / "t1.toml"
    cfg.write_text(f'[table]\nid = "t1"\ngame = "bridge"\n'
                   f'[bus]\nkind = "mqtt"\nhost = "127.0.0.1"\nport = {mosquitto.port}\nusername = "t1"\n'
                   f'password_env = "MQTT_PW_t1"\n[store]\npath = "{tmp_path / "t1.sqlite"}"\n'
                   f'[shoe]\nport = "{shoe.path}"\n')
    node = _node_proc(cfg, mosquitto, "t1")
    forger = _mqtt(mosquitto, "t2", "forger-health")
    try:
        assert wait_for(lambda: shoe_health().get("status") == "ok"), shoe_health()
        forger.start()
        assert forger.wait_connected(5)
        forger.publish(Message("t1", "health", {"shoe": {"status": "down", "detail": "forged"}}, retained=True))
        time.sleep(0.5)
        assert shoe_health()["status"] == "ok"              # the broker dropped t2's report for t1
        stop_shoe.set()
        shoe.thread.join(5)
        os.close(shoe.master)                                 # the cable is pulled
        assert wait_for(lambda: shoe_health().get("status") == "down"), shoe_health()
        assert shoe_health()["detail"]                        # why, in the driver's words
        node.send_signal(signal.SIGTERM)
        assert node.wait(30) == 0, node.stderr.read().decode()
        assert wait_for(lambda: shoe_health().get("detail") == "table node offline"), shoe_health()
    finally:
        if node.poll() is None:
            node.kill()
        forger.stop()
        station.stop()
