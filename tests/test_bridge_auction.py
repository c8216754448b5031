"""Bridge deal checks (Laws 1, 6, 13, 14) and the auction (Laws 18-39)."""

from test_bridge_util import Game, kinds, result


def test_complete_board_has_only_a_result():
    g = Game(seed=1, dealer="N")
    g.bid_and_set("4S", "S")
    g.play_tricks(13)
    out = g.run()
    assert [f["kind"] for f in out] == ["result"]
    r = out[0]
    assert r["declarer"] == "S" and r["contract"] == "4S" and r["tricks"] == g.won("S")
    assert r["complete"] is True and r["rule"] == "Law 79A"
    assert r["message"] == f"4S by S, {g.won('S')} tricks."


def test_trick_winners_match_an_independent_count():
    for seed in range(20):
        g = Game(seed=seed, dealer="E")
        g.bid_and_set(["1N", "3H", "2C", "6D"][seed % 4], "W")
        g.play_tricks(13, high=seed % 2 == 0)
        out = g.run()
        snap = g.table.boards[0].snapshot()
        assert [t["winner"] for t in snap["tricks"]] == [w for _, _, w in g.tricks]
        assert result(out)["tricks"] == g.won("W")
        assert len(out) == 1


def test_law_13_wrong_card_count_and_law_14_missing_card():
    g = Game(seed=2)
    # N's first card goes to E instead: N has 12, E has 14.
    first_n = next(i for i, e in enumerate(g.events) if e.get("to") == "N")
    g.events[first_n]["to"] = "E"
    # and one of W's cards is never dealt (the card is missing).
    last_w = max(i for i, e in enumerate(g.events) if e.get("to") == "W")
    lost = g.events.pop(last_w)["card"]
    g.calls("P")
    out = g.run()
    wrong = {f["seat"]: f for f in kinds(out, "wrong_card_count")}
    assert wrong["N"]["count"] == 12 and wrong["N"]["expected"] == 13
    assert wrong["E"]["count"] == 14 and wrong["W"]["count"] == 12
    assert all(f["rule"] == "Law 13" and f["event"] == len(g.events) - 1 for f in wrong.values())
    missing = kinds(out, "missing_card")
    assert missing and missing[0]["card"] == lost and lost in missing[0]["message"]


def test_law_1_duplicate_card():
    g = Game(seed=3)
    deal = [i for i, e in enumerate(g.events) if e["type"] == "deal"]
    replaced = g.events[deal[-1]]["card"]
    g.events[deal[-1]]["card"] = g.events[deal[0]]["card"]
    g.calls("P", "P", "P", "P")
    out = g.run()
    dup = kinds(out, "duplicate_card")
    assert len(dup) == 1 and dup[0]["card"] == g.events[deal[0]]["card"] and dup[0]["event"] == deal[-1]
    assert dup[0]["rule"] == "Law 1"
    assert kinds(out, "missing_card")[0]["card"] == replaced
    assert not kinds(out, "wrong_card_count")


def test_law_6d1_card_dealt_face_up_is_a_misdeal():
    g = Game(seed=4, dealer="W")
    g.events[7]["face_up"] = True
    out = g.run()
    m = kinds(out, "misdeal")
    assert len(m) == 1 and m[0]["seat"] == "W" and m[0]["event"] == 7 and m[0]["rule"] == "Law 6D1"


def test_deal_check_at_finish_when_no_call_follows():
    g = Game(seed=5)
    g.events.pop()
    out = g.run()
    assert kinds(out, "wrong_card_count")[0]["count"] == 12


def test_passed_out():
    g = Game(seed=6, dealer="S")
    g.calls("P", "Pass", "p", "PASS")
    out = g.run()
    r = result(out)
    assert r["contract"] == "Pass" and r["declarer"] is None and r["message"] == "Passed out."
    assert len(out) == 1


def test_declarer_is_first_of_the_side_to_name_the_strain():
    g = Game(seed=7, dealer="N")
    g.calls("1H", "1S", "3H", "P", "4H", "X", "XX", "P", "P", "P")
    g.contract("N", "H")
    g.play_tricks(13)
    r = result(g.run())
    assert r["declarer"] == "N" and r["contract"] == "4HXX" and r["tricks"] == g.won("N")


def test_lenient_call_spellings():
    g = Game(seed=8, dealer="E")
    g.calls("1nt", "D", "R", "Pass", "P", "2♠", "P", "P", "P")
    r = result(g.run())
    assert r["contract"] == "2S" and r["declarer"] == "S"


def test_unknown_call_is_bad_event_and_auction_continues():
    g = Game(seed=9, dealer="N")
    g.calls("1S")
    bad = g.add(type="call", seat="E", call="1Z")
    g.calls("P", "P", "P", first="E")
    out = g.run()
    assert kinds(out, "bad_event")[0]["event"] == bad
    assert result(out)["contract"] == "1S"


def test_law_27_insufficient_bid():
    # Accepted: LHO calls over it (27A).
    g = Game(seed=10, dealer="N")
    g.calls("1S", "1H", "P", "P", "P")
    out = g.run()
    ins = kinds(out, "insufficient_bid")
    assert [f["status"] for f in ins] == ["pending", "rectified"]
    assert ins[0]["seat"] == "E" and ins[0]["event"] == len(g.events) - 4 and ins[0]["rule"] == "Law 27"
    assert any("27A" in o for o in ins[0]["options"]) and ins[1]["accepted"] is True
    assert ins[0]["id"] == ins[1]["id"]
    assert result(out)["contract"] == "1H" and result(out)["declarer"] == "E"


def test_law_27b1_corrected_to_lowest_sufficient_bid():
    g = Game(seed=10, dealer="N")
    g.calls("1S", "1H")
    g.calls("2H", "P", "P", "P", first="E")
    out = g.run()
    ins = kinds(out, "insufficient_bid")
    assert ins[-1]["status"] == "corrected" and ins[-1]["rule"] == "Law 27B1"
    assert ins[-1]["partner_barred"] is False
    assert result(out)["contract"] == "2H"


def test_law_27b2_corrected_by_pass_bars_partner_law_37():
    g = Game(seed=10, dealer="N")
    g.calls("1S", "1H")
    g.calls("P", "P", "2D", "P", "P", "P", first="E")
    out = g.run()
    ins = kinds(out, "insufficient_bid")
    assert ins[-1]["rule"] == "Law 27B2" and ins[-1]["partner_barred"] is True
    barred = kinds(out, "barred_call")
    assert barred and barred[0]["seat"] == "W" and barred[0]["rule"] == "Law 37"


def test_law_31_bid_out_of_turn():
    # E bids at N's (RHO's) turn; S, E's LHO, calls: accepted (Law 29A).
    g = Game(seed=11, dealer="N")
    g.calls("1S", "P", "P", "P", first="E")
    out = g.run()
    oot = kinds(out, "call_out_of_turn")
    assert oot[0]["rule"] == "Law 31" and oot[0]["seat"] == "E" and oot[0]["expected"] == "N"
    assert any("Law 31A" in o for o in oot[0]["options"]) and any("29A" in o for o in oot[0]["options"])
    assert oot[1]["status"] == "rectified" and oot[1]["accepted"] is True
    assert result(out)["contract"] == "1S" and result(out)["declarer"] == "E"


def test_law_29b_bid_out_of_turn_cancelled_when_the_right_player_calls():
    g = Game(seed=11, dealer="N")
    g.calls("1S", first="E")
    g.calls("1H", "P", "P", "P", first="N")
    g.contract("N", "H")
    g.play_tricks(13)
    out = g.run()
    oot = kinds(out, "call_out_of_turn")
    assert oot[1]["status"] == "corrected" and oot[1]["accepted"] is False and oot[1]["rule"] == "Law 29B"
    r = result(out)
    assert r["contract"] == "1H" and r["declarer"] == "N" and r["tricks"] == g.won("N")
    auction = g.table.boards[0].snapshot()["auction"]
    assert auction[0] == {"seat": "E", "call": "1S", "status": "cancelled"}


def test_law_30_pass_out_of_turn_and_law_32_double_out_of_turn():
    g = Game(seed=12, dealer="N")
    g.calls("P", first="S")            # pass at partner's (N's) turn
    g.calls("1D", first="W")           # W, S's LHO, calls: accepted
    g.calls("X", first="E")            # E doubles partner's bid?  no: E doubles at N's turn -> out of turn
    g.calls("P", "P", "P", "P", first="N")
    out = g.run()
    oot = kinds(out, "call_out_of_turn")
    rules = [f["rule"] for f in oot if f["status"] == "pending"]
    assert rules == ["Law 30", "Law 32"]


def test_law_36_inadmissible_double():
    g = Game(seed=13, dealer="N")
    g.calls("1S", "P", "X")            # S doubles partner's bid
    g.calls("2S", "P", "P", "P", first="S")
    out = g.run()
    f = kinds(out, "inadmissible_double")
    assert f[0]["seat"] == "S" and f[0]["rule"] == "Law 36"
    assert f[1]["status"] == "corrected" and f[1]["partner_barred"] is True
    assert result(out)["contract"] == "2S" and result(out)["declarer"] == "N"


def test_law_25_change_of_call():
    g = Game(seed=14, dealer="N")
    g.calls("1C")
    g.calls("1D", first="N")
    g.calls("P", "P", "P", first="E")
    out = g.run()
    f = kinds(out, "change_of_call")
    assert f[0]["first_call"] == "1C" and f[0]["call"] == "1D" and f[0]["rule"] == "Law 25"
    assert result(out)["contract"] == "1D"


def test_law_39_call_after_the_auction_closed():
    g = Game(seed=15, dealer="N")
    g.bid_and_set("3N", "N")
    late = g.add(type="call", seat="E", call="X")
    g.play_tricks(13)
    out = g.run()
    f = kinds(out, "call_after_auction")
    assert f[0]["event"] == late and f[0]["rule"] == "Law 39" and "26" in f[0]["message"]
    assert result(out)["contract"] == "3N"


def test_no_deal_no_auction_camera_only_log():
    g = Game(seed=16, dealer="N", deal=False)
    g.contract("S", "N")  # the helper plays as 3N by S; the log has no auction
    g.play_tricks(13)
    out = g.run()
    r = result(out)
    assert r["declarer"] == "S" and r["contract"] is None and r["tricks"] == g.won("S")


def test_contract_event_without_auction():
    g = Game(seed=17, dealer="N")
    g.add(type="contract", contract="4HX", declarer="E")
    g.contract("E", "H")
    g.play_tricks(13)
    r = result(g.run())
    assert r["contract"] == "4HX" and r["declarer"] == "E" and r["tricks"] == g.won("E")


def test_legal_calls_oracle():
    g = Game(seed=18, dealer="N")
    g.calls("1S")
    b = g.engine()
    legal = b.legal_calls()
    assert legal[:2] == ["P", "X"] and "1S" not in legal and "1N" in legal and "XX" not in legal


def test_accept_event_records_the_choice():
    # LHO explicitly refuses the insufficient bid; the offender then corrects it.
    g = Game(seed=19, dealer="N")
    g.calls("1S", "1H")
    no = g.add(type="accept", seat="S", accepted=False)
    g.calls("2H", "P", "P", "P", first="E")
    out = g.run()
    ins = kinds(out, "insufficient_bid")
    assert [f["status"] for f in ins] == ["pending", "pending", "corrected"]
    assert ins[1]["event"] == no and ins[1]["accepted"] is False and ins[2]["rule"] == "Law 27B1"
    assert result(out)["contract"] == "2H"
    # A call out of turn refused: the auction goes back to the player whose turn it was.
    g = Game(seed=19, dealer="N")
    g.calls("1D", first="W")
    g.add(type="accept", seat="N", accepted=False)
    g.calls("1C", "P", "P", "P", first="N")
    out = g.run()
    oot = kinds(out, "call_out_of_turn")
    assert oot[-1]["status"] == "corrected" and oot[-1]["rule"] == "Law 29B"
    assert result(out)["contract"] == "1C" and result(out)["declarer"] == "N"


def test_law_14b_missing_card_found_in_play():
    g = Game(seed=33, dealer="N")
    g.bid_and_set("3N", "N")
    w_first = g.hands["E"]  # E leads; E's lowest card will be played at trick 1
    lead = min(w_first, key=lambda c: -"AKQJT98765432".index(c[1]))
    lost = next(i for i, e in enumerate(g.events) if e.get("card") == lead and e["type"] == "deal")
    g.events.pop(lost)                     # that card was never recorded as dealt
    g.play_tricks(13)
    out = g.run()
    assert kinds(out, "wrong_card_count")[0]["seat"] == "E"
    found = [f for f in kinds(out, "missing_card") if f["rule"] == "Law 14B"]
    assert found and found[0]["card"] == lead and found[0]["seat"] == "E"
    assert not kinds(out, "bad_event") and not kinds(out, "revoke")
    assert result(out)["tricks"] == g.won("N")
