"""Writers: PBN, LIN and JSON Lines from any event stream, and the `tablecam export` command."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablecam.archive import load
from tablecam.archive.export import export, table_results
from tablecam.archive.lin import lin_events
from tablecam.archive.pbn import pbn_events
from tablecam.events import Event, make_event, read_events
from tablecam.findings import Finding

DATA = Path(__file__).parent / "data" / "archive"
REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "data" / "bridge"


def evs(its) -> list[tuple]:
    return [(e.type, e.to_dict()) for e in its if isinstance(e, Event)]


def roundtrip(its: list, fmt: str) -> tuple[str, list]:
    buf = io.StringIO()
    export(its, fmt, buf)
    reader = {"pbn": pbn_events, "lin": lin_events}[fmt]
    return buf.getvalue(), list(reader(buf.getvalue()))


@pytest.mark.parametrize("name", ["realbridge-sample.pbn", "wc2012-flaws.pbn", "features.pbn"])
def test_pbn_events_pbn_events_keeps_deal_auction_play_and_result(name):
    first = list(load(str(DATA / name)))
    text, second = roundtrip(first, "pbn")
    assert evs(second) == evs(first)
    # flaws were repaired the first time; a game without an auction stays without one
    assert {f.extra["flaw"] for f in second if isinstance(f, Finding)} <= {"auction_missing"}


def test_pbn_writer_tags_sections_and_flaws_as_comments():
    text, _ = roundtrip(list(load(str(DATA / "wc2012-flaws.pbn"))), "pbn")
    game = text.split("\n\n")[0]
    assert game.startswith("% PBN 2.1\n% EXPORT")
    for tag in ('[Event "World Championship"]', '[Board "1"]', '[North "Balicki"]', '[Dealer "N"]',
                '[Vulnerable "None"]', '[Deal "N:A8643.97642.Q.Q8 KT9.K3.K75.AK652 QJ752.T.AJT432.4 '
                '.AQJ85.986.JT973"]', '[Declarer "E"]', '[Contract "5C"]', '[Result "12"]', '[Auction "N"]',
                '[Play "S"]'):
        assert tag in game
    assert "Pass 1NT X XX\n4H X 4S 4NT\nX 5C Pass Pass\nPass" in game
    assert "SQ C3 S3 S9\nC4 C7 C8 CK\n*" in game  # play up to the flawed trick, then '*'
    assert "{archive_flaw: Board 1 (line 5): trick 3 lists CQ for E" in game


def test_pbn_writer_notes_partial_trick_and_claim():
    text, _ = roundtrip(list(load(str(DATA / "realbridge-sample.pbn"))), "pbn")
    game = text.split("\n\n")[1]
    assert "1C =1= Pass 1NT =2= Pass\nPass Pass" in game
    assert '[Note "1:11-13,17-19 or clubs"]' in game and '[Note "2:9-11, no 4cM"]' in game
    assert '[Result "8"]' in game and "C8 CQ CK C4\n- - H3 -\n*" in game


def test_real_files_round_trip_exactly():
    path = SHARED / "realbridge-2021.pbn"
    if not path.exists():
        pytest.skip(f"{path} not present (CI clones shared/ beside the repo)")
    first = list(load(str(path)))
    for fmt in ("pbn", "lin"):
        _, second = roundtrip(first, fmt)
        a, b = evs(first), evs(second)
        if fmt == "lin":  # LIN holds no event/site/date/scoring tags
            for x in a + b:
                for k in ("event", "site", "date", "scoring"):
                    x[1].pop(k, None)
        assert a == b, fmt


def test_lin_writer_line():
    buf = io.StringIO()
    export(list(load(str(DATA / "vugraph.lin"))), "lin", buf)
    lines = buf.getvalue().splitlines()
    assert len(lines) == 2
    assert lines[1].startswith("qx|c11|pn|Alexandru Cristian Mugioiu,Ilan Herbst,Marius Agica,Ophir Herbst|st||md|1")
    assert "|mb|1C!|an|11-13,17-19 or clubs|mb|p|mb|1N!|" in lines[1] and lines[1].endswith("|pc|H3|mc|8|pg||")


def test_jsonl_export_reads_back_as_the_same_events():
    first = list(load(str(DATA / "features.pbn")))
    buf = io.StringIO()
    n = export(first, "jsonl", buf)
    lines = buf.getvalue().splitlines()
    assert n == len(lines) == len(evs(first))
    back = list(read_events(lines))
    assert not [f for f in back if isinstance(f, Finding)]
    # the event log schema keeps only known fields in data; extras such as a call's note stay in raw
    assert [(e.type, {**e.to_dict(), **({"note": e.raw["note"]} if "note" in e.raw else {})})
            for e in back if e.type != "board"] == [x for x in evs(first) if x[0] != "board"]
    assert json.loads(lines[0])["event"] == 'Club "Friday" pairs'
    # a JSON Lines log converts to PBN with the board fields kept in the raw objects
    text, again = roundtrip(back, "pbn")
    assert '[Event "Club \\"Friday\\" pairs"]' in text and evs(again) == evs(first)


def test_retracted_card_is_left_out_and_claim_gives_result():
    base = [e for e in load(str(DATA / "realbridge-sample.pbn")) if isinstance(e, Event)]
    start = [i for i, e in enumerate(base) if e.type == "board"][1]  # table 2 of board 11
    b = base[start:]
    b = b[: next(i for i, e in enumerate(b) if e.type == "end") + 1]
    first_play = next(i for i, e in enumerate(b) if e.type == "play")
    # E leads D4; S first plays a heart then takes it back (Law 62 correction) and plays DJ.
    wrong = make_event("play", seat="S", card="H4")
    back = make_event("retract", seat="S", card="H4")
    b = b[: first_play + 1] + [wrong, back] + b[first_play + 1:]
    [r] = [x for x in table_results(b) if not isinstance(x, str)]
    assert [(str(s), str(c)) for s, c in r.plays[:4]] == [("E", "D4"), ("S", "DJ"), ("W", "D3"), ("N", "D5")]
    assert r.declarer_tricks(*r.outcome()) == 8


def test_other_games_are_not_written_as_pbn():
    evs_ = [make_event("board", game="whist", board=3, dealer="N"), make_event("end")]
    buf = io.StringIO()
    assert export(evs_, "pbn", buf) == 0
    assert "whist is not bridge" in buf.getvalue()
    with pytest.raises(ValueError):
        export(evs_, "xml", io.StringIO())


def _tablecam() -> list[str]:
    exe = Path(sys.executable).parent / "tablecam"
    if exe.exists():
        return [str(exe)]
    found = shutil.which("tablecam")
    return [found] if found else [sys.executable, "-m", "tablecam"]


@pytest.mark.parametrize("fmt", ["pbn", "lin", "jsonl"])
def test_tablecam_export_command(tmp_path, fmt):
    src = DATA / "wc2012-flaws.pbn"
    p = subprocess.run([*_tablecam(), "export", str(src), "-f", fmt], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    out = tmp_path / f"out.{fmt}"
    out.write_text(p.stdout)
    assert evs(load(str(out)))[5:] == evs(load(str(src)))[5:] or fmt != "pbn"
    again = list(load(str(out)))
    assert len([e for e in again if isinstance(e, Event) and e.type == "board"]) == 11


def test_tablecam_export_to_file_and_bad_input(tmp_path):
    out = tmp_path / "x.pbn"
    p = subprocess.run([*_tablecam(), "export", str(DATA / "single.lin"), str(tmp_path / "missing.pbn"),
                        "-f", "pbn", "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and "missing.pbn" in p.stderr
    assert '[Contract "1NT"]' in out.read_text() and '[Result "7"]' in out.read_text()


def test_finding_event_index_is_the_line_of_the_exported_log():
    """A finding's `event` from a PBN replay points at the same line of `tablecam export -f jsonl`."""
    from tablecam.engine import replay

    pytest.importorskip("tablecam.rules.bridge")
    src = list(load(str(DATA / "wc2012-flaws.pbn")))
    buf = io.StringIO()
    export(src, "jsonl", buf)
    lines = buf.getvalue().splitlines()
    a = [(f.kind, f.event, f.extra.get("contract"), f.extra.get("tricks")) for f in replay(src) if f.kind != "archive_flaw"]
    b = [(f.kind, f.event, f.extra.get("contract"), f.extra.get("tricks")) for f in replay(read_events(lines))]
    assert a == b and len(a) == 11
    assert all(json.loads(lines[e])["type"] in ("end", "claim") for _, e, _, _ in a)


def test_jsonl_to_jsonl_keeps_fields_the_schema_does_not_know():
    first = io.StringIO()
    export(list(load(str(DATA / "features.pbn"))), "jsonl", first)
    again = io.StringIO()
    export(list(read_events(first.getvalue().splitlines())), "jsonl", again)
    assert again.getvalue() == first.getvalue()


def test_live_log_with_odd_calls_still_exports():
    lines = ['{"type": "board", "game": "bridge", "board": 4, "dealer": "W", "vulnerable": "All"}']
    from tablecam.cards import full_deck
    seats = "NESW"
    lines += [json.dumps({"type": "deal", "to": seats[i % 4], "card": str(c)}) for i, c in enumerate(full_deck())]
    lines += ['{"type": "call", "seat": "W", "call": "1nt"}', '{"type": "call", "seat": "N", "call": "banana"}',
              '{"type": "call", "seat": "E", "call": "pass"}', '{"type": "end"}']
    buf = io.StringIO()
    assert export(list(read_events(lines)), "lin", buf) == 1 and "|mb|1N|mb|banana|mb|p|" in buf.getvalue()
    buf = io.StringIO()
    export(list(read_events(lines)), "pbn", buf)
    assert "1NT banana Pass" in buf.getvalue() and '[Contract ""]' in buf.getvalue()


_SEAT = st.sampled_from(["N", "E", "S", "W"])
_CARD = st.sampled_from(["SA", "HT", "D2", "CK", "S5", "H9"])
_EVENT = st.one_of(
    st.builds(lambda b, d: {"type": "board", "game": "bridge", "board": b, "dealer": d}, st.integers(0, 40), _SEAT),
    st.builds(lambda s, c: {"type": "deal", "to": s, "card": c}, _SEAT, _CARD),
    st.builds(lambda s, c: {"type": "call", "seat": s, "call": c}, _SEAT,
              st.sampled_from(["P", "X", "XX", "1C", "1N", "3S", "7N", "pass", "zz"])),
    st.builds(lambda s, c: {"type": "play", "seat": s, "card": c}, _SEAT, _CARD),
    st.builds(lambda s, c: {"type": "retract", "seat": s, "card": c}, _SEAT, _CARD),
    st.builds(lambda s, n: {"type": "claim", "seat": s, "tricks": n}, _SEAT, st.integers(0, 13)),
    st.builds(lambda s, c: {"type": "contract", "contract": c, "declarer": s}, _SEAT, st.sampled_from(["4S", "3NX", "Pass", "9Q"])),
    st.just({"type": "end"}),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_EVENT, max_size=40), st.sampled_from(["pbn", "lin", "jsonl"]))
def test_writers_never_crash_on_any_event_sequence(objs, fmt):
    import tablecam.archive.record  # noqa: F401  (registers the contract event)

    items = list(read_events(json.dumps(o) for o in objs))
    export(items, fmt, io.StringIO())
