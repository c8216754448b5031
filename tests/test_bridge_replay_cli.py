"""`tablecam replay FILE --json` on the hand-made bridge logs meets the contract exactly.

The logs in tests/data/bridge/ together cover every finding kind of the
contract's table; each test runs the real command line as a subprocess.
"""

import glob
import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOGS = sorted(glob.glob(os.path.join(ROOT, "tests", "data", "bridge", "*.jsonl")))

CONTRACT_FIELDS = {
    "revoke": {"seat", "trick", "established"},
    "trick_transfer": {"seat", "tricks"},
    "lead_out_of_turn": {"seat", "trick"},
    "penalty_card": {"seat", "card", "major"},
    "wrong_card_count": {"seat", "count", "expected"},
    "duplicate_card": {"card"},
    "misdeal": set(),
    "bad_event": set(),
    "result": {"declarer", "contract", "tricks"},
}
CARD = re.compile(r"^[SHDC][AKQJT98765432]$")


def replay(*paths, json_out=True):
    cmd = [sys.executable, "-m", "tablecam", "replay", *paths] + (["--json"] if json_out else [])
    return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=120)


def lines_of(path):
    with open(path, encoding="utf-8") as fp:
        return fp.read().splitlines()


@pytest.mark.parametrize("path", LOGS, ids=os.path.basename)
def test_replay_json_meets_contract(path):
    p = replay(path)
    assert p.returncode == 0, p.stderr
    out = [json.loads(line) for line in p.stdout.splitlines()]
    assert out
    src = lines_of(path)
    boards = set()
    for f in out:
        for key in ("kind", "board", "rule", "message", "event"):
            assert key in f, (key, f)
        assert isinstance(f["rule"], str) and f["rule"]
        assert isinstance(f["message"], str) and f["message"].endswith(".") and not f["message"][0].islower()
        assert isinstance(f["event"], int) and 0 <= f["event"] < len(src)
        assert CONTRACT_FIELDS.get(f["kind"], set()) <= set(f), f
        if "seat" in f:
            assert f["seat"] in ("N", "E", "S", "W")
        if "trick" in f:
            assert isinstance(f["trick"], int) and 1 <= f["trick"] <= 13
        if "card" in f:
            assert CARD.match(f["card"])
        if f["kind"] == "revoke":
            assert isinstance(f["established"], bool)
        if f["kind"] == "penalty_card":
            assert isinstance(f["major"], bool)
        if f["kind"] != "bad_event":
            assert f["rule"].startswith("Law "), f
        boards.add(f["board"])
    results = [f for f in out if f["kind"] == "result"]
    assert sorted(r["board"] for r in results) == sorted(boards)
    for r in results:
        assert r["contract"] == "Pass" or re.match(r"^[1-7][SHDCN](X|XX)?$", r["contract"])
        assert r["declarer"] in (None, "N", "E", "S", "W")


def test_every_contract_finding_kind_is_covered():
    p = replay(*LOGS)
    assert p.returncode == 0, p.stderr
    seen = {json.loads(line)["kind"] for line in p.stdout.splitlines()}
    assert set(CONTRACT_FIELDS) <= seen, set(CONTRACT_FIELDS) - seen


def _out(name):
    path = os.path.join(ROOT, "tests", "data", "bridge", name)
    return [json.loads(x) for x in replay(path).stdout.splitlines()], lines_of(path)


def test_revoke_log_events_point_at_the_right_lines():
    out, src = _out("revoke_transfer.jsonl")
    rv = [f for f in out if f["kind"] == "revoke"]
    first = json.loads(src[rv[0]["event"]])
    assert first["type"] == "play" and first["seat"] == rv[0]["seat"] and first["card"] == rv[0]["card"]
    est = json.loads(src[rv[1]["event"]])
    assert rv[1]["established"] is True and est["type"] == "play"
    assert est["seat"] in (rv[0]["seat"], {"N": "S", "S": "N", "E": "W", "W": "E"}[rv[0]["seat"]])
    tt = [f for f in out if f["kind"] == "trick_transfer"]
    res = [f for f in out if f["kind"] == "result"][0]
    assert tt[0]["tricks"] == 2 and res["transferred"] == 2
    played = [json.loads(x) for x in src if '"play"' in x]
    assert len(played) == 52


def test_deal_errors_log():
    out, src = _out("deal_errors.jsonl")
    kinds = [f["kind"] for f in out]
    assert kinds.count("wrong_card_count") == 2 and "duplicate_card" in kinds and "misdeal" in kinds
    md = [f for f in out if f["kind"] == "misdeal"][0]
    assert json.loads(src[md["event"]])["face_up"] is True
    assert [f for f in out if f["kind"] == "result"][0]["contract"] == "Pass"


def test_bad_lines_do_not_stop_the_replay():
    out, src = _out("bad_lines.jsonl")
    bad = [f for f in out if f["kind"] == "bad_event"]
    assert len(bad) == 4
    res = [f for f in out if f["kind"] == "result"][0]
    assert res["contract"] == "1N" and res["tricks"] == 7


def test_human_readable_replay():
    p = replay(*LOGS, json_out=False)
    assert p.returncode == 0 and "revoke" in p.stdout and "Law 64A1" in p.stdout


def test_a_file_that_cannot_be_read_is_named_and_the_others_replayed(tmp_path):
    """A directory or a missing file among the logs: a clear line on stderr,
    exit status 1 (the contract's: nothing could be read from it), and the
    readable logs replayed all the same (before, a .jsonl path that could
    not be opened ended the run with a traceback)."""
    good = LOGS[0]
    r = replay(str(tmp_path), str(tmp_path / "missing.jsonl"), good)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert f"cannot read {tmp_path}" in r.stderr and "missing.jsonl" in r.stderr
    out = [json.loads(x) for x in r.stdout.splitlines()]
    assert out and {o["file"] for o in out} == {good}
