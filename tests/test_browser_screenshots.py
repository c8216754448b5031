"""The screenshot script (docs/screenshots/) still runs: every view renders in Chromium."""

from __future__ import annotations

import os
import struct

import pytest

from tablecam.sim.real_deals import REALBRIDGE
from live_server import CHROMIUM

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian chromium not installed"),
]


def test_screenshots_of_every_view(tmp_path, monkeypatch):
    pytest.importorskip("playwright.sync_api")
    monkeypatch.chdir(ROOT)
    if not os.path.exists(REALBRIDGE):
        pytest.skip("../shared/data/bridge not present")
    from screenshots import main

    assert main(["--out", str(tmp_path)]) == 0
    names = sorted(os.listdir(tmp_path))
    for view in ("tables", "table", "alerts", "archive", "broadcast", "tables-tablet", "broadcast-tablet"):
        assert f"{view}.png" in names
    for name in names:
        head = (tmp_path / name).read_bytes()[:24]
        assert head[:8] == b"\x89PNG\r\n\x1a\n"
        width, _ = struct.unpack(">II", head[16:24])
        assert width in (1366, 820), (name, width)
