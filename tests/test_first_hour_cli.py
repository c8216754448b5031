"""What a new user meets in the first hour at the command line, run as they would run it.

Each test runs the real ``tablecam`` command as a subprocess on real files:
a garbage archive, a table node's store, a photo given to the camera.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
PHOTO = Path("/work/shared/data/real-photos/edje/test/IMG_2383.JPG")
if not PHOTO.exists():
    PHOTO = next(iter(sorted((ROOT.parent / "shared/data/real-photos").rglob("*.JPG"))), PHOTO)


def tablecam(*args: str, cwd: Path = ROOT, timeout: float = 120) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "tablecam", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout, env=env)


# -- a file with nothing readable is an error (contract: replay) ----------------------------------
@pytest.fixture()
def garbage(tmp_path: Path) -> dict[str, Path]:
    files = {
        "pbn": tmp_path / "garbage.pbn",
        "lin": tmp_path / "garbage.lin",
        "binary": tmp_path / "photo.jsonl",
        "empty": tmp_path / "empty.jsonl",
    }
    files["pbn"].write_text("this is not a PBN file\nnor is this\n")
    files["lin"].write_text("hello|world\n")
    files["binary"].write_bytes(PHOTO.read_bytes()[:5000] if PHOTO.exists() else bytes(range(256)) * 20)
    files["empty"].write_bytes(b"")
    return files


@pytest.mark.parametrize("kind", ["pbn", "lin", "binary", "empty"])
def test_a_file_with_nothing_readable_is_named_on_stderr_and_exits_1(garbage, kind):
    good = str(DATA / "bridge" / "revoke_corrected.jsonl")
    r = tablecam("replay", str(garbage[kind]), good, "--json")
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and str(garbage[kind]) in lines[0] and "nothing could be read" in lines[0]
    # the other file is still read
    out = [json.loads(x) for x in r.stdout.splitlines()]
    assert any(o["kind"] == "result" and o["file"] == good for o in out)


def test_a_readable_file_still_exits_0_with_irregularities():
    r = tablecam("replay", str(DATA / "bridge" / "bad_lines.jsonl"), "--json")
    assert r.returncode == 0 and r.stderr == ""


def test_export_of_a_garbage_file_is_an_error_too(garbage, tmp_path):
    out = tmp_path / "out.pbn"
    r = tablecam("export", str(garbage["lin"]), str(DATA / "archive" / "single.lin"), "-f", "pbn", "-o", str(out))
    assert r.returncode == 1 and str(garbage["lin"]) in r.stderr and "Traceback" not in r.stderr
    assert '[Contract "1NT"]' in out.read_text()


# -- the readable report counts lines from 1 ---------------------------------------------------
def test_the_readable_report_counts_lines_from_1_and_json_keeps_the_0_based_index(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text('garbage\n{"type": "board", "game": "bridge", "board": 1, "dealer": "N"}\n')
    r = tablecam("replay", str(log))
    assert r.returncode == 0
    assert "Board None" not in r.stdout and "Before the first board:" in r.stdout
    assert "Line 1 is not valid JSON" in r.stdout and "[line 1]" in r.stdout
    assert "Line 0" not in r.stdout and "[event 0]" not in r.stdout
    j = [json.loads(x) for x in tablecam("replay", str(log), "--json").stdout.splitlines()]
    bad = next(f for f in j if f["kind"] == "bad_event")
    assert bad["event"] == 0 and bad["message"].startswith("Line 1 ")


def test_the_readable_report_of_a_pbn_names_events_not_lines():
    r = tablecam("replay", str(DATA / "archive" / "single.lin"))
    assert r.returncode == 0 and "[event " in r.stdout and "[line " not in r.stdout


# -- export to a folder that does not exist -------------------------------------------------------
def test_export_to_a_folder_that_does_not_exist_is_a_clear_error(tmp_path):
    target = tmp_path / "no" / "such" / "out.lin"
    r = tablecam("export", str(DATA / "archive" / "single.lin"), "-f", "lin", "-o", str(target))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert str(target) in r.stderr and "does not exist" in r.stderr
    assert not (tmp_path / "no").exists()


# -- a table node's store is a source like any other ---------------------------------------------
def table_config(folder: Path, table: str, boards: int, seed: int, irregularities: float) -> Path:
    """A table node's config that simulates ``boards`` boards as fast as it can, its store in ``folder``."""
    cfg = folder / f"{table}.toml"
    cfg.write_text(f"""
[table]
id = "{table}"
game = "bridge"
[bus]
kind = "inproc"
[store]
path = "{folder / f'{table}.sqlite'}"
[shoe]
port = "none"
[camera]
source = "none"
[sim]
boards = {boards}
speed = 10000.0
seed = {seed}
irregularities = {irregularities}
""")
    return cfg


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("node")
    r = tablecam("run", "--config", str(table_config(d, "club9", boards=3, seed=2, irregularities=0.0)), timeout=180)
    assert r.returncode == 0, r.stderr
    return d / "club9.sqlite"


def test_replay_reads_the_store_tablecam_run_wrote(store):
    r = tablecam("replay", str(store), "--json")
    assert r.returncode == 0, r.stderr
    out = [json.loads(x) for x in r.stdout.splitlines()]
    results = [f for f in out if f["kind"] == "result"]
    assert [f["board"] for f in results] == [1, 2, 3]
    assert all(f["table"] == "club9" and f["contract"] for f in results)
    human = tablecam("replay", str(store))
    assert human.returncode == 0 and "-- table club9" in human.stdout and "Board 3:" in human.stdout


def test_export_reads_the_store_tablecam_run_wrote(store, tmp_path):
    out = tmp_path / "club9.pbn"
    r = tablecam("export", str(store), "-f", "pbn", "-o", str(out))
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    assert text.count("[Board ") == 3 and "[Contract " in text
    # and the JSON Lines export replays to the same results as the store
    jl = tmp_path / "club9.jsonl"
    assert tablecam("export", str(store), "-o", str(jl)).returncode == 0
    a = [json.loads(x)["message"] for x in tablecam("replay", str(jl), "--json").stdout.splitlines()]
    b = [json.loads(x)["message"] for x in tablecam("replay", str(store), "--json").stdout.splitlines()]
    assert a == b and a


def test_a_file_named_sqlite_that_is_not_a_store_is_a_clear_error(tmp_path):
    fake = tmp_path / "fake.sqlite"
    fake.write_text("not a database, only text\n" * 100)
    r = tablecam("replay", str(fake))
    assert r.returncode == 1 and str(fake) in r.stderr and "Traceback" not in r.stderr


# -- the camera on something that is not a video -----------------------------------------------------
@pytest.mark.skipif(not PHOTO.exists(), reason="needs the real photos in shared/data")
def test_camera_on_a_photo_says_it_is_not_a_video():
    r = tablecam("camera", "--source", str(PHOTO), timeout=180)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "not a video" in r.stderr and "never calibrated" not in r.stderr


# -- long commands say how far they are ------------------------------------------------------------
def test_tablecam_run_prints_a_line_per_board(tmp_path):
    cfg = table_config(tmp_path, "club7", boards=4, seed=1, irregularities=1.0)
    r = tablecam("run", "--config", str(cfg), timeout=180)
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    assert lines[0].startswith("tablecam run: club7: bridge, simulated, 4 board(s)")
    boards = [x for x in lines if re.match(r"tablecam run: club7: board \d+: ", x)]
    assert [re.match(r".*board (\d+):", x).group(1) for x in boards if "misdealt" not in x] == ["1", "2", "3", "4"]
    assert any("findings: " in x for x in boards) and all(" by " in x or "misdealt" in x or "Passed out" in x
                                                          for x in boards)


@pytest.mark.skipif(not PHOTO.exists(), reason="needs the real photos in shared/data")
def test_detect_on_several_images_reports_progress_on_stderr():
    photos = sorted(PHOTO.parent.glob("*.JPG"))[:3]
    r = tablecam("detect", *map(str, photos), "--json", timeout=600)
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.splitlines()) == 3                      # stdout stays the JSON Lines
    assert "detect: 1/3 images" in r.stderr and "detect: 3/3 images, done in" in r.stderr
    one = tablecam("detect", str(photos[0]), "--json", timeout=600)
    assert "detect:" not in one.stderr                          # one image: nothing to count


def test_sim_video_reports_progress_on_stderr(tmp_path):
    r = tablecam("sim", "video", "--random", "7", "--tricks", "1", "--fps", "5", "-o", str(tmp_path / "t.mp4"),
                 timeout=600)
    assert r.returncode == 0, r.stderr
    assert re.search(r"sim video: 1/\d+ frames", r.stderr)
    assert re.search(r"sim video: (\d+)/\1 frames, done in", r.stderr)
