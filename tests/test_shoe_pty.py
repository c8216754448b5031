"""The fault test: fault-injected deals through a real pseudo-terminal into the driver.

The virtual shoe writes to the master side of ``os.openpty()``; the driver
opens the slave side by its ``/dev/pts/N`` path through pyserial, exactly as
it would open ``/dev/ttyACM0``. Every card must arrive exactly once and in
order, no corrupt frame may get through, and nothing may hang.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest

from tablecam.shoe.driver import Health, ShoeDriver, ShoeMessage
from tablecam.shoe.link import Notice
from tablecam.shoe.sim import FaultCounts, Faults, FdLink, SimPlan, open_pty, run_plan, shuffled_deal


def stream_through_pty(plan: SimPlan, quiet: float = 1.0, limit: float = 90.0):
    """Run ``plan`` on a pty in a thread and read it with the driver; return what arrived.

    The shoe stays on line after its last card until the host has every card
    (or ``limit`` s pass): a gap at the very end still gets its RESEND answered.
    """
    master, path = open_pty()
    want = sum(len(b) for b in plan.boards)
    done = threading.Event()
    host_done = threading.Event()
    result: dict = {}
    start = time.monotonic()

    def shoe() -> None:
        try:
            result["counts"] = run_plan(plan, FdLink(master), linger=host_done.is_set,
                                        stop=lambda: time.monotonic() - start > limit)
        finally:
            done.set()

    driver = ShoeDriver(path, heartbeat_timeout=0.4)
    cards: list[str] = []
    health: list[str] = []
    notices: list[Notice] = []
    t = threading.Thread(target=shoe, daemon=True)
    finished_at: list[float] = []

    def stop() -> bool:
        if time.monotonic() - start > limit:
            return True
        if len(cards) >= want:
            host_done.set()
        if done.is_set():
            finished_at[:] = finished_at or [time.monotonic()]
            return time.monotonic() - finished_at[0] > quiet
        return False

    started = False
    for m in driver.messages(stop):
        if not started:           # the port is open before the shoe starts dealing
            t.start()
            started = True
        if isinstance(m, ShoeMessage) and m.kind == "CARD":
            cards.append(m.fields["card"])
        elif isinstance(m, Health):
            health.append(m.state)
        elif isinstance(m, Notice):
            notices.append(m)
    host_done.set()
    t.join(5)
    os.close(master)
    assert done.is_set(), "the simulated shoe did not finish"
    assert not [n for n in notices if n.kind == "lost"], notices
    return cards, result["counts"], driver.link.stats, health, notices


def faulty(c: FaultCounts) -> int:
    return c.bit_flips + c.dropped_bytes + c.duplicates + c.garbage + c.delays


def check_exactly_once(boards, cards, counts, stats):
    want = [c.card for b in boards for c in b]
    assert len(cards) == len(want), f"{len(cards)} cards arrived, {len(want)} dealt"
    assert cards == want            # exactly once, in order: no corrupt frame got through
    assert stats.lost == 0
    # Each damaged frame is seen as at least one error (two merged by a lost
    # delimiter count once, so allow for that).
    assert stats.corrupt >= counts.corrupted // 2


@pytest.mark.timeout(120)
def test_fault_injected_deals_through_a_pty_arrive_exactly_once():
    boards = [shuffled_deal(g, seed=i) for i, g in enumerate(["bridge", "vira", "pidro", "whist"] * 3)]
    plan = SimPlan(boards, card_interval=0.001, heartbeat=0.1, seed=11,
                   faults=Faults(bit_flip=0.05, drop_byte=0.05, duplicate=0.05, garbage=0.05,
                                 delay=0.02, max_delay=0.01),
                   reboot_after=200, cable_pull_after=400, cable_pull_for=0.6)
    cards, counts, stats, health, notices = stream_through_pty(plan)
    check_exactly_once(boards, cards, counts, stats)
    assert faulty(counts) >= 150      # about 20 % of some 1,000 frames (resends vary with timing)
    assert stats.reboots == 1 and stats.resend_requests > 0 and stats.duplicates > 0
    assert "stale" in health and health[-1] in ("ok", "stale")   # the cable pull was noticed


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_ten_thousand_faulty_frames_zero_lost_or_duplicated_cards():
    boards = [shuffled_deal(g, seed=100 + i) for i, g in enumerate(["bridge", "vira", "pidro", "whist"] * 70)]
    # 500 cards a second: some 250 times a fast dealer, and within what a
    # 115200 baud line carries with room left for the resends.
    plan = SimPlan(boards, card_interval=0.002, heartbeat=0.1, seed=12,
                   faults=Faults(bit_flip=0.08, drop_byte=0.08, duplicate=0.1, garbage=0.1,
                                 delay=0.02, max_delay=0.005),
                   reboot_after=3000, cable_pull_after=5000, cable_pull_for=0.6)
    cards, counts, stats, health, notices = stream_through_pty(plan, limit=500)
    check_exactly_once(boards, cards, counts, stats)
    print(f"\n{faulty(counts)} faulty frames ({counts}); link {stats}")
    assert faulty(counts) >= 10_000


@pytest.mark.timeout(60)
def test_health_goes_stale_on_a_pulled_cable_and_back_to_ok():
    boards = [shuffled_deal("bridge", seed=5)]
    plan = SimPlan(boards, card_interval=0.01, heartbeat=0.1, cable_pull_after=20, cable_pull_for=1.0)
    cards, counts, stats, health, notices = stream_through_pty(plan)
    assert cards == [c.card for c in boards[0]]
    i = health.index("stale", 1)
    assert "ok" in health[i:]


@pytest.mark.timeout(30)
def test_driver_reports_disconnected_for_a_missing_port_and_keeps_trying():
    d = ShoeDriver("/dev/pts/999999", reconnect_delay=0.05)
    t0 = time.monotonic()
    got = list(d.messages(lambda: time.monotonic() - t0 > 0.3))
    assert [h.state for h in got if isinstance(h, Health)] == ["disconnected"]
    assert d.opens == 0


def run_cli(*args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tablecam", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("where", ["pty", "tcp"])
def test_shoe_listen_prints_deal_events_from_shoe_sim(where):
    sim_args = ["shoe-sim", "--game", "bridge", "--seed", "4", "--interval", "0.002", "--wait", "0.5",
                "--faults", "all=0.03", "--unreadable", "0.05"]
    sim = run_cli(*sim_args, *(["--tcp", "127.0.0.1:0"] if where == "tcp" else ["--pty"]))
    try:
        url = sim.stdout.readline().strip()
        assert url.startswith("/dev/pts/" if where == "pty" else "socket://127.0.0.1:")
        listen = run_cli("shoe", "listen", "--port", url, "--game", "bridge", "--dealer", "N",
                         "--duration", "25", "--boards", "1", "--findings")
        out, err = listen.communicate(timeout=30)
    finally:
        sim.kill()
        sim.wait()
    assert listen.returncode == 0, err
    lines = [json.loads(x) for x in out.splitlines()]
    events = [x for x in lines if "type" in x]
    findings = [x for x in lines if "kind" in x]
    assert events[0] == {**events[0], "type": "board", "game": "bridge", "dealer": "N"}
    deals = [e for e in events if e["type"] == "deal"]
    misreads = [f for f in findings if f["kind"] == "shoe_misread"]
    assert len(deals) + len(misreads) == 52
    seats = [e["to"] for e in deals] + [f["to"] for f in misreads]
    assert {s: seats.count(s) for s in "NESW"} == {s: 13 for s in "NESW"}
    assert all(e["source"] == "shoe" and isinstance(e["ts"], float) for e in deals)
    assert "shoe health: ok" in err


@pytest.mark.timeout(60)
@pytest.mark.skipif(not os.path.exists("../shared/data/bridge/realbridge-2021.pbn"),
                    reason="../shared/data not beside the repo")
def test_shoe_sim_deals_a_real_pbn_board_that_listen_rebuilds():
    from tablecam.archive import load
    from tablecam.events import Event

    pbn = "../shared/data/bridge/realbridge-2021.pbn"
    items = [i for _, i in zip(range(200), load(pbn)) if isinstance(i, Event)]
    board = items[0]
    want = []
    for e in items[1:]:
        if e.type != "deal":
            break
        want.append({"to": str(e.data["to"]), "card": str(e.card)})
    sim = run_cli("shoe-sim", "--deal", pbn, "--boards", "1", "--interval", "0.002", "--wait", "0.5",
                  "--faults", "bit_flip=0.05,duplicate=0.05")
    try:
        url = sim.stdout.readline().strip()
        listen = run_cli("shoe", "listen", "--port", url, "--game", "bridge", "--dealer", str(board.get("dealer")),
                         "--board", str(board.get("board")), "--duration", "25", "--boards", "1")
        out, err = listen.communicate(timeout=30)
    finally:
        sim.kill()
        sim.wait()
    events = [json.loads(x) for x in out.splitlines()]
    assert events[0]["board"] == board.get("board")
    assert [{"to": e["to"], "card": e["card"]} for e in events if e["type"] == "deal"] == want
