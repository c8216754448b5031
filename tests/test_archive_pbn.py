"""PBN 2.1 reader: real games from shared/data/bridge and a hand-made feature file.

The samples in tests/data/archive/ are copied unchanged from the real archives
(realbridge-sample.pbn, wc2012-flaws.pbn); features.pbn is hand-made around a
real deal to exercise comments, escapes, notes and tag inheritance.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablecam.archive import load
from tablecam.archive.pbn import parse_deal, pbn_events, pbn_records
from tablecam.cards import Seat
from tablecam.events import Event
from tablecam.findings import Finding

DATA = Path(__file__).parent / "data" / "archive"


def items(name: str) -> list:
    return list(load(str(DATA / name)))


def boards(its: list) -> list[list]:
    """Split a stream into per-board lists (findings stay with their board)."""
    out: list[list] = []
    for it in its:
        if isinstance(it, Event) and it.type == "board":
            out.append([])
        out[-1].append(it)
    return out


def flaws(its: list) -> list[Finding]:
    return [f for f in its if isinstance(f, Finding)]


def test_real_games_all_read_with_no_flaw():
    its = items("realbridge-sample.pbn")
    assert not flaws(its)
    bs = boards(its)
    assert len(bs) == 6
    for b in bs:
        types = [e.type for e in b]
        assert types[0] == "board" and types[-1] == "end"
        assert types[1:53] == ["deal"] * 52


def test_deal_one_card_at_a_time_clockwise_from_dealers_left():
    b = boards(items("realbridge-sample.pbn"))[0]
    head = b[0]
    assert (head.board, head.dealer, head.vulnerable) == (11, Seat.S, "None")
    assert head.event == "2021 Online Qual: Open R2" and head.players["W"] == "Michael Askgaard#23324"
    deals = [e for e in b if e.type == "deal"]
    assert [str(e.get("to")) for e in deals[:8]] == list("WNESWNES")
    hands = {s: {str(e.card) for e in deals if e.get("to") is s} for s in Seat}
    assert all(len(h) == 13 for h in hands.values())
    # Deal "N:KT8.A96.A95.7542 Q5.KJ52.KQ874.T8 AJ92.874.JT6.AQ3 7643.QT3.32.KJ96"
    assert {"SK", "ST", "S8", "HA", "C2"} <= hands[Seat.N] and {"SQ", "S5", "DK"} <= hands[Seat.E]
    assert {"SA", "CA"} <= hands[Seat.S] and {"S7", "CK"} <= hands[Seat.W]


def test_passed_out_board_is_four_passes():
    b = boards(items("realbridge-sample.pbn"))[0]
    assert [(str(e.seat), e.call) for e in b if e.type == "call"] == [("S", "P"), ("W", "P"), ("N", "P"), ("E", "P")]
    assert not [e for e in b if e.type in ("play", "claim")]


def test_auction_calls_canonical_notes_and_all_pass():
    b = boards(items("realbridge-sample.pbn"))[1]
    calls = [(str(e.seat), e.call, e.get("note")) for e in b if e.type == "call"]
    assert calls == [("S", "1C", "11-13,17-19 or clubs"), ("W", "P", None), ("N", "1N", "9-11, no 4cM"),
                     ("E", "P", None), ("S", "P", None), ("W", "P", None)]


def test_play_columns_become_order_of_play_via_trick_winners():
    # [Play "E"] rows are E S W N columns; trick 2 is led by S (won trick 1 with DJ).
    b = boards(items("realbridge-sample.pbn"))[1]
    plays = [(str(e.seat), str(e.card)) for e in b if e.type == "play"]
    assert plays[:4] == [("E", "D4"), ("S", "DJ"), ("W", "D3"), ("N", "D5")]
    assert plays[4:8] == [("S", "S2"), ("W", "S3"), ("N", "SK"), ("E", "S5")]
    assert plays[8] == ("N", "ST")
    # "-  -  H3 -": W (who won trick 7 with CK) leads H3 and the rest was claimed.
    assert plays[-1] == ("W", "H3") and len(plays) == 29


def test_play_stopping_early_is_a_claim_by_declarer_for_the_result_tag():
    b = boards(items("realbridge-sample.pbn"))[1]
    assert [(e.type, str(e.seat), e.tricks) for e in b[-2:-1]] == [("claim", "N", 8)]
    assert b[-1].type == "end"


def test_event_indices_run_on_across_games():
    its = [e for e in items("realbridge-sample.pbn") if isinstance(e, Event)]
    assert [e.index for e in its] == list(range(len(its)))


def test_features_comments_escapes_and_notes():
    its = items("features.pbn")
    assert not flaws(its[:100])
    b = boards(its)
    assert b[0][0].event == 'Club "Friday" pairs' and b[0][0].site == "Aarhus"
    calls = [(e.call, e.get("note")) for e in b[0] if e.type == "call"]
    assert calls[:3] == [("1C", "11-13,17-19 or clubs"), ("P", None), ("1N", "9-11, no 4cM")]
    assert len([e for e in b[0] if e.type == "play"]) == 29


def test_hash_and_omitted_tags_inherit_from_previous_game():
    b = boards(items("features.pbn"))
    second = b[1][0]
    assert (second.board, second.dealer, second.vulnerable, second.event) == (11, Seat.S, "None", 'Club "Friday" pairs')
    assert second.players["S"] == "Mikael Rimstedt"
    deals1 = [(e.get("to"), e.card) for e in b[0] if e.type == "deal"]
    deals2 = [(e.get("to"), e.card) for e in b[1] if e.type == "deal"]
    assert deals1 == deals2


def test_missing_hand_is_the_remaining_cards():
    hands, problem = parse_deal("E:- AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432.")
    assert problem is None and {c.suit for c in hands[Seat.E]} == {"C"} and len(hands[Seat.E]) == 13


def test_player_names_are_not_inherited():
    b = boards(items("wc2012-flaws.pbn"))
    assert b[0][0].players["N"] == "Balicki" and b[1][0].players["N"] == "Ahlesved"
    assert b[2][0].get("players") is None  # board 2 names are the other room's: not guessed


def test_lost_opening_passes_repaired_and_reported():
    """wc2012 board 1: '1NT X XX 4H ...' from dealer N only fits 5C by E if N passed first."""
    b = boards(items("wc2012-flaws.pbn"))[0]
    f = [x for x in b if isinstance(x, Finding) and x.extra["flaw"] == "auction_repaired"]
    assert len(f) == 1 and f[0].kind == "archive_flaw" and f[0].status == "info"
    assert f[0].rule == "PBN 2.1 standard" and "Board 1 (line 5)" in f[0].message
    calls = [(str(e.seat), e.call) for e in b if isinstance(e, Event) and e.type == "call"]
    assert calls[:3] == [("N", "P"), ("E", "1N"), ("S", "X")]


def test_inconsistent_play_stops_at_that_trick_and_claims_the_result():
    """wc2012 board 1: trick 3 lists CQ for E, which N holds (rows turned into order of play)."""
    b = boards(items("wc2012-flaws.pbn"))[0]
    f = [x for x in b if isinstance(x, Finding) and x.extra["flaw"] == "play_inconsistent"]
    assert len(f) == 1 and f[0].trick == 3
    assert "trick 3 lists CQ for E" in f[0].message and "Board 1" in f[0].message
    evs = [e for e in b if isinstance(e, Event)]
    assert len([e for e in evs if e.type == "play"]) == 8
    assert [(e.type, str(e.seat), e.tricks) for e in evs[-2:-1]] == [("claim", "E", 12)]


def test_contract_tag_without_the_auctions_double_feeds_the_auction():
    b = [x for x in boards(items("wc2012-flaws.pbn")) if x[0].board == 13][0]
    f = [x for x in b if isinstance(x, Finding) and x.extra["flaw"] == "contract_mismatch"]
    assert len(f) == 1 and "5SX by N" in f[0].message and "says 5S" in f[0].message
    assert [e.call for e in b if isinstance(e, Event) and e.type == "call"][-4:] == ["X", "P", "P", "P"]


def test_impossible_result_gives_no_claim():
    b = [x for x in boards(items("wc2012-flaws.pbn")) if x[0].board == 10][1]
    f = [x for x in b if isinstance(x, Finding) and x.extra["flaw"] == "result_impossible"]
    assert len(f) == 1 and "11 tricks" in f[0].message and "7 of 10" in f[0].message
    assert not [e for e in b if isinstance(e, Event) and e.type == "claim"]
    assert len([e for e in b if isinstance(e, Event) and e.type == "play"]) == 40


def test_no_auction_section_feeds_a_contract_event():
    text = (DATA / "realbridge-sample.pbn").read_text().split("\n\n")[1]
    text = text.split("[Auction")[0] + "[Play" + text.split("[Play")[1]
    its = list(pbn_events(text))
    assert [f.extra["flaw"] for f in flaws(its)] == ["auction_missing"]
    assert "contract (1N by N) is taken from the Contract and Declarer tags" in flaws(its)[0].message
    c = [e for e in its if isinstance(e, Event) and e.type == "contract"]
    assert len(c) == 1 and (c[0].contract, c[0].declarer) == ("1N", Seat.N)
    assert len([e for e in its if isinstance(e, Event) and e.type == "play"]) == 29


def test_bad_deal_skips_the_game_reports_it_and_goes_on():
    text = '[Board "1"]\n[Dealer "N"]\n[Deal "N:AKQ.xx"]\n\n[Board "2"]\n[Dealer "E"]\n' \
           '[Deal "N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432"]\n'
    its = list(pbn_events(text))
    assert isinstance(its[0], Finding) and its[0].kind == "archive_flaw" and its[0].board == 1
    assert "skipped" in its[0].message
    assert [e.type for e in its if isinstance(e, Event)][:2] == ["board", "deal"]


def test_unknown_play_token_is_reported_not_fatal():
    text = (DATA / "realbridge-sample.pbn").read_text().split("\n\n")[1].replace("SQ SA S4 ST", "SQ ZZ S4 ST")
    its = list(pbn_events(text))
    msgs = [f.message for f in flaws(its)]
    assert any("'ZZ' not understood" in m for m in msgs)
    assert [e.type for e in its if isinstance(e, Event)][-1] == "end"


def test_records_expose_the_files_tags():
    recs = list(pbn_records((DATA / "wc2012-flaws.pbn").read_text()))
    assert [(r.board, r.contract, str(r.declarer), r.result) for r in recs[:2]] == [(1, "5C", "E", 12), (1, "4SX", "N", 10)]


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet='[]{}";%\\ \nABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.:-*=', max_size=400))
def test_any_text_never_crashes_the_reader(text):
    for it in pbn_events(text):
        assert isinstance(it, (Event, Finding))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 4000), st.integers(1, 40))
def test_damaged_real_file_never_crashes(pos, length):
    text = (DATA / "wc2012-flaws.pbn").read_text()
    damaged = text[:pos] + text[pos + length:]
    out = list(pbn_events(damaged))
    assert all(isinstance(it, (Event, Finding)) for it in out)


def test_a_real_players_revoke_still_reaches_the_engine():
    """The reader only hides the archive's mistakes: a revoke the deal allows is the engine's to judge.

    realbridge board 11, table 2: W (7643.QT3.32.KJ96) is made to discard H3 on the diamond
    lead of trick 1 while holding D3, and to play D3 at trick 8 instead.
    """
    pytest.importorskip("tablecam.rules.bridge")
    from tablecam.engine import replay

    game = (DATA / "realbridge-sample.pbn").read_text().split("\n\n")[1]
    game = game.replace("D4 DJ D3 D5", "D4 DJ H3 D5").replace("-  -  H3 - ", "-  -  D3 - ")
    out = list(replay(pbn_events(game)))
    assert not [f for f in out if f.kind == "archive_flaw"]
    revokes = [f for f in out if f.kind == "revoke"]
    assert revokes and revokes[0].seat == "W" and revokes[0].trick == 1


def test_unknown_call_stops_the_auction_and_is_reported():
    text = (DATA / "realbridge-sample.pbn").read_text().split("\n\n")[1]
    text = text.replace("1C =1= Pass 1NT =2= Pass", "1C =1= - 1NT =2= Pass")
    its = list(pbn_events(text))
    msgs = [f.message for f in flaws(its)]
    assert any("'-' (an unknown call)" in m for m in msgs)
    assert [e.call for e in its if isinstance(e, Event) and e.type == "call"] == []  # 1C alone fits no tag
    assert [e.type for e in its if isinstance(e, Event)][-1] == "end"


def test_hand_built_record_with_wrong_hand_sizes_is_skipped():
    from tablecam.archive.record import BoardRecord, record_events
    from tablecam.cards import full_deck

    d = full_deck()
    rec = BoardRecord(board=5, dealer=Seat.N, hands={Seat.N: d[:14], Seat.E: d[14:26], Seat.S: d[26:39], Seat.W: d[39:]})
    out, nxt = record_events(rec, 7)
    assert len(out) == 1 and out[0].kind == "archive_flaw" and out[0].board == 5 and nxt == 7


def test_missing_dealer_comes_from_the_board_number():
    text = (DATA / "realbridge-sample.pbn").read_text().split("\n\n")[1].replace('[Dealer "S"]\n', "")
    its = list(pbn_events(text))
    assert its[0].dealer is Seat.S  # board 11: dealer S in the standard rotation
    assert [f.extra["flaw"] for f in flaws(its)] == ["format"] and "board number" in flaws(its)[0].message
