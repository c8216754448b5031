"""`tablecam shoe listen` stops by itself when the shoe is done, and only then.

A virtual shoe (`tablecam shoe-sim`) on a real pseudo-terminal deals its
boards and exits, closing the line; the listener, given no --duration,
--cards or --boards, must stop with every card printed. A shoe that goes off
line in the middle of a pack is a pulled cable: the listener waits for it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "tablecam", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)


@pytest.mark.timeout(90)
def test_shoe_listen_exits_when_the_shoe_has_dealt_its_boards_and_gone():
    sim = run_cli("shoe-sim", "--game", "bridge", "--boards", "2", "--seed", "3", "--interval", "0.005",
                  "--wait", "1.0")
    try:
        url = sim.stdout.readline().strip()
        assert url.startswith("/dev/pts/")
        started = time.monotonic()
        listen = run_cli("shoe", "listen", "--port", url, "--game", "bridge", "--dealer", "N")
        out, err = listen.communicate(timeout=60)
        took = time.monotonic() - started
    finally:
        sim.kill()
        sim.wait()
    assert listen.returncode == 0, err
    events = [json.loads(x) for x in out.splitlines()]
    assert len([e for e in events if e["type"] == "deal"]) == 104
    assert [e["board"] for e in events if e["type"] == "board"] == [1, 2]
    assert "the shoe ran empty and has been off line" in err
    assert took < 40


@pytest.mark.timeout(90)
def test_shoe_listen_waits_for_a_shoe_that_goes_off_line_mid_pack():
    sim = run_cli("shoe-sim", "--game", "bridge", "--seed", "3", "--interval", "0.1", "--wait", "0.5")
    try:
        url = sim.stdout.readline().strip()
        listen = run_cli("shoe", "listen", "--port", url, "--game", "bridge", "--dealer", "N",
                         "--gone-after", "0.5", "--duration", "6")
        time.sleep(2.5)           # some cards dealt, the pack not empty
        sim.kill()
        sim.wait()
        started = time.monotonic()
        out, err = listen.communicate(timeout=60)
        waited = time.monotonic() - started
    finally:
        if sim.poll() is None:
            sim.kill()
    assert listen.returncode == 0, err
    deals = [json.loads(x) for x in out.splitlines() if '"deal"' in x]
    assert 0 < len(deals) < 52
    assert "disconnected" in err and "off line for" not in err
    assert waited > 2        # ran on to --duration instead of stopping at the disconnect
