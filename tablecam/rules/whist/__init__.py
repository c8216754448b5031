"""Es-makker whist (Danish), rules ``shared/rules/esmakker-whist-regler.da.txt``.

:mod:`.board` folds one deal's events (``WhistBoard``), :mod:`.deal` checks the dealing,
:mod:`.auction` runs the duel auction, :mod:`.bids` parses and
orders bids from the ladder, :mod:`.scoring` settles the zero-sum points and
:mod:`.events` registers the game's event types. See ``docs/whist.md``.
"""

from .bids import Bid, bid_key, default_rules, is_jernhand, joinable, parse_bid
from .board import WhistBoard

__all__ = ["WhistBoard", "Bid", "parse_bid", "bid_key", "default_rules", "is_jernhand", "joinable"]
