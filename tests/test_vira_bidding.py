"""Vira SM 2025 sections A (game rules) and F (bidding errors), on complete deals from tests/data/vira."""

from __future__ import annotations

import pytest

from tablecam.events import parse_event
from tablecam.engine import Table
from tablecam.sim.vira_deals import complete_deal
from vira_helpers import DATA, fold, of as kinds, replay, score


def test_vira_A1_first_bid_not_pass():
    out, b = replay("vira-A1-first-bid-pass")
    f = kinds(out, "first_bid_pass")
    assert [x.status for x in f] == ["pending", "corrected"]
    assert f[0].rule == "Vira SM 2025 A.1" and f[0].seat == "E" and f[0].event == 54
    assert b.declarer.value == "E" and b.contract.name == "8-spel"
    assert score(out)["outcome"] == "hemma"


def test_vira_A2_passed_player_may_not_bid_again():
    out, b = replay("vira-A2-bid-after-pass")
    f = kinds(out, "bid_after_pass")
    assert len(f) == 1 and f[0].rule == "Vira SM 2025 A.2" and f[0].seat == "S" and f[0].status == "rectified"
    # the void bid did not count: E's 8-spel over N's Turné 7 won the auction
    assert b.declarer.value == "E" and b.contract.name == "8-spel"


def test_vira_A3_tringel_9_may_not_be_bid():
    out, b = replay("vira-A3-tringel")
    f = kinds(out, "bid_not_allowed")
    assert [x.status for x in f] == ["pending", "corrected"]
    assert f[0].rule == "Vira SM 2025 A.3" and "Tringel 9" in f[0].message
    assert b.contract.name == "8-spel"


def test_vira_A3_tringel_allowed_when_ruleset_says_so():
    evs = complete_deal(168, bids=[("E", "Tringel 9"), ("S", "pass"), ("N", "pass")], trump="S",
                        buys={"E": 3, "S": 2, "N": 2})
    t = Table(rulesets={"vira": {"not_biddable": []}})
    out = t.feed(parse_event(e, i) for i, e in enumerate(evs))
    assert not kinds(out, "bid_not_allowed") and t.boards[0].contract.name == "Tringel 9"


def test_vira_A4_unspecified_gask_declarer_chooses_above_previous_bid():
    out, b = replay("vira-A4-unspecified-gask")
    f = kinds(out, "unspecified_contract")
    assert [x.status for x in f] == ["pending", "corrected"]
    assert f[0].rule == "Vira SM 2025 A.4" and "Turné 7" in f[0].message
    assert "Gask på 1" in f[0].options and "Gask på 0" not in f[0].options
    assert b.contract.name == "Gask på 2" and score(out)["contract"] == "Gask på 2"


def test_vira_A4_unspecified_gask_never_named_is_flagged_at_first_lead():
    evs = [e for e in replay_raw("vira-A4-unspecified-gask") if e["type"] != "contract_choice"]
    out, b = fold(evs)
    f = kinds(out, "unspecified_contract")
    assert len(f) == 1 and f[0].status == "pending" and "has not said" in f[0].message
    assert score(out)["contract"] == "Gask på 1"  # settled as the lowest allowed, and says so
    assert "A.4" in score(out)["message"]


def test_vira_A4_solomisar_cannot_be_bid_unspecified():
    evs = complete_deal(47, bids=[("E", "Solo misär"), ("E", "Solo grande misär"), ("S", "pass"), ("N", "pass")])
    out, b = fold(evs)
    f = kinds(out, "unspecified_bid")
    assert f[0].rule == "Vira SM 2025 A.4" and f[-1].status == "corrected"
    assert b.contract.name == "Solo grande misär"


def test_vira_A5_unspecified_vingel_is_the_lowest_above_previous_bid():
    out, b = replay("vira-A5-unspecified-vingel")
    assert b.contract.name == "Vingel 6" and b.declarer.value == "N"
    assert not [f for f in out if f.kind not in ("score",)]


def test_vira_A5_naming_another_vingel_is_rectified():
    evs = replay_raw("vira-A5-unspecified-vingel")
    i = next(i for i, e in enumerate(evs) if e["type"] == "trump")
    evs.insert(i, {"type": "contract_choice", "seat": "N", "name": "Vingel 8"})
    out, b = fold(evs)
    f = kinds(out, "unspecified_contract")
    assert f and f[0].rule == "Vira SM 2025 A.5" and b.contract.name == "Vingel 6"


def test_vira_A7_open_misar_cards_shown_before_first_lead():
    out, b = replay("vira-A7-open-misar-not-shown")
    f = kinds(out, "open_misar_not_shown")
    assert len(f) == 1 and f[0].rule == "Vira SM 2025 A.7" and f[0].seat == "E"
    first_play = next(i for i, e in enumerate(replay_raw("vira-A7-open-misar-not-shown")) if e["type"] == "play")
    assert f[0].event == first_play
    out2, _ = replay("vira-solo-grande-misar-ouverte")  # same deal, cards shown: no finding
    assert not kinds(out2, "open_misar_not_shown")


def test_vira_A7_royal_misar_shown_before_purchase():
    evs = complete_deal(47, bids=[("E", "Solo grande misär ouverte royale"), ("S", "pass"), ("N", "pass")],
                        buys={"E": 0, "S": 1, "N": 1})
    out, b = fold(evs)
    f = kinds(out, "open_misar_not_shown")
    assert len(f) == 1 and evs[f[0].event]["type"] in ("buy", "discard", "play")


def test_vira_F1_insufficient_bid_must_bid_again():
    out, b = replay("vira-F1-insufficient-bid")
    f = kinds(out, "insufficient_bid")
    assert [x.status for x in f] == ["pending", "corrected"]
    assert f[0].rule == "Vira SM 2025 F.1" and f[0].seat == "S" and "may not pass" in f[0].message
    assert b.contract.name == "9-spel" and b.declarer.value == "S"


def test_vira_F2_pass_after_insufficient_bid_not_allowed():
    evs = complete_deal(168, bids=[("E", "8-spel"), ("S", "7-spel"), ("S", "pass"), ("N", "pass")], trump="S",
                        buys={"E": 3, "S": 2, "N": 2})
    out, b = fold(evs)
    f = kinds(out, "pass_not_allowed")
    assert len(f) == 1 and f[0].rule == "Vira SM 2025 F.2" and f[0].seat == "S"


def test_vira_F3_insufficient_bid_with_no_higher_bid_of_its_kind_may_pass():
    out, b = replay("vira-F3-insufficient-free")
    f = kinds(out, "insufficient_bid")
    assert f[0].rule == "Vira SM 2025 F.3" and f[0].options[0] == "pass"
    assert [x.status for x in f] == ["pending", "corrected"] and not kinds(out, "pass_not_allowed")
    assert b.contract.name == "Gask på 5"


def test_vira_F4_pass_out_of_turn_bidder_may_demand_a_bid():
    out, b = replay("vira-F4-pass-out-of-turn")
    f = kinds(out, "pass_out_of_turn")
    assert [x.status for x in f] == ["pending", "pending", "corrected"]
    assert f[0].rule == "Vira SM 2025 F.4" and f[0].seat == "N" and len(f[0].options) == 2
    assert "may require N" in f[1].remedy
    assert b.declarer.value == "N" and b.contract.name == "8-spel"


def test_vira_F4_pass_out_of_turn_stands_when_first_hand_bids():
    evs = complete_deal(168, bids=[("E", "7-spel"), ("N", "pass"), ("S", "8-spel"), ("E", "pass")], trump="S",
                        buys={"S": 3, "E": 2, "N": 2})
    out, b = fold(evs)
    f = kinds(out, "pass_out_of_turn")
    assert [x.status for x in f] == ["pending", "established"] and b.declarer.value == "S"


def test_vira_F5_bid_out_of_turn_is_not_considered():
    out, b = replay("vira-F5-bid-out-of-turn")
    f = kinds(out, "bid_out_of_turn")
    assert len(f) == 1 and f[0].rule == "Vira SM 2025 F.5" and f[0].status == "rectified" and f[0].seat == "N"
    assert b.contract.name == "8-spel" and b.declarer.value == "E"


def test_vira_F6_taking_from_talong_before_bidding_ends():
    out, b = replay("vira-F6-talong-before-end")
    f = kinds(out, "talong_before_auction")
    assert len(f) == 1 and f[0].rule == "Vira SM 2025 F.6" and f[0].seat == "S"
    s = score(out)
    assert s["outcome"] == "aborted" and s["bets"] == {"S": 1} and s["rule"] == "Vira SM 2025 F.6"


def test_vira_legal_bids_oracle():
    evs = [e for e in replay_raw("vira-8-spel-hemma") if e["type"] in ("board", "deal", "first_suit")]
    t = Table()
    for i, e in enumerate(evs + [{"type": "bid", "seat": "E", "bid": "Gask på 5"}]):
        t.apply(parse_event(e, i))
    bids = t.board.legal_bids()
    assert bids[0] == "pass" and "Gask på 5" not in bids and "Solo 8" in bids and "Tringel 9" not in bids


def replay_raw(name: str) -> list[dict]:
    import json
    return [json.loads(x) for x in (DATA / f"{name}.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]


@pytest.mark.parametrize("name", ["vira-8-spel-hemma", "vira-F4-pass-out-of-turn"])
def test_vira_auction_snapshot(name):
    _, b = replay(name)
    snap = b.snapshot()
    assert snap["game"] == "vira" and snap["phase"] == "done" and snap["auction"][0]["seat"] == "E"


def test_vira_C12_player_sitting_out_may_not_bid():
    evs = replay_raw("vira-8-spel-hemma")
    i = next(i for i, e in enumerate(evs) if e["type"] == "bid")
    evs.insert(i + 1, {"type": "bid", "seat": "W", "bid": "9-spel"})
    out, b = fold(evs)
    f = kinds(out, "sit_out_interference")
    assert len(f) == 1 and f[0].rule == "Vira SM 2025 C.12" and f[0].seat == "W"
    assert b.contract.name == "8-spel"


def test_vira_repeated_pass_is_ignored():
    evs = replay_raw("vira-8-spel-hemma")
    i = next(i for i, e in enumerate(evs) if e["type"] == "bid" and e["bid"] == "pass")
    evs.insert(i + 1, dict(evs[i]))
    out, b = fold(evs)
    assert [f.kind for f in out] == ["bad_event", "score"] and b.declarer.value == "E"


def test_vira_bad_board_fields_do_not_stop_the_deal():
    evs = replay_raw("vira-8-spel-hemma")
    evs[0] = {**evs[0], "players": "NX", "sit_out": "Q"}
    out, b = fold(evs)
    assert [f.kind for f in out].count("bad_event") == 2 and [str(s) for s in b.active] == ["E", "S", "N"]
    assert kinds(out, "score")[0].extra["outcome"] == "hemma"


def test_vira_B1_gok_tjuvpass_compensated_when_gok_goes_home():
    """E's gök goes home; N, second hand, passed without a single läggarde: a tjuvpass.

    Four-player table: the tjuvpassare pays his defence partner S and W (sitting out) 2 pinnar each;
    the gök itself pays 0 pinnar (Stockholm table), and E lifts a bet.
    """
    out, b = replay("vira-B1-gok-tjuvpass")
    f = kinds(out, "tjuvpass")
    assert len(f) == 1 and f[0].rule == "Vira SM 2025 B.1" and f[0].seat == "N" and f[0].status == "established"
    d = f[0].to_dict()
    assert d["laggarder"] == [] and d["needed"] == 1
    s = score(out)
    assert s["contract"] == "Gök" and s["outcome"] == "hemma"
    assert s["pinnar"] == {"N": -4, "E": 0, "S": 2, "W": 2} and s["bets"] == {"E": -1}


def test_vira_B1_laggarder_and_three_player_compensation():
    from tablecam.cards import parse_card as C
    from tablecam.rules.vira.gok import compensation, laggarde_suits
    lim = {1: 2, 2: 4, 3: 6, 4: 8, 5: 10}
    assert laggarde_suits([C("H4"), C("H3")], lim) == ["H"]              # fyra och trea
    assert laggarde_suits([C("HQ"), C("H9"), C("H8"), C("H7"), C("H6"), C("H5")], lim) == ["H"]  # 8765: åttan fjärde
    assert laggarde_suits([C("HQ"), C("HJ"), C("HT"), C("H9"), C("H8"), C("H7")], lim) == []     # dam sjätte
    table = {"4": {"one": {"partner": 2, "sit_out": 2}, "two": {"sit_out": 1}}, "3": {"one": {"partner": 3}, "two": {}}}
    assert compensation(["S"], {"S": "N", "N": "S"}, None, table) == {"S": -3, "N": 3}
    assert compensation(["S", "N"], {"S": "N", "N": "S"}, None, table) == {}
    assert compensation(["S", "N"], {"S": "N", "N": "S"}, "W", table) == {"S": -1, "W": 2, "N": -1}


def test_vira_A7_open_misar_hand_only_partly_shown():
    evs = replay_raw("vira-solo-grande-misar-ouverte")
    show = next(e for e in evs if e["type"] == "show")
    hidden = show["cards"].pop()
    out, b = fold(evs)
    f = kinds(out, "open_misar_not_shown")
    assert len(f) == 1 and f[0].to_dict()["hidden"] == [hidden] and f[0].rule == "Vira SM 2025 A.7"


def test_vira_legal_plays_before_the_first_lead_is_forehands_hand():
    evs = replay_raw("vira-8-spel-hemma")
    first = next(i for i, e in enumerate(evs) if e["type"] == "play")
    t = Table()
    for i, e in enumerate(evs[:first]):
        t.apply(parse_event(e, i))
    b = t.board
    assert b.phase == "purchase" and sorted(b.legal_plays()) == sorted(b.hands[b.forehand])


@pytest.mark.parametrize("over,bid,lowest,options_include", [
    ("7-spel", "Turné", "Turné 7", None),                     # A.5: the lowest turné over 7-spel
    ("Gask på 3", "Turné", None, None),                       # no turné overcalls Gask på 3: insufficient
    ("8-spel", "Köpmisär", None, ["Köpmisär på 2", "Köpmisär på 6"]),
    ("Solo 11", "Solo", None, ["Solo 12", "Solo Vira 13"]),  # solo vira is one of the solotrumfspel (A.4)
])
def test_vira_A4_A5_unspecified_bids(over, bid, lowest, options_include):
    evs = [e for e in replay_raw("vira-8-spel-hemma") if e["type"] in ("board", "first_suit", "deal")]
    evs += [{"type": "bid", "seat": "E", "bid": over}, {"type": "bid", "seat": "S", "bid": bid},
            {"type": "bid", "seat": "N", "bid": "pass"}, {"type": "bid", "seat": "E", "bid": "pass"},
            {"type": "play", "seat": "E", "card": evs[2]["card"]}]
    out, b = fold(evs)
    if lowest:
        assert b.contract.name == lowest and not kinds(out, "unspecified_contract")
    elif options_include:
        f = kinds(out, "unspecified_contract")
        assert f and all(o in f[0].options for o in options_include) and over not in f[0].options
    else:
        assert kinds(out, "insufficient_bid") and b.high.name == over
