"""Dealing order per game and the shoe's count checked against the game."""

from __future__ import annotations

import itertools
import os

import pytest

from tablecam.archive import load
from tablecam.events import Event
from tablecam.findings import Finding
from tablecam.shoe import protocol as P
from tablecam.shoe.dealing import dealing_plan
from tablecam.shoe.driver import ShoeMessage
from tablecam.shoe.sim import deals_from_items, shuffled_deal
from tablecam.shoe.tracker import DealTracker

_seq = itertools.count(1)


def card(c: str, kitty: bool = False, pack: int = 1, conf: int = 99) -> ShoeMessage:
    return ShoeMessage("CARD", next(_seq), 0, {"card": c, "pack": pack, "confidence": conf,
                                              "flags": P.FLAG_KITTY if kitty else 0}, 0.0)


def unreadable(count: int = 1, reason: int = 1, kitty: bool = False) -> ShoeMessage:
    return ShoeMessage("CARD_UNREADABLE", next(_seq), 0,
                       {"count": count, "reason": reason, "flags": P.FLAG_KITTY if kitty else 0}, 0.0)


def msg(kind: str, ts: float = 0.0, **fields) -> ShoeMessage:
    return ShoeMessage(kind, next(_seq), 0, fields, ts)


def run(tracker: DealTracker, messages) -> tuple[list[Event], list[Finding]]:
    out = [x for m in messages for x in tracker.feed(m)]
    return [x for x in out if isinstance(x, Event)], [x for x in out if isinstance(x, Finding)]


def hands(events: list[Event]) -> dict[str, list[str]]:
    h: dict[str, list[str]] = {}
    for e in events:
        if e.type == "deal":
            h.setdefault(str(e.data["to"]), []).append(str(e.card))
    return h


DECK52 = [str(c) for c in shuffled_deal("bridge", seed=1) for c in [c.card]]


def test_bridge_one_at_a_time_clockwise_from_the_dealers_left():
    events, findings = run(DealTracker("bridge", "W"), [card(c) for c in DECK52])
    assert events[0].type == "board" and str(events[0].get("dealer")) == "W"
    deals = [e for e in events if e.type == "deal"]
    assert [str(e.data["to"]) for e in deals[:5]] == ["N", "E", "S", "W", "N"]
    assert {s: len(v) for s, v in hands(events).items()} == {s: 13 for s in "NESW"}
    assert all(e.source == "shoe" for e in events)
    assert findings == []


def test_vira_E_four_then_three_rounds_of_three_and_the_talong():
    plan = dealing_plan("vira", "N")            # N deals (efterhand); W, on his right, sits out
    assert plan.sitting_out == ("W",)
    assert "".join(plan.slots[:12]) == "EEEESSSSNNNN"
    assert "".join(plan.slots[12:21]) == "EEESSSNNN"
    assert plan.expected == {"E": 13, "S": 13, "N": 13, "talong": 13}
    events, findings = run(DealTracker("vira", "N", packs=[1, 2]), [card(c) for c in DECK52])
    assert events[0].raw.get("sit_out") == "W"
    assert {s: len(v) for s, v in hands(events).items()} == {"E": 13, "S": 13, "N": 13, "talong": 13}
    assert findings == []


def test_vira_sit_out_from_the_config():
    plan = dealing_plan("vira", "N", sit_out="W")
    assert plan.active == ("E", "S", "N")


def test_pidro_1_nine_each_three_at_a_time_rest_stays_in_the_shoe():
    t = DealTracker("pidro", "E")
    events, findings = run(t, [card(c) for c in DECK52[:36]] + [msg("HEARTBEAT", ts=10.0, empty=False)])
    assert [str(e.data["to"]) for e in events if e.type == "deal"][:9] == list("SSSWWWNNN")
    assert {s: len(v) for s, v in hands(events).items()} == {s: 9 for s in "NESW"}
    assert findings == []                       # 16 cards left in the shoe is right for Pidro


def test_pidro_refill_follows_the_discard_counts():
    t = DealTracker("pidro", "E")
    run(t, [card(c) for c in DECK52[:36]])
    t.set_refill({"S": 2, "W": 0, "N": 3, "E": 1})
    events, findings = run(t, [card(c) for c in DECK52[36:42]])
    assert [str(e.data["to"]) for e in events] == ["S", "S", "N", "N", "N", "E"]


def test_whist_kitty_button_sends_the_card_to_the_kitty_without_using_a_seat_slot():
    deal = shuffled_deal("whist", seed=3)
    msgs = [card(c.card, kitty=c.kitty) for c in deal]
    events, findings = run(DealTracker("whist", "S"), msgs)
    h = hands(events)
    assert len(h["kitty"]) == 3 and all(len(h[s]) == 13 for s in "NESW")
    seats = [str(e.data["to"]) for e in events if e.type == "deal" and e.data["to"] != "kitty"]
    assert seats[:4] == ["W", "N", "E", "S"]
    assert findings == []                       # three jokers are not duplicates


def test_misread_does_not_shift_the_dealing_order():
    msgs = [card(c) for c in DECK52]
    msgs[6] = unreadable()
    events, findings = run(DealTracker("bridge", "N"), msgs)
    assert [f.kind for f in findings] == ["shoe_misread"]
    f = findings[0].to_dict()
    assert f["to"] == "W" and f["slot"] == 7 and f["seat"] == "W" and f["board"] == 1
    assert "enter it by hand" in f["message"]
    h = hands(events)
    assert len(h["W"]) == 12 and all(len(h[s]) == 13 for s in "NES")
    deals = [e for e in events if e.type == "deal"]
    assert str(deals[6].data["to"]) == "N"      # the card after the misread goes where it belongs


@pytest.mark.parametrize("game,dealer,cut", [("bridge", "N", 23), ("vira", "N", 30), ("whist", "S", 40),
                                              ("pidro", "E", 20)])
def test_a_tracker_resumed_from_the_log_deals_on_as_if_never_stopped(game, dealer, cut):
    """A restarted table node's tracker takes up the board from the stored
    log: the rest of the deal goes where it would have gone, with the same
    board number and no finding; a misread between two stored deals is
    counted again from where the next deal went."""
    deal = shuffled_deal(game, seed=7)
    msgs = [card(c.card, kitty=c.kitty) for c in deal]
    msgs[5] = unreadable(kitty=deal[5].kitty)
    whole, whole_findings = run(DealTracker(game, dealer, board=4), msgs)
    before, _ = run(DealTracker(game, dealer, board=4), msgs[:cut])
    resumed = DealTracker(game, "W" if dealer != "W" else "N", board=1)   # the config's, not the board's
    resumed.resume([e.to_dict() for e in before])
    after, after_findings = run(resumed, msgs[cut:])
    assert [e.to_dict() for e in before + after] == [e.to_dict() for e in whole]
    assert [f.kind for f in after_findings] == [f.kind for f in whole_findings if f.kind != "shoe_misread"]


def test_double_feed_advances_two_slots():
    msgs = [card(c) for c in DECK52[:10]] + [unreadable(count=2, reason=P.Unreadable.DOUBLE_FEED)] + \
        [card(c) for c in DECK52[12:]]
    events, findings = run(DealTracker("bridge", "N"), msgs)
    assert [f.extra["to"] for f in findings] == ["W", "N"]
    assert "two cards" in findings[0].message
    assert {s: len(v) for s, v in hands(events).items()} == {"N": 12, "E": 13, "S": 13, "W": 12}


def test_law_13_a_53rd_card_is_reported():
    events, findings = run(DealTracker("bridge", "N"), [card(c) for c in DECK52] + [card("SA", pack=1)])
    assert [f.kind for f in findings] == ["extra_card"]
    extra = findings[0].to_dict()
    assert extra["count"] == 53 and extra["expected"] == 52 and extra["rule"] == "Law 13"
    assert extra["card"] == "SA" and extra["duplicate"] is True
    assert len([e for e in events if e.type == "deal"]) == 52


def test_duplicate_card_in_one_board():
    msgs = [card(c) for c in DECK52]
    msgs[30] = card(DECK52[2])
    events, findings = run(DealTracker("bridge", "N"), msgs)
    assert [(f.kind, f.extra["card"]) for f in findings] == [("duplicate_card", DECK52[2])]


def test_vira_card_from_the_other_pack():
    t = DealTracker("vira", "N", packs=[1, 2])
    msgs = [card(c, pack=1) for c in DECK52]
    msgs[5] = card(DECK52[5], pack=2)
    events, findings = run(t, msgs)
    assert [f.kind for f in findings] == ["foreign_card"]
    assert findings[0].extra == {"card": DECK52[5], "pack": 2, "expected_pack": 1}
    # the next board uses pack 2
    events, findings = run(t, [msg("SHOE_LOADED", pack=2)] + [card(c, pack=2) for c in DECK52[:4]])
    assert events[0].get("pack") == "2" and str(events[0].get("dealer")) == "E" and findings == []


def test_shoe_empty_before_the_deal_is_complete():
    events, findings = run(DealTracker("bridge", "N"), [card(c) for c in DECK52[:51]] + [msg("SHOE_EMPTY", dealt=51)])
    assert [(f.kind, f.seat, f.extra["count"], f.extra["expected"]) for f in findings] == \
        [("wrong_card_count", "N", 12, 13)]


def test_cards_left_in_the_shoe_after_a_complete_deal():
    t = DealTracker("bridge", "N", left_in_shoe_grace=1.0)
    msgs = [card(c) for c in DECK52]
    events, findings = run(t, msgs + [msg("HEARTBEAT", ts=0.5, empty=False)])
    assert findings == []                       # still within the grace period
    events, findings = run(t, [msg("HEARTBEAT", ts=2.0, empty=False), msg("HEARTBEAT", ts=3.0, empty=False)])
    assert [f.kind for f in findings] == ["cards_left_in_shoe"]


def test_next_board_on_shoe_loaded_rotates_the_dealer():
    t = DealTracker("bridge", "N", board=7)
    run(t, [card(c) for c in DECK52] + [msg("SHOE_EMPTY", dealt=52), msg("SHOE_LOADED", pack=1)])
    events, findings = run(t, [card(DECK52[0])])
    assert events[0].type == "board" and events[0].get("board") == 8 and str(events[0].get("dealer")) == "E"
    assert str(events[1].data["to"]) == "S"


def test_link_notices_become_findings():
    from tablecam.shoe.link import Notice

    t = DealTracker("bridge", "N")
    _, findings = run(t, [Notice("lost", "x", {"count": 2}), Notice("reboot", "y", {}),
                          msg("ERROR", code=P.ErrorCode.JAM, detail=1500)])
    assert [f.kind for f in findings] == ["shoe_link", "shoe_link", "shoe_jam"]


REAL = "../shared/data/bridge/realbridge-2021.pbn"


@pytest.mark.skipif(not os.path.exists(REAL), reason="../shared/data not beside the repo")
def test_real_pbn_boards_dealt_through_the_tracker_rebuild_the_hands():
    """Real RealBridge 2021 deals, in their dealing order from the dealer's left."""
    items = [i for i in itertools.islice(load(REAL), 0, 3000) if isinstance(i, Event)]
    boards = deals_from_items(items)
    starts = [i for i in items if i.type == "board"]
    assert len(boards) >= 6
    for start, cards in zip(starts, boards[:6]):
        t = DealTracker("bridge", str(start.get("dealer")), board=start.get("board"))
        events, findings = run(t, [msg("SHOE_LOADED", pack=1)] + [card(c.card) for c in cards] +
                               [msg("SHOE_EMPTY", dealt=52)])
        assert findings == []
        assert (events[0].get("board"), str(events[0].get("dealer")), events[0].get("vulnerable")) == \
            (start.get("board"), str(start.get("dealer")), start.get("vulnerable"))
        i = items.index(start)
        want = [(str(e.data["to"]), str(e.card)) for e in items[i + 1:i + 53]]
        assert [(str(e.data["to"]), str(e.card)) for e in events if e.type == "deal"] == want


@pytest.mark.parametrize("game", ["bridge", "vira", "pidro", "whist"])
def test_tracker_output_replays_without_bad_events(game):
    from tablecam.engine import replay

    deal = shuffled_deal(game, seed=9)
    n = 36 if game == "pidro" else len(deal)
    events, _ = run(DealTracker(game, "N"), [card(c.card, kitty=c.kitty) for c in deal[:n]])
    findings = list(replay(events))
    assert not [f for f in findings if f.kind == "bad_event"], findings


def test_pidro_3_refill_follows_the_discard_events_and_the_dealer_robs_the_rest():
    from tablecam.events import make_event

    t = DealTracker("pidro", "E")                   # order S W N E
    run(t, [card(c) for c in DECK52[:36]])
    events, findings = run(t, [card(DECK52[36])])    # discards not known yet
    assert events == [] and [f.kind for f in findings] == ["refill_unassigned"]
    for seat, n in {"S": 5, "W": 3, "N": 6, "E": 4}.items():   # keep 4, 6, 3, 5
        t.note(make_event("discard", seat=seat, cards=DECK52[:n]))
    events, findings = run(t, [card(c) for c in DECK52[37:52]])
    assert [str(e.data["to"]) for e in events] == ["S", "S", "N", "N", "N", "E"] + ["E"] * 9
    assert findings == []
