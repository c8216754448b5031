"""Property tests: any legally played board is judged clean, and the oracle agrees with the rules."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from tablecam.engine import Table
from tablecam.events import parse_event
from test_bridge_util import SEATS, Game, nxt

BIDS = [f"{lvl}{s}" for lvl in range(1, 8) for s in "CDHSN"]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), dealer=st.sampled_from(SEATS), declarer=st.sampled_from(SEATS),
       bid=st.sampled_from(BIDS), claim_at=st.integers(0, 13), dbl=st.integers(0, 2))
def test_legal_board_is_clean_and_oracle_matches(seed, dealer, declarer, bid, claim_at, dbl):
    rng = random.Random(seed)
    g = Game(seed=seed, dealer=dealer, board=seed % 100)
    calls, seat = [], dealer
    while seat != declarer:
        calls.append("P")
        seat = nxt(seat)
    calls.append(bid)
    if dbl:
        calls.append("X")
        if dbl == 2:
            calls.append("XX")
    calls += ["P", "P", "P"]
    g.calls(*calls)
    g.contract(declarer, bid[1])
    t = Table()
    for e in g.events:
        assert t.apply(parse_event(e, len(t.board.events) if t.board else 0)) == []
    board = t.board
    while len(g.tricks) < claim_at:
        seat = g.turn
        assert board.turn.__class__ is int and "NESW"[board.turn] == seat
        assert sorted(board.legal_plays()) == sorted(g.legal())
        card = rng.choice(g.legal())
        g.play(seat, card)
        assert t.apply(parse_event(g.events[-1])) == []
    if claim_at < 13:
        claimer = rng.choice(SEATS)
        won = g.won(claimer)
        n = won + rng.randint(0, 13 - len(g.tricks))
        g.add(type="claim", seat=claimer, tricks=n)
        assert t.apply(parse_event(g.events[-1])) == []
        decl_tricks = n if claimer in (declarer, nxt(declarer, 2)) else 13 - n
    else:
        decl_tricks = g.won(declarer)
    out = t.close()
    assert [f.kind for f in out] == ["result"]
    r = out[0].to_dict()
    assert r["tricks"] == decl_tricks and r["declarer"] == declarer and r["complete"] is True
    assert r["contract"] == bid + ["", "X", "XX"][dbl]
    snap = board.snapshot()
    assert [x["winner"] for x in snap["tricks"]] == [w for _, _, w in g.tricks]
    assert snap["tricks_won"]["NS"] == g.won("N") and snap["tricks_won"]["EW"] == g.won("E")
