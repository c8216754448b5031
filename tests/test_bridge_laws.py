"""The Laws as a tournament director reads them, on real deals from the 2012 World Championship archive.

Each test takes a real board (deal, auction and the play as far as the
irregularity) from ``shared/data/bridge/wc2012-vugraph.pbn``, plays the
irregularity into it, and checks the engine against the Law's own wording
(Laws of Duplicate Bridge 2017; Laws 62-63 also as the Danish article in
``shared/rules/bridge-rettelse-af-kuloersvigt.da.txt`` explains them). The
expected trick winners come from the test helper's own count, not the engine.
"""

import os

import pytest

from test_bridge_util import WC2012, Game, kinds, nxt, real_boards, result, side

pytestmark = pytest.mark.skipif(not os.path.exists(WC2012), reason="shared/data not beside the repo")
RANKS = "AKQJT98765432"


def real_games(full=False):
    for dicts in real_boards():
        g = Game.from_real(dicts)
        if full and len(g.real_plays) < 44:
            continue
        yield g


def only(out, kind):
    return [f for f in out if f["kind"] == kind]


def no_trouble(out):
    """No unreadable events and no Law 47 withdrawals (what a wrong reading of the Laws shows up as)."""
    assert not only(out, "bad_event"), only(out, "bad_event")
    assert not only(out, "card_withdrawn"), only(out, "card_withdrawn")


def defender_revokes(g, trick_lo=1, trick_hi=11, check=None):
    """Follow the real play until a defender on turn (not leading) could revoke; play the revoke."""
    def stop(g):
        return (trick_lo <= g.trick_no <= trick_hi and g.trick and g.turn in g.defenders() and g.can_revoke()
                and (check is None or check(g)))
    if not g.follow_real(stop):
        while g.trick_no <= trick_hi and any(g.hands.values()):  # past the real play: play on legally
            if stop(g):
                break
            g.play_low()
        else:
            return None
    seat = g.turn
    card = sorted(g.can_revoke(), key=lambda c: RANKS.index(c[1]))[-1]
    g.revoke_led = g.led()
    i = g.play(seat, card)
    return seat, card, i


def revoke_and_finish_trick(g, trick_lo, trick_hi):
    """A defender's revoke (see :func:`defender_revokes`) and the rest of its trick, played legally.

    Returns ``(seat, card, right)``: the offender, his revoke card, and a card of the suit led he held."""
    got = defender_revokes(g, trick_lo, trick_hi)
    if got is None:
        return None
    seat, card, _ = got
    right = next(c for c in g.hands[seat] if c[0] == g.revoke_led)
    while g.trick:
        g.play_low()
    return seat, card, right


def with_real_play(g):
    """The real board's play after whatever auction ``g``'s log now holds, then the end of the board."""
    for s, c in g.real_plays:
        g.add(type="play", seat=s, card=c)
    g.add(type="end")


def real_result(g):
    """The result of the real board ``g`` was built from, as the archive plays it."""
    real = Game.from_real(next(d for d in real_boards() if d[0] == g.events[0]))
    with_real_play(real)
    return result(real.run())


def swap_in_last_trick(g, seat, old, new, k=-1):
    """The helper's own record of a correction: ``new`` takes ``old``'s place in trick ``k``."""
    leader, cards, _ = g.tricks[k]
    cards = [(s, new if (s, c) == (seat, old) else c) for s, c in cards]
    g.tricks[k] = (leader, cards, g.winner(cards))
    g.leader = g.tricks[-1][2]


# -- Law 62: correcting a revoke -------------------------------------------------------------------------

def test_law_62d_and_62b1_trick_12_revoke_corrected_after_it_was_established():
    """62D: a revoke on trick 12 must be corrected even when established; the withdrawn card goes back
    to the hand it came from, and a defender's becomes a major penalty card (62B1)."""
    for g in real_games(full=True):
        got = revoke_and_finish_trick(g, 12, 12)
        if got is None:
            continue
        seat, card, right = got
        # trick 13: play until the offender's partner has played (establishing the revoke, Law 63A)
        partner = nxt(seat, 2)
        while g.turn != seat:
            s = g.turn
            g.add(type="play", seat=s, card=g.hands[s][0])
            g.trick.append((s, g.hands[s].pop(0)))
        if partner not in [s for s, _ in g.trick]:
            continue
        fix = g.add(type="retract", seat=seat, card=card)
        g.add(type="play", seat=seat, card=right)
        g.add(type="play", seat=seat, card=card)          # his only card left: the penalty card
        g.trick.append((seat, card))
        while len(g.trick) < 4:
            s = nxt(g.trick[-1][0])
            g.add(type="play", seat=s, card=g.hands[s][0])
            g.trick.append((s, g.hands[s].pop(0)))
        swap_in_last_trick(g, seat, card, right)
        g.tricks.append((g.trick[0][0], g.trick, g.winner(g.trick)))
        g.add(type="end")
        out = g.run()
        no_trouble(out)
        rs = kinds(out, "revoke")
        assert [r["status"] for r in rs] == ["pending", "established", "corrected"]
        assert rs[-1]["rule"] == "Law 62D" and rs[-1]["event"] == fix + 1
        pc = kinds(out, "penalty_card")
        assert pc[0]["card"] == card and pc[0]["major"] is True and pc[0]["rule"] == "Law 62B1"
        assert pc[-1]["status"] == "rectified"                 # played to trick 13
        assert not [t for t in kinds(out, "trick_transfer") if t["tricks"]]
        assert result(out)["tricks"] == g.won(g.declarer) and result(out)["tricks_played"] == 13
        snap = g.table.boards[0].snapshot()
        assert [t["winner"] for t in snap["tricks"]] == [w for _, _, w in g.tricks]
        return
    raise AssertionError("no real deal for this scenario")


def test_law_62b2_defenders_faced_penalty_card_played_in_the_revoke_is_replaced():
    """62B2: a defender's faced card (here a minor penalty card, exposed inadvertently and then played
    in the revoke) is replaced without further rectification: it stays a minor penalty card."""
    def low_card(g):
        return [c for c in g.can_revoke() if c[1] in "98765432"]
    for g in real_games():
        if not g.follow_real(lambda g: g.trick and g.turn in g.defenders() and low_card(g)):
            continue
        seat = g.turn
        card = low_card(g)[0]
        g.add(type="expose", seat=seat, card=card)         # dropped face up: a minor penalty card (Law 50C)
        g.play(seat, card)                                   # and played on a trick of another suit: a revoke
        g.retract(seat, card)
        g.play(seat, g.legal(seat)[0])
        while g.trick:
            g.play_low()
        g.add(type="end")
        out = g.run()
        no_trouble(out)
        rs = kinds(out, "revoke")
        assert [r["status"] for r in rs] == ["pending", "corrected"] and "Law 62B2" in rs[-1]["message"]
        pc = kinds(out, "penalty_card")
        assert all(p["card"] == card and p["major"] is False for p in pc), pc
        assert [p["status"] for p in pc] == ["pending", "rectified", "pending", "info"]
        assert pc[2]["rule"] == "Law 62B2"
        assert g.table.boards[0].snapshot()["extra"]["penalty_cards"] == {seat: [card]}
        return
    raise AssertionError("no real deal for this scenario")


def test_law_62c1_62c2_after_the_correction_the_non_offender_then_the_offender_change_their_cards():
    """62C1: each member of the non-offending side may withdraw a card played after the revoke (no
    Law 47 finding); 62C2: then the offending side's next player may withdraw his card (a defender's
    becomes a major penalty card) and play another - the Danish article's example of East's king."""
    def second_hand(g):
        if len(g.trick) != 1 or g.turn not in g.defenders() or not g.can_revoke():
            return False
        third, fourth = nxt(g.turn), nxt(g.turn, 2)
        led = g.led()
        return (sum(1 for c in g.hands[third] if c[0] == led) >= 2 and
                sum(1 for c in g.hands[fourth] if c[0] == led) >= 2)
    for g in real_games():
        if not g.follow_real(second_hand):
            continue
        seat = g.turn
        third, fourth = nxt(seat), nxt(seat, 2)
        card = g.can_revoke()[-1]
        g.play(seat, card)
        g.play_low()
        c3 = [c for s, c in g.trick if s == third][0]
        g.play_low()
        c4 = g.tricks[-1][1][-1][1]                          # the trick is complete and turned
        g.retract(seat, card)                                # 62B1: the revoke card becomes a penalty card
        g.play(seat, g.legal(seat)[0])
        g.retract(third, c3)                                 # 62C1: non-offender changes his card
        g.play(third, g.legal(third)[-1])
        pulled = g.retract(fourth, c4)                       # 62C2: then offender's partner may change his
        g.play(fourth, g.legal(fourth)[-1])
        g.add(type="end")
        out = g.run()
        no_trouble(out)
        pc = kinds(out, "penalty_card")
        assert [(p["card"], p["rule"], p["major"]) for p in pc if p["status"] == "pending"] == [
            (card, "Law 62B1", True), (c4, "Law 62C2", True)]
        assert [p["event"] for p in pc if p["rule"] == "Law 62C2"][0] == pulled
        snap = g.table.boards[0].snapshot()
        last = snap["tricks"][-1]
        assert last["winner"] == g.tricks[-1][2]
        assert [c["seat"] for c in last["cards"]] == [nxt(g.tricks[-1][0], k) for k in range(4)]
        return
    raise AssertionError("no real deal for this scenario")


def test_law_62c1_danish_example_declarer_revokes_and_the_defender_behind_him_changes_his_card():
    """The Danish article's first example: dummy leads, declarer ruffs in hand although he holds the
    suit, West (behind him) plays low. Declarer corrects (his card is simply replaced, 62B2); West may
    then change his low card for a higher one (62C1) and, being of the non-offending side, gets no
    penalty card for the card he took back."""
    def declarer_third(g):
        if len(g.trick) != 2 or g.turn != g.declarer or g.trick[0][0] != nxt(g.declarer, 2):
            return False
        west = nxt(g.declarer)
        return bool(g.can_revoke()) and sum(1 for c in g.hands[west] if c[0] == g.led()) >= 2
    for g in real_games():
        if not g.follow_real(declarer_third):
            continue
        decl, west = g.declarer, nxt(g.declarer)
        card = g.can_revoke()[-1]
        g.play(decl, card)
        low = g.legal(west)[-1]
        g.play(west, low)                                   # the trick is complete
        fix = g.retract(decl, card)
        g.play(decl, g.legal(decl)[-1])
        g.retract(west, low)                                # 62C1
        g.play(west, g.legal(west)[0])                      # his highest card of the suit instead
        g.add(type="end")
        out = g.run()
        no_trouble(out)
        rs = kinds(out, "revoke")
        assert [r["status"] for r in rs] == ["pending", "corrected"] and rs[-1]["event"] == fix
        assert "62B2" in rs[-1]["message"] and not kinds(out, "penalty_card")
        assert g.table.boards[0].snapshot()["tricks"][-1]["winner"] == g.tricks[-1][2]
        return
    raise AssertionError("no real deal for this scenario")


@pytest.mark.parametrize("lead_withdrawn", [False, True])
def test_law_63a1_a_lead_to_the_next_trick_by_the_non_offending_side_does_not_establish_the_revoke(lead_withdrawn):
    """63A1: only the offending side's play to the next trick establishes a revoke; after the non-
    offending side has led, the revoke trick is turned face up again and corrected (Danish article).
    That lead was played after the revoke: its owner may take it back and lead another card without
    any Law 47 finding (62C1)."""
    for g in real_games():
        got = revoke_and_finish_trick(g, 1, 10)
        if got is None:
            continue
        seat, card, right = got
        winner = g.tricks[-1][2]
        leader, cards, _ = g.tricks[-1]
        fixed = [(s, right if (s, c) == (seat, card) else c) for s, c in cards]
        if side(winner) == side(seat) or g.winner(fixed) != winner:
            continue                                         # want: the non-offenders keep the lead
        t_next = len(g.tricks)
        lead = g.play_low()                                  # the non-offending side leads to the next trick
        led_card = g.events[lead]["card"]
        fix = g.add(type="retract", seat=seat, card=card)
        g.add(type="play", seat=seat, card=right)
        g.hands[seat].remove(right)
        g.hands[seat].append(card)
        swap_in_last_trick(g, seat, card, right, k=-1)
        g.penalty[seat] = [card]
        if lead_withdrawn:
            leader = g.trick[0][0]
            other = [c for c in g.legal(leader) if c != led_card]
            if not other:
                continue
            g.retract(leader, led_card)
            g.play(leader, other[0])
        g.play_tricks(13)
        g.add(type="end")
        out = g.run()
        no_trouble(out)
        rs = kinds(out, "revoke")
        assert [r["status"] for r in rs] == ["pending", "corrected"] and rs[-1]["event"] == fix
        assert not any(r["established"] for r in rs)
        pc = kinds(out, "penalty_card")
        assert pc[0]["card"] == card and pc[0]["major"] is True and pc[0]["rule"] == "Law 62B1"
        assert not kinds(out, "trick_transfer") and not kinds(out, "lead_out_of_turn")
        snap = g.table.boards[0].snapshot()
        assert [t["winner"] for t in snap["tricks"]] == [w for _, _, w in g.tricks]
        assert snap["tricks"][t_next]["cards"][0]["card"] == (other[0] if lead_withdrawn else led_card)
        assert result(out)["tricks"] == g.won(g.declarer)
        return
    raise AssertionError("no real deal for this scenario")


# -- Laws 57 and 58: premature and simultaneous plays -----------------------------------------------------

def declarer_leads(g):
    """Follow the real play to a trick led by declarer from his own hand."""
    return g.follow_real(lambda g: not g.trick and g.leader == g.declarer and g.trick_no > 1)


def test_law_57a_defender_leads_to_the_next_trick_before_partner_has_played():
    """57A: the card led early is a major penalty card (not a Law 58B second card); declarer may
    direct partner's play to the current trick."""
    for g in real_games():
        if not declarer_leads(g):
            continue
        lho = nxt(g.declarer)
        g.play_low()                                   # declarer leads
        g.play_low()                                   # LHO (a defender) follows
        g.play_low()                                   # dummy
        early = g.hands[lho][0]
        i = g.add(type="play", seat=lho, card=early)   # LHO leads to the next trick: partner has not played
        g.penalty[lho] = [early]
        last = g.play_low()                            # RHO completes the trick
        g.add(type="end")
        out = g.run()
        no_trouble(out)
        pot = kinds(out, "play_out_of_turn")
        assert [(f["rule"], f["status"], f["event"]) for f in pot] == [("Law 57A", "pending", i),
                                                                       ("Law 57A", "rectified", last)]
        pc = kinds(out, "penalty_card")
        assert pc[0]["card"] == early and pc[0]["major"] is True and pc[0]["rule"] == "Law 57A"
        assert not [f for f in out if f["rule"] == "Law 58B"]
        snap = g.table.boards[0].snapshot()
        assert [c["card"] for c in snap["tricks"][-1]["cards"]] == [c for _, c in g.tricks[-1][1]]
        assert snap["extra"]["penalty_cards"] == {lho: [early]} and early in snap["hands"][lho]
        return
    raise AssertionError("no real deal for this scenario")


def test_law_57c1_turn_order_after_a_premature_play_from_dummy():
    """Declarer plays from dummy before his LHO (Law 57D: no rectification); LHO then plays in turn and
    gets no finding. If RHO instead plays before his partner after declarer played from both hands,
    there is no rectification either (Law 57C1)."""
    for g in real_games():
        if not declarer_leads(g):
            continue
        k = len(g.tricks) * 4
        lead, lho, dummy, rho = g.real_plays[k:k + 4]
        base = list(g.events)
        for order, rules in (([lead, dummy, lho, rho], ["Law 57D"]),
                             ([lead, dummy, rho, lho], ["Law 57D", "Law 57C1"])):
            g.events = list(base)
            for s, c in order:
                g.add(type="play", seat=s, card=c)
            g.add(type="end")
            out = g.run()
            no_trouble(out)
            pot = kinds(out, "play_out_of_turn")
            assert [f["rule"] for f in pot] == rules and all(f["status"] == "info" for f in pot)
            assert [f["seat"] for f in pot] == [s for s, _ in order[1:len(rules) + 1]]
            assert not kinds(out, "penalty_card")
            snap = g.table.boards[0].snapshot()
            cards = [(s, c) for s, c in (lead, lho, dummy, rho)]
            assert snap["tricks"][-1]["winner"] == g.winner(cards)
        return
    raise AssertionError("no real deal for this scenario")


def test_law_58a_a_play_simultaneous_with_a_legal_play_is_deemed_subsequent():
    """58A: dummy's card, logged first, fell at the same moment as LHO's legal card: it is deemed played
    after it, so what it was first reported as (a premature play) is withdrawn."""
    for g in real_games():
        if not declarer_leads(g):
            continue
        k = len(g.tricks) * 4
        lead, lho, dummy, rho = g.real_plays[k:k + 4]
        for s, c in (lead, dummy):
            g.add(type="play", seat=s, card=c)
        i = g.add(type="play", seat=lho[0], card=lho[1], simultaneous=True)
        g.add(type="play", seat=rho[0], card=rho[1])
        for s, c in g.real_plays[k + 4:]:
            g.add(type="play", seat=s, card=c)
        g.add(type="end")
        out = g.run()
        no_trouble(out)
        pot = kinds(out, "play_out_of_turn")
        assert [f["status"] for f in pot] == ["info", "info"] and pot[1]["rule"] == "Law 58A"
        assert pot[1]["event"] == i and pot[0]["id"] == pot[1]["id"]
        assert {f["kind"] for f in out} == {"play_out_of_turn", "result"}
        assert result(out)["tricks"] == real_result(g)["tricks"]
        assert g.table.boards[0].snapshot()["tricks"][len(g.tricks)]["cards"][1]["seat"] == lho[0]
        return
    raise AssertionError("no real deal for this scenario")


def test_law_58a_what_the_play_deemed_subsequent_then_raises_says_it_was_simultaneous():
    """58A: the fourth hand's card, logged before the third hand's, fell at the same moment: it is applied
    again after it and completes the trick. What that raises (here Law 50D2: the winner's partner holds a
    major penalty card) is marked ``simultaneous``, so the director sees why it came with the third card."""
    for g in real_games():
        if not g.follow_real(lambda g: not g.trick and g.trick_no > 2):
            continue
        k = len(g.tricks) * 4
        plays = g.real_plays[k:k + 4]
        led, w = plays[0][1][0], g.winner(plays)
        holder = nxt(w, 2)
        card = dict(plays).get(holder, "")
        spare = [c for c in g.hands[holder] if c[0] != led and c != card]
        if holder == g.declarer or holder == nxt(g.declarer, 2) or card[:1] != led or not spare:
            continue
        g.add(type="expose", seat=holder, card=spare[0], deliberate=True)
        for s, c in plays[:2]:
            g.add(type="play", seat=s, card=c)
        fourth = g.add(type="play", seat=plays[3][0], card=plays[3][1])
        g.add(type="play", seat=plays[2][0], card=plays[2][1], simultaneous=True)
        g.add(type="end")
        out = g.run()
        no_trouble(out)
        lead = kinds(out, "lead_options")
        assert [(f["seat"], f["event"], f.get("simultaneous")) for f in lead] == [(w, fourth, True)]
        assert [f["rule"] for f in kinds(out, "play_out_of_turn")][-1] == "Law 58A"
        assert all("simultaneous" not in f for f in out if f["kind"] != "lead_options")
        return
    raise AssertionError("no real deal for this scenario")


# -- The auction: Laws 30, 36, 38 -----------------------------------------------------------------------

def auction_with(g, calls):
    """Replace the real auction in ``g``'s log by ``calls`` (seat, call) pairs."""
    g.events = [e for e in g.events if e["type"] != "call"] + [dict(type="call", seat=s, call=c) for s, c in calls]


def test_law_30a_pass_out_of_rotation_not_accepted_offender_must_pass_at_his_next_turn():
    """30A: before any bid, dealer's LHO passes at dealer's turn; dealer calls (not accepting it), so
    the pass is cancelled and the offender must pass at his next turn - a finding when he does not."""
    seen = set()
    for g in real_games():
        calls = g.real_calls
        offender = nxt(g.dealer)
        first = next(c for s, c in calls if s == offender)
        kind = "bid" if first != "P" else "pass"
        if kind in seen:
            continue
        auction_with(g, [(offender, "P")] + calls)
        with_real_play(g)
        out = g.run()
        no_trouble(out)
        oot = kinds(out, "call_out_of_turn")
        assert [f["status"] for f in oot] == ["pending", "corrected"] and "Law 30A" in oot[1]["message"]
        barred = kinds(out, "barred_call")
        if kind == "bid":
            assert len(barred) == 1 and barred[0]["seat"] == offender and barred[0]["required_by"] == "Law 30A"
            assert barred[0]["call"] == first
        else:
            assert not barred
        seen.add(kind)
        if len(seen) == 2:
            return
    raise AssertionError("no real deal for this scenario")


def first_bid(calls):
    return next(i for i, (s, c) in enumerate(calls) if c not in ("P", "X", "XX"))


def test_law_36a_inadmissible_redouble_cancelled_auction_reverts_to_the_offender():
    """36A: the bidder's LHO redoubles (no double to redouble: Law 19), his LHO calls before
    rectification; that call is cancelled, the auction reverts to the offender, who substitutes his call;
    the offender's partner must then pass."""
    for g in real_games():
        calls = g.real_calls
        i = first_bid(calls)
        if i + 2 >= len(calls) or calls[i + 1][1] != "P" or calls[i + 2][1] in ("X", "XX"):
            continue
        off, nxt_ = calls[i + 1], calls[i + 2]
        partner = nxt(off[0], 2)
        if any(c != "P" for s, c in calls[i + 2:] if s == partner):
            continue                                          # the real partner calls again: barred
        auction_with(g, calls[:i + 1] + [(off[0], "XX"), nxt_, off] + calls[i + 2:])
        with_real_play(g)
        out = g.run()
        no_trouble(out)
        f = kinds(out, "inadmissible_double")
        assert [x["status"] for x in f] == ["pending", "corrected"] and f[1]["rule"] == "Law 36A"
        assert f[1]["partner_barred"] is True and f[1]["correction"] == off[1]
        auction = g.table.boards[0].snapshot()["auction"]
        assert auction[i + 1] == {"seat": off[0], "call": "XX", "status": "cancelled"}
        assert auction[i + 2]["status"] == "cancelled"         # LHO's call over it
        assert {k: v for k, v in result(out).items() if k not in ("event", "id")} == {
            k: v for k, v in real_result(g).items() if k not in ("event", "id")}
        assert {x["kind"] for x in out} == {"inadmissible_double", "result"}
        return
    raise AssertionError("no real deal for this scenario")


def test_law_36c_inadmissible_double_followed_by_three_passes_ends_the_auction():
    """36C: after a bid and a pass, the bidder's partner doubles his partner's bid; the auction ends
    after three passes that follow the double (not after two: the pass before it does not count)."""
    for g in real_games():
        calls = g.real_calls
        i = first_bid(calls)
        if i + 1 >= len(calls) or calls[i + 1][1] != "P":
            continue
        bidder, bid = calls[i]
        seats = [nxt(bidder, k) for k in (2, 3, 4, 5)]
        auction_with(g, calls[:i + 2] + [(seats[0], "X")] + [(s, "P") for s in seats[1:]])
        g.add(type="end")
        b = Game.from_real(next(d for d in real_boards() if d[0] == g.events[0]))   # the same board
        auction_with(b, calls[:i + 2] + [(seats[0], "X")] + [(s, "P") for s in seats[1:3]])
        assert b.engine().phase == "auction"                    # two passes after the double: not over
        out = g.run()
        no_trouble(out)
        f = kinds(out, "inadmissible_double")
        assert [x["status"] for x in f] == ["pending", "rectified"] and f[1]["rule"] == "Law 36C"
        r = result(out)
        assert r["contract"] == bid and r["declarer"] == bidder
        return
    raise AssertionError("no real deal for this scenario")


def test_law_38_bid_above_seven_is_cancelled_and_a_pass_substituted():
    """38: a bid of more than seven is a call, not an unreadable line: it is cancelled and a pass
    substituted (38B); the offender's partner must pass whenever it is his turn (38C)."""
    seen = set()
    for g in real_games():
        calls = g.real_calls
        j = next((k for k, (s, c) in enumerate(calls) if c == "P" and k > first_bid(calls)), None)
        if j is None:
            continue
        offender = calls[j][0]
        partner_bids = any(c != "P" for s, c in calls[j:] if s == nxt(offender, 2))
        if partner_bids in seen:
            continue
        auction_with(g, calls[:j] + [(offender, "8N")] + calls[j + 1:])
        with_real_play(g)
        out = g.run()
        no_trouble(out)
        f = kinds(out, "bid_above_seven")
        assert len(f) == 1 and f[0]["rule"] == "Law 38" and f[0]["call"] == "8N" and f[0]["seat"] == offender
        r, rr = result(out), real_result(g)
        assert (r["contract"], r["declarer"], r["tricks"]) == (rr["contract"], rr["declarer"], rr["tricks"])
        auction = g.table.boards[0].snapshot()["auction"]
        assert {"seat": offender, "call": "8N", "status": "cancelled"} in auction
        barred = kinds(out, "barred_call")
        assert bool(barred) == partner_bids
        if barred:
            assert barred[0]["required_by"] == "Law 38C" and barred[0]["seat"] == nxt(offender, 2)
        seen.add(partner_bids)
        if len(seen) == 2:
            return
    raise AssertionError("no real deal for this scenario")


# -- Law 71: concessions ----------------------------------------------------------------------------------

def test_law_71_concession_of_a_trick_the_side_had_already_won_is_cancelled():
    for g in real_games():
        if len(g.real_plays) < 36:
            continue
        g.follow_real(lambda g: len(g.tricks) == 9)
        defender = g.defenders()[0]
        have = g.won(defender)
        if not have:
            continue
        c = g.add(type="claim", seat=defender, tricks=have - 1)           # the defenders concede a won trick
        g.add(type="end")
        out = g.run()
        no_trouble(out)
        f = kinds(out, "concession_cancelled")
        assert len(f) == 1 and f[0]["rule"] == "Law 71" and "71.1" in f[0]["message"]
        assert f[0]["event"] == c and f[0]["claimed"] == have - 1 and f[0]["tricks"] == have
        assert result(out)["tricks"] == 13 - have
        return
    raise AssertionError("no real deal for this scenario")


def test_law_71_concession_of_a_trick_that_could_not_be_lost_is_cancelled():
    """71.2: with one trick left each hand holds one card; the side whose card wins it concedes it."""
    for g in real_games(full=True):
        g.follow_real(lambda g: len(g.tricks) == 12)
        g.play_tricks(12)
        last = [(s, g.hands[s][0]) for s in (g.leader, nxt(g.leader), nxt(g.leader, 2), nxt(g.leader, 3))]
        w = g.winner(last)
        base = list(g.events)
        c = g.add(type="claim", seat=w, tricks=g.won(w))          # concedes the last trick it cannot lose
        g.add(type="end")
        out = g.run()
        no_trouble(out)
        f = kinds(out, "concession_cancelled")
        assert len(f) == 1 and f[0]["event"] == c and "71.2" in f[0]["message"]
        assert f[0]["tricks"] == g.won(w) + 1
        decl_side = side(g.declarer) == side(w)
        assert result(out)["tricks"] == g.won(g.declarer) + (1 if decl_side else 0)
        g.events = base
        loser = nxt(w)
        g.add(type="claim", seat=loser, tricks=g.won(loser))     # the other side concedes it: nothing to cancel
        g.add(type="end")
        out = g.run()
        assert not kinds(out, "concession_cancelled")
        return
    raise AssertionError("no real deal for this scenario")
