"""Vira's own event types (documented with examples in ``docs/vira.md``).

Registered on import of :mod:`tablecam.rules.vira`; the :class:`~tablecam.engine.Table`
imports the engine when it meets the first ``board`` with ``game: "vira"``, so
a log's Vira events (which always follow that line) are understood.
"""

from __future__ import annotations

from typing import Any

from ...events import EVENT_TYPES, EventType
from ...events import register_event_type as _register_core

GAME = ("vira",)


def register_event_type(name: str, required: dict[str, str] | None = None, optional: dict[str, str] | None = None,
                        games: tuple[str, ...] = GAME, doc: str = "") -> EventType:
    """Register a Vira event, sharing a type another game already registered.

    The registry is global and the last import wins, so a name shared with
    another game (``trump``, ``discard`` with Pidro) must keep one schema: the
    required fields must agree, optional fields and games are merged.
    """
    old = EVENT_TYPES.get(name)
    if old is None:
        return _register_core(name, required, optional, games, doc)
    if dict(old.required) != dict(required or {}):
        raise RuntimeError(f"Vira event {name!r} clashes with another game's schema {old.required}")
    merged_opt: dict[str, Any] = {**(optional or {}), **old.optional}
    merged_games = tuple(dict.fromkeys((*old.games, *games)))
    return _register_core(name, old.required, merged_opt, merged_games, old.doc or doc)


register_event_type("bid", {"seat": "seat", "bid": "str"}, {"suit": "str"}, games=GAME,
                    doc="a bid from the bid table by name (e.g. 'Gask på 3', 'Solo 7', 'Turné') or 'pass'")
register_event_type("contract_choice", {"seat": "seat", "name": "str"}, games=GAME,
                    doc="the declarer names which gask / köpmisär / solo an unspecified final bid is (A.4); "
                        "not 'contract', which is bridge's final-contract event")
register_event_type("trump", {"seat": "seat", "suit": "str"}, {"cards": "cards"}, games=GAME,
                    doc="trump choice: S/H/D/C, or 'misar' for a gask played as misär; "
                        "cards = talong cards turned up for it (turné, vingel)")
register_event_type("discard", {"seat": "seat", "cards": "cards"}, games=GAME,
                    doc="cards put away face down before buying (ekartering)")
register_event_type("buy", {"seat": "seat", "cards": "cards"}, games=GAME,
                    doc="cards taken from the talong; an empty list = the player buys nothing; "
                        "this event ends the player's purchase")
register_event_type("purchase", {"seat": "seat", "cards": "cards"}, games=GAME, doc="another name for 'buy'")
register_event_type("show", {"seat": "seat", "cards": "cards"}, games=GAME,
                    doc="cards laid face up on the table (open misär, A.7)")
register_event_type("sit_out", {"seat": "seat"}, games=GAME,
                    doc="the player who sits out this deal at a four-player table (utkuperad)")
register_event_type("first_suit", {}, {"card": "card", "suit": "str"}, games=GAME,
                    doc="högsta färg: the top card of the other pack (or its suit)")
register_event_type("talong_face_up", {"card": "card"}, games=GAME,
                    doc="a card found face up in the talong after the dealer put it down (E.9)")
register_event_type("ruling", {"outcome": "str"}, {"seat": "seat", "note": "str"}, games=GAME,
                    doc="the table's or director's decision where the rules give a choice: "
                        "hemma, bet, kodilj, redeal, continue, void")
register_event_type("settle", {}, {"pinnar": "any", "bets": "any"}, games=GAME,
                    doc="what the table actually paid: pinnar per seat (+ received) and bets "
                        "per seat (+ put into the pulla)")
register_event_type("discovered", {}, {"kind": "str", "of": "to", "seat": "seat"}, games=GAME,
                    doc="the table noticed an irregularity now: kind = the finding's kind, of = its seat (or "
                        "'talong'), seat = who drew attention; measured against D.7's deadlines and E.3 / E.8")
register_event_type("choice", {"seat": "seat", "choice": "str"}, {"note": "str"}, games=GAME,
                    doc="a player's choice where the rules give one: play_on / stop (a defender, after the "
                        "declarer's felekartering, H.2-H.3), demand_bid / no_demand (the bidder, F.4)")
register_event_type("withdraw", {"seat": "seat"}, {"note": "str"}, games=GAME,
                    doc="the player takes back his last call (C.7, C.8: a correct bid or a pass stands)")
