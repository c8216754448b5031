"""Leads out of turn (Laws 53-56), penalty cards (Laws 48-52, 58B), claims and results."""

from test_bridge_util import RANKS, Game, kinds, nxt, result, side


def contract_game(seed, declarer="S", bid="4S", dealer="N"):
    g = Game(seed=seed, dealer=dealer)
    g.bid_and_set(bid, declarer)
    return g


def lowest(cards):
    return min(cards, key=lambda c: -RANKS.index(c[1]))


# -- leads out of turn --------------------------------------------------------
def test_law_54b_opening_lead_accepted():
    g = contract_game(20)                       # 4S by S: W should lead
    i = g.play("E", lowest(g.hands["E"]))       # declarer's RHO faces the opening lead
    j = g.play_low()                            # declarer plays second from his own hand
    g.play_tricks(13)
    out = g.run()
    lot = kinds(out, "lead_out_of_turn")
    assert lot[0]["seat"] == "E" and lot[0]["trick"] == 1 and lot[0]["event"] == i
    assert lot[0]["rule"] == "Law 54" and len(lot[0]["options"]) == 5
    assert lot[1]["status"] == "rectified" and lot[1]["accepted"] is True and lot[1]["rule"] == "Law 54B"
    assert lot[1]["event"] == j and lot[1]["id"] == lot[0]["id"]
    assert not kinds(out, "penalty_card")
    r = result(out)
    assert r["declarer"] == "S" and r["tricks"] == g.won("S")


def test_law_54a_declarer_accepts_and_becomes_dummy():
    g = contract_game(20)
    g.play("E", lowest(g.hands["E"]))
    g.add(type="accept", seat="S", law="54A")
    g.play_tricks(13)
    out = g.run()
    assert kinds(out, "lead_out_of_turn")[-1]["rule"] == "Law 54A"
    r = result(out)
    assert r["declarer"] == "N" and r["tricks"] == g.won("N") and r["message"].startswith("4S by N")


def test_law_54d_opening_lead_not_accepted_major_penalty_card():
    g = contract_game(21)
    card = lowest(g.hands["E"])
    g.play("E", card)
    g.trick = []
    g.hands["E"].append(card)                  # the card goes back in front of E, face up
    j = g.play_low()                           # the right defender, W, leads
    out = g.run()
    lot = kinds(out, "lead_out_of_turn")
    assert lot[-1]["status"] == "corrected" and lot[-1]["accepted"] is False and lot[-1]["rule"] == "Law 54D"
    pc = kinds(out, "penalty_card")
    assert pc[0]["seat"] == "E" and pc[0]["card"] == card and pc[0]["major"] is True and pc[0]["event"] == j
    lo = kinds(out, "lead_options")                # W, E's partner, leads: declarer's Law 50D2 choice
    assert lo and lo[0]["seat"] == "W" and lo[0]["rule"] == "Law 50D2" and lo[0]["penalty_cards"] == [card]
    assert len(lo[0]["options"]) == 4


def test_law_56_defender_lead_not_accepted():
    for seed in range(22, 80):
        g = contract_game(seed)
        g.play_tricks(1)
        if g.leader not in "NS":
            continue
        wrong = "E"                                # a defender leads while declarer's side is on lead
        card = lowest(g.hands[wrong])
        i = g.play(wrong, card)
        k = g.retract(wrong, card)                 # taken back: not accepted
        g.trick = []
        g.penalty["E"] = [card]
        g.play_tricks(13)
        out = g.run()
        lot = kinds(out, "lead_out_of_turn")
        assert lot[0]["seat"] == "E" and lot[0]["trick"] == 2 and lot[0]["event"] == i
        assert lot[0]["rule"] == "Law 56" and any("53A" in o for o in lot[0]["options"])
        assert lot[1]["accepted"] is False and lot[1]["event"] == k and lot[1]["status"] == "corrected"
        pc = kinds(out, "penalty_card")
        assert pc[0]["major"] is True and pc[0]["card"] == card and pc[0]["rule"] == "Law 56"
        assert pc[-1]["status"] == "rectified"    # played at the first legal opportunity
        assert not kinds(out, "revoke") and result(out)["tricks"] == g.won("S")
        return
    raise AssertionError("no scenario")


def test_law_55_declarer_lead_out_of_turn_not_accepted():
    for seed in range(40):
        g = contract_game(seed)
        g.play_tricks(1)
        if g.leader != "N":
            continue
        card = lowest(g.hands["S"])
        g.play("S", card)                      # declarer leads from hand; dummy had won the trick
        g.trick = []
        g.hands["S"].append(card)
        g.play_low()                           # the lead comes from dummy
        out = g.run()
        lot = kinds(out, "lead_out_of_turn")
        assert lot[0]["rule"] == "Law 55" and lot[1]["rule"] == "Law 55B" and lot[1]["accepted"] is False
        assert not kinds(out, "penalty_card")
        return
    raise AssertionError("no scenario")


def test_law_53a_lead_out_of_turn_accepted_by_next_player():
    g = contract_game(23)
    g.play_tricks(2)
    leader = g.leader
    wrong = nxt(leader, 2)
    g.play(wrong, lowest(g.hands[wrong]))
    g.play_tricks(13)
    out = g.run()
    lot = kinds(out, "lead_out_of_turn")
    assert lot[-1]["accepted"] is True and lot[-1]["rule"] == "Law 53A"
    assert result(out)["tricks"] == g.won("S")


# -- penalty cards ------------------------------------------------------------
def test_law_50_minor_vs_major():
    g = contract_game(24)
    low = [c for c in g.hands["E"] if c[1] not in "AKQJT"]
    hon = [c for c in g.hands["W"] if c[1] in "AKQJT"]
    a = g.add(type="expose", seat="E", card=low[0])                        # inadvertent, below the 10
    b = g.add(type="expose", seat="W", card=hon[0])                        # an honour
    c = g.add(type="expose", seat="W", card=[x for x in g.hands["W"] if x[1] not in "AKQJT"][0],
              deliberate=True)
    out = g.run()
    pc = kinds(out, "penalty_card")
    by_event = {f["event"]: f for f in pc}
    assert by_event[a]["major"] is False and by_event[a]["rule"] == "Law 50C"
    assert by_event[b]["major"] is True and by_event[c]["major"] is True
    d = g.add(type="expose", seat="E", card=low[1])                        # a second card: both major
    out = g.run()
    pc = [f for f in kinds(out, "penalty_card") if f["seat"] == "E"]
    upd = [f for f in pc if f["rule"] == "Law 50B"]
    assert upd[0]["major"] is True and upd[0]["id"] == pc[0]["id"] and upd[0]["event"] == d
    # the board ended with the cards still on the table: closed as info
    assert pc[-1]["status"] == "info" and "still a penalty card" in pc[-1]["message"]
    assert [f for f in pc if f["event"] == d][0]["major"] is True


def test_law_48_declarer_exposes_no_penalty_card():
    g = contract_game(24)
    g.add(type="expose", seat="S", card=g.hands["S"][0])
    g.add(type="expose", seat="N", card=g.hands["N"][0])
    out = g.run()
    assert not kinds(out, "penalty_card")
    assert {f["rule"] for f in kinds(out, "card_exposed")} == {"Law 48A"}


def _penalty_scenario(minor=False):
    """E exposes a card of the suit W is about to lead, holding another card of that suit."""
    for seed in range(300):
        g = contract_game(seed)
        lead = lowest(g.hands["W"])
        suit = lead[0]
        mine = [c for c in g.hands["E"] if c[0] == suit]
        if minor:
            mine = [c for c in mine if c[1] not in "AKQJT"]
        if len(mine) < 2:
            continue
        mine.sort(key=lambda c: RANKS.index(c[1]))
        exposed, other = mine[0], mine[-1]
        return g, lead, exposed, other
    raise AssertionError("no scenario")


def test_law_50d_failure_to_play_major_penalty_card():
    g, lead, exposed, other = _penalty_scenario()
    g.add(type="expose", seat="E", card=exposed, deliberate=True)
    g.play("W", lead)
    g.play_low()                                   # dummy
    i = g.play("E", other)                         # not the penalty card: a revoke (Law 61A)
    g.play_tricks(13)
    out = g.run()
    rv = kinds(out, "revoke")
    assert rv[0]["seat"] == "E" and rv[0]["event"] == i and rv[0]["rule"] == "Law 61A"
    assert rv[0]["required"] == [exposed] and any("52B" in o for o in rv[0]["options"])
    assert rv[-1]["established"] is True
    tt = kinds(out, "trick_transfer")
    assert tt[0]["rule"] == "Law 64B3" and tt[0]["tricks"] == 0
    assert result(out)["tricks"] == g.won("S")


def test_major_penalty_card_played_is_rectified_and_oracle_requires_it():
    g, lead, exposed, other = _penalty_scenario()
    g.add(type="expose", seat="E", card=exposed, deliberate=True)
    g.play("W", lead)
    g.play_low()
    b = g.engine()
    assert [str(c) for c in b.legal_plays()] == [exposed]
    j = g.play("E", exposed)
    out = g.run()
    pc = kinds(out, "penalty_card")
    assert pc[-1]["status"] == "rectified" and pc[-1]["event"] == j
    assert not kinds(out, "revoke")


def test_law_50c_minor_penalty_card():
    g, lead, exposed, other = _penalty_scenario(minor=True)
    g.add(type="expose", seat="E", card=exposed)
    g.play("W", lead)
    g.play_low()
    i = g.play("E", other)                         # another low card of the suit first: not allowed
    out = g.run()
    rv = kinds(out, "revoke")
    assert rv and rv[0]["event"] == i and rv[0]["required"] == [exposed]


def test_law_50d2_lead_demand_returns_card_and_binds_partner():
    for seed in range(300):
        g = contract_game(seed)
        e_card = [c for c in g.hands["E"] if c[1] in "AKQJT"]
        if not e_card:
            continue
        suit = e_card[0][0]
        w_suit = [c for c in g.hands["W"] if c[0] == suit]
        w_other = [c for c in g.hands["W"] if c[0] != suit]
        if not w_suit or not w_other:
            continue
        g.add(type="expose", seat="E", card=e_card[0])
        d = g.add(type="lead_demand", seat="S", suit=suit, demand="require")
        i = g.play("W", w_other[0])                 # W ignores the demand
        out = g.run()
        pc = kinds(out, "penalty_card")
        assert pc[-1]["status"] == "rectified" and pc[-1]["event"] == d
        rv = kinds(out, "revoke")
        assert rv[0]["seat"] == "W" and rv[0]["event"] == i and "require" in rv[0]["required"][0]
        return
    raise AssertionError("no scenario")


def test_law_58b_second_card_to_a_trick_is_a_penalty_card():
    g = contract_game(25)
    g.play_low()
    g.play_low()
    e1 = g.play_low()                              # E plays
    extra = lowest(g.hands["E"])
    i = g.add(type="play", seat="E", card=extra, simultaneous=True)   # and a second card with it
    g.play_low()
    out = g.run()
    pc = kinds(out, "penalty_card")
    assert pc and pc[0]["event"] == i and pc[0]["card"] == extra and pc[0]["rule"] == "Law 58B"
    assert pc[0]["major"] is (extra[1] in "AKQJT")
    assert len(g.engine().tricks) == 1


# -- claims and results -------------------------------------------------------
def test_claim_result():
    g = contract_game(26)
    g.play_tricks(5)
    c = g.add(type="claim", seat="E", tricks=g.won("E") + 3)   # the defence claims 3 more
    out = g.run()
    r = result(out)
    assert r["tricks"] == 13 - (g.won("E") + 3) and r["complete"] is True and r["event"] == c
    assert r["message"] == f"4S by S, {r['tricks']} tricks."


def test_incomplete_play_without_claim():
    g = contract_game(27)
    g.play_tricks(6)
    g.play_low()
    out = g.run()
    r = result(out)
    assert r["complete"] is False and r["tricks"] == g.won("S") and r["tricks_played"] == 6
    assert "incomplete" in r["message"]


def test_play_after_claim_is_bad_event():
    g = contract_game(28)
    g.play_tricks(3)
    g.add(type="claim", seat="S", tricks=10)
    i = g.play_low()
    out = g.run()
    assert kinds(out, "bad_event")[0]["event"] == i
    assert result(out)["tricks"] == 10


def test_card_not_in_hand_is_bad_event_and_play_goes_on():
    g = contract_game(29)
    foreign = g.hands["N"][0]
    i = g.add(type="play", seat="W", card=foreign)
    out = g.run()
    assert kinds(out, "bad_event")[0]["event"] == i


def test_snapshot_schema_mid_play():
    g = contract_game(30)
    g.play_tricks(2)
    g.play_low()
    snap = g.engine().snapshot()
    assert snap["phase"] == "play" and snap["contract"] == "4S" and snap["declarer"] == "S" and snap["trump"] == "S"
    assert snap["trick"]["leader"] == g.trick[0][0] and len(snap["trick"]["cards"]) == 1
    assert len(snap["tricks"]) == 2 and snap["tricks_won"] == {"NS": g.won("N"), "EW": g.won("E")}
    assert snap["turn"] == g.turn and snap["extra"]["dummy"] == "N"
    assert sorted(snap["hands"][g.turn]) == sorted(g.hands[g.turn])
    assert len(snap["dealt"]["N"]) == 13
    assert sorted(snap["extra"]["legal"]) == sorted(g.legal())


def test_law_24_card_exposed_during_the_auction():
    g = Game(seed=31, dealer="N")
    g.calls("1S")
    honour = [c for c in g.hands["E"] if c[1] in "AKQJT"][0]
    low = [c for c in g.hands["N"] if c[1] not in "AKQJT"][0]
    i = g.add(type="expose", seat="E", card=honour)         # E will defend: penalty card
    j = g.add(type="expose", seat="N", card=low)            # a single low card: Law 24A
    g.calls("2H", first="E")                                # E's call is fine
    k = g.add(type="call", seat="S", call="3S")             # S ... fine
    g.calls("4S", first="W")                                # W (E's partner) had to pass: Law 37
    g.calls("P", "P", "P", first="N")
    out = g.run()
    ex = kinds(out, "card_exposed")
    assert ex[0]["rule"] == "Law 24B" and ex[0]["event"] == i and ex[1]["rule"] == "Law 24A"
    assert kinds(out, "barred_call")[0]["seat"] == "W"
    pc = kinds(out, "penalty_card")
    r = result(out)
    if r["declarer"] in ("N", "S"):
        assert pc and pc[0]["seat"] == "E" and pc[0]["card"] == honour and pc[0]["major"] is True
    assert not [f for f in pc if f["seat"] == "N"]


def test_law_62_revoke_corrected_after_the_trick_was_complete():
    for seed in range(200):
        g = Game(seed=seed, dealer="N")
        g.bid_and_set("4S", "S")
        card = None
        while g.trick_no <= 8:
            if len(g.trick) == 3 and g.turn in "EW" and g.can_revoke():
                card = g.can_revoke()[-1]
                break
            g.play_low()
        if card is None:
            continue
        seat = g.turn
        g.play(seat, card)                         # fourth card: the trick is turned
        j = g.retract(seat, card)                  # before anyone leads to the next trick
        g.penalty[seat] = [card]                   # Law 62B1: a major penalty card from now on
        g.play(seat, g.legal(seat)[0])
        g.play_tricks(13)
        out = g.run()
        rv = kinds(out, "revoke")
        assert len({f["id"] for f in rv}) == 1      # the penalty card was played when due
        assert rv[-1]["corrected"] is True and rv[-1]["event"] == j
        assert kinds(out, "penalty_card")[0]["major"] is True
        assert not [t for t in kinds(out, "trick_transfer") if t["tricks"]]
        assert result(out)["tricks"] == g.won("S")
        snap = g.table.boards[0].snapshot()
        assert [t["winner"] for t in snap["tricks"]] == [w for _, _, w in g.tricks]
        return
    raise AssertionError("no scenario")


def test_result_event_index_without_end_event():
    g = contract_game(32)
    g.play_tricks(13)
    out = g.run()
    assert result(out)["event"] == len(g.events) - 1


def test_ruleset_can_reword_the_law_texts():
    from tablecam.events import read_events
    from tablecam.engine import Table
    g = contract_game(34)
    g.play("E", lowest(g.hands["E"]))
    custom = {"lead_out_of_turn_opening": {"rule": "Lov 54", "options": ["Spilfører vælger (§ 54)"], "remedy": "x"}}
    out = Table(rulesets={"bridge": {"laws": custom}}).feed(read_events(g.lines()))
    f = [x for x in out if x.kind == "lead_out_of_turn"][0]
    assert f.rule == "Lov 54" and f.options == ("Spilfører vælger (§ 54)",)


def test_law_57a_premature_play_by_a_defender():
    for seed in range(40, 120):
        g = contract_game(seed)                  # 4S by S: W leads, N (dummy), E, S
        g.play_tricks(1)
        if g.leader != "S":
            continue
        g.play_low()                             # S leads
        w_card = g.legal("W")[0]
        e_card = g.legal("E")[0]
        i = g.add(type="play", seat="E", card=e_card)   # E plays before partner W (and dummy)
        j = g.add(type="retract", seat="E", card=e_card)
        g.play("W", w_card)
        out = g.run()
        p = kinds(out, "play_out_of_turn")
        assert p[0]["event"] == i and p[0]["rule"] == "Law 57" and p[0]["seat"] == "E"
        assert p[1]["status"] == "corrected" and p[1]["rule"] == "Law 57A" and p[1]["event"] == j
        pc = kinds(out, "penalty_card")
        assert pc[0]["card"] == e_card and pc[0]["major"] is True and pc[0]["rule"] == "Law 57A"
        return
    raise AssertionError("no scenario")


def test_premature_play_left_on_the_table_is_closed_with_the_trick():
    for seed in range(40, 120):
        g = contract_game(seed)
        g.play_tricks(1)
        if g.leader != "S":
            continue
        g.play_low()                             # S leads
        e_card = g.legal("E")[0]
        i = g.add(type="play", seat="E", card=e_card)
        g.hands["E"].remove(e_card)
        g.play("W", g.legal("W")[0])
        g.play("N", g.legal("N")[0])
        out = g.run()
        p = kinds(out, "play_out_of_turn")
        assert [f["status"] for f in p] == ["pending", "rectified"] and p[0]["event"] == i
        assert len(g.table.boards[0].tricks) == 2
        return
    raise AssertionError("no scenario")


def test_legal_plays_oracle_with_a_minor_penalty_card():
    g, lead, exposed, other = _penalty_scenario(minor=True)
    g.add(type="expose", seat="E", card=exposed)
    g.play("W", lead)
    g.play_low()
    legal = [str(c) for c in g.engine().legal_plays()]
    suit = exposed[0]
    assert exposed in legal and other not in legal
    assert all(c[0] == suit for c in legal)
    assert all(c == exposed or c[1] in "AKQJT" for c in legal)


def test_snapshot_after_the_board():
    g = contract_game(35)
    g.play_tricks(13)
    g.add(type="end")
    g.run()
    snap = g.table.boards[0].snapshot()
    assert snap["phase"] == "finished" and snap["turn"] is None and snap["trick"] is None
    assert all(cards == [] for cards in snap["hands"].values()) and len(snap["tricks"]) == 13
    assert snap["open_findings"] == 0
