"""Vira SM 2025 sections G (purchase), H (felekartering) and J (play of the cards)."""

from __future__ import annotations

from tablecam.engine import Table
from tablecam.events import parse_event
from vira_helpers import fold, of, raw, replay, score


def test_vira_G1_trump_not_named_before_purchase_pays_lagd_hand():
    out, b = replay("vira-G1-no-trump-before-buy")
    f = of(out, "trump_choice")
    assert len(f) == 1 and f[0].rule == "Vira SM 2025 G.1" and f[0].seat == "E"
    assert raw("vira-G1-no-trump-before-buy")[f[0].event]["type"] == "buy"
    s = score(out)
    # lagd hand = paid as bet, in the lowest colour (G.2): 8-spel ofärg = 0 pinnar, one bet into the pulla
    assert s["outcome"] == "lagd" and s["column"] == "ofärg/misär" and s["bets"] == {"E": 1}
    assert set(s["pinnar"].values()) == {0}


def test_vira_G1_turne_turning_up_wrong_number_of_cards():
    out, b = replay("vira-G1-turne-wrong-count")
    f = of(out, "trump_choice")
    assert len(f) == 1 and "turned up 3" in f[0].message and f[0].rule == "Vira SM 2025 G.1"
    s = score(out)
    # Turné 8 lowest column: 1 pinne to each of S, N and W (who sits out), one bet
    assert s["outcome"] == "lagd" and s["pinnar"] == {"N": 1, "E": -3, "S": 1, "W": 1} and s["bets"] == {"E": 1}


def test_vira_G2_forgetting_trump_no_penalty_when_bid_in_hogsta_farg():
    evs = raw("vira-G1-no-trump-before-buy")
    for e in evs:
        if e["type"] == "bid" and e["bid"] == "8-spel":
            e["suit"] = "S"  # bid in spades, which is högsta färg in this deal
    out, b = fold(evs)
    assert not of(out, "trump_choice") and b.trump == "S"


def test_vira_G3_declarer_buys_in_solo():
    out, b = replay("vira-G3-solo-purchase")
    f = of(out, "purchase_not_allowed")
    assert len(f) == 1 and f[0].rule == "Vira SM 2025 G.3"
    s = score(out)
    assert s["outcome"] == "lagd" and s["rule"] == "Vira SM 2025 G.3" and s["bets"] == {"E": 1}
    # a lagd solo is paid in ofärg (Stockholm table note) although spades were högsta färg: Solo 6 ofärg = 0
    assert s["column"] == "ofärg/misär" and set(s["pinnar"].values()) == {0}


def test_vira_G4_right_hand_opponent_buys_before_left_declarer_home():
    out, b = replay("vira-G4-rho-buys-early")
    f = of(out, "purchase_out_of_turn")
    assert len(f) == 1 and f[0].rule == "Vira SM 2025 G.4" and f[0].seat == "N"
    s = score(out)
    assert s["outcome"] == "hemma" and s["rule"] == "Vira SM 2025 G.4"


def test_vira_G5_defender_buys_before_declarer_declarer_home():
    out, b = replay("vira-G5-defender-buys-first")
    f = of(out, "purchase_out_of_turn")
    assert len(f) == 1 and f[0].rule == "Vira SM 2025 G.5" and f[0].seat == "S"
    assert score(out)["outcome"] == "hemma"


# -- H: felekartering -----------------------------------------------------------------------
def test_vira_H2_declarer_felekartering_defenders_play_on():
    out, b = replay("vira-H2-declarer-felekartering")
    f = of(out, "felekartering")
    assert [x.status for x in f] == ["pending", "established"]
    assert f[0].rule == "Vira SM 2025 H.2" and f[0].to_dict()["count"] == 14 and len(f[0].options) == 2
    s = score(out)
    assert s["reason"] == "tricks" and s["outcome"] == "hemma"  # D.9/D.10: counted as with 13 cards


def test_vira_H3_declarer_felekartering_deal_stopped_pays_lagd_hand():
    evs = raw("vira-H2-declarer-felekartering")
    first = next(i for i, e in enumerate(evs) if e["type"] == "play")
    out, b = fold(evs[: first + 1] + [{"type": "end"}])
    s = score(out)
    assert s["outcome"] == "lagd" and s["rule"] == "Vira SM 2025 H.3" and s["bets"] == {"E": 1}


def test_vira_H4_defender_felekartering_declarer_home():
    out, b = replay("vira-H4-defender-felekartering")
    f = of(out, "felekartering")
    assert len(f) == 1 and f[0].rule == "Vira SM 2025 H.4" and f[0].seat == "S" and f[0].to_dict()["count"] == 12
    s = score(out)
    assert s["outcome"] == "hemma" and s["rule"] == "Vira SM 2025 H.4"


def test_vira_H5_both_felekartering_neither_home_nor_bet():
    out, b = replay("vira-H5-both-felekartering")
    f = [x for x in of(out, "felekartering") if x.rule.endswith("H.5")]
    assert len(f) == 1
    s = score(out)
    assert s["outcome"] == "neither" and s["bets"] == {"E": 1, "S": 1} and set(s["pinnar"].values()) == {0}


# -- J: play of the cards ------------------------------------------------------------------
def test_vira_J1_lead_out_of_turn_corrected():
    out, b = replay("vira-J1-lead-out-of-turn-corrected")
    f = of(out, "lead_out_of_turn")
    assert [x.status for x in f] == ["pending", "corrected"]
    assert f[0].rule == "Vira SM 2025 J.1" and f[0].seat == "E" and f[0].trick == 4 and len(f[0].options) == 2
    assert len(b.tricks) == 13 and score(out)["outcome"] == "hemma"


def test_vira_J1_lead_out_of_turn_not_corrected_stands():
    out, b = replay("vira-J1-lead-out-of-turn-established")
    f = of(out, "lead_out_of_turn")
    assert [x.status for x in f] == ["pending", "established"]
    assert b.tricks[3].leader.value == "E"  # the trick was played from the wrong leader
    assert score(out)["reason"] == "tricks"


def test_vira_J1_play_out_of_turn_in_mid_trick():
    evs = raw("vira-8-spel-hemma")
    plays = [i for i, e in enumerate(evs) if e["type"] == "play"]
    i = plays[4]  # second card of trick 2; the third player plays first
    evs[i], evs[i + 1] = evs[i + 1], evs[i]
    out, b = fold(evs)
    f = of(out, "play_out_of_turn")
    assert f and f[0].rule == "Vira SM 2025 J.1" and f[0].trick == 2


def test_vira_J1_exposed_card():
    evs = raw("vira-8-spel-hemma")
    first = next(i for i, e in enumerate(evs) if e["type"] == "play")
    evs.insert(first, {"type": "expose", "seat": "S", "card": next(e["card"] for e in evs[first:]
                                                                   if e["type"] == "play" and e["seat"] == "S")})
    out, b = fold(evs)
    f = of(out, "exposed_card")
    assert len(f) == 1 and f[0].rule == "Vira SM 2025 J.1" and f[0].seat == "S"


def test_vira_J4_revoke_corrected_before_next_trick():
    out, b = replay("vira-J3-revoke-corrected")
    f = of(out, "revoke")
    assert [x.status for x in f] == ["pending", "corrected"]
    d = f[0].to_dict()
    assert d["rule"] == "Vira SM 2025 J.3" and d["established"] is False and d["trick"] == 3 and d["seat"] == "N"
    assert f[1].to_dict()["corrected"] is True and "J.4" in f[1].remedy and f[1].rule == "Vira SM 2025 J.4"
    assert score(out)["reason"] == "tricks"


def test_vira_J4_revoke_corrected_after_trick_complete_but_not_turned():
    """The revoke card is the last of its trick: taken back before anyone leads to the next one."""
    evs = raw("vira-8-spel-hemma")
    out0, b0 = fold(evs)
    # find a trick where its last player could have revoked: replay with the engine and edit the log
    plays = [i for i, e in enumerate(evs) if e["type"] == "play"]
    for k in range(0, len(plays), 3):
        trick = [evs[j] for j in plays[k:k + 3]]
        led = trick[0]["card"][0]
        last = trick[2]
        hand = [str(c) for c in b0.deal.dealt[next(s for s in b0.active if str(s) == last["seat"])]]
        other = [c for c in hand if c[0] != led and c not in [e["card"] for e in evs if e["type"] == "play"
                                                                and evs.index(e) < plays[k + 2]]]
        if last["card"][0] == led and other:
            j = plays[k + 2]
            bad = other[0]
            evs[j:j] = [{"type": "play", "seat": last["seat"], "card": bad},
                        {"type": "retract", "seat": last["seat"], "card": bad}]
            break
    out, b = fold(evs)
    f = of(out, "revoke")
    assert [x.status for x in f] == ["pending", "corrected"]


def test_vira_J6_revoke_established_most_favourable_outcome():
    out, b = replay("vira-J6-revoke-established")
    f = of(out, "revoke")
    assert [x.status for x in f] == ["pending", "established"]
    d = f[1].to_dict()
    assert d["established"] is True and d["outcome"] == "hemma" and "J.6" in d["remedy"]
    assert f[0].rule == "Vira SM 2025 J.3" and d["rule"] == "Vira SM 2025 J.6" and f[0].id == f[1].id
    s = score(out)
    assert s["outcome"] == "hemma" and s["rule"] == "Vira SM 2025 J.6"


def test_vira_J6_declarer_revoke_gives_defenders_kodilj_when_still_possible():
    from tablecam.rules.vira.settle import best_possible
    # 8-spel, declarer had 1 trick before the revoke in trick 3: defenders could still make him kodilj
    assert best_possible(8, False, taken=1, remaining=11, for_declarer=False) == "kodilj"
    assert best_possible(8, False, taken=7, remaining=3, for_declarer=False) == "bet"
    assert best_possible(8, False, taken=2, remaining=5, for_declarer=True) == "bet"
    assert best_possible(None, True, taken=0, remaining=9, for_declarer=True) == "hemma"


def test_vira_legal_plays_oracle_follows_suit():
    evs = raw("vira-8-spel-hemma")
    plays = [i for i, e in enumerate(evs) if e["type"] == "play"]
    t = Table()
    for i, e in enumerate(evs[: plays[0] + 1]):
        t.apply(parse_event(e, i))
    b = t.board
    led = evs[plays[0]]["card"][0]
    legal = b.legal_plays()
    nxt = b._expected_player()
    hand = b.hands[nxt]
    assert legal and set(legal) <= set(hand)
    if any(c.suit == led for c in hand):
        assert all(c.suit == led for c in legal)
    snap = b.snapshot()
    assert snap["turn"] == str(nxt) and snap["trick"]["cards"][0]["card"] == evs[plays[0]]["card"]
    assert snap["contract"] == "8-spel" and snap["trump"] == "S" and snap["extra"]["sit_out"] == "W"


def test_vira_D9_declarer_short_of_cards_remaining_tricks_to_defenders():
    from tablecam.sim.vira_deals import complete_deal
    evs = complete_deal(168, bids=[("E", "8-spel"), ("S", "pass"), ("N", "pass")], trump="S", first_suit="S",
                        buys={"E": (4, 3), "S": 2, "N": 2})
    out, b = fold(evs)
    f = of(out, "felekartering")
    assert f[0].to_dict()["count"] == 12 and f[-1].status == "established"
    assert len(b.tricks) == 12 and not b.hands[b.declarer]
    s = score(out)
    assert s["outcome"] != "incomplete" and s["reason"] == "tricks"


def test_vira_purchase_is_an_alias_of_buy():
    evs = raw("vira-8-spel-hemma")
    for e in evs:
        if e["type"] == "buy":
            e["type"] = "purchase"
    out, b = fold(evs)
    assert [f.kind for f in out] == ["score"] and b.bought_done == set(b.active)


def test_vira_J2_director_ruling_when_the_exposed_card_did_harm():
    evs = raw("vira-J1-lead-out-of-turn-established")
    evs.insert(-1, {"type": "ruling", "outcome": "bet", "note": "the card out of turn helped the declarer (J.2)"})
    out, b = fold(evs)
    s = score(out)
    assert s["outcome"] == "bet" and s["reason"] == "ruling" and s["rule"] == "Vira SM 2025 K.1"
    assert s["bets"] == {"E": 1} and s["pinnar"]["E"] == -3
