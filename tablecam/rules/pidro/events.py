"""Pidro's event types (documented with examples in ``docs/pidro.md``).

``trump`` and ``redeal`` are also used by es-makker whist, ``trump`` and
``discard`` by Vira (``tablecam/rules/vira/events.py``).
"""

from __future__ import annotations

from ...events import register_event_type

# ``trump`` and ``discard`` are shared with Vira (tablecam/rules/vira/events.py): the schemas must stay
# identical, because the registry is global and the last import wins.
register_event_type("trump", {"seat": "seat", "suit": "str"}, {"cards": "cards"}, games=("pidro", "whist", "vira"),
                    doc="the declarer names the trump suit (S H D C; whist also N = no trump)")
register_event_type("discard", {"seat": "seat", "cards": "cards"}, games=("pidro", "vira"),
                    doc="cards laid away face down (Pidro: non-trumps after the trump is named)")
register_event_type("lay_down", {"seat": "seat"}, {"card": "card", "cards": "cards"}, games=("pidro",),
                    doc="Pidro: non-point trumps laid face up because the player holds more than 6 trumps")
register_event_type("redeal", optional={"seat": "seat", "reason": "str"}, games=("pidro", "whist"),
                    doc="the cards are collected and the same dealer deals this board again")
