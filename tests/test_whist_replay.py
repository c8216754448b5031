"""Complete es-makker whist deals replayed through the real CLI (`tablecam replay FILE --json`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).parent / "data" / "whist"
ROOT = Path(__file__).resolve().parents[1]


def replay(*files: Path) -> tuple[int, list[dict]]:
    p = subprocess.run([sys.executable, "-m", "tablecam", "replay", *map(str, files), "--json"],
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    return p.returncode, [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


def test_whist_meldingernes_raekkefoelge_replay_all_deals():
    files = sorted(DATA.glob("*.jsonl"))
    rc, out = replay(*files)
    assert rc == 0 and len(files) >= 7
    scores = {f["file"].rsplit("/", 1)[-1]: f for f in out if f["kind"] == "score"}
    assert set(scores) == {p.name for p in files}
    irregular = {"revoke-corrected.jsonl"}  # recorded irregularities, checked below
    assert {f["kind"] for f in out if f["file"].rsplit("/", 1)[-1] not in irregular} <= {
        "score", "nolo_lost", "jernhand"}
    jern = [f for f in out if f["kind"] == "jernhand"]
    assert [(f["file"].rsplit("/", 1)[-1], f["seat"], f["event"]) for f in jern] == [
        ("jernhaand-redeal.jsonl", "W", 56)]  # offered, claimed, redealt: then a normal deal
    for s in scores.values():
        assert sum(s["points"].values()) == 0 and s["rule"].startswith("Es-makker whist:")
    plain = scores["plain-8-spades.jsonl"]
    assert (plain["contract"], plain["declarer"], plain["partner"], plain["side_tricks"]) == ("8", "N", "E", 10)
    ten = scores["auction-example-2-ten.jsonl"]
    assert (ten["contract"], ten["declarer"], ten["partner"], ten["made"]) == ("10", "W", "N", True)


def test_whist_kortgivningen_replay_reports_misdeal(tmp_path):
    lines = (DATA / "plain-8-spades.jsonl").read_text().splitlines()
    kitty = [i for i, l in enumerate(lines) if '"kitty"' in l]
    lines.insert(kitty[0] + 1, lines.pop(kitty[1]))
    lines.insert(3, "{broken")
    f = tmp_path / "two-in-a-row.jsonl"
    f.write_text("\n".join(lines) + "\n")
    rc, out = replay(f)
    assert rc == 0
    assert [x["event"] for x in out if x["kind"] == "bad_event"] == [3]
    mis = [x for x in out if x["kind"] == "misdeal"]
    assert len(mis) == 1 and mis[0]["event"] == kitty[0] + 2 and mis[0]["seat"] == "S"
    assert out[-1]["kind"] == "score"


def test_whist_deal_sequence_from_the_shoe_passes_the_deal_rules():
    """The shoe tracker's deal events (tablecam.shoe) satisfy this engine's dealing rules."""
    from shoe_deals import shoe_deal_events
    from tablecam.engine import replay

    for dealer in "NESW":
        kinds = [f.kind for f in replay(shoe_deal_events("whist", dealer, seed=ord(dealer), cards=None))]
        assert set(kinds) <= {"jernhand"}, (dealer, kinds)


def test_whist_revoke_corrected_replayed_from_a_file():
    rc, out = replay(DATA / "revoke-corrected.jsonl")
    assert rc == 0
    r = [f for f in out if f["kind"] == "revoke"]
    assert [(f["status"], f["established"], f.get("corrected")) for f in r] == [
        ("pending", False, None), ("corrected", False, True)]
    assert r[0]["id"] == r[1]["id"] and (r[0]["seat"], r[0]["trick"], r[0]["event"]) == ("W", 2, 73)
    assert out[-1]["kind"] == "score" and out[-1]["made"] is True
