"""BBO LIN reader: hand-made vugraph and single-board files built from real deals and play."""

from __future__ import annotations

import io
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tablecam.archive import load
from tablecam.archive.export import export
from tablecam.archive.lin import lin_events, parse_md
from tablecam.cards import Seat
from tablecam.engine import replay
from tablecam.events import Event
from tablecam.findings import Finding

DATA = Path(__file__).parent / "data" / "archive"


def boards(its: list) -> list[list]:
    out: list[list] = []
    for it in its:
        if isinstance(it, Event) and it.type == "board":
            out.append([])
        out[-1].append(it)
    return out


def plain(its) -> list[tuple]:
    """Events without the fields LIN cannot hold (event/site/date/room), for comparing with PBN."""
    out = []
    for e in its:
        if isinstance(e, Event):
            d = dict(e.data)
            for k in ("event", "site", "date", "scoring", "room"):
                d.pop(k, None)
            out.append((e.type, d))
    return out


def test_md_dealer_digit_and_hand_order_s_w_n_e():
    dealer, hands, problem = parse_md("2SAKQJHAKQDAKQCAKQ,ST987HJT9DJT9CJT9,S2H5432D5432C5432,")
    assert problem is None and dealer is Seat.W
    assert str(hands[Seat.S][0]) == "SA" and str(hands[Seat.W][0]) == "ST" and str(hands[Seat.N][0]) == "S2"
    assert sorted(str(c)[0] for c in hands[Seat.E]) == sorted("SSSSHHHDDDCCC")  # the omitted 4th hand


def test_md_with_two_hands_missing_is_a_flaw():
    its = list(lin_events("md|3SAKQJHAKQDAKQCAKQ,,,|sv|o|mb|p|"))
    assert len(its) == 1 and its[0].kind == "archive_flaw" and its[0].rule == "BBO LIN format"


def test_vugraph_rooms_names_and_board_ids():
    its = list(load(str(DATA / "vugraph.lin")))
    assert not [f for f in its if isinstance(f, Finding)]
    b = boards(its)
    assert len(b) == 2
    o, c = b[0][0], b[1][0]
    assert (o.board, o.room, o.players["S"], o.event) == (11, "open", "Clemens Wanha", "2021 Online Qual: Open R2")
    assert (c.board, c.room, c.players["S"], c.players["E"]) == (11, "closed", "Alexandru Cristian Mugioiu", "Ophir Herbst")
    assert [e.call for e in b[0] if e.type == "call"] == ["P"] * 4


def test_alerts_and_annotations_become_call_notes():
    b = boards(list(load(str(DATA / "vugraph.lin"))))[1]
    assert [(e.call, e.get("note")) for e in b if e.type == "call"][:3] == [
        ("1C", "11-13,17-19 or clubs"), ("P", None), ("1N", "9-11, no 4cM")]


def test_cards_in_order_of_play_and_mc_claim():
    b = boards(list(load(str(DATA / "vugraph.lin"))))[1]
    plays = [(str(e.seat), str(e.card)) for e in b if e.type == "play"]
    assert plays[:5] == [("E", "D4"), ("S", "DJ"), ("W", "D3"), ("N", "D5"), ("S", "S2")]
    assert len(plays) == 29
    claim = [e for e in b if e.type == "claim"]
    assert [(str(e.seat), e.tricks) for e in claim] == [("N", 8)]


def test_lin_and_pbn_of_the_same_real_table_give_the_same_events():
    pbn = boards(list(load(str(DATA / "realbridge-sample.pbn"))))
    lin = boards(list(load(str(DATA / "vugraph.lin"))))
    # vugraph.lin holds realbridge tables 1 and 2 (names without the #ids).
    assert plain(lin[1])[1:] == plain(pbn[1])[1:]
    assert plain(lin[0])[1:] == plain(pbn[0])[1:]


def test_single_board_file_lower_case_and_10_spelling():
    its = list(load(str(DATA / "single.lin")))
    assert not [f for f in its if isinstance(f, Finding)]
    pbn = boards(list(load(str(DATA / "realbridge-sample.pbn"))))[2]
    assert plain(its)[1:] == plain(pbn)[1:]


def test_replayed_result_matches_the_real_result():
    res = [f for f in replay(load(str(DATA / "vugraph.lin"))) if f.kind == "result"]
    assert len(res) == 2 and res[0].extra["contract"] == "Pass"
    assert (res[1].extra["contract"], res[1].extra["declarer"], res[1].extra["tricks"]) == ("1N", "N", 8)


def test_pbn_converted_to_lin_reads_back_identically():
    src = list(load(str(DATA / "realbridge-sample.pbn")))
    buf = io.StringIO()
    assert export(src, "lin", buf) == 6
    back = list(lin_events(buf.getvalue()))
    assert not [f for f in back if isinstance(f, Finding)]
    assert plain(back) == plain(src)


def test_inconsistent_lin_play_is_an_archive_flaw():
    text = (DATA / "single.lin").read_text().replace("pc|S5|pc|S2|", "pc|S2|pc|S5|")
    its = list(lin_events(text))
    f = [x for x in its if isinstance(x, Finding)]
    assert len(f) == 1 and f[0].extra["flaw"] == "play_inconsistent" and f[0].trick == 3
    assert [e.type for e in its if isinstance(e, Event)][-2:] == ["claim", "end"]


def test_unknown_keys_are_reported_once():
    its = list(lin_events((DATA / "single.lin").read_text().replace("st||", "zz|1|st||")))
    f = [x for x in its if isinstance(x, Finding)]
    assert len(f) == 1 and "zz" in f[0].message


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="|,!mbpcdqxnsvaho0123456789SHDCAKQJT ", max_size=300))
def test_any_text_never_crashes_the_reader(text):
    for it in lin_events(text):
        assert isinstance(it, (Event, Finding))


def test_tablecam_replay_reads_lin(tmp_path):
    import json
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "tablecam", "replay", str(DATA / "vugraph.lin"), "--json"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    assert [(d["kind"], d["contract"], d["tricks"]) for d in lines] == [("result", "Pass", None), ("result", "1N", 8)]


def test_play_without_an_auction_is_reported_not_dropped():
    its = list(lin_events("md|3SAKQJHAKQDAKQCAKQ,ST987HJT9DJT9CJT9,S2H5432D5432C5432,|sv|o|pc|S6|pc|S2|mc|13|"))
    f = [x for x in its if isinstance(x, Finding)]
    assert len(f) == 1 and f[0].extra["flaw"] == "play_without_contract" and "2 played card(s) and a claim" in f[0].message


def test_passes_after_the_auction_are_an_archive_flaw_and_the_claimed_result_stands():
    """Real VuGraph files sometimes record passes after the final pass (``mb|p|mb|p|mb|p|mb|p|`` after
    the contract bid): the contract is read, the extra passes reported as an archive flaw, the mc claim kept."""
    text = (DATA / "vugraph.lin").read_text()
    auction = "mb|1N!|an|9-11, no 4cM|mb|p|mb|p|mb|p|"
    assert auction in text
    for extra in (1, 2):
        its = list(lin_events(text.replace(auction, auction + "mb|p|" * extra)))
        flaws = [f for f in its if isinstance(f, Finding)]
        assert [(f.kind, f.extra["flaw"], f.board) for f in flaws] == [("archive_flaw", "passes_after_auction", 11)]
        assert f"{extra} pass" in flaws[0].message and "1N by N" in flaws[0].message
        closed = boards([e for e in its if isinstance(e, Event)])[1]
        assert [e.call for e in closed if e.type == "call"] == ["1C", "P", "1N", "P", "P", "P"]
        res = [f for f in replay(its) if f.kind == "result"]
        assert [(r.extra["contract"], r.extra["declarer"], r.extra["tricks"]) for r in res] == [
            ("Pass", None, None), ("1N", "N", 8)]


def test_each_result_names_its_room_and_has_its_own_id():
    res = [f.to_dict() for f in replay(load(str(DATA / "vugraph.lin"))) if f.kind == "result"]
    assert [(r["board"], r["room"]) for r in res] == [(11, "open"), (11, "closed")]
    assert len({r["id"] for r in res}) == 2 and [r["id"].split("-result-")[0] for r in res] == ["11-open",
                                                                                                 "11-closed"]
