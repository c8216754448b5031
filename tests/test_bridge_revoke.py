"""Revokes: Law 61 (what), 62 (correction), 63 (establishment), 64 (trick transfer)."""

from test_bridge_util import Game, kinds, nxt, result, side


def revoke_game(who="defender", ruff=False, contract=("4S", "S"), seeds=range(400), min_trick=1, max_trick=11,
                check=None, deal=True):
    """A deal where ``who`` can revoke at a trick in [min_trick, max_trick]; the revoke is played.

    Returns (game, seat, card, event index). ``check(game, seat, card)`` may reject a candidate.
    """
    for seed in seeds:
        g = Game(seed=seed, dealer="N", deal=deal)
        g.bid_and_set(*contract)
        g.play_tricks(min_trick - 1)
        card = g.find_revoke(who, ruff=ruff, max_trick=max_trick)
        if card is None:
            continue
        seat = g.turn
        if check is not None and not check(g, seat, card):
            continue
        i = g.play(seat, card)
        return g, seat, card, i
    raise AssertionError("no deal found for this scenario")


def finish_trick(g):
    while g.trick:
        g.play_low()


def test_law_61_revoke_reported():
    g, seat, card, i = revoke_game()
    tn = g.trick_no if g.trick else g.trick_no - 1
    out = g.run()
    r = kinds(out, "revoke")[0]
    assert r["seat"] == seat and r["trick"] == tn and r["established"] is False and r["status"] == "pending"
    assert r["event"] == i and r["rule"] == "Law 61" and r["card"] == card
    assert any("Law 62A" in o for o in r["options"]) and r["remedy"]


def test_law_63a_established_by_next_trick():
    g, seat, card, i = revoke_game()
    finish_trick(g)
    # Play on until the offending side plays to the next trick.
    while side(g.turn) != side(seat) or not g.trick and g.leader != g.turn:
        g.play_low()
    j = g.play_low()
    out = g.run()
    rs = kinds(out, "revoke")
    assert [r["established"] for r in rs] == [False, True]
    assert rs[1]["event"] == j and rs[1]["status"] == "established" and rs[1]["id"] == rs[0]["id"]
    assert rs[1]["rule"] == "Law 63A"


def test_law_63a_not_established_by_non_offending_side():
    for seed in range(200):
        try:
            g, seat, card, i = revoke_game(who="defender", seeds=range(seed, seed + 1))
        except AssertionError:
            continue
        finish_trick(g)
        if side(g.leader) == side(seat):
            continue
        g.play_low()                               # the non-offending side leads to the next trick
        out = g.run()
        assert [r["established"] for r in kinds(out, "revoke")] == [False, True]
        assert kinds(out, "revoke")[1]["rule"] == "Law 63A"
        assert "ended" in kinds(out, "revoke")[1]["message"]    # established only when the board ended
        return
    raise AssertionError("no scenario")


def test_law_63a3_established_by_claim():
    g, seat, card, i = revoke_game()
    finish_trick(g)
    c = g.add(type="claim", seat="S", tricks=g.won("S") + 1)
    out = g.run()
    rs = kinds(out, "revoke")
    assert rs[-1]["established"] is True and rs[-1]["event"] == c


def test_law_62b_defender_correction_major_penalty_card():
    g, seat, card, i = revoke_game(who="defender")
    legal = g.legal(seat)
    j = g.retract(seat, card)
    k = g.play(seat, g.legal(seat)[0])
    assert legal
    out = g.run()
    rs = kinds(out, "revoke")
    assert rs[-1]["corrected"] is True and rs[-1]["status"] == "corrected" and rs[-1]["event"] == j
    pc = kinds(out, "penalty_card")
    assert pc[0]["seat"] == seat and pc[0]["card"] == card and pc[0]["major"] is True
    assert pc[0]["rule"] == "Law 62B1"
    assert not kinds(out, "trick_transfer")
    b = g.table.boards[0]
    assert b.revokes[0].corrected and k > j


def test_law_62b2_declarer_correction_no_penalty_card():
    g, seat, card, i = revoke_game(who="declarer")
    g.retract(seat, card)
    g.play(seat, g.legal(seat)[0])
    finish_trick(g)
    g.play_tricks(13)
    out = g.run()
    assert kinds(out, "revoke")[-1]["corrected"] is True
    assert not kinds(out, "penalty_card") and not kinds(out, "trick_transfer")
    assert result(out)["tricks"] == g.won("S")


def test_law_62c1_non_offender_may_withdraw_card_played_after_revoke():
    def nonoffender_follows(g, seat, card):
        return len(g.trick) <= 2
    g, seat, card, i = revoke_game(who="defender", check=nonoffender_follows)
    after = g.turn
    assert side(after) != side(seat)
    played = g.legal(after)[0]
    g.play(after, played)
    g.retract(seat, card)
    g.play(seat, g.legal(seat)[0])
    g.retract(after, played)          # Law 62C1: allowed, no finding
    g.play(after, g.legal(after)[-1])
    finish_trick(g)
    out = g.run()
    assert not kinds(out, "card_withdrawn")
    assert kinds(out, "revoke")[-1]["corrected"] is True


def test_law_47_withdrawing_a_played_card_without_cause():
    g = Game(seed=3, dealer="N")
    g.bid_and_set("2H", "N")
    g.play_low()
    s, c = g.trick[0]
    g.play_low()
    j = g.retract(*g.trick[-1])
    out = g.run()
    w = kinds(out, "card_withdrawn")
    assert w and w[0]["event"] == j and w[0]["rule"] == "Law 47"


def _play_out(g):
    while any(g.hands.values()):
        g.play_low()


def test_law_64a_two_tricks():
    def wins(g, seat, card):
        return True
    for seed_block in range(0, 400, 20):
        g, seat, card, i = revoke_game(who="defender", ruff=True, seeds=range(seed_block, seed_block + 20))
        finish_trick(g)
        _play_out(g)
        t = g.tricks
        rt = next(k for k, (_, cards, _) in enumerate(t) if (seat, card) in cards)
        later = any(side(w) == side(seat) for _, _, w in t[rt + 1:])
        if t[rt][2] == seat and later and rt + 1 != 12:
            break
    else:
        raise AssertionError("no scenario")
    out = g.run()
    tt = kinds(out, "trick_transfer")
    assert len(tt) == 1 and tt[0]["tricks"] == 2 and tt[0]["rule"] == "Law 64A1" and tt[0]["seat"] == seat
    assert any("64C" in o for o in tt[0]["options"])
    assert result(out)["tricks"] == g.won("S") + 2
    assert result(out)["transferred"] == 2


def test_law_64a_one_trick():
    for seed_block in range(0, 600, 20):
        g, seat, card, i = revoke_game(who="defender", seeds=range(seed_block, seed_block + 20))
        finish_trick(g)
        _play_out(g)
        t = g.tricks
        rt = next(k for k, (_, cards, _) in enumerate(t) if (seat, card) in cards)
        later = any(side(w) == side(seat) for _, _, w in t[rt + 1:])
        if t[rt][2] != seat and (side(t[rt][2]) == side(seat) or later) and rt + 1 != 12:
            break
    else:
        raise AssertionError("no scenario")
    out = g.run()
    tt = kinds(out, "trick_transfer")
    assert tt[0]["tricks"] == 1 and tt[0]["rule"] == "Law 64A2"
    assert result(out)["tricks"] == g.won("S") + 1


def test_law_64b1_offending_side_won_no_later_trick():
    for seed in range(300):
        try:
            g, seat, card, i = revoke_game(who="defender", seeds=range(seed, seed + 1))
        except AssertionError:
            continue
        finish_trick(g)
        if side(g.tricks[-1][2]) == side(seat):
            continue
        left = 13 - len(g.tricks)
        c = g.add(type="claim", seat="S", tricks=g.won("S") + left)
        out = g.run()
        tt = kinds(out, "trick_transfer")
        assert tt[0]["tricks"] == 0 and tt[0]["rule"] == "Law 64B1" and tt[0]["event"] == c
        r = result(out)
        assert r["tricks"] == g.won("S") + left and r["complete"] is True
        return
    raise AssertionError("no scenario")


def test_law_64b2_second_revoke_same_suit():
    for seed in range(300):
        try:
            g, seat, card, i = revoke_game(who="defender", seeds=range(seed, seed + 1), max_trick=8)
        except AssertionError:
            continue
        led = g.trick[0][1][0]
        finish_trick(g)
        # a second revoke in the same suit by the same player, later
        second = None
        while any(g.hands.values()) and g.trick_no <= 11:
            if g.turn == seat and g.trick and g.led() == led and g.can_revoke():
                second = g.play(seat, g.can_revoke()[-1])
                break
            g.play_low()
        if second is None:
            continue
        _play_out(g)
        out = g.run()
        tt = kinds(out, "trick_transfer")
        assert len(tt) == 2 and tt[1]["rule"] == "Law 64B2" and tt[1]["tricks"] == 0
        assert tt[0]["rule"].startswith("Law 64A") or tt[0]["rule"] == "Law 64B1"
        return
    raise AssertionError("no scenario")


def test_law_64b3_dummy_revoke_no_transfer():
    g, seat, card, i = revoke_game(who="dummy")
    finish_trick(g)
    _play_out(g)
    out = g.run()
    assert kinds(out, "revoke")[0]["seat"] == "N" and "dummy" in kinds(out, "revoke")[0]["message"]
    tt = kinds(out, "trick_transfer")
    assert tt[0]["rule"] == "Law 64B3" and tt[0]["tricks"] == 0
    assert result(out)["tricks"] == g.won("S")


def test_law_64b6_trick_12():
    """No transfer for a revoke on trick 12: 64B6 (64B4 is attention drawn only on a later board)."""
    g, seat, card, i = revoke_game(who="defender", min_trick=12, max_trick=12)
    _play_out(g)
    out = g.run()
    rs = kinds(out, "revoke")
    assert rs[0]["trick"] == 12 and rs[0]["rule"] == "Law 62D" and rs[-1]["established"] is True
    tt = kinds(out, "trick_transfer")
    assert tt[0]["rule"] == "Law 64B6" and tt[0]["tricks"] == 0
    assert result(out)["tricks"] == g.won("S")


def test_law_62d_trick_12():
    g, seat, card, i = revoke_game(who="defender", min_trick=12, max_trick=12)
    right = g.legal(seat)[0]
    finish_trick(g)
    _play_out(g)  # trick 13 played: the revoke is established
    g.add(type="retract", seat=seat, card=card)
    g.add(type="play", seat=seat, card=right)
    # what the table ends with: the two cards swapped between tricks 12 and 13
    t12, t13 = g.tricks[11], g.tricks[12]
    c12 = [(s, right if (s, c) == (seat, card) else c) for s, c in t12[1]]
    c13 = [(s, card if (s, c) == (seat, right) else c) for s, c in t13[1]]
    g.tricks[11] = (t12[0], c12, g.winner(c12))
    g.tricks[12] = (t13[0], c13, g.winner(c13))
    out = g.run()
    rs = kinds(out, "revoke")
    assert [r["status"] for r in rs] == ["pending", "established", "corrected"]
    assert rs[-1]["corrected"] is True and rs[-1]["rule"] == "Law 62D"
    assert not [t for t in kinds(out, "trick_transfer") if t["tricks"]]
    assert result(out)["tricks"] == g.won("S")
    snap = g.table.boards[0].snapshot()
    assert [t["winner"] for t in snap["tricks"]] == [w for _, _, w in g.tricks]


def test_law_64b7_both_sides():
    for seed in range(300):
        try:
            g, seat, card, i = revoke_game(who="defender", seeds=range(seed, seed + 1), max_trick=6)
        except AssertionError:
            continue
        finish_trick(g)
        card2 = g.find_revoke("declarer", max_trick=11)
        if card2 is None:
            continue
        g.play(g.turn, card2)
        _play_out(g)
        out = g.run()
        tt = kinds(out, "trick_transfer")
        assert len(tt) == 2 and all(t["rule"] == "Law 64B7" and t["tricks"] == 0 for t in tt)
        assert result(out)["tricks"] == g.won("S")
        return
    raise AssertionError("no scenario")


def test_revoke_seen_afterwards_when_hands_are_unknown():
    """No deal events: a player who showed out and later plays the suit revoked (Law 61)."""
    for seed in range(300):
        try:
            g, seat, card, i = revoke_game(who="defender", seeds=range(seed, seed + 1), max_trick=9, deal=False)
        except AssertionError:
            continue
        led = g.trick[0][1][0]
        finish_trick(g)
        _play_out(g)
        later = [k for k, e in enumerate(g.events) if e["type"] == "play" and e["seat"] == seat and
                 e["card"][0] == led and k > i]
        if not later:
            continue
        out = g.run()
        rs = kinds(out, "revoke")
        assert rs and rs[0]["seat"] == seat and rs[0]["retrospective"] is True and rs[0]["revoke_event"] == i
        assert rs[0]["detected_at"] == rs[0]["event"] == later[0] and rs[0]["established"] is True
        assert kinds(out, "trick_transfer")
        return
    raise AssertionError("no scenario")


def test_law_62c2_offending_side_withdraws_only_after_the_non_offender():
    for seed in range(300):
        try:
            g, seat, card, i = revoke_game(who="defender", seeds=range(seed, seed + 1),
                                           check=lambda g, s, c: len(g.trick) == 1)
        except AssertionError:
            continue
        # revoke by the 2nd hand; 3rd hand (non-offender) and 4th hand (offender's partner) play after it
        third = g.turn
        c3 = g.legal(third)[0]
        g.play(third, c3)
        fourth = g.turn
        c4 = g.legal(fourth)[0]
        g.play(fourth, c4)          # the trick is complete
        g.retract(seat, card)       # revoke corrected (the trick reopens)
        early = g.retract(fourth, c4)   # offender's partner takes back first: not allowed (62C2)
        out = g.run()
        w = kinds(out, "card_withdrawn")
        assert w and w[0]["event"] == early and w[0]["rule"] == "Law 62C2"
        # now the proper order: the non-offender changes first, then the offending side may
        g.events = g.events[:early]
        g.add(type="retract", seat=third, card=c3)
        j = g.add(type="retract", seat=fourth, card=c4)
        out = g.run()
        assert not kinds(out, "card_withdrawn")
        pc = [f for f in kinds(out, "penalty_card") if f["event"] == j]
        assert pc and pc[0]["rule"] == "Law 62C2" and pc[0]["major"] is True
        return
    raise AssertionError("no scenario")
