"""A bridge table with a shoe, a camera and bidding boxes gives the whole board with no operator.

The shoe deals (``board`` and ``deal`` events); the camera reads the rest
from the video: the auction from the bidding-box cards, the play from the
cards laid down, the tricks turned (``tablecam camera --shoe``, which checks
each reading against the hands dealt). The table's log is the shoe's events
followed by the camera's, as the table node would store them; its replay
gives the board's contract, declarer and result (Law 79A) and no irregularity.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tablecam.sim.bridge import simulate_board
from tablecam.vision.bidcards import MODEL
from tablecam.vision.classify import MODELS_DIR

ROOT = Path(__file__).resolve().parents[1]
needs_models = pytest.mark.skipif(not MODEL.exists() or not any(MODELS_DIR.glob("*.onnx")),
                                  reason="no card or bid-card model shipped")

BOARD, SEED = 1, 3
"""A clean board played out to the last trick (no claim: the camera cannot see one): North
deals, East declares 3S after nine calls, at most three calls by one player (a row that fits
in front of him)."""


def _tablecam(*args: str, timeout: float = 1200) -> subprocess.CompletedProcess:
    r = subprocess.run([sys.executable, "-m", "tablecam", *args], cwd=ROOT, capture_output=True, text=True,
                       timeout=timeout)
    assert r.returncode == 0, r.stderr[-2000:]
    return r


def _jsonl(path: Path, events: list[dict]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def _replay(path: Path) -> list[dict]:
    return [json.loads(line) for line in _tablecam("replay", str(path), "--json").stdout.splitlines()]


@needs_models
@pytest.mark.slow
@pytest.mark.timeout(2400)
def test_law_79a_the_shoe_and_the_camera_give_the_auction_the_play_and_the_result(tmp_path):
    played = simulate_board(BOARD, seed=SEED, irregularity=None)
    assert not any(e["type"] == "claim" for e in played) and sum(e["type"] == "play" for e in played) == 52
    video = tmp_path / "board.mp4"
    _tablecam("sim", "video", str(_jsonl(tmp_path / "played.jsonl", played)), "--auction", "-o", str(video))
    shoe = [dict(e, source="shoe") for e in played if e["type"] in ("board", "deal")]
    _jsonl(tmp_path / "shoe.jsonl", shoe)
    out = _tablecam("camera", "--source", str(video), "--game", "bridge", "--shoe", str(tmp_path / "shoe.jsonl"))
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    seen = [e for e in lines if "type" in e]
    assert not [f for f in lines if "kind" in f], "the camera agrees with the shoe: no finding"

    def kind(events: list[dict], t: str, field: str) -> list[tuple[str, str]]:
        return [(e["seat"], e[field]) for e in events if e["type"] == t]

    assert kind(seen, "call", "call") == kind(played, "call", "call"), "the auction, call by call"
    assert kind(seen, "play", "card") == kind(played, "play", "card"), "the play, card by card"
    assert not [e for e in seen if e.get("uncertain") or e["type"] not in ("call", "play", "trick_turned")]
    assert sum(e["type"] == "trick_turned" for e in seen) == 13

    table = _replay(_jsonl(tmp_path / "table.jsonl", shoe + seen))
    want = _replay(tmp_path / "played.jsonl")
    result = [f for f in table if f["kind"] == "result"]
    assert [f["kind"] for f in table] == ["result"], "no irregularity read into a clean board"
    assert {k: result[0][k] for k in ("declarer", "contract", "tricks", "tricks_played", "complete")} == \
        {k: want[0][k] for k in ("declarer", "contract", "tricks", "tricks_played", "complete")}
    assert (result[0]["declarer"], result[0]["contract"], result[0]["tricks_played"]) == ("E", "3S", 13)
