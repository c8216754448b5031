"""`tablecam serve` and `tablecam demo` as a new user starts them: replay pacing, tables, ports, logs.

The replays run on the real archives in shared/data; the port and log tests
start the real command on a real port.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tablecam.archive import load
from tablecam.events import Event
from tablecam.server.hub import TableHub
from tablecam.server.replayer import replay_into, start_replays

ROOT = Path(__file__).resolve().parents[1]
REALBRIDGE = ROOT.parent / "shared" / "data" / "bridge" / "realbridge-2021.pbn"
VUGRAPH_LIN = ROOT / "tests" / "data" / "archive" / "vugraph.lin"
needs_data = pytest.mark.skipif(not REALBRIDGE.exists(), reason="needs shared/data beside the repo")


class Clock:
    """A stop event that records how long the replay asked to wait instead of sleeping."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def is_set(self) -> bool:
        return False

    def wait(self, seconds: float) -> bool:
        self.waits.append(seconds)
        return False


def _first_board(path: Path) -> list:
    """The first board of ``path`` that was played (the file's first may be passed out)."""
    items: list = []
    for it in load(str(path)):
        if isinstance(it, Event) and it.type == "board" and items:
            if any(getattr(i, "type", None) == "play" for i in items):
                break
            items = []
        items.append(it)
    return items


@needs_data
def test_replay_paces_an_archive_like_a_real_table_not_two_seconds_a_card():
    board = _first_board(REALBRIDGE)
    kinds = [getattr(i, "type", None) for i in board]
    clock = Clock()
    replay_into(TableHub(), "t1", board, speed=1.0, stop=clock)
    # nothing sleeps, so each wait is how far its event lies ahead of the start: gaps are their differences
    due = [0.0] + clock.waits
    gaps = {i: due[i] - due[i - 1] for i in range(2, len(due))}
    deal_gaps = [g for i, g in gaps.items() if kinds[i] == "deal"]
    play_gaps = [g for i, g in gaps.items() if kinds[i] == "play"]
    assert deal_gaps and max(deal_gaps) < 1.0           # a dealt card is quick
    assert play_gaps and min(play_gaps) > 2.5           # a card played takes a few seconds
    assert 3 * 60 < due[-1] < 12 * 60, due[-1]          # minutes a board, as at a table


def test_replay_interval_still_sets_a_fixed_pace():
    board = _first_board(VUGRAPH_LIN)
    clock = Clock()
    replay_into(TableHub(), "t1", board, speed=2.0, interval=1.0, stop=clock)
    gaps = [b - a for a, b in zip(clock.waits, clock.waits[1:])]
    assert gaps and all(abs(g - 0.5) < 0.05 for g in gaps)


@needs_data
def test_each_table_of_a_multi_table_pbn_replays_on_its_own_table():
    hub = TableHub()
    for th in start_replays(hub, [str(REALBRIDGE)], speed=0):
        th.join(timeout=240)
    ids = sorted(hub.tables)
    assert len(ids) == 30 and "realbridge-2021" in ids and "realbridge-2021_30" in ids
    for tid in ids:
        t = hub.table(tid)
        results = [f for f in t.findings if f["kind"] == "result"]
        boards = [r["board"] for r in results]
        assert len(boards) == len(set(boards)), f"{tid} played a board twice"
    # every board of the file was played once somewhere
    assert sum(len(hub.table(t).board_starts) for t in ids) == 299


def test_a_lin_match_puts_open_and_closed_room_on_two_tables():
    hub = TableHub()
    for th in start_replays(hub, [str(VUGRAPH_LIN)], speed=0):
        th.join(timeout=60)
    assert sorted(hub.tables) == ["vugraph", "vugraph_2"]


def test_an_event_log_stays_one_table_even_when_a_board_is_dealt_again(tmp_path):
    import json

    from tablecam.sim.bridge import simulate_board

    log = tmp_path / "club.jsonl"
    log.write_text("".join(json.dumps(e) + "\n" for e in simulate_board(3, seed=1, irregularity="misdeal")))
    hub = TableHub()
    for th in start_replays(hub, [str(log)], speed=0):
        th.join(timeout=60)
    assert sorted(hub.tables) == ["club"]


def test_two_files_whose_names_give_the_same_long_table_id_get_two_tables(tmp_path):
    name = "x" * 70
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / f"{name}.lin").write_bytes(VUGRAPH_LIN.read_bytes())
    hub = TableHub()
    for th in start_replays(hub, [str(tmp_path / d / f"{name}.lin") for d in ("a", "b")], speed=0):
        th.join(timeout=60)
    assert len(hub.tables) == 4 and all(len(t) <= 64 for t in hub.tables)


# -- ports and logs ------------------------------------------------------------------------------
def _run(*args: str, env: dict | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    e = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.run([sys.executable, "-m", "tablecam", *args], capture_output=True, text=True,
                          cwd=ROOT, env=e, timeout=timeout)


@pytest.fixture()
def busy_port():
    s = socket.create_server(("127.0.0.1", 0))
    yield s.getsockname()[1]
    s.close()


def test_serve_on_a_port_in_use_says_so_and_starts_nothing(busy_port):
    r = _run("serve", "--port", str(busy_port), env={"TABLECAM_DIRECTOR_TOKEN": "a-long-enough-token-1234"})
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and "already in use" in r.stderr and str(busy_port) in r.stderr
    assert "http://" not in r.stderr, "no dashboard address before the port is known to be free"


def test_demo_on_a_port_in_use_says_so_and_leaves_no_temp_folder(busy_port, tmp_path):
    r = _run("demo", "--port", str(busy_port), env={"TMPDIR": str(tmp_path)})
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and "already in use" in r.stderr and "http://" not in r.stderr
    assert list(tmp_path.iterdir()) == []


def _serve(*extra: str) -> tuple[subprocess.Popen, int]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.Popen([sys.executable, "-m", "tablecam", "serve", "--insecure-demo", "--port", "0", *extra],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
    deadline = time.time() + 60
    while time.time() < deadline:
        line = p.stderr.readline()
        m = re.search(r"dashboard http://127\.0\.0\.1:(\d+)/", line)
        if m:
            port = int(m.group(1))
            for _ in range(200):
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2).read()
                    return p, port
                except OSError:
                    time.sleep(0.1)
    p.kill()
    raise AssertionError("serve did not start")


@pytest.mark.parametrize("access_log", [False, True])
def test_serve_access_log_is_an_option(access_log):
    p, port = _serve(*(["--access-log"] if access_log else []))
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/broadcast", timeout=5).read()
        time.sleep(0.5)
    finally:
        p.terminate()
        out, err = p.communicate(timeout=30)
    assert ('"GET /broadcast HTTP/1.1" 200' in out) is access_log
    assert "Traceback" not in err


def test_a_table_store_replays_each_of_its_tables_on_its_own_table(tmp_path):
    from tablecam.sim.bridge import simulate_board
    from tablecam.store import EventStore

    store = EventStore(str(tmp_path / "station.sqlite"))
    for table, seed in (("club1", 1), ("club2", 2)):
        for e in simulate_board(1, seed=seed, irregularity=None):
            store.append(table, e)
    store.close()
    hub = TableHub()
    for th in start_replays(hub, [str(tmp_path / "station.sqlite")], speed=0):
        th.join(timeout=60)
    assert sorted(hub.tables) == ["club1", "club2"]
    assert all(len(hub.table(t).board_starts) == 1 for t in hub.tables)
