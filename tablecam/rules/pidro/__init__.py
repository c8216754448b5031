"""Pidro (Finland-Swedish, SÖU rules ``shared/rules/pidro-regler.sv.txt``).

:mod:`.board` folds one deal's events (``PidroBoard``), :mod:`.cards` knows the
14-card trump suit and its points, :mod:`.scoring` settles the deal and the
game to 62, :mod:`.events` registers the game's event types. See ``docs/pidro.md``.
"""

from . import events  # noqa: F401
from .board import PidroBoard
from .cards import is_trump, parse_suit, point_value, suit_of, trump_cards, trump_rank

__all__ = ["PidroBoard", "is_trump", "parse_suit", "point_value", "suit_of", "trump_cards", "trump_rank"]
