"""Shared test fixtures: real servers started by the tests themselves."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Iterator

import pytest

# Property tests run the same cases every time (CI must not fail on a case a
# random draw happens to find today); explore with random draws on purpose:
# `pytest --hypothesis-profile=explore` (and keep what it finds as a test).
from hypothesis import settings  # noqa: E402

settings.register_profile("default", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
MOSQUITTO = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if os.path.exists("/usr/sbin/mosquitto") else None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listening on 127.0.0.1:{port}")


class Broker:
    """A real Mosquitto with the repo's ACL and per-table passwords."""

    def __init__(self, workdir: Path, users: dict[str, str]) -> None:
        self.dir = workdir
        self.port = free_port()
        self.users = users
        self.proc: subprocess.Popen | None = None
        pw = workdir / "passwd"
        pw.write_text("")
        for user, password in users.items():
            subprocess.run(["mosquitto_passwd", "-b", str(pw), user, password], check=True,
                           capture_output=True)
        (workdir / "data").mkdir(exist_ok=True)
        self.conf = workdir / "mosquitto.conf"
        self.conf.write_text(
            "per_listener_settings false\n"
            "allow_anonymous false\n"
            f"password_file {pw}\n"
            f"acl_file {REPO / 'config/mosquitto/mosquitto.acl'}\n"
            f"listener {self.port} 127.0.0.1\n"
            "persistence true\n"
            f"persistence_location {workdir / 'data'}/\n"
            "autosave_interval 1\n"
            "max_queued_messages 100000\n"
            # As root, mosquitto would drop to user 'mosquitto', who cannot read pytest's 0700 tmp dirs.
            + ("user root\n" if os.geteuid() == 0 else "")
        )

    def start(self) -> "Broker":
        self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.conf)], stdout=subprocess.DEVNULL,
                                     stderr=open(self.dir / "mosquitto.log", "ab"))
        wait_port(self.port)
        return self

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[Broker]:
    """A running broker; users: director, broadcast, t1..t4 (password = user + '-pw')."""
    if not MOSQUITTO or not shutil.which("mosquitto_passwd"):
        pytest.skip("mosquitto is not installed (scripts/test installs the Debian package)")
    users = {u: f"{u}-pw" for u in ("director", "broadcast", "t1", "t2", "t3", "t4")}
    b = Broker(tmp_path, users).start()
    yield b
    b.stop()


@pytest.fixture
def real_bridge_data(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run in the checkout, whose real boards are found at ``../shared/data/bridge``; skip without them."""
    monkeypatch.chdir(REPO)
    if not (SHARED / "data" / "bridge").is_dir():
        pytest.skip("../shared/data/bridge not present")
