"""Core notation and event-log behaviour (contract: shared/contracts.md)."""

import dataclasses
import json
from pathlib import Path

import pytest

from tablecam.cards import Card, Seat, parse_card, parse_seat, full_deck, hand_str
from tablecam.engine import Table, replay
from tablecam.events import make_event, read_events


@pytest.mark.parametrize("text,canon", [
    ("SA", "SA"), ("sa", "SA"), ("HT", "HT"), ("h10", "HT"), ("10h", "HT"), ("♠A", "SA"),
    ("♥10", "HT"), ("♦k", "DK"), ("♣2", "C2"), ("AS", "SA"), ("jk", "JK"), ("Joker", "JK"),
])
def test_card_spellings_canonicalise(text, canon):
    assert str(parse_card(text)) == canon


@pytest.mark.parametrize("text", ["", "S1", "X9", "SAA", "11H", None, 5, "♠"])
def test_unknown_card_is_value_error(text):
    with pytest.raises(ValueError):
        parse_card(text)


def test_deck_has_52_distinct_cards():
    deck = full_deck()
    assert len(set(deck)) == 52 and all(isinstance(c, Card) for c in deck)


def test_seats_clockwise():
    assert [str(s) for s in (Seat.N.next(), Seat.E.next(), Seat.S.next(), Seat.W.next())] == list("ESWN")
    assert parse_seat("w").partner is Seat.E
    with pytest.raises(ValueError):
        parse_seat("X")


def test_hand_str_pbn_order():
    assert hand_str([parse_card(c) for c in ["C2", "SA", "HK", "SK"]]) == "AK.K..2"


BAD_LINES = [
    "{not json",
    "[]",
    '{"no_type": 1}',
    '{"type": "teleport"}',
    '{"type": "play", "seat": "X", "card": "SA"}',
    '{"type": "play", "seat": "N", "card": "S1"}',
    '{"type": "deal", "to": "pocket", "card": "SA"}',
    '{"type": "claim", "seat": "N", "tricks": "many"}',
    '{"type": "board", "game": "poker"}',
    '{"type": "play", "seat": "N"}',
    '{"type": "board", "game": "bridge", "board": NaN}',          # not JSON: --json output would not be either
    '{"type": "claim", "seat": "N", "tricks": 1, "ts": 1e999}',   # overflows to infinity
]


@pytest.mark.parametrize("line", BAD_LINES)
def test_bad_line_becomes_bad_event_and_processing_continues(line):
    good = '{"type": "board", "game": "bridge", "board": 1, "dealer": "N"}'
    items = list(read_events([line, good]))
    assert items[0].kind == "bad_event" and items[0].event == 0
    assert items[0].rule and items[0].message
    assert items[1].type == "board" and items[1].index == 1


def test_blank_lines_keep_line_numbers():
    items = list(read_events(["", '{"type": "end"}']))
    assert len(items) == 1 and items[0].index == 1


def test_unknown_fields_ignored_and_ts_source_kept():
    ev = next(read_events(['{"type":"play","seat":"S","card":"♣q","ts":3.5,"source":"camera","x":1}']))
    assert ev.to_dict() == {"type": "play", "seat": "S", "card": "CQ", "ts": 3.5, "source": "camera"}


def test_event_before_board_is_bad_event():
    findings = Table().feed([make_event("play", 0, seat="N", card="SA")])
    assert [f.kind for f in findings] == ["bad_event"]


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-8"])
def test_a_log_file_with_a_byte_order_mark_keeps_its_first_line(tmp_path, encoding):
    """Windows editors save UTF-8 with a byte-order mark; before, it made the
    first line (the board) invalid JSON and every event after it homeless."""
    from tablecam.events import read_event_file

    p = tmp_path / "log.jsonl"
    p.write_text('{"type": "board", "game": "bridge", "board": 1, "dealer": "N"}\r\n{"type": "end"}\r\n',
                 encoding=encoding)
    assert [getattr(x, "type", x.kind) for x in read_event_file(str(p))] == ["board", "end"]


def test_a_log_that_cannot_be_opened_is_an_error_at_once_not_midway(tmp_path):
    from tablecam.events import read_event_file

    with pytest.raises(OSError):
        read_event_file(str(tmp_path))                     # a directory
    with pytest.raises(OSError):
        read_event_file(str(tmp_path / "missing.jsonl"))


def test_findings_serialise_as_json():
    fs = list(replay(read_events(["oops"])))
    assert json.loads(json.dumps(fs[0].to_dict()))["kind"] == "bad_event"


# -- events and findings are frozen records ---------------------------------------------------------------

def test_an_event_and_a_finding_cannot_be_changed_only_replaced():
    """What the table did and what the director was told stay as they were reported: a later step is a new
    record (``dataclasses.replace``, ``next_step``), and the log and the dashboard keep the old one."""
    from tablecam.findings import Finding, next_step

    ev = next(read_events(['{"type": "play", "seat": "S", "card": "CQ", "ts": 3.5, "zone": "south"}']))
    f = Finding("revoke", rule="Law 61", message="S revoked.", board=1, event=7, seat=Seat.S, trick=3,
                options=["correct it"], id="b1-revoke-S-3", extra={"established": False})
    for record, name, value in ((ev, "index", 3), (ev, "data", {}), (f, "board", 2), (f, "status", "established"),
                                (f, "extra", {})):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(record, name, value)
    with pytest.raises(TypeError):
        f.extra["established"] = True              # a read-only dict
    with pytest.raises(AttributeError):
        f.options.append("let it stand")           # a tuple
    moved = dataclasses.replace(ev, index=12)
    fixed = dataclasses.replace(ev, data={**ev.data, "card": parse_card("SK")})
    step = next_step(f, "established", 12, established=True, options=[])
    assert (ev.index, moved.index, moved.data, moved.raw) == (0, 12, ev.data, ev.raw)
    assert (str(ev.card), str(fixed.card), fixed.index) == ("CQ", "SK", 0)
    assert f.to_dict() == {"kind": "revoke", "board": 1, "rule": "Law 61", "message": "S revoked.", "event": 7,
                           "seat": "S", "trick": 3, "established": False, "status": "pending",
                           "options": ["correct it"], "id": "b1-revoke-S-3"}
    assert step.to_dict()["status"] == "established" and "options" not in step.to_dict() and f.status == "pending"


def test_the_table_numbers_a_homeless_finding_in_what_it_reports_not_in_the_readers_record():
    """A reader's ``bad_event`` names no board; the table reports it with the board in progress."""
    items = list(read_events(['{"type": "board", "game": "bridge", "board": 7, "dealer": "N"}', "nonsense"]))
    out = Table().feed(items)
    assert [(x.kind, x.board, x.event) for x in out] == [("bad_event", 7, 1), ("result", 7, 0)]
    assert items[1].board is None and out[0] == dataclasses.replace(items[1], board=7)


WC2012 = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "bridge" / "wc2012-vugraph.pbn"
WC2012_REPLAY = Path(__file__).parent / "data" / "wc2012-first-12-boards.replay.jsonl"
"""``tablecam replay --json`` of the whole archive, its first lines: the findings of its first 12 boards, as
the engine reported them while events and findings were still mutable."""


@pytest.mark.skipif(not WC2012.exists(), reason="shared/data not beside the repo")
def test_the_fold_over_real_championship_deals_reports_what_it_did_before_the_records_were_frozen():
    from tablecam.archive import load
    from tablecam.events import Event

    items: list = []
    boards = 0
    for it in load(str(WC2012)):
        boards += isinstance(it, Event) and it.type == "board"
        if boards > 12:
            break
        items.append(it)
    before = [json.loads(line) for line in WC2012_REPLAY.read_text().splitlines()]
    table = Table()
    assert [f.to_dict() for f in table.feed(items)] == before
    assert [f.to_dict() for f in replay(iter(items))] == before          # the streaming fold of `tablecam replay`
    results = [f for f in before if f["kind"] == "result"]
    assert len(table.boards) == len(results) == 12
    for board, res in zip(table.boards, results):
        snap = board.snapshot()
        assert (snap["board"], snap["contract"], snap["declarer"]) == (res["board"], res["contract"],
                                                                         res["declarer"])
        assert all(f.board == board.board for f in board.findings)
        assert board.events[0] is next(x for x in items if x is board.board_event)   # the events read, not copies
