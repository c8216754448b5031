"""Es-makker whist's own event types (documented with examples in ``docs/whist.md``).

``trump`` and ``redeal`` are shared with Pidro (and ``trump`` with Vira) and
registered in :mod:`tablecam.rules.pidro` with the schema all three agree on.
"""

from __future__ import annotations

from ...events import register_event_type
from .. import pidro  # noqa: F401  (registers the shared trump / redeal events)

register_event_type("partner_ace", {"seat": "seat", "card": "card"}, games=("whist",),
                    doc="the declarer names the ace whose holder becomes his partner (Valg af Trumf og Makker-es)")
register_event_type("kitty_take", {"seat": "seat", "card": "card"}, games=("whist",),
                    doc="a player takes one card from the kitty (Byttekort)")
register_event_type("kitty_give", {"seat": "seat", "card": "card"}, games=("whist",),
                    doc="a player puts one card from hand into the kitty (Byttekort)")
register_event_type("turn_kitty", {"card": "card"}, optional={"seat": "seat"}, games=("whist",),
                    doc="vip: one kitty card turned face up to show a trump suit (Påhæng: Vip)")
register_event_type("jernhand", {"seat": "seat"}, games=("whist",),
                    doc="a player claims jernhånd: 13 cards without court cards, aces or jokers")
register_event_type("renons_card", {"seat": "seat", "card": "card"}, games=("whist",),
                    doc="the declarer, void in the partner ace's suit, picks a card (face down) that counts as "
                        "that suit (Renons i Makker-es kulør)")
