"""Property test: any legal board written as PBN or LIN reads back as the same events.

Boards are generated from a seed: a shuffled deck, a random legal auction
(or a passed-out one), then legal play (following suit when able, so ruffs
and discards occur) stopping at a random point, mid-trick included, with a
claim for the rest. The writer puts the play in PBN's seat columns; the
reader must turn them back into order of play through the trick winners.
"""

from __future__ import annotations

import io
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from tablecam.archive.export import export
from tablecam.archive.lin import lin_events
from tablecam.archive.pbn import pbn_events
from tablecam.archive.record import auction_outcome, trick_winner
from tablecam.cards import SEATS, Seat, shuffled_deck
from tablecam.events import Event, make_event
from tablecam.findings import Finding


def random_board(seed: int) -> list[Event]:
    rnd = random.Random(seed)
    deck = shuffled_deck(seed)
    dealer = SEATS[rnd.randrange(4)]
    ev = [make_event("board", game="bridge", board=seed % 32 + 1, dealer=dealer,
                     vulnerable=rnd.choice(["None", "NS", "EW", "All"]))]
    hands: dict[Seat, list] = {s: [] for s in SEATS}
    seat = dealer
    for card in deck:
        seat = seat.next()
        hands[seat].append(card)
        ev.append(make_event("deal", to=seat, card=card))
    # auction: random sufficient bids, doubles where allowed, then passes
    calls: list[str] = []
    level = 0
    for _ in range(rnd.randrange(0, 6)):
        level += rnd.randrange(1, 4)
        if level > 34:
            break
        calls += ["P"] * rnd.randrange(0, 3)
        calls.append(f"{level // 5 + 1}{'CDHSN'[level % 5]}")
    if calls and rnd.random() < 0.3:
        calls.append("X")
        if rnd.random() < 0.3:
            calls.append("XX")
    while not auction_outcome(calls, dealer).ended:
        calls.append("P")
    o = auction_outcome(calls, dealer)
    if not o.legal:  # a double by the wrong side: drop the doubles
        calls = [c for c in calls if c not in ("X", "XX")]
        while not auction_outcome(calls, dealer).ended:
            calls.append("P")
        o = auction_outcome(calls, dealer)
    seat = dealer
    for c in calls[: o.ended]:
        ev.append(make_event("call", seat=seat, call=c))
        seat = seat.next()
    if o.contract == "Pass":
        return ev + [make_event("end")]
    trump = o.contract[1] if o.contract[1] != "N" else None
    leader = o.declarer.next()
    stop = 52 if rnd.random() < 0.3 else rnd.randrange(0, 52)
    played = 0
    won = 0
    for _ in range(13):
        trick = []
        for k in range(4):
            if played == stop:
                break
            s = leader.next(k)
            led = trick[0].suit if trick else None
            legal = [c for c in hands[s] if c.suit == led] or hands[s]
            card = rnd.choice(legal)
            hands[s].remove(card)
            trick.append(card)
            ev.append(make_event("play", seat=s, card=card))
            played += 1
        if len(trick) < 4:
            break
        w = leader.next(trick_winner(trick, trump))
        won += w.side == o.declarer.side
        leader = w
    if played < 52:
        ev.append(make_event("claim", seat=o.declarer, tricks=rnd.randint(won, won + 13 - played // 4)))
    return ev + [make_event("end")]


def same(a: list, b: list) -> None:
    """Same events; the cards of a hand may come in another order (archives sort hands)."""
    def norm(items: list) -> tuple:
        evs = [e.to_dict() for e in items if isinstance(e, Event)]
        for d in evs:  # an archive's result is always the scored one; a live claim may say so or not
            d.pop("final", None)
        deal = sorted((d["to"], d["card"]) for d in evs if d["type"] == "deal")
        return deal, [d for d in evs if d["type"] != "deal"]
    assert norm(a) == norm(b)
    assert not [f for f in b if isinstance(f, Finding)]


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 10**9))
def test_pbn_writer_and_reader_agree_on_any_legal_board(seed):
    board = random_board(seed)
    buf = io.StringIO()
    assert export(board, "pbn", buf) == 1
    same(board, list(pbn_events(buf.getvalue())))


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 10**9))
def test_lin_writer_and_reader_agree_on_any_legal_board(seed):
    board = random_board(seed)
    buf = io.StringIO()
    assert export(board, "lin", buf) == 1
    same(board, list(lin_events(buf.getvalue())))
