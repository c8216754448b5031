"""Fusion of camera readings with the hands the shoe dealt (real deal from the shared PBN archive)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablecam.cards import Seat, parse_card
from tablecam.events import make_event
from tablecam.vision.fusion import HandBook

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "bridge"


def _book() -> HandBook:
    """Deal from a real board of the shared archive when present, else a fixed deal."""
    book = HandBook()
    book.feed(make_event("board", game="bridge", board=1, dealer="N"))
    hands = None
    pbns = sorted(SHARED.glob("**/*.pbn")) if SHARED.exists() else []
    if pbns:
        from tablecam.archive import load

        for ev in load(str(pbns[0])):
            if getattr(ev, "type", None) == "deal":
                book.feed(ev)
            if book.known and sum(len(h) for h in book.hands.values()) == 52:
                break
        hands = book.hands
    if not hands or sum(len(h) for h in hands.values()) != 52:
        from tablecam.cards import full_deck

        book = HandBook()
        for i, c in enumerate(full_deck()):
            book.deal(Seat.N.next(i), c)
    return book


def test_reading_in_the_hand_is_kept():
    book = _book()
    c = sorted(book.hands[Seat.E])[0]
    r = book.resolve("E", c, 0.97, {str(c): 0.97})
    assert r.card == c and not r.fused and r.finding is None


def test_unsure_reading_is_resolved_among_the_cards_the_seat_holds():
    book = _book()
    held = sorted(book.hands[Seat.S])
    other = next(c for s, h in book.hands.items() if s != Seat.S for c in sorted(h))
    probs = {str(other): 0.55, str(held[0]): 0.30, str(held[1]): 0.10}
    r = book.resolve("S", other, 0.55, probs)
    assert r.fused and r.card == held[0] and r.camera_card == other and r.finding is None
    assert r.conf == pytest.approx(0.30 / 0.40)


def test_sure_reading_of_a_card_from_another_hand_is_a_finding():
    book = _book()
    other = sorted(book.hands[Seat.W])[0]
    r = book.resolve("N", other, 0.99, {str(other): 0.99})
    f = r.finding
    assert r.card == other and f is not None and f.kind == "camera_unexpected_card"
    assert f.seat == "N" and f.rule == "Law 7B" and "dealt to W" in f.message


def test_card_already_played_and_card_of_another_pack():
    book = _book()
    c = sorted(book.hands[Seat.N])[0]
    book.feed(make_event("play", seat="N", card=c))
    assert c not in book.hands[Seat.N] and book.played[c] == Seat.N
    r = book.resolve("N", c, 0.98, {str(c): 0.98})
    assert r.finding is not None and "played earlier by N" in r.finding.message
    book.feed(make_event("retract", seat="N", card=c))
    assert book.can_hold(Seat.N, c)
    joker = book.resolve("E", parse_card("JK"), 0.95, {"JK": 0.95})
    assert "another pack" in joker.finding.message


def test_without_shoe_data_the_camera_is_trusted():
    r = HandBook().resolve("E", "SA", 0.4, {"SA": 0.4})
    assert str(r.card) == "SA" and r.finding is None and not r.fused


def test_new_board_forgets_the_hands():
    book = _book()
    book.feed(make_event("board", game="bridge", board=2, dealer="E"))
    assert not book.known
