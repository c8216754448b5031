"""tablecam: records what happens at a real card table, then judges it.

Public API: :mod:`tablecam.cards` (Card, Seat), :mod:`tablecam.events`
(Event, read_events), :mod:`tablecam.engine` (Table, replay) and
:mod:`tablecam.findings` (Finding).
"""

from .cards import Card, Seat, parse_card, parse_seat
from .engine import Table, replay
from .events import Event, make_event, read_events
from .findings import Finding

__version__ = "0.1.0"
__all__ = ["Card", "Seat", "parse_card", "parse_seat", "Table", "replay", "Event", "make_event",
           "read_events", "Finding", "__version__"]
