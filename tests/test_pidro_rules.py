"""Pidro rules (shared/rules/pidro-regler.sv.txt), one test group per numbered section.

Each irregularity test takes a complete, realistic deal from tests/data/pidro/
(recorded in the event vocabulary of docs/pidro.md) and changes the one thing
the rule is about, so the rest of the log stays a real deal. Expected scores
were worked out by hand from the rounds written in the comments.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tablecam.rules.pidro  # noqa: F401  (registers trump / discard / lay_down)
from tablecam.cards import parse_card
from tablecam.engine import Table
from tablecam.events import read_events
from tablecam.rules.pidro import is_trump, point_value, suit_of, trump_cards, trump_rank

DATA = Path(__file__).parent / "data" / "pidro"


def log(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text().splitlines() if line.strip()]


def run(events: list[dict], rulesets: dict | None = None) -> list[dict]:
    lines = [json.dumps(e) for e in events]
    return [f.to_dict() for f in Table(rulesets).feed(read_events(lines))]


def kinds(findings: list[dict]) -> list[str]:
    return [f["kind"] for f in findings]


def only(findings: list[dict], kind: str) -> list[dict]:
    return [f for f in findings if f["kind"] == kind]


def score(findings: list[dict]) -> dict:
    (s,) = only(findings, "score")
    return s


def index_of(events: list[dict], **match) -> int:
    for i, e in enumerate(events):
        if all(e.get(k) == v for k, v in match.items()):
            return i
    raise LookupError(match)


# -- the trump suit (Termer i pidron) ----------------------------------------

def test_pidro_termer_trump_suit_has_14_cards_in_order():
    order = sorted(trump_cards("H"), key=lambda c: -trump_rank(c, "H"))
    assert [str(c) for c in order] == ["HA", "HK", "HQ", "HJ", "HT", "H9", "H8", "H7", "H6", "H5", "D5",
                                       "H4", "H3", "H2"]
    assert suit_of(parse_card("C5"), "S") == "S" and not is_trump(parse_card("C5"), "H")


def test_pidro_termer_points_total_14():
    assert sum(point_value(c, "S") for c in trump_cards("S")) == 14
    assert point_value(parse_card("C5"), "S") == 5 and point_value(parse_card("SK"), "S") == 0


# -- Pidroregler 1: the deal --------------------------------------------------

def test_pidro_1_clean_deal_has_no_irregularity():
    f = run(log("made-9-hearts.jsonl"))
    assert kinds(f) == ["score"]


def test_pidro_1_deal_out_of_order_is_misdeal():
    ev = log("made-9-hearts.jsonl")
    ev[4]["to"] = "N"  # the 4th card should start West's packet of three
    f = only(run(ev), "misdeal")
    assert len(f) == 1 and f[0]["rule"] == "Pidroregler 1" and f[0]["event"] == 4
    assert f[0]["seat"] == "E" and f[0]["expected_seat"] == "W" and "redeal" in f[0]["options"]


def test_pidro_1_wrong_card_count_after_the_deal():
    ev = log("made-9-hearts.jsonl")
    del ev[36]  # East's last card never arrives
    f = only(run(ev), "wrong_card_count")
    assert [(x["seat"], x["count"], x["expected"]) for x in f][:1] == [("E", 8, 9)]
    assert f[0]["rule"] == "Pidroregler 1" and f[0]["event"] == 36  # raised at the first call


def test_pidro_1_duplicate_card():
    ev = log("made-9-hearts.jsonl")
    ev[5]["card"] = ev[1]["card"]  # the shoe reads HT twice
    f = only(run(ev), "duplicate_card")
    assert f and f[0]["card"] == "HT" and f[0]["event"] == 5


def test_pidro_1_redeal_rectifies_the_misdeal():
    ev = log("made-9-hearts.jsonl")
    bad = [dict(e) for e in ev[1:7]]
    bad[3]["to"] = "N"
    f = run([ev[0]] + bad + [{"type": "redeal", "seat": "E", "reason": "misdeal"}] + ev[1:])
    m = only(f, "misdeal")
    assert [x["status"] for x in m] == ["pending", "rectified"] and m[0]["id"] == m[1]["id"]
    assert score(f)["points"] == {"NS": 13, "EW": 1}


# -- Pidroregler 2: bidding ---------------------------------------------------

def test_pidro_2_bid_not_higher_than_the_last():
    ev = log("made-9-hearts.jsonl")
    i = index_of(ev, type="call", seat="N")
    ev[i]["call"] = "8"  # S bid 8, N also says 8
    f = run(ev)
    ins = only(f, "insufficient_bid")
    assert ins[0]["status"] == "pending" and ins[0]["seat"] == "N" and ins[0]["rule"] == "Pidroregler 2"
    assert ins[0]["bid"] == 8 and ins[0]["high_bid"] == 8
    assert ins[1]["status"] == "established" and ins[1]["id"] == ins[0]["id"]  # East called next
    # the bid counts as a pass: South's 8 is the contract
    assert score(f)["bidder"] == "S" and score(f)["bid"] == 8


def test_pidro_2_insufficient_bid_corrected():
    ev = log("made-9-hearts.jsonl")
    i = index_of(ev, type="call", seat="N")
    ev.insert(i, {"type": "call", "seat": "N", "call": "7"})
    f = run(ev)
    ins = only(f, "insufficient_bid")
    assert [x["status"] for x in ins] == ["pending", "corrected"]
    assert score(f)["bidder"] == "N" and score(f)["bid"] == 9


def test_pidro_2_dealer_takes_14_over_14_and_fails_minus_28():
    # E deals; S bids 14, E takes it with 14. Rounds: E DK S D5 W D9 N D6 (EW +5);
    # E DQ S D2 W D7 N DA (NS +1 ace, +1 two); E DJ W D3 (EW +1); E D8 W H5 (EW +5);
    # E DT W D4 (EW +1): EW 12, NS 2 -> 12 < 14, 14 over 14 set: EW -28, NS +2.
    ev = log("match-three-deals.jsonl")
    ev = ev[:index_of(ev, type="end") + 1]
    s = score(run(ev))
    assert s["fourteen_over_fourteen"] and not s["made"]
    assert s["points"] == {"NS": 2, "EW": 12} and s["delta"] == {"NS": 2, "EW": -28}


def test_pidro_2_dealer_14_over_14_not_allowed_by_variant():
    ev = log("match-three-deals.jsonl")
    ev = ev[:index_of(ev, type="end") + 1]
    f = run(ev, {"pidro": {"name": "no-14-over-14"}})
    ins = only(f, "insufficient_bid")
    assert ins and "14 over 14" in ins[0]["message"] and ins[0]["seat"] == "E"
    assert score(f)["bidder"] == "S" and score(f)["fourteen_over_fourteen"] is False


def test_pidro_2_all_pass_dealer_must_play_6():
    ev = log("match-three-deals.jsonl")
    start = index_of(ev, type="board", board=4)
    ev = ev[start:start + index_of(ev[start:], type="end") + 1]
    f = run(ev)
    assert only(f, "forced_bid")[0]["seat"] == "S"
    s = score(f)
    assert s["forced"] and s["bidder"] == "S" and s["bid"] == 6


def test_pidro_2_call_out_of_turn_and_bid_out_of_range():
    ev = log("made-9-hearts.jsonl")
    i = index_of(ev, type="call", seat="S")
    ev[i], ev[i + 1] = ev[i + 1], ev[i]  # West speaks before South
    ev[index_of(ev, type="call", seat="N")]["call"] = "15"
    f = run(ev)
    oot = only(f, "call_out_of_turn")
    assert oot[0]["seat"] == "W" and oot[0]["expected_seat"] == "S"
    assert only(f, "bid_out_of_range")[0]["bid"] == 15
    assert score(f)["bidder"] == "S"


def test_pidro_2_trump_named_by_the_wrong_player():
    ev = log("made-9-hearts.jsonl")
    ev[index_of(ev, type="trump")]["seat"] = "S"
    f = only(run(ev), "trump_by_wrong_player")
    assert f[0]["seat"] == "S" and f[0]["rule"] == "Pidroregler 2"


# -- Pidroregler 3: refill ----------------------------------------------------

def test_pidro_3_refill_beyond_six_cards():
    ev = log("made-9-hearts.jsonl")
    i = index_of(ev, type="deal", to="W", card="C6")  # West's first refill card
    moved = ev.pop(i - 1)  # South's 5th refill card (D8) goes to West's hand instead
    moved["to"] = "W"
    ev.insert(i + 5, moved)  # ... after West already has six
    f = only(run(ev), "wrong_card_count")
    assert f and f[0]["seat"] == "W" and f[0]["count"] == 7 and f[0]["rule"] == "Pidroregler 3"


# -- Pidroregler 4: play and the 14 / 62 point penalties -------------------------

def test_pidro_4_trump_discarded_gives_14_to_the_other_side():
    # N throws away H8 (no points) with his non-trumps, so it is missing from round 3.
    ev = log("made-9-hearts.jsonl")
    ev.pop(index_of(ev, type="play", seat="N", card="H8"))
    ev[index_of(ev, type="discard", seat="N")]["cards"].append("H8")
    f = run(ev)
    td = only(f, "trump_discarded")
    assert td[0]["status"] == "pending" and td[0]["seat"] == "N" and td[0]["penalty"] == 14
    assert td[0]["rule"] == "Pidroregler 4" and td[0]["remedy"] == "14 points to EW"
    assert td[-1]["status"] == "rectified" and td[-1]["id"] == td[0]["id"]
    s = score(f)
    # rounds: N HK E HQ S HT W H9 -> N (NS 1); N H5 E HJ S HA W H3 -> S (NS 8);
    # W D5 N H6 E H7 -> E (EW 5); E H2 W H4 -> W (the two: EW 6). 8 < 9: set.
    assert s["points"] == {"NS": 8, "EW": 6}
    assert s["made"] is False and s["delta"] == {"NS": -9, "EW": 6 + 14}
    assert s["penalties"] == [{"seat": "N", "kind": "trump_discarded", "points": 14, "to_side": "EW"}]


def test_pidro_4_repeated_offence_in_the_match_costs_62():
    ev = log("made-9-hearts.jsonl")
    ev[0]["players"] = {"N": "Anna", "E": "Bo", "S": "Cia", "W": "Dan"}
    ev[0]["offenders"] = ["Anna"]  # Anna already discarded a trump earlier in this match
    ev.pop(index_of(ev, type="play", seat="N", card="H8"))
    ev[index_of(ev, type="discard", seat="N")]["cards"].append("H8")
    s = score(run(ev))
    assert s["penalties"][0]["points"] == 62 and s["delta"]["EW"] == 6 + 62


def test_pidro_4_too_many_trumps_kept():
    ev = log("dealer-lays-down.jsonl")
    i = index_of(ev, type="lay_down")
    ev.pop(i)  # N keeps 7 trumps and plays D4 at the end instead
    ev.insert(len(ev) - 1, {"type": "play", "seat": "N", "card": "D4"})
    f = run(ev)
    tm = only(f, "too_many_trumps")
    assert tm[0]["seat"] == "N" and tm[0]["penalty"] == 14 and tm[0]["to_side"] == "EW"


def test_pidro_4_point_card_laid_down():
    ev = log("dealer-lays-down.jsonl")
    i = index_of(ev, type="lay_down")
    ev[i]["card"] = "DT"  # the ten is a point card
    ev[index_of(ev, type="play", seat="N", card="DT")]["card"] = "D4"
    f = only(run(ev), "point_card_laid_down")
    assert f[0]["card"] == "DT" and f[0]["seat"] == "N" and f[0]["penalty"] == 14


def test_pidro_4_non_trump_played():
    ev = log("made-9-hearts.jsonl")
    ev.insert(index_of(ev, type="play", seat="E", card="H2") + 1, {"type": "play", "seat": "W", "card": "C6"})
    f = run(ev)
    nt = only(f, "non_trump_played")
    assert nt[0]["seat"] == "W" and nt[0]["card"] == "C6" and nt[0]["rule"] == "Pidroregler 4"


def test_pidro_4_play_out_of_turn_is_flagged_not_penalised():
    ev = log("made-9-hearts.jsonl")
    i = index_of(ev, type="play", seat="E", card="HQ")
    ev[i], ev[i + 1] = ev[i + 1], ev[i]  # S plays HT before E
    f = run(ev)
    assert only(f, "play_out_of_turn")[0]["seat"] == "S"
    assert score(f)["penalties"] == [] and score(f)["points"] == {"NS": 13, "EW": 1}


def test_pidro_4_player_out_of_trumps_drops_out():
    # round 3 of made-9-hearts has only three players (S is out of trumps), round 4 has three
    t = Table()
    t.feed(read_events([json.dumps(e) for e in log("made-9-hearts.jsonl")]))
    tricks = t.boards[0].snapshot()["tricks"]
    assert [len(x["cards"]) for x in tricks] == [4, 4, 3, 3]
    assert [x["winner"] for x in tricks] == ["N", "S", "N", "N"]


# -- Pidroregler 5 and 6: scoring and the winner ---------------------------------

def test_pidro_5_bid_made_both_sides_score():
    # N HK E HQ S HT W H9 -> N (HT: NS 1); N H5 E HJ S HA W H3 -> S (5+1+1: NS 8);
    # W D5 N H8 E H7 -> N (5: NS 13); N H6 E H2 W H4 -> N (the two stays with EW: 1)
    s = score(run(log("made-9-hearts.jsonl")))
    assert s["points"] == {"NS": 13, "EW": 1} and s["made"] and s["delta"] == {"NS": 13, "EW": 1}
    assert s["status"] == "info" and s["rule"] == "Pidroregler 5"


def test_pidro_5_bid_set_goes_back_by_the_bid():
    # S S3 W S2 N S7 E SK -> E (two: EW 1); E C5 S SA W S6 N SQ -> S (NS 6);
    # S ST W SJ E S9 -> W (EW 3); E S8 S S5 -> E (EW 8); S S4 alone.
    s = score(run(log("set-10-spades.jsonl")))
    assert s["points"] == {"NS": 6, "EW": 8} and not s["made"] and s["delta"] == {"NS": -10, "EW": 8}


def test_pidro_6_both_sides_reach_62_bidders_win():
    ev = log("match-three-deals.jsonl")
    start = index_of(ev, type="board", board=12)
    s = score(run(ev[start:]))
    assert s["score_before"] == {"NS": 50, "EW": 61} and s["score"] == {"NS": 63, "EW": 62}
    assert s["game_over"] and s["winner"] == "NS"


def test_pidro_6_match_state_kept_across_boards_by_the_session():
    session: dict = {"score": {"NS": 0, "EW": 0}}
    f = run(log("match-three-deals.jsonl"), {"pidro": {"session": session}})
    scores = only(f, "score")
    assert [x["score"] for x in scores][:2] == [{"NS": 2, "EW": -28}, {"NS": 8, "EW": -20}]
    # board 12 restates the score (50-61: the log skips deals 5-11), and that wins over the carried 8-(-20)
    assert scores[-1]["score_before"] == {"NS": 50, "EW": 61} and scores[-1]["winner"] == "NS"
    assert session["games"] == [{"winner": "NS", "score": {"NS": 63, "EW": 62}}]
    assert session["score"] == {"NS": 0, "EW": 0}  # a new game starts


def test_pidro_6_game_to_62_within_one_log_names_the_winner():
    # "Vinnaren av spel blir den part som först erhållit eller överskridit 62 poäng": the plain replay of
    # the 17 deals carries the score from deal to deal (no session passed in) and names NS at 66-38.
    out = run(log("game-to-62.jsonl"))
    scores = only(out, "score")
    assert len(scores) == 17
    running = {"NS": 0, "EW": 0}
    for s in scores:
        assert s["score_before"] == running
        running = s["score"]
    assert scores[-1]["winner"] == "NS" and scores[-1]["score"] == {"NS": 66, "EW": 38}
    assert [s["winner"] for s in scores[:-1]] == [None] * 16 and not only(out, "dealer_not_rotated")


def test_pidro_6_a_new_game_starts_at_0_0_after_a_win():
    ev = log("game-to-62.jsonl")
    boards = [i for i, e in enumerate(ev) if e["type"] == "board"]
    again = [dict(e) for e in ev[boards[0]:boards[1]]]
    again[0].update(board=18, dealer="S")  # deal 1 played again after the game is won (new dealer by lot)
    scores = only(run(ev + again), "score")
    assert scores[-2]["winner"] == "NS" and scores[-1]["score_before"] == {"NS": 0, "EW": 0}
    assert scores[-1]["score"] == scores[0]["score"]


def test_pidro_4_repeated_offence_in_the_same_match_costs_62():
    # "Upprepat fusk och misstag av samma spelare under en match bestraffas så att den missgynnade parten
    # får 62 poäng": N discards a trump in deal 1 (14 to EW) and again in deal 2 of the same log (62 to EW).
    deal1, deal2 = log("trump-discarded.jsonl"), log("trump-discarded.jsonl")
    deal2[0] = {**deal2[0], "board": deal2[0]["board"] + 1, "dealer": left_of(deal2[0]["dealer"])}
    f = run(deal1 + deal2)
    pens = [p for s in only(f, "score") for p in s["penalties"]]
    assert [(p["seat"], p["points"], p["to_side"]) for p in pens] == [("N", 14, "EW"), ("N", 62, "EW")]
    assert "repeated offence" in only(f, "trump_discarded")[-1]["remedy"]


# -- bad input ------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    {"type": "call", "seat": "N", "call": "sju"},
    {"type": "trump", "seat": "N", "suit": "purple"},
    {"type": "bid", "seat": "N", "call": "9"},
    {"type": "play", "seat": "N", "card": "ZZ"},
])
def test_pidro_bad_event_never_crashes(line):
    ev = log("made-9-hearts.jsonl")
    ev.insert(index_of(ev, type="call", seat="N"), line)
    f = run(ev)
    assert "bad_event" in kinds(f) and score(f)["bidder"] == "N"


# -- robustness: shuffled, dropped, doubled and garbled events never crash the engine --

def test_pidro_garbled_logs_never_crash_and_findings_stay_well_formed():
    from garble import check_garbled_logs

    single_deals = [p for p in sorted(DATA.glob("*.jsonl")) if p.stat().st_size < 20000]
    check_garbled_logs("pidro", single_deals)


def test_pidro_3_non_trump_kept_before_the_refill():
    ev = log("made-9-hearts.jsonl")
    d = index_of(ev, type="discard", seat="W")
    ev[d]["cards"].remove("C5")  # W keeps the club five (not a pidro in hearts) and gets one card less
    first_w = index_of(ev, type="deal", to="W", card="C6")
    moved = ev.pop(first_w)  # ... so the dealer keeps C6 with the rest of the pack
    moved["to"] = "E"
    ev.insert(max(i for i, e in enumerate(ev) if e["type"] == "deal") + 1, moved)
    f = run(ev)
    kept = only(f, "non_trump_kept")
    assert kept[0]["seat"] == "W" and kept[0]["cards"] == ["C5"] and kept[0]["rule"] == "Pidroregler 3"
    assert not only(f, "wrong_card_count")


def test_pidro_4_legal_plays_oracle_is_the_trumps_in_hand():
    t = Table()
    ev = log("made-9-hearts.jsonl")
    first_play = index_of(ev, type="play")
    t.feed(read_events([json.dumps(e) for e in ev[:first_play + 1]]))
    b = t.boards[0]
    # N led HK; East is next and may play any trump (all of East's remaining trumps)
    assert b.snapshot()["turn"] == "E"
    legal = {str(c) for c in b.legal_plays()}
    assert legal and all(is_trump(parse_card(c), "H") for c in legal)
    assert legal == {c for c in b.snapshot()["hands"]["E"] if is_trump(parse_card(c), "H")}


def test_pidro_3_refill_out_of_order():
    ev = log("made-9-hearts.jsonl")
    first_s = index_of(ev, type="deal", to="S", card="DK")  # S (dealer's left) is refilled first
    first_w = index_of(ev, type="deal", to="W", card="C6")
    s_cards = ev[first_s:first_w]
    w_end = max(i for i, e in enumerate(ev) if e["type"] == "deal" and e["to"] == "W") + 1
    w_cards = ev[first_w:w_end]
    ev[first_s:w_end] = w_cards + s_cards  # West is refilled before South
    f = run(ev)
    r = only(f, "refill_out_of_order")
    assert len(r) == 1 and r[0]["expected_seat"] == "S" and r[0]["event"] == first_s
    assert score(f)["points"] == {"NS": 13, "EW": 1}  # the hands are the same, so is the play


def test_pidro_3_dealer_keeps_at_least_six_cards():
    ev = log("made-9-hearts.jsonl")
    d = index_of(ev, type="discard", seat="E")
    t = Table()
    t.feed(read_events([json.dumps(e) for e in ev[:d + 1]]))
    east = t.boards[0].snapshot()["hands"]["E"]
    assert len(east) == 6
    ev[d]["cards"].append(next(c for c in east if not is_trump(parse_card(c), "H")))
    f = only(run(ev), "dealer_below_six")
    assert f and f[0]["seat"] == "E" and f[0]["count"] == 5 and f[0]["rule"] == "Pidroregler 3"


def test_pidro_6_a_whole_game_to_62_with_the_session():
    # 17 deals, dealer passing one step left each deal; NS reach 66 on deal 17 (EW 38).
    session: dict = {}
    f = run(log("game-to-62.jsonl"), {"pidro": {"session": session}})
    scores = only(f, "score")
    assert len(scores) == 17 and not only(f, "dealer_not_rotated")
    assert all(sum(s["points"].values()) == 14 for s in scores)
    running = {"NS": 0, "EW": 0}
    for s in scores:  # every deal continues from the one before
        assert s["score_before"] == running
        running = {k: running[k] + s["delta"][k] for k in running}
    assert scores[-1]["score"] == {"NS": 66, "EW": 38} and scores[-1]["winner"] == "NS"
    assert [s["winner"] for s in scores[:-1]] == [None] * 16
    assert session["games"] == [{"winner": "NS", "score": {"NS": 66, "EW": 38}}]
    assert session["score"] == {"NS": 0, "EW": 0}  # the next deal starts a new game


def left_of(seat: str) -> str:
    """The seat on ``seat``'s left (the next dealer)."""
    return "NESW"["NESW".index(seat) + 1 - 4]


def test_pidro_1_dealer_passes_to_the_left_each_deal():
    ev = log("game-to-62.jsonl")
    boards = [i for i, e in enumerate(ev) if e["type"] == "board"]
    second = ev[boards[1]:boards[2]]
    ev = ev[:boards[1]] + ev[boards[2]:boards[3]]  # deal 3 (dealer W) follows deal 1 (dealer E)
    session: dict = {}
    f = only(run(ev, {"pidro": {"session": session}}), "dealer_not_rotated")
    assert second[0]["dealer"] == "S"
    assert len(f) == 1 and f[0]["seat"] == "W" and f[0]["expected_seat"] == "S" and f[0]["rule"] == "Pidroregler 1"


def test_pidro_board_without_dealer_or_with_unknown_ruleset():
    ev = log("made-9-hearts.jsonl")
    del ev[0]["dealer"]
    ev[0]["ruleset"] = "no-such-table"
    f = run(ev)
    msgs = [x["message"] for x in only(f, "bad_event")]
    assert any("no dealer" in m for m in msgs) and any("rule table" in m for m in msgs)
    assert only(f, "misdeal")  # dealt as if East dealt, judged as North: out of order
    assert only(f, "score")


def test_pidro_1_abandoned_deal_still_checks_the_counts():
    ev = log("made-9-hearts.jsonl")[:30] + [{"type": "end"}]  # the shoe jammed after 29 cards
    f = only(run(ev), "wrong_card_count")
    # S W N E get three at a time: two rounds (6 each), then S 3 and W 2 -> S 9, W 8, N 6, E 6
    assert sorted((x["seat"], x["count"]) for x in f) == [("E", 6), ("N", 6), ("W", 8)]
    assert all(x["event"] == 30 for x in f)


def test_pidro_snapshot_counts_open_findings_by_latest_status():
    ev = log("made-9-hearts.jsonl")
    i = index_of(ev, type="call", seat="N")
    ev.insert(i, {"type": "call", "seat": "N", "call": "7"})  # insufficient, then corrected to 9
    t = Table()
    t.feed(read_events([json.dumps(e) for e in ev[:i + 2]]))
    assert t.boards[0].snapshot()["open_findings"] == 0
