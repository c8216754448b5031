"""Vira (Swedish championship rules 2025): the board engine and its rule tables.

``tablecam.rules.vira:ViraBoard`` is the engine registered for ``game: "vira"``.
Importing the package registers Vira's event types (see :mod:`.events` and
``docs/vira.md``).
"""

from . import events as _events  # noqa: F401  (registers the event types)
from .board import ViraBoard
from .settle import party_result, split_pool
from .table import ViraRules, load_ruleset

__all__ = ["ViraBoard", "ViraRules", "load_ruleset", "party_result", "split_pool"]
