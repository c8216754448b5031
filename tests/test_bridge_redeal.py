"""A misdealt board dealt again has one result: the redeal's, not an empty one beside it.

The simulator's misdeal is what a table does: a card goes to the wrong hand,
the board ends (Law 13), and the same board number is dealt again and played.
"""

from __future__ import annotations

from tablecam.engine import Table, replay
from tablecam.events import parse_event
from tablecam.server.hub import TableHub
from tablecam.sim.bridge import simulate_board


def _items(events):
    return [parse_event(e, i) for i, e in enumerate(events)]


def test_law_79a_a_misdealt_board_dealt_again_has_only_the_redeals_result():
    events = simulate_board(3, seed=1, irregularity="misdeal")
    assert sum(e["type"] == "board" for e in events) == 2
    found = list(replay(_items(events)))
    results = [f for f in found if f.kind == "result"]
    assert len(results) == 1
    assert results[0].extra["contract"] and "No contract" not in results[0].message
    # the misdeal itself is still reported
    assert [f.kind for f in found if f.kind == "wrong_card_count"] == ["wrong_card_count"] * 2


def test_law_79a_a_misdealt_board_not_dealt_again_keeps_its_result():
    """Held back only until the next board: another board number, or the end of the log, lets it out."""
    events = simulate_board(3, seed=1, irregularity="misdeal")
    misdealt = events[:events.index({"type": "end"}) + 1]
    alone = [f for f in replay(_items(misdealt)) if f.kind == "result"]
    assert [f.message for f in alone] == ["No contract and no play in the log."]
    then_4 = misdealt + simulate_board(4, seed=1, irregularity=None)
    results = [f for f in replay(_items(then_4)) if f.kind == "result"]
    assert [f.board for f in results] == [3, 4]


def test_law_79a_the_dashboard_shows_one_result_for_a_redealt_board():
    hub = TableHub()
    for e in simulate_board(3, seed=1, irregularity="misdeal"):
        hub.ingest("t1", e)
    t = hub.table("t1")
    results = [f for f in t.findings if f["kind"] == "result"]
    assert len(results) == 1 and "No contract" not in results[0]["message"]


def test_a_played_board_is_never_held_back():
    t = Table()
    out = t.feed(_items(simulate_board(5, seed=2, irregularity=None)))
    assert [f.kind for f in out].count("result") == 1
