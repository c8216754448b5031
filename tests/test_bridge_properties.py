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
        assert sorted(map(str, board.legal_plays())) == sorted(g.legal())
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


CARDS = [s + r for s in "SHDC" for r in "AKQJT98765432"]
EVENT = st.one_of(
    st.builds(lambda s, c: {"type": "deal", "to": s, "card": c}, st.sampled_from(SEATS), st.sampled_from(CARDS)),
    st.builds(lambda s, c: {"type": "call", "seat": s, "call": c}, st.sampled_from(SEATS),
              st.sampled_from(["P", "X", "XX", "1C", "1S", "2H", "3N", "7N", "1Z", "Pass"])),
    st.builds(lambda s, c: {"type": "play", "seat": s, "card": c}, st.sampled_from(SEATS), st.sampled_from(CARDS)),
    st.builds(lambda s, c: {"type": "retract", "seat": s, "card": c}, st.sampled_from(SEATS),
              st.sampled_from(CARDS)),
    st.builds(lambda s, c, d: {"type": "expose", "seat": s, "card": c, "deliberate": d}, st.sampled_from(SEATS),
              st.sampled_from(CARDS), st.booleans()),
    st.builds(lambda s, n: {"type": "claim", "seat": s, "tricks": n}, st.sampled_from(SEATS), st.integers(0, 14)),
    st.builds(lambda s, a, law: {"type": "accept", "seat": s, "accepted": a, "law": law}, st.sampled_from(SEATS),
              st.booleans(), st.sampled_from(["", "54A"])),
    st.builds(lambda s, su, d: {"type": "lead_demand", "seat": s, "suit": su, "demand": d}, st.sampled_from(SEATS),
              st.sampled_from("SHDCX"), st.sampled_from(["require", "forbid", "maybe"])),
    st.builds(lambda c, s: {"type": "contract", "contract": c, "declarer": s}, st.sampled_from(["4S", "3NTX", "Pass", "9Q"]),
              st.sampled_from(SEATS)),
    st.just({"type": "end"}),
)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 1000), prefix=st.integers(0, 120), noise=st.lists(EVENT, max_size=40),
       positions=st.lists(st.integers(0, 200), max_size=40))
def test_garbage_never_crashes_the_engine(seed, prefix, noise, positions):
    """Irregular, impossible and out-of-order events are findings, never engine errors."""
    g = Game(seed=seed, dealer="NESW"[seed % 4])
    g.bid_and_set("4S", "NESW"[(seed // 4) % 4])
    g.play_tricks(13)
    events = g.events[:1] + g.events[1:][:prefix]
    for ev, pos in zip(noise, positions):
        events.insert(1 + pos % len(events), ev)
    t = Table()
    out = t.feed(parse_event(e, i) for i, e in enumerate(events))
    crashes = [f for f in out if f.kind == "bad_event" and "Engine could not" in f.message]
    assert not crashes, crashes[0].message
    assert sum(1 for f in out if f.kind == "result") == 1 or any(e["type"] == "end" for e in events)
    board = t.boards[-1]
    board.snapshot()
    board.legal_plays()
