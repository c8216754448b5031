"""Is the card come to rest in a bidding zone a bid card or a playing card?

A mixin of :class:`~tablecam.vision.pipeline.CameraPipeline`: the one decision
where the card reader and the bidding watcher (:mod:`~tablecam.vision.bidding`)
each have a say.  Why apart: it weighs two readers' surety against the auction's
state, and none of that is the pipeline's frame loop.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .bidcards import SURE as BID_SURE, BidRead
from .camera import Frame
from .readers import Reading
from .zones import Zone


def _alike(bid: BidRead, card: Any) -> bool:
    """Whether a bid card's reading looks like a playing card read there: ``2H`` is the two of hearts.

    >>> _alike(BidRead("2H", 0.9, [("2H", 0.9), ("3H", 0.05)]), "H2"), _alike(BidRead("P", 0.9, [("P", 0.9)]), "H2")
    (True, False)
    """
    return any(c[1:] + c[:1] == str(card) for c, _ in bid.candidates)


class BidCardPlace:
    """The pipeline's bid-card decision (needs its ``bidding``, ``cfg``, ``pending_calls`` and ``_cut_strip``)."""

    def _bid_card(self, bidding: Zone, q_mm: np.ndarray, frame: Frame, r: Reading) -> bool:
        """Whether the card come to rest in ``bidding`` is a bid card (the watcher reads it).

        A playing card surely read there with no bid card to be seen ends the auction (and a call
        the watcher holds for this place was that card).  An unsure card before any call was read,
        with no bid card seen nor a bid card's width (a table without bidding boxes, or a hand's
        shadow), is neither: only a play made of it ends the auction."""
        unsure = r.card in ("back", "none") or r.conf < self.cfg.uncertain_below
        bid = self.bidding.bid_card_at(bidding, q_mm, frame.image, self._cut_strip)
        seen = bid is not None and bid.conf >= self.cfg.min_conf
        begun = bool(self.bidding.calls or self.pending_calls)   # an auction the watcher has not seen end
        if not seen:
            # the hand laying the card may still lie over it, and the outline found then is off: look
            # wider. A call read there counts when it is sure of itself; before the first call, also
            # when the card reader is unsure of the card (no play can come yet); during an auction,
            # also when it looks like the card read (2H, H2). Never otherwise: read in 21 places, a
            # playing card's own index often gives a weak call like it (C3 as 3C), and neither a
            # surely read card on a table without bidding boxes nor an opening lead after an auction
            # whose end was missed may be taken for a call
            wide = self.bidding.bid_card_at(bidding, q_mm, frame.image, self._cut_strip, wide=True)
            if wide is not None and wide.conf >= self.cfg.min_conf and (
                    wide.conf >= BID_SURE or (unsure and not begun) or (begun and _alike(wide, r.card))):
                bid, seen = wide, True
        held = any(c[1].get("zone") == bidding.name and not c[1].get("uncertain")   # the watcher has just
                   for c in self.pending_calls)                                     # read a sure call here
        width = self.bidding.laid_width(bidding)      # as wide as a playing card or a bid card, where told
        wide, narrow = self.bidding.playing_card_wide(width), self.bidding.bid_card_wide(width)
        if unsure and not wide:      # a bid card where a call is seen or held, the auction has begun, or
            return seen or begun or held or narrow     # it is as narrow as a bid card (its call unread)
        alike = seen and _alike(bid, r.card)
        if r.card == "JK":
            bid_card = (seen and (bid.conf >= BID_SURE or alike or begun)) or held
        else:
            # A face the card reader is sure of is a playing card unless the call read there is sure or
            # looks like it (2H, the two of hearts): the bid-card network, which never saw a playing
            # card, reads one's top as a call (a heart as 7H, surely at times), and the watcher's read
            # of this place was that card.
            bid_card = alike or (seen and bid.conf >= BID_SURE)
        if (bid_card or narrow) and not wide:       # a bid card's width: whatever face the card reader saw
            return True
        self.pending_calls = [c for c in self.pending_calls if c[1].get("zone") != bidding.name]
        self.bidding.close()
        return False
