"""The deal: 13 cards to each hand from one 52-card pack (Laws 1, 6, 13, 14).

Part of the bridge engine; the state lives on the board (see ``board.py``).
"""

from __future__ import annotations

from ...events import Event
from ...findings import Finding
from .common import DEALING
from .tables import (BIT, CARD_TEXT, FULL_MASK, SEAT_LETTERS, card_index, mask_cards, seat_index)


class DealRules:
    """Mixin of :class:`~tablecam.rules.bridge.board.BridgeBoard` for the rules in this module."""

    def _deal(self, ev: Event) -> list[Finding]:
        """A ``deal`` event that is not the plain case handled inline in :meth:`apply`."""
        d = ev.data
        self.last_index = ev.index
        s = seat_index(d["to"]) if d["to"] not in ("talong", "kitty") else None
        ci = card_index(d["card"])
        if s is None:
            s = seat_index(d["to"])
            if s is None:
                return [self._bad(f"Bridge deals only to N, E, S and W, not to {d['to']!r}; skipped.", ev)]
        if ci is None:
            ci = card_index(d["card"])
            if ci is None:
                return [self._bad(f"{d['card']} is not a bridge card; skipped.", ev)]
        if self.phase is not DEALING:
            return [self._bad(f"{CARD_TEXT[ci]} dealt to {SEAT_LETTERS[s]} after the auction or play had "
                              "begun; not added to the hand.", ev)]
        out = []
        if d.get("face_up") and not self.misdealt:
            self.misdealt = True
            out.append(self._new("misdeal", "misdeal_face_up",
                                 f"{CARD_TEXT[ci]} was dealt face up to {SEAT_LETTERS[s]}: the cards must be redealt.",
                                 ev, seat=self.dealer, card=CARD_TEXT[ci], to=SEAT_LETTERS[s]))
        bit = BIT[ci]
        if self.dealt_mask & bit:
            holders = [SEAT_LETTERS[x] for x in range(4) if self.held[x] & bit]
            out.append(self._new("duplicate_card", "duplicate_card",
                                 f"{CARD_TEXT[ci]} was dealt twice in this board (to {', '.join(holders)} and to "
                                 f"{SEAT_LETTERS[s]}).", ev, card=CARD_TEXT[ci], seats=holders + [SEAT_LETTERS[s]]))
            if self.held[s] & bit:
                self.extra_dealt[s] += 1
        self.dealt_mask |= bit
        self.held[s] |= bit
        return out

    def _check_deal(self, ev: Event | None) -> list[Finding]:
        """The deal is over: 13 cards each, 52 different cards (Laws 1, 13, 14)."""
        self.deal_checked = True
        if not self.dealt_mask:
            return []
        self.dealt = list(self.held)
        nd = self.ndealt = [self.held[s].bit_count() + self.extra_dealt[s] for s in range(4)]
        if self.dealt_mask == FULL_MASK and nd[0] == nd[1] == nd[2] == nd[3] == 13:
            self.known = [True, True, True, True]
            return []
        out = []
        missing = mask_cards(FULL_MASK & ~self.dealt_mask)
        for s in range(4):
            self.known[s] = nd[s] > 0
            if nd[s] != 13:
                out.append(self._new("wrong_card_count", "wrong_card_count",
                                     f"{SEAT_LETTERS[s]} was dealt {nd[s]} cards instead of 13.", ev, seat=s,
                                     count=nd[s], expected=13))
        if missing:
            shown = ", ".join(missing[:13]) + (" ..." if len(missing) > 13 else "")
            out.append(self._new("missing_card", "missing_card",
                                 f"{len(missing)} card{'s' if len(missing) > 1 else ''} of the pack "
                                 f"{'were' if len(missing) > 1 else 'was'} not dealt: {shown}.", ev,
                                 card=missing[0], cards=missing))
        return out
