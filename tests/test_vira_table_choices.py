"""Vira SM 2025: what the table says about an irregularity - when it was found (D.7, E.3 against E.8),
the players' choices (H.2-H.3, F.4) and calls taken back (C.7, C.8). The deals are the recorded ones of
tests/data/vira/ with the table's words added where the rule turns on them."""

from __future__ import annotations

from vira_helpers import fold, of, raw, score


def at(evs: list[dict], n: int, **match) -> int:
    """Index of the ``n``-th (0-based) event matching ``match``."""
    hits = [i for i, e in enumerate(evs) if all(e.get(k) == v for k, v in match.items())]
    return hits[n]


def cut_before_first_lead(evs: list[dict]) -> list[dict]:
    return evs[:at(evs, 0, type="play")]


# -- H: felekartering ------------------------------------------------------------------------
def test_vira_H1_wrong_count_after_the_purchase_found_before_the_first_lead():
    # "En spelare som sitter med fel antal kort på handen sedan han köpt ... sägs ha ekarterat fel":
    # E (declarer, 8-spel) discards 3 and buys 4, so holds 14 once everyone has bought; the deal stops there.
    evs = cut_before_first_lead(raw("vira-H2-declarer-felekartering")) + [{"type": "end"}]
    out, b = fold(evs)
    (f,) = of(out, "felekartering")
    assert f.rule == "Vira SM 2025 H.2" and f.seat == "E" and f.to_dict()["count"] == 14 and f.status == "pending"
    assert f.event == at(evs, 2, type="buy")  # found when the purchase is over, before any card is led
    s = score(out)  # H.3: nobody chose to play on, the deal is stopped: the declarer pays for a lagd hand
    assert s["outcome"] == "lagd" and s["rule"] == "Vira SM 2025 H.3" and s["bets"] == {"E": 1}


def test_vira_H1_defender_wrong_count_found_before_the_first_lead_declarer_home():
    evs = cut_before_first_lead(raw("vira-H4-defender-felekartering")) + [{"type": "end"}]
    out, b = fold(evs)
    (f,) = of(out, "felekartering")
    assert f.rule == "Vira SM 2025 H.4" and f.seat == "S"
    assert score(out)["outcome"] == "hemma"


def test_vira_H2_both_defenders_choose_to_play_on():
    # "Om spelföraren ekarterat fel avbryts given, såvida inte båda motspelare önskar spela vidare"
    evs = raw("vira-H2-declarer-felekartering")
    first = at(evs, 0, type="play")
    evs[first:first] = [{"type": "choice", "seat": "S", "choice": "play_on"},
                        {"type": "choice", "seat": "N", "choice": "play_on"}]
    out, b = fold(evs)
    f = of(out, "felekartering")
    assert [x.status for x in f] == ["pending", "established"] and f[-1].event == first + 1
    assert f[-1].to_dict()["choice"] == "play_on"
    s = score(out)
    assert s["reason"] == "tricks" and s["outcome"] == "hemma"  # D.9, D.10: as with the right number of cards


def test_vira_H2_one_defender_wants_to_stop_the_deal_is_stopped():
    evs = cut_before_first_lead(raw("vira-H2-declarer-felekartering"))
    evs += [{"type": "choice", "seat": "S", "choice": "play_on"}, {"type": "choice", "seat": "N", "choice": "stop"},
            {"type": "end"}]
    out, b = fold(evs)
    f = of(out, "felekartering")
    assert f[-1].status == "established" and f[-1].rule == "Vira SM 2025 H.3" and "lagd" in f[-1].remedy
    s = score(out)
    assert s["outcome"] == "lagd" and s["rule"] == "Vira SM 2025 H.3" and s["bets"] == {"E": 1}


def _kodilj_deal_with_declarer_felekartering() -> list[dict]:
    evs = raw("vira-8-spel-kodilj")  # E, 8-spel, takes 6 tricks: kodilj
    d = at(evs, 0, type="discard", seat="E")
    evs[d]["cards"] = evs[d]["cards"][:2]  # E lays away 2 instead of 3 and holds 14 cards
    return evs


def test_vira_H3_declarer_pays_for_a_lagd_hand_when_found_during_play():
    # D.9: found only during play; after 12 tricks E has 6 of the 8 he needs and one to play: at worst bet,
    # not yet kodilj
    evs = _kodilj_deal_with_declarer_felekartering()
    twelfth = at(evs, 35, type="play")
    evs = evs[:twelfth + 1] + [{"type": "discovered", "kind": "felekartering", "of": "E", "seat": "S"},
                               {"type": "choice", "seat": "S", "choice": "stop"}, {"type": "end"}]
    out, b = fold(evs)
    assert [x.status for x in of(out, "felekartering")][-2:] == ["pending", "established"]
    s = score(out)
    assert s["outcome"] == "lagd" and s["rule"] == "Vira SM 2025 H.3"


def test_vira_H3_declarer_already_kodilj_when_found_is_settled_as_kodilj():
    # "betalar spelföraren för lagd hand, såvida han inte redan var kodilj när felet upptäcktes"
    evs = _kodilj_deal_with_declarer_felekartering()
    last = at(evs, 38, type="play")  # all 13 tricks played: E has 6 of the 8 he needs
    evs = evs[:last + 1] + [{"type": "discovered", "kind": "felekartering", "of": "E", "seat": "N"},
                            {"type": "choice", "seat": "N", "choice": "stop"}, {"type": "end"}]
    out, b = fold(evs)
    assert "already was kodilj" in of(out, "felekartering")[-1].remedy
    s = score(out)
    assert s["outcome"] == "kodilj" and s["rule"] == "Vira SM 2025 H.3" and s["bets"] == {"E": 2}


# -- E.3 against E.8: when the wrong talong count was found --------------------------------------
def _talong_of_12() -> list[dict]:
    evs = raw("vira-8-spel-hemma")
    last = max(i for i, e in enumerate(evs) if e["type"] == "deal" and e["to"] == "talong")
    del evs[last]  # the dealer N puts down a talong of 12 cards
    return evs[:at(evs, 0, type="bid")] + [{"type": "bid", "seat": "E", "bid": "8-spel"}, {"type": "end"}]


def test_vira_E3_dealer_counts_the_talong_before_putting_it_down_redeal_without_penalty():
    # "Han har rätt att räkna korten i talongen innan han lägger ner den på bordet. Upptäcker givaren därvid
    # att talongen innehåller ett felaktigt antal kort, blir det omgiv utan bot."
    evs = _talong_of_12()
    evs.insert(at(evs, 0, type="bid"), {"type": "discovered", "kind": "wrong_card_count", "of": "talong", "seat": "N"})
    out, b = fold(evs)
    f = [x for x in of(out, "wrong_card_count") if x.seat == "talong"]
    assert [x.status for x in f] == ["established", "rectified"] and f[-1].rule == "Vira SM 2025 E.3"
    s = score(out)
    assert s["outcome"] == "redeal" and s["bets"] == {} and s["next_dealer"] == "N"  # D.6: the same dealer


def test_vira_E8_talong_count_found_after_the_bidding_began_dealer_pays():
    # "Om fel antal kort konstateras i talongen innan någon annan spelare än givaren köpt och före första
    # utspel, är det felgiv. Givaren sätter bet och turen att ge går vidare medsols."
    evs = _talong_of_12()
    evs.insert(at(evs, 0, type="bid") + 1, {"type": "discovered", "kind": "wrong_card_count", "of": "talong"})
    out, b = fold(evs)
    f = [x for x in of(out, "wrong_card_count") if x.seat == "talong"]
    assert f[-1].rule == "Vira SM 2025 E.8" and f[-1].to_dict()["discovered"] == at(evs, 0, type="discovered")
    s = score(out)
    assert s["outcome"] == "aborted" and s["bets"] == {"N": 1} and s["next_dealer"] == "E"


# -- D.7: reported too late ----------------------------------------------------------------------
def test_vira_D7_purchase_error_reported_after_the_first_trick_was_turned_lapses():
    # "alla fel i köpet utom felekartering kan påtalas tills första sticket vänts bort"
    evs = raw("vira-G4-rho-buys-early")
    lead2 = at(evs, 3, type="play")  # the first card of trick 2: trick 1 has been turned
    evs.insert(lead2 + 1, {"type": "discovered", "kind": "purchase_out_of_turn", "seat": "E"})
    out, b = fold(evs)
    f = of(out, "purchase_out_of_turn")
    assert f[-1].status == "established" and f[-1].rule == "Vira SM 2025 D.7" and f[-1].to_dict()["lapsed"]
    s = score(out)
    assert s["reason"] == "tricks" and s["rule"] == "Vira SM 2025 D.10"  # play went on: the tricks decide


def test_vira_D7_purchase_error_reported_in_time_stands():
    evs = raw("vira-G4-rho-buys-early")
    evs.insert(at(evs, 2, type="play") + 1, {"type": "discovered", "kind": "purchase_out_of_turn"})
    out, b = fold(evs)
    assert "lapsed" not in of(out, "purchase_out_of_turn")[-1].to_dict()
    s = score(out)
    assert s["outcome"] == "hemma" and s["rule"] == "Vira SM 2025 G.4"


def test_vira_D7_discovered_names_nothing_recorded_is_a_bad_event():
    evs = raw("vira-8-spel-hemma")
    evs.insert(at(evs, 0, type="play"), {"type": "discovered", "kind": "revoke", "of": "S"})
    out, b = fold(evs)
    assert any(x.kind == "bad_event" and "names no revoke" in x.message for x in out)
    assert score(out)["outcome"] == "hemma"


# -- F.4: the bidder's demand ---------------------------------------------------------------------
def _f4_until_both_passed() -> list[dict]:
    evs = raw("vira-F4-pass-out-of-turn")  # E 7-spel, N passes before S, S passes
    return evs[:at(evs, 1, type="bid", bid="pass") + 1]


def test_vira_F4_bidder_demands_a_bid_and_the_offender_bids():
    evs = raw("vira-F4-pass-out-of-turn")
    evs.insert(at(evs, 1, type="bid", bid="pass") + 1, {"type": "choice", "seat": "E", "choice": "demand_bid"})
    out, b = fold(evs)
    f = of(out, "pass_out_of_turn")
    assert [x.status for x in f] == ["pending", "pending", "pending", "corrected"]
    assert f[2].to_dict()["choice"] == "demand_bid" and "requires N" in f[2].remedy
    assert b.declarer.value == "N" and b.contract.name == "8-spel"


def test_vira_F4_offender_passes_again_after_the_demand():
    evs = _f4_until_both_passed() + [{"type": "choice", "seat": "E", "choice": "demand_bid"},
                                     {"type": "bid", "seat": "N", "bid": "pass"}]
    out, b = fold(evs)
    f = of(out, "pass_not_allowed")
    assert len(f) == 1 and f[0].seat == "N" and f[0].rule == "Vira SM 2025 F.4"


def test_vira_F4_bidder_makes_no_demand_the_pass_stands():
    evs = _f4_until_both_passed() + [{"type": "choice", "seat": "E", "choice": "no_demand"}]
    out, b = fold(evs)
    f = of(out, "pass_out_of_turn")
    assert f[-1].status == "established" and f[-1].to_dict()["choice"] == "no_demand" and "C.8" in f[-1].remedy
    assert b.high.name == "7-spel" and b.high_seat.value == "E" and "N" in {s.value for s in b.passed}


# -- C.7, C.8: a call may not be taken back -------------------------------------------------------
def test_vira_C7_a_correct_bid_may_not_be_taken_back():
    evs = raw("vira-8-spel-hemma")
    bid = at(evs, 0, type="bid", seat="E")
    evs.insert(bid + 1, {"type": "withdraw", "seat": "E"})
    out, b = fold(evs)
    (f,) = of(out, "call_withdrawn")
    assert f.rule == "Vira SM 2025 C.7" and f.seat == "E" and f.to_dict()["call_event"] == bid
    assert b.contract.name == "8-spel" and b.declarer.value == "E" and score(out)["outcome"] == "hemma"


def test_vira_C8_a_pass_may_not_be_taken_back():
    evs = raw("vira-8-spel-hemma")
    evs.insert(at(evs, 0, type="bid", bid="pass") + 1, {"type": "withdraw", "seat": "S"})
    out, b = fold(evs)
    (f,) = of(out, "call_withdrawn")
    assert f.rule == "Vira SM 2025 C.8" and f.to_dict()["call"] == "pass" and "stands" in f.remedy
    assert score(out)["outcome"] == "hemma"


def test_vira_choice_without_a_situation_is_a_bad_event():
    evs = raw("vira-8-spel-hemma")
    evs.insert(at(evs, 0, type="play"), {"type": "choice", "seat": "S", "choice": "play_on"})
    evs.insert(at(evs, 0, type="play"), {"type": "choice", "seat": "S", "choice": "maybe"})
    out, b = fold(evs)
    assert len([x for x in out if x.kind == "bad_event"]) == 2 and score(out)["outcome"] == "hemma"
