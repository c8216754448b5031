"""`tablecam demo`: the README's main command, as a user runs it."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import MOSQUITTO, free_port, wait_port

REPO = Path(__file__).resolve().parent.parent


def _get(port: int, path: str):
    return json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10).read())


def _run_demo(*extra: str, wait_for_events: int = 60):
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "tablecam", "demo", "--port", str(port), "--speed", "40",
                             *extra], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_port(port, 60)
        assert _get(port, "/healthz")["ok"] is True
        deadline = time.time() + 60
        tables = []
        while time.time() < deadline:
            tables = _get(port, "/api/tables")["tables"]  # demo mode: no token needed
            if tables and all(t["events"] >= wait_for_events for t in tables):
                break
            time.sleep(0.5)
        return port, proc, tables
    except BaseException:
        proc.kill()
        raise


def _stop(proc) -> str:
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    return err


def test_demo_serves_a_simulated_table_dealt_through_the_shoe():
    port, proc, tables = _run_demo()
    try:
        assert [t["id"] for t in tables] == ["t1"] and tables[0]["game"] == "bridge"
        assert tables[0]["events"] >= 60
        assert tables[0]["health"]["shoe"]["status"] == "ok"  # deals came through the shoe driver
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10).read().decode()
        assert "<html" in page.lower()
    finally:
        err = _stop(proc)
    assert "DEMO MODE" in err and "no director token" in err


@pytest.mark.mqtt
def test_demo_through_a_local_mosquitto():
    if not MOSQUITTO:
        pytest.skip("mosquitto is not installed")
    port, proc, tables = _run_demo("--mqtt", "--tables", "2", "--no-shoe")
    try:
        assert sorted(t["id"] for t in tables) == ["t1", "t2"]
        assert all(t["events"] >= 60 for t in tables)
    finally:
        err = _stop(proc)
    assert "through Mosquitto" in err
