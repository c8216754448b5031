"""Penalty cards: exposed defenders' cards and what must be played (Laws 24, 48-52).

Part of the bridge engine; the state lives on the board (see ``board.py``).
"""

from __future__ import annotations

from ...events import Event
from ...findings import Finding
from .common import AUCTION, DEALING
from .tables import (BIT, CARD_TEXT, HONOUR, SEAT_LETTERS, SUIT, SUIT_MASK, SUIT_WORD, card_index, seat_index)


class PenaltyCard:
    __slots__ = ("seat", "card", "major", "finding")

    def __init__(self, seat: int, card: int, major: bool, finding: Finding) -> None:
        self.seat, self.card, self.major, self.finding = seat, card, major, finding


class PenaltyRules:
    """Mixin of :class:`~tablecam.rules.bridge.board.BridgeBoard` for the rules in this module."""

    def _penalty(self, ev: Event, s: int, ci: int, deliberate: bool, why: str, rule: str | None = None) -> Finding:
        """A defender's card becomes a penalty card (Laws 49-51)."""
        pens = self.pen[s]
        major = deliberate or HONOUR[ci] or bool(pens)
        out_f = self._new("penalty_card", "penalty_card",
                          f"{CARD_TEXT[ci]} is a {'major' if major else 'minor'} penalty card of {SEAT_LETTERS[s]}: "
                          f"{why}.", ev, seat=s, rule=rule or ("Law 50D" if major else "Law 50C"),
                          card=CARD_TEXT[ci], major=major)
        for p in pens.values():  # Law 50B: with two penalty cards, each is major
            if not p.major:
                p.major = True
                p.finding = self._update(p.finding, ev, "pending", f"{CARD_TEXT[p.card]} is now a major penalty card "
                                         f"of {SEAT_LETTERS[s]}: that defender has two penalty cards (Law 50B).",
                                         rule="Law 50B", major=True)
        pens[ci] = PenaltyCard(s, ci, major, out_f)
        self.n_pen += 1
        return out_f

    def _lead_options(self, ev: Event, leader: int, out: list[Finding]) -> None:
        """Law 50D2: the partner of a major penalty card's owner is on lead - declarer chooses."""
        majors = [p.card for p in self.pen[(leader + 2) & 3].values() if p.major]
        if not majors or not self._is_defender(leader):
            return
        cards = ", ".join(CARD_TEXT[c] for c in majors)
        out.append(self._new("lead_options", "lead_options",
                             f"{SEAT_LETTERS[leader]} is on lead while partner has the major penalty card {cards}: "
                             "declarer may require or forbid that suit, or let the card stay (Law 50D2).", ev,
                             seat=leader, trick=len(self.tricks) + 1, status="info",
                             penalty_cards=[CARD_TEXT[c] for c in majors]))

    def _drop_penalty(self, ev: Event, p: PenaltyCard, msg: str) -> Finding:
        del self.pen[p.seat][p.card]
        self.n_pen -= 1
        return self._update(p.finding, ev, "rectified", msg)

    def _penalty_duties(self, ev: Event, s: int, ci: int, lead: bool, out: list[Finding]) -> None:
        """Laws 50C, 50D, 52 and lead demands (50D2): was a required card played?"""
        dm = self.demand
        if lead and dm is not None and dm[0] == s:
            suit, mode = dm[1], dm[2]
            able = self.known[s] and (self.held[s] & SUIT_MASK[suit]) and (
                mode == "require" or self.held[s] & ~SUIT_MASK[suit])
            if mode == "require":
                self.demand = None
            if able and ((mode == "require") != (SUIT[ci] == suit)):
                word = f"{mode} {SUIT_WORD[suit]}"
                out.append(self._revoke(ev, s, ci, "demand", [word]))
        pens = self.pen[s]
        if not pens:
            return
        p = pens.get(ci)
        if p is not None:
            out.append(self._drop_penalty(ev, p, f"{SEAT_LETTERS[s]} played the penalty card {CARD_TEXT[ci]} "
                                          f"on trick {len(self.tricks) + 1}."))
            return
        majors = [q for q in pens.values() if q.major]
        required: list[int] = []
        if lead:
            required = [q.card for q in majors]
        else:
            led = self.cur_led
            in_led = [q.card for q in majors if SUIT[q.card] == led]
            if in_led:
                required = in_led
            elif majors and SUIT[ci] != led:
                void = (not self.held[s] & SUIT_MASK[led]) if self.known[s] else True
                if void:
                    required = [q.card for q in majors]
        if not required:
            minors = [q.card for q in pens.values() if not q.major and SUIT[q.card] == SUIT[ci] and not HONOUR[ci]]
            if minors:  # Law 50C: no other low card of that suit before the minor penalty card
                required = minors
        if required:
            out.append(self._revoke(ev, s, ci, "penalty", [CARD_TEXT[c] for c in required]))

    def _expose(self, ev: Event) -> list[Finding]:
        self.last_index = ev.index
        d = ev.data
        s, ci = seat_index(d["seat"]), card_index(d["card"])
        if ci is None:
            return [self._bad(f"{d['card']} is not a bridge card; skipped.", ev)]
        out: list[Finding] = []
        if self.phase is DEALING:
            out += self._check_deal(ev)
            self.phase = AUCTION
        if self.phase is AUCTION:
            mine = [c for x, c, _, _ in self.auction_exposed if x == s]
            low = not HONOUR[ci] and not d.get("deliberate") and not mine
            rule = "Law 24A" if low else ("Law 24C" if mine else "Law 24B")
            f = self._new("card_exposed", "penalty_card",
                          f"{SEAT_LETTERS[s]} exposed {CARD_TEXT[ci]} during the auction"
                          + ("; a single low card: no rectification (Law 24A)." if low else
                             f"; {SEAT_LETTERS[(s + 2) & 3]} must pass at his next turn ({rule}) and the card "
                             "is a penalty card if the offender becomes a defender."),
                          ev, seat=s, rule=rule, status="info" if low else "pending", card=CARD_TEXT[ci])
            out.append(f)
            self.auction_exposed.append((s, ci, f, low))
            if not low:
                self.auction.bars[(s + 2) & 3] = (rule, True)
            return out
        if self.known[s] and not self.held[s] & BIT[ci]:
            out.append(self._bad(f"{SEAT_LETTERS[s]} exposed {CARD_TEXT[ci]}, which is not in that hand.", ev))
            return out
        if not self._is_defender(s) and self.declarer is not None:
            out.append(self._new("card_exposed", "penalty_card_declarer",
                                 f"{SEAT_LETTERS[s]} exposed {CARD_TEXT[ci]}; declarer's cards never become penalty "
                                 "cards (Law 48A).", ev, seat=s, status="info", card=CARD_TEXT[ci]))
            return out
        if ci in self.pen[s]:
            return out
        deliberate = bool(d.get("deliberate"))
        out.append(self._penalty(ev, s, ci, deliberate,
                                 "exposed deliberately" if deliberate else "exposed inadvertently"))
        return out
