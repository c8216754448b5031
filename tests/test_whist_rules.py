"""Es-makker whist (shared/rules/esmakker-whist-regler.da.txt), tests named after its sections.

Irregularity tests take a complete deal from tests/data/whist/ and change the
one thing the rule is about. Where the change makes later cards go out of
turn (a revoke changes who wins the trick), only the finding under test is
asserted. Trick-by-trick hand computations are in the comments.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tablecam.rules.whist  # noqa: F401  (registers partner_ace / kitty_* / turn_kitty / jernhand)
from tablecam.cards import parse_card
from tablecam.engine import Table
from tablecam.events import read_events
from tablecam.rules.tables import load_table as load_ruleset
from tablecam.rules.tricks import is_revoke
from tablecam.rules.whist import bid_key, is_jernhand, parse_bid

DATA = Path(__file__).parent / "data" / "whist"


def log(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text().splitlines() if line.strip()]


def table(events: list[dict], rulesets: dict | None = None) -> tuple[list[dict], Table]:
    t = Table(rulesets)
    out = [f.to_dict() for f in t.feed(read_events([json.dumps(e, ensure_ascii=False) for e in events]))]
    return out, t


def run(events: list[dict], rulesets: dict | None = None) -> list[dict]:
    return table(events, rulesets)[0]


def only(findings: list[dict], kind: str) -> list[dict]:
    return [f for f in findings if f["kind"] == kind]


def score(findings: list[dict]) -> dict:
    (s,) = only(findings, "score")
    return s


def idx(events: list[dict], **match) -> int:
    for i, e in enumerate(events):
        if all(e.get(k) == v for k, v in match.items()):
            return i
    raise LookupError(match)


def kitty_lines(events: list[dict]) -> list[int]:
    return [i for i, e in enumerate(events) if e["type"] == "deal" and e["to"] == "kitty"]


ALL = ["plain-8-spades.jsonl", "sol-gaa-med.jsonl", "auction-example-2-ten.jsonl", "selvmakker-set.jsonl",
       "vip-accepted-by-joiner.jsonl", "halve-partner-names-trump.jsonl", "bordlaegger-open-hand.jsonl",
       "renons-makker-es.jsonl", "jernhaand-redeal.jsonl"]


# -- Kortgivningen ------------------------------------------------------------

@pytest.mark.parametrize("name", ALL)
def test_whist_kortgivningen_clean_deals_have_no_irregularity(name):
    f = run(log(name))
    assert {x["kind"] for x in f} <= {"score", "nolo_lost", "jernhand"}, f
    assert sum(score(f)["points"].values()) == 0  # zero-sum ("Pointene skal altid give 0")


def test_whist_kortgivningen_two_kitty_cards_in_a_row():
    ev = log("plain-8-spades.jsonl")
    first, second, _ = kitty_lines(ev)
    ev.insert(first + 1, ev.pop(second))  # the dealer drops the second kitty card right after the first
    f = only(run(ev), "misdeal")
    assert len(f) == 1 and f[0]["event"] == first + 1 and f[0]["seat"] == "S"
    assert f[0]["rule"] == "Es-makker whist: Kortgivningen" and f[0]["options"] == ["redeal"]
    assert f[0]["status"] == "pending" and "Omblanding" in f[0]["remedy"]


def test_whist_kortgivningen_last_card_to_the_kitty():
    ev = log("plain-8-spades.jsonl")
    last_deal = max(i for i, e in enumerate(ev) if e["type"] == "deal")
    third = kitty_lines(ev)[2]
    ev.insert(last_deal, ev.pop(third))
    f = only(run(ev), "misdeal")
    assert len(f) == 1 and f[0]["event"] == last_deal and "last card" in f[0]["message"]


def test_whist_kortgivningen_kitty_does_not_hold_three():
    ev = log("plain-8-spades.jsonl")
    del ev[kitty_lines(ev)[1]]  # a kitty card slid under the table
    f = only(run(ev), "misdeal")
    assert [(x["count"], x["expected"]) for x in f] == [(2, 3)]


def test_whist_kortgivningen_wrong_card_count():
    ev = log("plain-8-spades.jsonl")
    del ev[5]  # one of the cards to a hand is never dealt
    f = only(run(ev), "wrong_card_count")
    assert f[0]["count"] == 12 and f[0]["expected"] == 13 and f[0]["status"] == "pending"


def test_whist_kortgivningen_duplicate_card_and_fourth_joker():
    ev = log("plain-8-spades.jsonl")
    ev[3]["card"] = ev[2]["card"]
    ev[4]["card"] = "JK"  # three jokers are in the pack already: this is a fourth
    f = only(run(ev), "duplicate_card")
    assert [x["card"] for x in f] == [ev[2]["card"], "JK"]


def test_whist_kortgivningen_three_jokers_are_allowed():
    ev = log("plain-8-spades.jsonl")
    assert sum(1 for e in ev if e["type"] == "deal" and e["card"] == "JK") == 3
    assert not only(run(ev), "duplicate_card")


def test_whist_kortgivningen_deal_not_clockwise():
    ev = log("plain-8-spades.jsonl")
    ev[2]["to"], ev[3]["to"] = ev[3]["to"], ev[2]["to"]  # W N E S ... becomes W E N ...
    f = only(run(ev), "deal_out_of_order")
    assert f and f[0]["event"] == 2 and f[0]["expected_seat"] == "N"


def test_whist_omblanding_redeal_rectifies_the_misdeal():
    ev = log("plain-8-spades.jsonl")
    deal_end = max(i for i, e in enumerate(ev) if e["type"] == "deal") + 1
    bad = [dict(e) for e in ev[1:deal_end]]
    first, second = [i for i, e in enumerate(bad) if e["to"] == "kitty"][:2]
    bad.insert(first + 1, bad.pop(second))
    f = run([ev[0]] + bad + [{"type": "redeal", "seat": "S", "reason": "two kitty cards in a row"}] + ev[1:])
    m = only(f, "misdeal")
    assert [x["status"] for x in m] == ["pending", "rectified"] and m[0]["id"] == m[1]["id"]
    assert score(f)["made"] is True


# -- Jernhånd -------------------------------------------------------------------

def jernhand_deal() -> list[dict]:
    """plain-8-spades with the cards re-stacked so West (forhånd) gets 13 cards from 2 to 10."""
    ev = log("plain-8-spades.jsonl")
    deal_end = max(i for i, e in enumerate(ev) if e["type"] == "deal") + 1
    deals = ev[1:deal_end]
    cards = [d["card"] for d in deals]
    low = [c for c in cards if c != "JK" and c[1] not in "AKQJ"][:13]
    rest = [c for c in cards if c not in low]
    for d in deals:
        d["card"] = low.pop(0) if d["to"] == "W" else rest.pop(0)
    return [ev[0]] + deals + [{"type": "call", "seat": "W", "call": "pas"}]


def test_whist_jernhaand_recognised_and_redeal_offered():
    f = only(run(jernhand_deal()), "jernhand")
    assert len(f) == 1 and f[0]["seat"] == "W" and f[0]["rule"] == "Es-makker whist: Jernhånd"
    assert f[0]["options"] == ["declare jernhånd: redeal", "play the cards"] and f[0]["status"] == "info"


def test_whist_jernhaand_definition():
    hand = [parse_card(c) for c in "S2 S3 S4 S5 S6 S7 S8 S9 ST H2 H3 H4 H5".split()]
    assert is_jernhand(hand)
    assert not is_jernhand(hand[:-1] + [parse_card("JK")])
    assert not is_jernhand(hand[:-1] + [parse_card("HJ")])
    assert not is_jernhand(hand[:-1])  # it takes 13 cards


def test_whist_jernhaand_false_claim():
    ev = log("plain-8-spades.jsonl")
    ev.insert(idx(ev, type="call"), {"type": "jernhand", "seat": "E"})  # East holds jokers
    f = only(run(ev), "false_jernhand")
    assert f and f[0]["seat"] == "E"


# -- Afgivelse af meldinger, Gå med, Påhæng --------------------------------------

def auction(calls: list[tuple[str, str]], dealer: str = "S", rules: dict | None = None) -> tuple[list[dict], object]:
    ev = log("plain-8-spades.jsonl")
    ev[0]["dealer"] = dealer
    deal_end = max(i for i, e in enumerate(ev) if e["type"] == "deal") + 1
    if dealer != "S":  # re-address the deal so it still starts at the new dealer's left
        order = "NESW"
        shift = (order.index(dealer) - order.index("S")) % 4
        for e in ev[1:deal_end]:
            if e["to"] != "kitty":
                e["to"] = order[(order.index(e["to"]) + shift) % 4]
    ev = ev[:deal_end] + [{"type": "call", "seat": s, "call": c} for s, c in calls]
    f, t = table(ev, rules)
    return f, t.boards[0]


def test_whist_afgivelse_af_meldinger_insufficient_bid():
    f, b = auction([("W", "8"), ("N", "7 gode")])
    ins = only(f, "insufficient_bid")
    assert ins[0]["seat"] == "N" and ins[0]["bid"] == "7 gode" and ins[0]["high_bid"] == "8"


def test_whist_afgivelse_af_meldinger_call_out_of_turn():
    f, b = auction([("N", "7")])  # W (forhånd, after dealer S) speaks first
    oot = only(f, "call_out_of_turn")
    assert oot[0]["seat"] == "N" and oot[0]["expected_seat"] == "W"


def test_whist_afgivelse_af_meldinger_all_pass_restarts():
    f, b = auction([("W", "pas"), ("N", "pas"), ("E", "pas"), ("S", "pas")])
    assert only(f, "passed_out")[0]["options"] == ["redeal"]


def test_whist_gaa_med_example_1_back_to_player_1():
    # Eks 1: player 1 solo nolo, player 2 goes along, player 3 bids 10+, back to player 1.
    f, b = auction([("W", "solo nolo"), ("N", "gå med"), ("E", "10 sans")])
    assert b.next_to_call().value == "W" and "N" in {s.value for s in b.out}
    f, b = auction([("W", "solo nolo"), ("N", "gå med"), ("E", "10 sans"), ("W", "pas"), ("S", "pas")])
    assert b.auction_over and str(b.high) == "10 sans" and b.holder.value == "E"


def test_whist_gaa_med_example_2_vip_joined_then_beaten():
    # Eks 2: 1: 9, 2: 9 vip, 1 goes along, 3 goes along, 4: 10, back to 2.
    f, b = auction([("W", "9"), ("N", "9 vip"), ("W", "gå med"), ("E", "gå med"), ("S", "10")])
    assert b.next_to_call().value == "N"
    f, b = auction([("W", "9"), ("N", "9 vip"), ("W", "gå med"), ("E", "gå med"), ("S", "10"), ("N", "pas")])
    assert b.auction_over and b.holder.value == "S" and b.joined == []


def test_whist_gaa_med_player_who_went_along_cannot_bid_again():
    f, b = auction([("W", "9"), ("N", "9 vip"), ("W", "gå med"), ("E", "gå med"), ("S", "10"), ("W", "11")])
    assert only(f, "call_after_pass")[0]["seat"] == "W"


def test_whist_gaa_med_only_on_nolo_and_vip():
    f, b = auction([("W", "8"), ("N", "gå med")])
    assert only(f, "invalid_join")[0]["seat"] == "N"


def test_whist_nolomeldinger_joiner_exchanges_first_and_both_play_alone():
    # sol-gaa-med: N sol, E goes along; E (the last to go along) exchanges first.
    f = run(log("sol-gaa-med.jsonl"))
    s = score(f)
    assert s["soloists"] == ["N", "E"] and s["trump"] is None
    # N took 1 trick (sol allows one): made, worth 6 from each of the three others (guess table);
    # E took 2: lost, pays 6 to each of the three others. N +18+6 = 24, E -18-6 = -24, S, W +6-6 = 0.
    assert s["nolo"] == [{"seat": "N", "tricks": 1, "allowed": 1, "made": True},
                         {"seat": "E", "tricks": 2, "allowed": 1, "made": False}]
    assert s["points"] == {"N": 24, "E": -24, "S": 0, "W": 0}
    assert only(f, "nolo_lost")[0]["seat"] == "E"


def test_whist_byttekort_wrong_player_exchanges_first():
    ev = log("sol-gaa-med.jsonl")
    for e in ev:
        if e["type"].startswith("kitty_"):
            e["seat"] = "N"
    ev[idx(ev, type="kitty_give")]["card"] = next(e["card"] for e in ev if e["type"] == "play" and e["seat"] == "N")
    f = only(run(ev), "exchange_out_of_turn")
    assert f and f[0]["seat"] == "N" and f[0]["expected_seat"] == "E"


def test_whist_paahaeng_order_drawn_per_session():
    default = load_ruleset("whist", None, "whistklubben")
    session = load_ruleset("whist", "session-example", "whistklubben")
    assert bid_key(parse_bid("7 vip", default), default) < bid_key(parse_bid("7 sans", default), default)
    assert bid_key(parse_bid("7 sans", session), session) < bid_key(parse_bid("7 stærke", session), session)
    ladder = [parse_bid(b, default) for b in ["7", "7 halve", "8", "8 sans", "9", "sol", "9 vip", "10",
                                              "ren sol", "10 gode", "11", "bordlægger", "11 sans", "12",
                                              "ren bordlægger", "12 vip", "13", "13 sans"]]
    keys = [bid_key(b, default) for b in ladder]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)


def test_whist_paahaeng_session_order_changes_the_auction():
    calls = [("W", "7 sans"), ("N", "7 stærke")]
    f, _ = auction(calls)  # default: sans is above stærke -> insufficient
    assert only(f, "insufficient_bid")
    f, _ = auction(calls, rules={"whist": {"name": "session-example"}})  # sans drawn to place 1
    assert not only(f, "insufficient_bid")


def test_whist_paahaeng_staerke_and_gode_keep_places_2_and_3():
    f, b = auction([("W", "7")], rules={"whist": {"paahaeng_order": ["stærke", "vip", "gode", "halve", "sans"]}})
    assert f[0]["kind"] == "bad_event" and "place 2" in f[0]["message"]
    assert b.rules.paahaeng_order[1] == "stærke"  # fell back to the default table


def test_whist_paahaeng_staerke_is_spades():
    ev = log("plain-8-spades.jsonl")
    ev[idx(ev, type="call", seat="N")]["call"] = "8 stærke"
    ev[idx(ev, type="trump")]["suit"] = "H"
    f = run(ev)
    assert only(f, "wrong_trump")[0]["rule"] == "Es-makker whist: Påhæng"
    assert score(f)["trump"] == "S"


def test_whist_paahaeng_halve_partner_names_a_different_suit():
    ev = log("plain-8-spades.jsonl")  # partner ace HA is East's
    ev[idx(ev, type="call", seat="N")]["call"] = "8 halve"
    ev[idx(ev, type="trump")].update({"seat": "N", "suit": "H"})
    f = run(ev)
    assert only(f, "trump_by_wrong_player")[0]["message"].startswith("With halve the partner (E)")
    assert only(f, "wrong_trump")


def test_whist_paahaeng_vip_trump_from_the_turned_card():
    # S bid 7 vip, E and W went along; C3 then D6 turned; E accepted diamonds and is declarer.
    f = run(log("vip-accepted-by-joiner.jsonl"))
    s = score(f)
    assert s["declarer"] == "E" and s["trump"] == "D" and s["contract"] == "7 vip"
    ev = log("vip-accepted-by-joiner.jsonl")
    ev[idx(ev, type="trump")]["suit"] = "C"
    assert "D6" in only(run(ev), "wrong_trump")[0]["message"]


# -- Valg af Trumf og Makker-es -------------------------------------------------

def test_whist_makker_es_holder_must_play_the_ace_established():
    # auction-example-2-ten: partner ace DA is North's. Diamonds are first led in trick 4 (N DA);
    # here North leads D4 instead, keeping the ace.
    ev = log("auction-example-2-ten.jsonl")
    a, b = idx(ev, type="play", seat="N", card="DA"), idx(ev, type="play", seat="N", card="D4")
    ev[a]["card"], ev[b]["card"] = "D4", "DA"
    f = only(run(ev), "partner_ace_not_played")
    assert f[0]["status"] == "pending" and f[0]["seat"] == "N" and f[0]["trick"] == 4 and f[0]["ace"] == "DA"
    assert f[1]["status"] == "established" and f[1]["id"] == f[0]["id"]
    assert f[0]["rule"] == "Es-makker whist: Valg af Trumf og Makker-es"


def test_whist_makker_es_corrected_by_taking_the_card_back():
    ev = log("auction-example-2-ten.jsonl")
    a = idx(ev, type="play", seat="N", card="DA")
    ev[a:a] = [{"type": "play", "seat": "N", "card": "D4"}, {"type": "retract", "seat": "N", "card": "D4"}]
    f = run(ev)
    duty = only(f, "partner_ace_not_played")
    assert [x["status"] for x in duty] == ["pending", "corrected"]
    assert score(f)["made"] is True and score(f)["side_tricks"] == 11


def test_whist_makker_es_named_card_must_be_an_ace():
    ev = log("plain-8-spades.jsonl")
    ev[idx(ev, type="partner_ace")]["card"] = "HK"
    assert only(run(ev), "partner_ace_not_an_ace")


# -- Jokere i udspillet ---------------------------------------------------------

def test_whist_jokere_i_udspillet_led_joker_wins():
    # plain-8-spades trick 8 is E H6 S H9 W H3 N HK (N wins). East leads a joker instead:
    # the joker takes the trick even though others follow with high cards.
    ev = log("plain-8-spades.jsonl")
    a = idx(ev, type="play", seat="E", card="H6")
    b = idx(ev, type="play", seat="E", card="JK")  # East's joker in trick 12
    ev[a]["card"], ev[b]["card"] = "JK", "H6"
    f, t = table(ev)
    tricks = t.boards[0].snapshot()["tricks"]
    assert tricks[7]["cards"][0]["card"] == "JK" and tricks[7]["winner"] == "E"
    # a joker may be played at any time: no revoke in trick 8 (East's H6, now kept back, makes
    # East's DK in trick 11 a real revoke, which is reported)
    assert [r["trick"] for r in only(f, "revoke")] == [11, 11]


def test_whist_jokere_i_udspillet_joker_not_led_has_no_power():
    f, t = table(log("plain-8-spades.jsonl"))
    last = t.boards[0].snapshot()["tricks"][12]  # W S7 N SQ E JK S JK
    assert last["winner"] == "N"


# -- revoke (Spillet & meldeforløbet) --------------------------------------------

def test_whist_revoke_pending_then_established():
    # trick 2 of plain-8-spades: E D3, S CJ, W D9, N D6. West discards C3 while holding D9 and D7.
    ev = log("plain-8-spades.jsonl")
    a = idx(ev, type="play", seat="W", card="D9")
    b = idx(ev, type="play", seat="W", card="C3")
    ev[a]["card"], ev[b]["card"] = "C3", "D9"
    f = [x for x in only(run(ev), "revoke") if x["trick"] == 2]  # (later tricks change hands too)
    assert [(x["status"], x["established"]) for x in f] == [("pending", False), ("established", True)]
    assert f[0]["seat"] == "W" and f[0]["trick"] == 2 and f[0]["event"] == a and f[0]["id"] == f[1]["id"]


def test_whist_revoke_corrected_before_the_next_trick():
    ev = log("plain-8-spades.jsonl")
    a = idx(ev, type="play", seat="W", card="D9")
    ev[a:a] = [{"type": "play", "seat": "W", "card": "C3"}, {"type": "retract", "seat": "W", "card": "C3"}]
    f = run(ev)
    r = only(f, "revoke")
    assert [x["status"] for x in r] == ["pending", "corrected"] and r[1]["corrected"] is True
    assert score(f)["tricks"] == {"N": 6, "E": 4, "S": 0, "W": 3}


def test_whist_revoke_jokers_excepted():
    hand = [parse_card(c) for c in ["JK", "D9", "C3"]]
    assert not is_revoke(parse_card("JK"), hand, "D", exempt=lambda c: c.is_joker)
    assert is_revoke(parse_card("C3"), hand, "D", exempt=lambda c: c.is_joker)


# -- Meldingernes rækkefølge og pointgivning (points table: marked guess) ---------

def test_whist_pointgivning_plain_contract_made():
    # trump S, forhånd W leads. Tricks: 1 E (SK), 2 W (D9), 3 N (DT), 4 E (DQ), 5 W (S2 ruff),
    # 6 N (C9), 7 E (SJ ruff), 8 N (HK), 9 E (ST ruff), 10 N (SA), 11 N (HT), 12 W (S9 ruff),
    # 13 N (SQ): N 6 + partner E 4 = 10 >= 8. '8' is worth 3 (guess table), 2 against 2.
    s = score(run(log("plain-8-spades.jsonl")))
    assert s["tricks"] == {"N": 6, "E": 4, "S": 0, "W": 3} and s["partner"] == "E"
    assert s["side_tricks"] == 10 and s["made"] and s["points"] == {"N": 3, "E": 3, "S": -3, "W": -3}
    assert s["points_table_is_guess"] is True and s["rule"] == "Es-makker whist: Meldingernes rækkefølge"


def test_whist_pointgivning_selvmakker_set_pays_three_times():
    # W bid 10 naming DA, which he took from the kitty himself: alone against three. 4 tricks, 6 short:
    # -(10 + 1 x 5) = -15 from each opponent's view, W pays 3 x 15 = 45.
    s = score(run(log("selvmakker-set.jsonl")))
    assert s["partner"] is None and s["side_tricks"] == 4 and not s["made"]
    assert s["points"] == {"N": 15, "E": 15, "S": 15, "W": -45}


# -- bad input ------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    {"type": "call", "seat": "N", "call": "7 lilla"},
    {"type": "trump", "seat": "N", "suit": "Z"},
    {"type": "kitty_swap", "seat": "N", "card": "SA"},
    {"type": "partner_ace", "seat": "N"},
    "not json",
])
def test_whist_bad_event_never_crashes(line):
    ev = log("plain-8-spades.jsonl")
    lines = [json.dumps(e, ensure_ascii=False) for e in ev]
    lines.insert(idx(ev, type="call", seat="N"), line if isinstance(line, str) else json.dumps(line))
    f = [x.to_dict() for x in Table().feed(read_events(lines))]
    assert "bad_event" in {x["kind"] for x in f} and score(f)["made"] is True


# -- robustness: shuffled, dropped, doubled and garbled events never crash the engine --

def test_whist_garbled_logs_never_crash_and_findings_stay_well_formed():
    from garble import check_garbled_logs

    check_garbled_logs("whist", sorted(DATA.glob("*.jsonl")))


def test_whist_claim_counts_for_the_declarers_side():
    # plain-8-spades after trick 9 (N: 5, E: 4 -> side 9): North claims 10 tricks in all.
    ev = log("plain-8-spades.jsonl")
    plays = [i for i, e in enumerate(ev) if e["type"] == "play"]
    ev = ev[:plays[36]] + [{"type": "claim", "seat": "N", "tricks": 10}, {"type": "end"}]
    s = score(run(ev))
    assert s["side_tricks"] == 10 and s["made"] is True


def test_whist_legal_plays_oracle_follow_suit_or_joker():
    ev = log("plain-8-spades.jsonl")
    plays = [i for i, e in enumerate(ev) if e["type"] == "play"]
    t = Table()
    t.feed(read_events([json.dumps(e, ensure_ascii=False) for e in ev[:plays[44] + 1]]))  # N led DA in trick 12
    b = t.boards[0]
    assert b.snapshot()["turn"] == "E"
    hand = b.snapshot()["hands"]["E"]
    legal = sorted(str(c) for c in b.legal_plays())
    diamonds = [c for c in hand if c[0] == "D"]
    assert legal == sorted(diamonds + [c for c in hand if c == "JK"]) if diamonds else legal == sorted(hand)


def test_whist_paahaeng_vip_partner_ace_named_before_turning():
    ev = log("vip-accepted-by-joiner.jsonl")
    ace = ev.pop(idx(ev, type="partner_ace"))
    ev.insert(idx(ev, type="trump"), ace)  # named only after C3 and D6 were turned
    f = only(run(ev), "partner_ace_after_vip")
    assert f and f[0]["seat"] == "S" and f[0]["rule"] == "Es-makker whist: Påhæng"


def test_whist_pointgivning_halve_made_exactly():
    # W bid 8 halve naming CA; its holder N chose hearts and exchanged two cards. 8 tricks: made,
    # '8+' is worth 4 (guess table): W and N +4, E and S -4.
    s = score(run(log("halve-partner-names-trump.jsonl")))
    assert (s["contract"], s["declarer"], s["partner"], s["trump"]) == ("8 halve", "W", "N", "H")
    assert s["side_tricks"] == 8 and s["made"] and s["points"] == {"N": 4, "E": -4, "S": -4, "W": 4}


def test_whist_nolomeldinger_bordlaegger_hand_laid_open():
    # E led HJ; S (bordlægger) laid the 13 cards face up (expose events from the camera).
    f = run(log("bordlaegger-open-hand.jsonl"))
    s = score(f)
    assert s["contract"] == "bordlægger" and s["nolo"] == [{"seat": "S", "tricks": 1, "allowed": 1, "made": True}]
    assert s["points"] == {"N": -20, "E": -20, "S": 60, "W": -20}  # 'bordlægger' is worth 20 (guess table)
    assert not only(f, "hand_not_shown")


def test_whist_nolomeldinger_bordlaegger_hand_not_shown():
    ev = [e for e in log("bordlaegger-open-hand.jsonl") if e["type"] != "expose"]
    f = only(run(ev), "hand_not_shown")
    assert len(f) == 1 and f[0]["seat"] == "S" and f[0]["rule"] == "Es-makker whist: Nolomeldinger"
    assert f[0]["event"] == [i for i, e in enumerate(ev) if e["type"] == "play"][4]  # first card of trick 2


def test_whist_omblanding_card_face_up_in_the_deal_is_no_misdeal():
    ev = log("plain-8-spades.jsonl")
    ev[7]["face_up"] = True
    f = run(ev)
    up = only(f, "card_exposed_in_deal")
    assert up[0]["event"] == 7 and up[0]["rule"] == "Es-makker whist: Omblanding" and len(up[0]["options"]) == 2
    assert not only(f, "misdeal")


def test_whist_board_without_dealer_or_with_unknown_ruleset():
    ev = log("plain-8-spades.jsonl")
    del ev[0]["dealer"]
    ev[0]["ruleset"] = "../../etc/passwd"
    f = run(ev)
    msgs = [x["message"] for x in only(f, "bad_event")]
    assert any("no dealer" in m for m in msgs) and any("rule table" in m for m in msgs)
    assert only(f, "score")


def test_whist_omblanding_two_redeals_rectify_once():
    ev = log("plain-8-spades.jsonl")
    deal_end = max(i for i, e in enumerate(ev) if e["type"] == "deal") + 1
    bad = [dict(e) for e in ev[1:deal_end]]
    first, second = [i for i, e in enumerate(bad) if e["to"] == "kitty"][:2]
    bad.insert(first + 1, bad.pop(second))
    redeal = {"type": "redeal", "seat": "S"}
    f = run([ev[0]] + bad + [redeal] + bad[:5] + [redeal] + ev[1:])
    assert [x["status"] for x in only(f, "misdeal")] == ["pending", "rectified"]


# -- Renons i Makker-es kulør ---------------------------------------------------

def test_whist_renons_i_makker_es_kuloer_card_counts_as_the_ace_suit():
    # N (declarer, void in diamonds) chose C3 to count as a diamond and played it when W led DA.
    f, t = table(log("renons-makker-es.jsonl"))
    assert {x["kind"] for x in f} == {"score"}
    b = t.boards[0]
    first_d = next(x for x in b.snapshot()["tricks"] if x["cards"][0]["card"] == "DA")
    assert {"seat": "N", "card": "C3"} in first_d["cards"] and first_d["winner"] == "W"


def test_whist_renons_i_makker_es_kuloer_card_must_follow_the_ace_suit():
    ev = log("renons-makker-es.jsonl")
    a = idx(ev, type="play", seat="N", card="C3")
    b = idx(ev, type="play", seat="N", card="H2")
    ev[a]["card"], ev[b]["card"] = "H2", "C3"  # N keeps the renons card back when diamonds are led
    r = only(run(ev), "revoke")
    assert r and r[0]["seat"] == "N" and r[0]["card"] == "H2" and r[0]["event"] == a


@pytest.mark.parametrize("change,why", [
    ({"seat": "E"}, "only the declarer"),
    ({"card": "CA"}, None),  # a club counting as a diamond: allowed, any card of the hand
])
def test_whist_renons_i_makker_es_kuloer_who_and_what(change, why):
    ev = log("renons-makker-es.jsonl")
    ev[idx(ev, type="renons_card")].update(change)
    f = only(run(ev), "renons_card_invalid")
    if why is None:
        assert not f
    else:
        assert f and why in f[0]["message"] and f[0]["rule"] == "Es-makker whist: Renons i Makker-es kulør"


def test_whist_renons_i_makker_es_kuloer_too_late_or_not_void():
    ev = log("renons-makker-es.jsonl")
    r = ev.pop(idx(ev, type="renons_card"))
    ev.insert(idx(ev, type="play") + 1, r)
    assert "after the first trick" in only(run(ev), "renons_card_invalid")[0]["message"]
    ev = log("plain-8-spades.jsonl")  # N holds hearts: the partner ace HA's suit
    ev.insert(idx(ev, type="play"), {"type": "renons_card", "seat": "N", "card": "C9"})
    assert "while holding H cards" in only(run(ev), "renons_card_invalid")[0]["message"]


def test_whist_byttekort_rest_of_the_kitty_goes_on_in_turn():
    # plain-8-spades: N (declarer) took 2 of the 3 kitty cards; the third may go to E, then S, then W.
    ev = log("plain-8-spades.jsonl")
    gives = [i for i, e in enumerate(ev) if e["type"] == "kitty_give"]
    after = gives[-1] + 1
    kitty_left = "C4"  # the third kitty card (dealt at line 46)
    e_card = next(e["card"] for e in ev if e["type"] == "play" and e["seat"] == "E")
    s_card = next(e["card"] for e in ev if e["type"] == "play" and e["seat"] == "S")
    ok = ev[:after] + [{"type": "kitty_take", "seat": "E", "card": kitty_left},
                       {"type": "kitty_give", "seat": "E", "card": e_card}]
    assert not only(run(ok + [{"type": "end"}]), "exchange_out_of_turn")
    bad = ev[:after] + [{"type": "kitty_take", "seat": "W", "card": kitty_left},
                        {"type": "kitty_give", "seat": "W", "card": "D9"},
                        {"type": "kitty_take", "seat": "S", "card": "D9"},
                        {"type": "kitty_give", "seat": "S", "card": s_card}]
    f = only(run(bad + [{"type": "end"}]), "exchange_out_of_turn")
    assert [x["seat"] for x in f] == ["S"] and "after W" in f[0]["message"]


def _swap_suits(ev: list[dict], a: str, b: str) -> list[dict]:
    """The same deal with suits ``a`` and ``b`` swapped on every card: every trick goes the same way."""
    swap = {a: b, b: a}

    def card(c: str) -> str:
        return swap.get(c[0], c[0]) + c[1:] if c != "JK" else c

    out = []
    for e in ev:
        e = dict(e)
        if "card" in e:
            e["card"] = card(e["card"])
        if e.get("type") == "trump":
            e["suit"] = swap.get(e["suit"], e["suit"])
        out.append(e)
    return out


@pytest.mark.parametrize("paahaeng, suit", [("stærke", "S"), ("gode", "C")])
def test_whist_paahaeng_staerke_and_gode_fix_trump_without_a_trump_event(paahaeng, suit):
    # "Stærke: Trumfspil i spar." "Gode: Trumfspil i klør." The bid names the trump; the log needs no trump event.
    ev = log("plain-8-spades.jsonl")  # N: 8, trump spades
    if suit != "S":
        ev = _swap_suits(ev, "S", suit)  # the same deal played with clubs where it had spades
    ev[idx(ev, type="call", seat="N")]["call"] = f"8 {paahaeng}"
    del ev[idx(ev, type="trump")]
    f = run(ev)
    plain = run(log("plain-8-spades.jsonl"))
    assert {x["kind"] for x in f} == {"score"}, f  # no false lead out of turn: the tricks go as with the trump
    assert score(f)["trump"] == suit and score(f)["contract"] == f"8 {paahaeng}"
    assert score(f)["tricks"] == score(plain)["tricks"] and score(f)["made"] == score(plain)["made"]
    t = table(ev[:idx(ev, type="play")])[1]
    assert t.boards[0].snapshot()["trump"] == suit  # known as soon as the auction is over
