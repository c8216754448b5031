"""The broadcast never shows a deal while it is in play at any table.

Real boards from ``../shared/data/bridge/realbridge-2021.pbn``: the file
holds the same board from several tables, as a team match or a restarted
table node produces it. A deal is known by its game and number, so a board
number that repeats (at one table or at two) keeps its cards hidden until no
table plays it any more, and for the delay after.
"""

from __future__ import annotations

import json
import os

import pytest

from tablecam.server.broadcast import BroadcastDelay, BroadcastView
from tablecam.server.hub import TableHub
from tablecam.sim.real_deals import REALBRIDGE, event_dicts, real_boards

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
pytestmark = pytest.mark.skipif(not os.path.exists(os.path.join(ROOT, REALBRIDGE)),
                                reason="../shared/data/bridge not present")


@pytest.fixture(autouse=True)
def _cwd(monkeypatch):
    monkeypatch.chdir(ROOT)


@pytest.fixture(scope="module")
def boards():
    """Two tables' play of one real board (same number), and a later board."""
    os.chdir(ROOT)
    bs = real_boards(limit=60)
    first, again = bs[0], bs[1]
    assert first[0].get("board") == again[0].get("board")
    other = next(b for b in bs if b[0].get("board") != first[0].get("board"))
    return event_dicts(first), event_dicts(again), event_dicts(other)


def _feed(hub: TableHub, table: str, events: list[dict], at: float) -> None:
    for i, e in enumerate(events):
        hub.ingest(table, e, received=at + i * 0.01)


def _cards(events: list[dict]) -> set[str]:
    return {e["card"] for e in events if e["type"] == "deal"}


def _shown(view: BroadcastView, now: float) -> str:
    view.advance(now=now)
    return json.dumps(view.states())


def _leaks(text: str, cards: set[str]) -> set[str]:
    return {c for c in cards if f'"{c}"' in text}


def test_a_restarted_table_dealing_the_same_board_again_keeps_it_hidden(boards):
    """The node died mid-board and deals board 11 again: the first deal of
    it must not be shown while the second is played (the station saw boards
    1, 1, 2, 3 and the public page showed board 1's hands in play)."""
    first, again, other = boards
    hub = TableHub()
    view = BroadcastView(hub, BroadcastDelay(boards=1))
    _feed(hub, "t1", first[:40], at=100.0)           # killed in the middle of the play
    _feed(hub, "t1", again[:60], at=200.0)           # the same board number dealt again
    assert not _leaks(_shown(view, 1000.0), _cards(first) | _cards(again))
    _feed(hub, "t1", again[60:], at=300.0)           # played to the end: still this table's board
    assert not _leaks(_shown(view, 1000.0), _cards(again))
    _feed(hub, "t1", other[:1], at=400.0)            # the table moves on
    text = _shown(view, 1000.0)
    assert _leaks(text, _cards(again)) == _cards(again)
    assert view.state("t1")["board"] == again[0]["board"]


def test_a_board_still_played_in_the_other_room_stays_hidden(boards):
    """Room A has finished board 11 and started the next; room B still
    plays board 11: room A's board 11 stays hidden until room B moves on."""
    first, again, other = boards
    hub = TableHub()
    view = BroadcastView(hub, BroadcastDelay(boards=1))
    _feed(hub, "open", first + other[:1], at=100.0)
    _feed(hub, "closed", again[:50], at=100.0)
    assert not _leaks(_shown(view, 1000.0), _cards(first))
    _feed(hub, "closed", again[50:] + other[:1], at=200.0)
    assert _leaks(_shown(view, 1000.0), _cards(first)) == _cards(first)


def test_a_room_outside_the_broadcast_still_holds_the_board_back(boards):
    """Only the open room is broadcast; the closed room is not public, but
    its play of the board still keeps the open room's hands hidden."""
    first, again, other = boards
    hub = TableHub()
    view = BroadcastView(hub, BroadcastDelay(boards=1), tables=["open"])
    _feed(hub, "open", first + other[:1], at=100.0)
    _feed(hub, "closed", again[:30], at=100.0)
    assert not _leaks(_shown(view, 1000.0), _cards(first))
    assert view.state("closed") is None


def test_the_minutes_count_from_when_the_board_left_play_everywhere(boards):
    """With a delay in minutes, the deal waits that long after its last card
    at any table, not after the events of the table being shown."""
    first, again, other = boards
    hub = TableHub()
    view = BroadcastView(hub, BroadcastDelay(boards=0, minutes=5))
    _feed(hub, "open", first + other[:1], at=0.0)
    _feed(hub, "closed", again + other[:1], at=1000.0)
    assert not _leaks(_shown(view, 1000.0 + 200), _cards(first))      # closed room's last card 3+ min ago
    assert _leaks(_shown(view, 1000.0 + 400), _cards(first)) == _cards(first)


def test_a_board_in_play_is_hidden_even_with_no_board_delay(boards):
    """``boards = 0`` with minutes: old events of the board being played are
    still held while it is in play (the delay never shows a live deal)."""
    first, _, other = boards
    hub = TableHub()
    view = BroadcastView(hub, BroadcastDelay(boards=0, minutes=1))
    _feed(hub, "t1", first[:60], at=0.0)
    assert not _leaks(_shown(view, 10_000.0), _cards(first))
    _feed(hub, "t1", first[60:] + other[:1], at=100.0)
    assert _leaks(_shown(view, 10_000.0), _cards(first)) == _cards(first)


def test_a_whole_multi_table_pbn_on_one_table_never_shows_the_board_in_play(boards):
    """``serve --replay realbridge-2021.pbn`` feeds one board from six
    tables in a row: at no point may the board being played be shown."""
    os.chdir(ROOT)
    bs = [event_dicts(b) for b in real_boards(limit=8)]
    hub = TableHub()
    view = BroadcastView(hub, BroadcastDelay(boards=1))
    at = 0.0
    for b in bs:
        live = b[0]["board"]
        for e in b:
            at += 1.0
            hub.ingest("t1", e, received=at)
            if e["type"] in ("deal", "play") and int(at) % 7 == 0:
                st = _shown(view, at + 10_000)
                shown = json.loads(st)[0]
                assert shown["board"] != live, f"board {live} shown while it is being played"
