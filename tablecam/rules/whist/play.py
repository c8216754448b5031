"""The play (Spillet & meldeforløbet, Jokere i udspillet, Nolomeldinger): tricks, revokes,
the partner ace's duty and the open hand of a nolo ouvert.

A mixin of :class:`~tablecam.rules.whist.board.WhistBoard`. A revoke is
established as soon as anyone plays to the next trick; the partner ace's
holder must play it the first time its suit is led; a led joker takes the
trick.
"""

from __future__ import annotations

from typing import Any

from ... import kinds
from ...cards import Card, Seat
from ...events import Event
from ...findings import Finding, bad_event
from ..tricks import Trick, trick_winner
from .bids import is_nolo

RULE_PLAY = "Spillet & meldeforløbet"


class PlayRules:
    """The ``play``, ``retract`` and ``claim`` handlers and the trick mechanics they need."""

    def _led_suit(self, t: Trick) -> str | None:
        if not t.cards:
            return None
        first = t.cards[0][1]
        if not first.is_joker:
            return self._suit_of(first)
        if self.rules.joker_lead_suit == "next":
            return next((self._suit_of(c) for _, c in t.cards if not c.is_joker), None)
        return None

    def _winner(self, t: Trick) -> Seat | None:
        """A led joker takes the trick (Jokere i udspillet); other jokers have no power."""
        if t.cards and t.cards[0][1].is_joker:
            return t.cards[0][0]
        return trick_winner(t.cards, self.trump, self._suit_of)

    def _start_play(self, ev: Event) -> list[Finding]:
        out = self._need_auction_end(ev)
        self.play_started = True
        each = self.rules.deal.cards_each
        if self.exchanges:
            for s in Seat:
                if len(self.hands[s]) != each:
                    out.append(self.flag(kinds.WRONG_CARD_COUNT, "Byttekort", f"{s} holds {len(self.hands[s])} "
                                         f"cards after the kitty exchange instead of {each}.", ev, seat=str(s),
                                         status="pending", id=self.finding_id("exchangecount", s),
                                         count=len(self.hands[s]), expected=each))
        if self.high is not None and not is_nolo(self.high, self.rules):
            holder = self._ace_holder()
            self.partner = holder if holder not in (None, self.holder) else None
        first = self.forhaand if self.rules.first_lead == "forhaand" else \
            (self.holder or self.forhaand).next()
        self.trick = Trick(first, 1)
        return out

    def _expected_player(self) -> Seat | None:
        return self.trick.next_to_play() if self.trick is not None else None

    def _on_play(self, ev: Event) -> list[Finding]:
        out: list[Finding] = []
        if not self.play_started:
            out += self._start_play(ev)
        t = self.trick
        if t is None:
            return out + [bad_event(f"{ev.seat} played {ev.card} after the last trick; ignored.", ev.index,
                                    self.board)]
        seat, card = ev.seat, ev.card
        if t.number == 2 and not t.cards:
            out += self._check_open_hand(ev)
        for r in self.revokes.on_play(seat, t.number, ev.index):
            out.append(self._revoke_finding(r, ev, established=True))
        if self._ace_duty is not None and self._ace_duty.status == "pending" and t.number > self._ace_duty.trick:
            self._ace_duty = self.restep(self._ace_duty, "established", ev, self._ace_duty.message)
            out.append(self._ace_duty)
        expected = self._expected_player()
        if seat != expected:
            kind = kinds.LEAD_OUT_OF_TURN if not t.cards else kinds.PLAY_OUT_OF_TURN
            out.append(self.flag(kind, RULE_PLAY, f"{seat} played {card} to trick {t.number} but {expected} was on "
                                 "turn.", ev, seat=str(seat), trick=t.number, status="pending",
                                 options=["accept the card", "take it back"],
                                 id=self.finding_id(kind, seat, ev.index), expected_seat=str(expected)))
        hand = list(self.hands[seat])
        if card in self.hands[seat]:
            self.hands[seat].remove(card)
        else:
            out.append(bad_event(f"{seat} played {card}, which is not in their hand; accepted as played.",
                                 ev.index, self.board))
        led = self._led_suit(t)
        if t.cards:
            r = self.revokes.check(seat, card, hand, led, t.number, ev.index)
            if r is not None:
                out.append(self._revoke_finding(r, ev, established=False))
        out += self._check_partner_ace(seat, card, hand, t, ev)
        t.add(seat, card, ev.index)
        if len(t.cards) == 4:
            t.winner = self._winner(t)
            self.tricks.append(t)
            out += self._check_nolo_lost(ev)
            self.trick = Trick(t.winner or t.leader, t.number + 1) if t.number < 13 else None
        return out

    def _check_open_hand(self, ev: Event) -> list[Finding]:
        """Bordlægger: the soloist lays the hand face up after the first lead (Nolomeldinger)."""
        if not is_nolo(self.high, self.rules) or not self.rules.nolo[self.high.rung].open:
            return []
        return [self.flag(kinds.HAND_NOT_SHOWN, "Nolomeldinger", f"{s} plays '{self.high}' but did not lay the "
                          "cards face up after the first lead.", ev, seat=str(s), status="pending",
                          options=["lay the hand face up now"], id=self.finding_id("open", s))
                for s in self.soloists() if s not in self.shown]

    def _revoke_finding(self, r: Any, ev: Event, established: bool) -> Finding:
        suit_name = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}.get(r.led, r.led)
        status = "established" if established else "pending"
        msg = (f"{r.seat} did not follow {suit_name} in trick {r.trick} ({r.card}) while holding one"
               + ("; the revoke is now established." if established else "."))
        return self.flag(kinds.REVOKE, RULE_PLAY, msg, ev, seat=r.seat, trick=r.trick, status=status,
                         remedy=self.rules.revoke_remedy, id=r.id,
                         options=[] if established else ["correct: play a card of the suit led"],
                         established=established, card=str(r.card))

    def _check_partner_ace(self, seat: Seat, card: Card, hand: list[Card], t: Trick, ev: Event) -> list[Finding]:
        """The ace's holder must play it the first time its suit is led (Valg af Trumf og Makker-es)."""
        ace = self.partner_ace
        if ace is None or is_nolo(self.high, self.rules):
            return []
        if not t.cards:  # a lead: is this the first time the ace's suit is led?
            if self.ace_trick is None and self._suit_of(card) == ace.suit:
                self.ace_trick = t.number
        if self.ace_trick != t.number or ace not in hand or card == ace:
            return []
        f = self.flag(kinds.PARTNER_ACE_NOT_PLAYED, "Valg af Trumf og Makker-es",
                      f"{seat} holds the partner ace {ace} but played {card} the first time {ace.suit} was "
                      "led; the ace must be played then.", ev, seat=str(seat), trick=t.number,
                      status="pending", options=["take the card back and play the ace"],
                      id=self.finding_id("aceduty", seat, t.number), card=str(card), ace=str(ace))
        self._ace_duty = f
        return [f]

    def _check_nolo_lost(self, ev: Event) -> list[Finding]:
        out = []
        last = self.tricks[-1].winner if self.tricks else None
        for s in self.soloists():
            allowed = self.rules.nolo[self.high.rung].max_tricks
            won = sum(1 for t in self.tricks if t.winner == s)
            if s == last and won == allowed + 1:
                out.append(self.flag(kinds.NOLO_LOST, "Nolomeldinger", f"{s} has taken {won} tricks in "
                                     f"'{self.high}' and has lost; play may stop here.", ev, seat=str(s),
                                     status="info"))
        return out

    def _on_retract(self, ev: Event) -> list[Finding]:
        seat, card = ev.seat, ev.card
        t = self.trick
        target = t if t is not None and (seat, card) in t.cards else (self.tricks[-1] if self.tricks else None)
        if target is None or not target.remove(seat, card):
            return [bad_event(f"{seat} took back {card}, which is not in the current trick; ignored.", ev.index,
                              self.board)]
        if target is not t:  # taken back from a completed trick: it is open again
            self.tricks.pop()
            target.winner = None
            self.trick = target
        self.hands[seat].append(card)
        out = []
        r = self.revokes.retract(seat, card)
        if r is not None:
            out.append(self.flag(kinds.REVOKE, RULE_PLAY, f"{seat} corrected the revoke in trick {r.trick} by "
                                 f"taking back {card}.", ev, seat=seat, trick=r.trick, status="corrected", id=r.id,
                                 established=False, corrected=True, card=str(card)))
        d = self._ace_duty
        if d is not None and d.status == "pending" and d.seat == str(seat) and d.extra.get("card") == str(card):
            self._ace_duty = self.restep(d, "corrected", ev, f"{seat} took back {card} to play the partner ace.")
            out.append(self._ace_duty)
        return out

    def _on_claim(self, ev: Event) -> list[Finding]:
        self.claimed = int(ev.get("tricks"))
        self._claimer = ev.seat
        return []
