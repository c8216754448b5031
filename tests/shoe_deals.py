"""Shared helper (not a test module): a deal as the shoe's tracker turns it into events."""

from __future__ import annotations

import itertools

from tablecam.events import Event
from tablecam.shoe.driver import ShoeMessage
from tablecam.shoe.protocol import FLAG_KITTY
from tablecam.shoe.sim import shuffled_deal
from tablecam.shoe.tracker import DealTracker


def shoe_deal_events(game: str, dealer: str, seed: int, cards: int | None = None) -> list[Event]:
    """The ``board`` and ``deal`` events of a shuffled deal read by the shoe, then ``end``."""
    seq = itertools.count(1)
    deal = shuffled_deal(game, seed=seed)
    tracker = DealTracker(game, dealer)
    events: list[Event] = []
    for c in deal[:cards or len(deal)]:
        m = ShoeMessage("CARD", next(seq), 0, {"card": c.card, "pack": 1, "confidence": 99,
                                              "flags": FLAG_KITTY if c.kitty else 0}, 0.0)
        events += [x for x in tracker.feed(m) if isinstance(x, Event)]
    events.append(Event("end", {}, index=len(events)))
    return events
