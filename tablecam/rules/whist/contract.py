"""After the auction, before the first lead (Valg af Trumf og Makker-es, Påhæng, Byttekort,
Renons i Makker-es kulør): the partner ace, the trump, the kitty exchange and the renons card.

A mixin of :class:`~tablecam.rules.whist.board.WhistBoard`: it reads the
auction's result (``self.high``, ``self.holder``) and reports through
``self.flag``. Who names the trump depends on the påhæng, which is data in
the rule table (``paahaeng.<name>.trump``): the declarer, the partner
(halve), the last turned kitty card (vip) or a fixed suit.
"""

from __future__ import annotations

from ... import kinds
from ...cards import Card, Seat
from ...events import Event
from ...findings import Finding, bad_event
from ..pidro import parse_suit
from .bids import is_nolo

NO_TRUMP_WORDS = ("n", "nt", "sans", "none", "-", "uden")
"""How a ``trump`` event says "no trump"."""


class ContractRules:
    """The ``partner_ace``, ``trump``, ``turn_kitty``, ``kitty_take`` / ``kitty_give`` and ``renons_card`` handlers."""

    def _need_auction_end(self, ev: Event) -> list[Finding]:
        out = self._close_deal(ev)
        if not self.auction_over and self.high is not None:
            out.append(self.flag(kinds.AUCTION_INCOMPLETE, "Afgivelse af meldinger", f"'{ev.type}' came before "
                                 f"the auction ended; '{self.high}' by {self.holder} is taken as the final "
                                 "bid.", ev, status="info"))
            self.auction_over = True
        self._fix_trump()
        return out

    def _fix_trump(self) -> None:
        """Påhæng: "Stærke: Trumfspil i spar", "Gode: Trumfspil i klør", "Sans: Uden trumf".

        These påhæng name the trump themselves, so no ``trump`` event is
        needed: once the auction is over the trump is the rule table's
        ``paahaeng.<name>.trump``. A ``trump`` event still may come; one that
        names another suit is a ``wrong_trump`` finding (:meth:`_on_trump`).
        """
        bid = self.high
        if self.trump_named or bid is None or not bid.paahaeng or is_nolo(bid, self.rules):
            return
        how = self.rules.paahaeng[bid.paahaeng].trump
        if how is None or how in ("S", "H", "D", "C"):
            self.trump = how

    def _on_partner_ace(self, ev: Event) -> list[Finding]:
        out = self._need_auction_end(ev)
        card: Card = ev.card
        sec = "Valg af Trumf og Makker-es"
        if is_nolo(self.high, self.rules):
            return out + [self.flag(kinds.PARTNER_ACE_IN_NOLO, "Nolomeldinger", f"{ev.seat} named {card} as "
                                    f"partner ace, but '{self.high}' is played alone. Ignored.", ev,
                                    seat=str(ev.seat), status="info")]
        vip = self.high is not None and self.high.paahaeng == "vip"
        if ev.seat != self.holder and not vip:
            out.append(self.flag(kinds.PARTNER_ACE_BY_WRONG_PLAYER, sec, f"{ev.seat} named the partner ace but "
                                 f"{self.holder} won the auction.", ev, seat=str(ev.seat), status="pending",
                                 id=self.finding_id("aceseat", ev.index)))
        if card.is_joker or card.rank != "A":
            out.append(self.flag(kinds.PARTNER_ACE_NOT_AN_ACE, sec, f"{ev.seat} named {card}; the partner is "
                                 "chosen by naming an ace.", ev, seat=str(ev.seat), status="pending",
                                 id=self.finding_id("notace", ev.index)))
            return out
        if vip and self.turned:
            out.append(self.flag(kinds.PARTNER_ACE_AFTER_VIP, "Påhæng", f"{ev.seat} named the partner ace after "
                                 "kitty cards were turned; with vip the ace is named before the turning.", ev,
                                 seat=str(ev.seat), status="pending", id=self.finding_id("vipace", ev.index)))
        if self.trump_named and self.high is not None and self.high.paahaeng == "halve" and \
                card.suit == self.trump:
            out += self._halve_clash(ev)
        self.partner_ace = card
        return out

    def _halve_clash(self, ev: Event) -> list[Finding]:
        return [self.flag(kinds.WRONG_TRUMP, "Påhæng", f"With halve the trump must differ from the partner "
                          f"ace's suit ({self.partner_ace or ''}).", ev, seat=str(ev.seat), status="pending",
                          id=self.finding_id("halve", ev.index))]

    def _ace_holder(self) -> Seat | None:
        if self.partner_ace is None:
            return None
        for s in Seat:
            if self.partner_ace in self.hands[s]:
                return s
        return None

    def _on_turn_kitty(self, ev: Event) -> list[Finding]:
        out = self._need_auction_end(ev)
        self.turned.append(ev.card)
        if self.high is None or self.high.paahaeng != "vip":
            out.append(self.flag(kinds.KITTY_TURNED, "Påhæng", f"A kitty card ({ev.card}) was turned up but the "
                                 "contract is not vip.", ev, status="info"))
        elif len(self.turned) > self.rules.deal.kitty:
            out.append(bad_event("More kitty cards turned than the kitty holds; recorded.", ev.index, self.board))
        return out

    def _on_trump(self, ev: Event) -> list[Finding]:
        text = str(ev.get("suit")).strip().lower()
        suit = None if text in NO_TRUMP_WORDS else parse_suit(text)
        if suit is None and text not in NO_TRUMP_WORDS:
            return [bad_event(f"Unknown trump {ev.get('suit')!r}; expected S, H, D, C or N.", ev.index,
                              self.board)]
        out = self._need_auction_end(ev)
        self.trump, self.trump_named = suit, True
        seat, bid = ev.seat, self.high
        sec = "Påhæng"
        if bid is None:
            return out
        if is_nolo(bid, self.rules):
            if suit is not None:
                out.append(self.flag(kinds.WRONG_TRUMP, "Nolomeldinger", f"'{bid}' is played without trump; "
                                     f"{suit} was named.", ev, seat=str(seat), status="pending",
                                     id=self.finding_id("trump", ev.index)))
                self.trump = None
            return out
        how = self.rules.paahaeng[bid.paahaeng].trump if bid.paahaeng else "declarer"
        if how == "kitty":  # vip: the player who accepts the turned suit wins the contract
            if seat != self.holder and seat not in self.joined:
                out.append(self.flag(kinds.TRUMP_BY_WRONG_PLAYER, sec, f"{seat} accepted the vip trump but is not "
                                     "in the vip.", ev, seat=str(seat), status="pending",
                                     id=self.finding_id("trumpseat", ev.index)))
            elif seat != self.holder:
                self.holder = seat  # Vip: the one who accepts the trump wins the bid
            if self.turned:
                shown = self.turned[-1]
                want = None if shown.is_joker else shown.suit
                if want != suit:
                    out.append(self.flag(kinds.WRONG_TRUMP, sec, f"The last turned kitty card is {shown}, so the "
                                         f"trump is {want or 'none (joker)'}, not {suit or 'none'}.", ev,
                                         seat=str(seat), status="pending", id=self.finding_id("trump", ev.index)))
            return out
        if how == "partner":  # halve: the ace's holder names trump, not the ace's suit
            holder = self._ace_holder() or self.holder
            if seat != holder:
                out.append(self.flag(kinds.TRUMP_BY_WRONG_PLAYER, sec, f"With halve the partner ({holder}) names "
                                     f"the trump, not {seat}.", ev, seat=str(seat), status="pending",
                                     id=self.finding_id("trumpseat", ev.index)))
            if self.partner_ace is not None and suit == self.partner_ace.suit:
                out += self._halve_clash(ev)
            return out
        if how in ("S", "H", "D", "C") or how is None:
            if suit != how:
                out.append(self.flag(kinds.WRONG_TRUMP, sec, f"'{bid}' is played with "
                                     f"{'no trump' if how is None else how + ' as trump'}, not "
                                     f"{suit or 'no trump'}.", ev, seat=str(seat), status="pending",
                                     id=self.finding_id("trump", ev.index)))
                self.trump = how
            return out
        if seat != self.holder:
            out.append(self.flag(kinds.TRUMP_BY_WRONG_PLAYER, "Valg af Trumf og Makker-es", f"{seat} named trump "
                                 f"but {self.holder} won the auction.", ev, seat=str(seat), status="pending",
                                 id=self.finding_id("trumpseat", ev.index)))
        return out

    def _exchange_order(self) -> list[Seat]:
        """Who may exchange, in order (Byttekort): the declarer, then the players after him in turn;
        nolo: the last to go along first, then the one before, ...; halve: the partner first."""
        if is_nolo(self.high, self.rules):
            return list(reversed(self.soloists()))
        first = self.holder
        if self.high is not None and self.high.paahaeng == "halve":
            first = self._ace_holder() or self.holder
        return [first.next(i) for i in range(4)] if first is not None else []

    def _on_kitty(self, ev: Event) -> list[Finding]:
        out = self._need_auction_end(ev)
        seat, card = ev.seat, ev.card
        order = self._exchange_order()
        done = [order.index(s) for s, _, _ in self.exchanges if s in order]
        if any(s == seat for s, _, _ in self.exchanges):
            pass  # the same player's exchange goes on (take and give are separate events)
        elif order and seat not in order:
            out.append(self.flag(kinds.EXCHANGE_OUT_OF_TURN, "Byttekort", f"{seat} exchanged with the kitty but "
                                 "is not one of the players who may.", ev, seat=str(seat), status="pending",
                                 id=self.finding_id("exchange", ev.index)))
        elif order and not done and seat != order[0]:
            out.append(self.flag(kinds.EXCHANGE_OUT_OF_TURN, "Byttekort", f"{seat} exchanged with the kitty "
                                 f"first; {order[0]} has the first right to exchange.", ev, seat=str(seat),
                                 status="pending", id=self.finding_id("exchange", ev.index),
                                 expected_seat=str(order[0])))
        elif order and done and order.index(seat) < max(done):
            out.append(self.flag(kinds.EXCHANGE_OUT_OF_TURN, "Byttekort", f"{seat} exchanged after "
                                 f"{order[max(done)]}, whose turn to exchange comes later.", ev, seat=str(seat),
                                 status="pending", id=self.finding_id("exchange", ev.index)))
        self.exchanges.append((seat, ev.type, card))
        if ev.type == "kitty_take":
            if card in self.kitty:
                self.kitty.remove(card)
            else:
                out.append(bad_event(f"{seat} took {card} from the kitty, which does not hold it; recorded.",
                                     ev.index, self.board))
            self.hands[seat].append(card)
            taken = sum(1 for _, t, _ in self.exchanges if t == "kitty_take")
            if taken > self.rules.deal.kitty:
                out.append(self.flag(kinds.EXCHANGE_TOO_MANY, "Byttekort", f"{taken} cards taken from a kitty of "
                                     f"{self.rules.deal.kitty}.", ev, seat=str(seat), status="pending"))
        else:
            if card in self.hands[seat]:
                self.hands[seat].remove(card)
            else:
                out.append(bad_event(f"{seat} put {card} into the kitty but does not hold it; recorded.",
                                     ev.index, self.board))
            self.kitty.append(card)
        return out

    def _suit_of(self, card: Card) -> str | None:
        """A card's suit in this deal: jokers have none; the renons card counts as the ace's suit."""
        if card.is_joker:
            return None
        if self.renons is not None and card == self.renons[1] and self.partner_ace is not None:
            return self.partner_ace.suit
        return card.suit

    def _on_renons(self, ev: Event) -> list[Finding]:
        out = self._need_auction_end(ev)
        seat, card = ev.seat, ev.card
        sec = "Renons i Makker-es kulør"
        why = None
        if self.play_started:
            why = "after the first trick had begun; it must be chosen before"
        elif seat != self.holder:
            why = f"but only the declarer ({self.holder}) may do so"
        elif self.partner_ace is None:
            why = "before any partner ace was named"
        elif any(c.suit == self.partner_ace.suit for c in self.hands[seat] if not c.is_joker):
            why = f"while holding {self.partner_ace.suit} cards; only a player void in that suit may"
        elif card not in self.hands[seat]:
            why = "which is not in the hand"
        if why is not None:
            return out + [self.flag(kinds.RENONS_CARD_INVALID, sec, f"{seat} chose {card} to count as the partner "
                                    f"ace's suit {why}. It keeps its own suit.", ev, seat=str(seat),
                                    status="pending", id=self.finding_id("renons", ev.index),
                                    card=str(card))]
        self.renons = (seat, card)
        return out
