"""Core notation and event-log behaviour (contract: shared/contracts.md)."""

import json

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
