"""The table video simulator: a video the camera can read and an exact ground-truth log."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tablecam.engine import replay
from tablecam.events import Event, read_events
from tablecam.sim.video import CardTrack, SimOptions, plan_scene, random_deal_log, render_video
from tablecam.vision.camera import FrameSource

TABLECAM = [sys.executable, "-m", "tablecam"]


def test_ground_truth_follows_the_log_with_rest_times():
    log = random_deal_log(9, tricks=3)
    scene = plan_scene(log, SimOptions(seed=9, hand_passes=False))
    plays_in = [(str(e.seat), str(e.card)) for e in log if e.type == "play"]
    plays_out = [(str(e.seat), str(e.card)) for e in scene.truth if e.type == "play"]
    assert plays_out == plays_in
    turned = [e for e in scene.truth if e.type == "trick_turned"]
    assert [len(e.get("cards")) for e in turned] == [4, 4, 3 * 0 + 4]
    ts = [e.ts for e in scene.truth if e.type in ("play", "trick_turned")]
    assert ts == sorted(ts) and ts[0] > 0
    # each card is still (not moving) from its rest time on until the trick is turned
    for e in scene.truth:
        if e.type == "play":
            trk = next(c for c in scene.cards if c.card == str(e.card))
            assert trk.at(e.ts)[:3] == trk.at(e.ts + 0.3)[:3]


def test_ground_truth_is_a_valid_event_log_the_engine_accepts(tmp_path):
    log = random_deal_log(5, tricks=2)
    tp, meta, scene = render_video(log, tmp_path / "v.mp4", SimOptions(fps=8, seed=5, hand_passes=False,
                                                                       lighting=False, plane_ppm=1.0))
    lines = tp.read_text().splitlines()
    items = list(read_events(lines))
    assert all(isinstance(i, Event) for i in items), [i for i in items if not isinstance(i, Event)]
    assert sum(1 for i in items if i.type == "deal") == 52
    # trick_turned is an observation the bridge engine accepts without a ruling
    assert any(i.type == "trick_turned" for i in items)
    bad = [f.to_dict() for f in replay(items) if f.kind == "bad_event"]
    assert not bad
    m = json.loads(meta.read_text())
    frames = list(FrameSource(tmp_path / "v.mp4", log=None))
    assert len(frames) == m["frames"] and frames[0].image.shape == (720, 1280, 3)
    assert abs(m["frames"] / m["fps"] - scene.duration) < 0.2


def test_card_track_interpolates_and_vanishes():
    t = CardTrack("SA", [(0.0, 0, 0, 0, True), (1.0, 10, 0, 0, True)], until=2.0)
    assert t.at(-0.1) is None and t.at(2.0) is None
    assert t.at(1.5) == (10, 0, 0, True)
    assert 0 < t.at(0.5)[0] < 10


def test_sim_video_command_writes_video_and_truth(tmp_path):
    out = tmp_path / "deal.avi"
    r = subprocess.run(TABLECAM + ["sim", "video", "--random", "3", "--tricks", "1", "--fps", "6", "-o", str(out),
                                   "--no-lighting", "--no-hand-passes"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert out.stat().st_size > 10000
    truth = [json.loads(x) for x in out.with_suffix(".truth.jsonl").read_text().splitlines()]
    assert sum(1 for e in truth if e["type"] == "play") == 4
    assert truth[-1]["type"] == "trick_turned" and truth[-1]["source"] == "sim"


def test_sim_video_command_reports_an_unreadable_log(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "board", "game": "bridge"}\nnot json\n{"type": "play", "seat": "Q", "card": "SA"}\n')
    r = subprocess.run(TABLECAM + ["sim", "video", str(bad), "-o", str(tmp_path / "o.mp4"), "--fps", "5"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "Traceback" not in r.stderr   # bad lines skipped, an empty deal rendered
    r = subprocess.run(TABLECAM + ["sim", "video", str(tmp_path / "none.jsonl"), "-o", str(tmp_path / "o.mp4")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "cannot read" in r.stderr


@pytest.mark.parametrize("layout", ["zones", "centre"])
def test_cards_rest_inside_their_zones(layout):
    from tablecam.vision.zones import CameraConfig

    cfg = CameraConfig.load()
    game = "bridge" if layout == "zones" else "whist"
    log = random_deal_log(2, tricks=2, game=game)
    scene = plan_scene(log, SimOptions(seed=2, layout=layout))
    for e in scene.truth:
        if e.type == "play":
            trk = next(c for c in scene.cards if c.card == str(e.card))
            x, y, _, _ = trk.at(e.ts)
            z = cfg.zone_at(x, y, game)
            assert z is not None and z.kind == ("play" if layout == "zones" else "trick")
