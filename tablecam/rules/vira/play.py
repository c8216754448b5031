"""Play of the cards (SM 2025 A.7, H, J): the first lead's checks, tricks, revokes, cards out of turn.

Forehand leads to the first trick; the winner of a trick leads the next.
A card out of turn or a revoke is recorded as played; it is corrected when
the card comes back (``retract``) before the next trick is turned, and
established when a card is led to the next trick.
"""

from __future__ import annotations

from ... import kinds
from ...cards import Card, Seat
from ...events import Event
from ...findings import bad_event
from ..tricks import Trick, legal_cards, trick_winner
from .settle import Forced, best_possible


class PlayMixin:
    """The ``play``, ``retract``, ``expose`` and ``claim`` handlers and the play oracle."""

    def _start_play(self, ev: Event) -> None:
        """First lead: everything that must be settled before it is checked here."""
        if self.phase in ("deal", "bidding"):
            self.flag(kinds.PLAY_BEFORE_AUCTION, "late", "A card was played before the bidding was over; the engine "
                      "treats the bidding as ended.", ev, status="info")
            if self.high is not None:
                self.declarer = self.high_seat
                self._set_contract(ev)
        self.phase = "play"
        c = self.contract
        if c is not None and c.unspecified and self._a4 is None:
            self._a4 = self.flag(kinds.UNSPECIFIED_CONTRACT, "unspecified", f"The final bid was an unspecified "
                                 f"{c.name.lower()}, and the declarer {self.declarer} has not said which one he plays.",
                                 ev, seat=self.declarer, options=[m.name for m in self.rules.family_members(c.family)
                                                                  if m.no > self.prev_no and self.rules.biddable(m)])
        if c is not None and not c.is_misar and not self.trump_named and \
                not any(f.kind == kinds.TRUMP_CHOICE for f in self.findings):
            self.flag(kinds.TRUMP_CHOICE, "trump_choice", f"No trump was named for {c.name} before the first lead.", ev,
                      seat=self.declarer, remedy="The declarer names trump; if the deal cannot go on he pays for a "
                      "lagd hand (G.1-G.2).")
        if c is not None and self._misar_open() and self.declarer in self.shown and self.deal.known \
                and not self._a7_done:
            hidden = sorted(set(self.hands.get(self.declarer, [])) - set(self.shown[self.declarer]))
            if hidden:
                self._a7_done = True
                self.flag(kinds.OPEN_MISAR_NOT_SHOWN, "open_misar", f"The declarer {self.declarer} laid up his hand in "
                          f"{c.name} without {len(hidden)} card{'s' if len(hidden) > 1 else ''} "
                          f"({', '.join(map(str, hidden))}) before the first lead.", ev, seat=self.declarer,
                          remedy="The declarer lays those cards face up now; the director judges any damage.",
                          hidden=[str(x) for x in hidden])
        if c is not None and self._misar_open() and self.declarer not in self.shown and not self._a7_done:
            self._a7_done = True
            self.flag(kinds.OPEN_MISAR_NOT_SHOWN, "open_misar", f"The declarer {self.declarer} has not laid his cards face "
                      f"up before the first lead in {c.name} (an open misär).", ev, seat=self.declarer,
                      remedy="The declarer lays his cards face up now; the director judges any damage.")
        self._check_felekartering(ev)
        self.talong_aside = list(self.talong)  # C.6: the rest of the talong is put aside

    def _misar_open(self) -> bool:
        c = self.contract
        if c is None or not c.misar:
            return False
        return c.open_misar and (c.is_misar or self.playing_misar)

    def _is_misar_game(self) -> bool:
        c = self.contract
        return c is not None and (c.is_misar or self.playing_misar)

    def _expected_hand(self) -> int:
        c = self.contract
        base = self.rules.settings.deal.hand
        if c is not None and c.misar and (c.is_misar or self.playing_misar):
            return c.misar.cards if c.misar.cards is not None else base
        return base

    def _check_felekartering(self, ev: Event | None) -> None:
        """H.1: a hand with the wrong number of cards once its player has bought (checked once: when the
        purchase is over, else at the first lead, else when a deal stopped before the first lead ends)."""
        if self._h_checked or not self.deal.known or self.declarer is None:
            return
        self._h_checked = True
        if self.contract is not None:
            self.hand_size = self._expected_hand()
        want = self.hand_size
        wrong = [s for s in self.active if len(self.hands.get(s, [])) != want]
        if not wrong:
            return
        for s in wrong:
            n = len(self.hands.get(s, []))
            if s == self.declarer:
                self.flag(kinds.FELEKARTERING, "declarer_felekartering", f"The declarer {s} holds {n} cards after the "
                          f"purchase instead of {want}; the deal is stopped unless both defenders want to play on.",
                          ev, seat=s, count=n, expected=want, id=f"vira-{self.board}-felekartering-{s}",
                          options=["both defenders play on under the present conditions (D.9, D.10)",
                                   "stop the deal: the declarer pays for a lagd hand (H.3)"])
            else:
                self.flag(kinds.FELEKARTERING, "defender_felekartering", f"Defender {s} holds {n} cards after the purchase "
                          f"instead of {want}; the declarer is home.", ev, seat=s, count=n, expected=want,
                          status="established", id=f"vira-{self.board}-felekartering-{s}",
                          remedy="The declarer is paid as home (H.4).")
        if self.declarer in wrong and len(wrong) > 1:
            bets = {str(s): 1 for s in wrong}
            self.forced.append(Forced(self._index(ev), "neither", self.rules.section("both_felekartering"), bets=bets))
            self.flag(kinds.FELEKARTERING, "both_felekartering", "Both the declarer and a defender discarded wrongly: the "
                      "game is neither home nor bet, and each of them pays a bet.", ev, status="established",
                      remedy="Each faulty player pays a bet (H.5).", bets=bets)
        elif self.declarer in wrong:
            self.forced.append(Forced(self._index(ev), "felekartering_declarer",
                                      self.rules.section("declarer_felekartering")))
        else:
            self.forced.append(Forced(self._index(ev), "hemma", self.rules.section("defender_felekartering")))

    def _expected_player(self) -> Seat:
        t = self.trick
        if t is None or not t.cards:
            if self.tricks:
                return self.tricks[-1].winner or self.forehand
            return self.forehand
        return self.next_active(t.cards[-1][0])

    def _on_play(self, ev: Event) -> None:
        seat, card = ev.seat, ev.card
        if self.phase != "play":
            self._start_play(ev)
        if seat not in self.active:
            self.flag(kinds.SIT_OUT_INTERFERENCE, "sit_out", f"{seat} is not an active player in this deal; the card "
                      f"{card} is ignored.", ev, seat=seat, status="info")
            return
        if self.trick is None:
            self.trick = Trick(leader=seat, number=len(self.tricks) + 1)
        number = self.trick.number
        if not self.trick.cards:
            self.trick.leader = seat
            self._establish_pending(ev, number)
        expected = self._expected_player()
        if seat != expected:
            lead = not self.trick.cards
            f = self.flag(kinds.LEAD_OUT_OF_TURN if lead else kinds.PLAY_OUT_OF_TURN, "out_of_turn",
                          f"{seat} {'led' if lead else 'played'} {card} to trick {number} out of turn ({expected} was "
                          "to play); it is corrected without penalty unless seeing the card harmed the other side.",
                          ev, seat=seat, trick=number, card=str(card),
                          options=["the card goes back to the hand, play goes on in turn (J.1)",
                                   "the card harmed the other side: the deal is stopped and they are paid the most "
                                   "favourable outcome still possible (J.2)"])
            self._out_of_turn.append({"finding": f, "seat": seat, "card": card, "trick": number, "status": "pending"})
        hand = self.hands.setdefault(seat, [])
        if self.deal.known and card not in hand:
            self.flag(kinds.CARD_NOT_IN_HAND, "out_of_turn", f"{seat} played {card}, which is not in his hand.", ev,
                      seat=seat, trick=number, status="info", card=str(card), rule="tablecam event log")
        elif self.deal.known:
            led = self.trick.led_suit()
            r = self.revokes.check(seat, card, hand, led, number, ev.index)
            if r is not None:
                f = self.flag(kinds.REVOKE, "revoke", f"{seat} did not follow {led} with {card} in trick {number}; "
                              "corrected without penalty if taken back before the next trick is turned.", ev,
                              seat=seat, trick=number, id=r.id, established=False, card=str(card),
                              options=["correct now: take back this card and every card after it, play a card of "
                                       "the suit led (J.3-J.5)",
                                       "the other side was harmed anyway: the deal is stopped and they are paid the "
                                       "most favourable outcome still possible (J.6)"])
                self._revoke_findings[r.id] = f
                self._revoke_state[r.id] = (self._declarer_tricks(), number)
        if card in hand:
            hand.remove(card)
        self.trick.add(seat, card, ev.index)
        if len(self.trick.cards) == 3:
            self.trick.winner = trick_winner(self.trick.cards, self.trump)
            self.tricks.append(self.trick)
            self.trick = Trick(leader=self.trick.winner or seat, number=len(self.tricks) + 1)

    def _establish_pending(self, ev: Event, number: int) -> None:
        """A card to a new trick: the previous trick has been turned."""
        for r in self.revokes.on_play(ev.seat, number, ev.index):
            f = self._revoke_findings.get(r.id)
            if f is None:
                continue
            offender = r.seat
            taken, trick_no = self._revoke_state.get(r.id, (0, r.trick))
            outcome = self._most_favourable(offender, taken, trick_no)
            self.restep(f, "established", ev, established=True, outcome=outcome, section="revoke_established",
                         message=f"{offender}'s revoke in trick {r.trick} was not corrected before the next trick was "
                                 f"turned; the deal is stopped and the other side is paid the most favourable outcome "
                                 f"still possible: the declarer {outcome}.",
                         remedy=f"Settle as {outcome} for the declarer ({self.rules.section('revoke_established')}).")
            self.forced.append(Forced(r.event, outcome, self.rules.section("revoke_established")))
        for x in self._out_of_turn:
            if x["status"] == "pending" and x["trick"] < number:
                x["status"] = "established"
                self.restep(x["finding"], "established", ev, remedy="Not corrected before the next trick was turned: "
                             "play goes on under the present conditions (D.7).")
        self._out_of_turn = [x for x in self._out_of_turn if x["status"] == "pending"]
        seen = self._felekartering_seen[1] if self._felekartering_seen is not None else 0
        for fz in self.forced:
            if fz.outcome == "felekartering_declarer" and number >= seen + 2 and not fz.played_on \
                    and self._felekartering_stop is None:
                fz.played_on = True
                for f in reversed(self.findings):
                    if f.kind == kinds.FELEKARTERING and f.seat == str(self.declarer):
                        self.restep(f, "established", ev, remedy="Both defenders played on: the deal counts as "
                                     "with the right number of cards (D.9, D.10).")
                        break

    def _most_favourable(self, offender: Seat, taken: int, trick_no: int) -> str:
        c = self.contract
        needed = c.tricks if c is not None else None
        remaining = max(self.hand_size - (trick_no - 1), 0)
        return best_possible(needed, self._is_misar_game(), taken, remaining, for_declarer=offender != self.declarer)

    def _declarer_tricks(self) -> int:
        return sum(1 for t in self.tricks if t.winner == self.declarer)

    def _on_retract(self, ev: Event) -> None:
        seat, card = ev.seat, ev.card
        t = self.trick
        if (t is None or not t.cards) and self.tricks and any(s == seat and c == card for s, c in self.tricks[-1].cards):
            t = self.tricks.pop()
            t.winner = None
            self.trick = t
        if t is None or not t.remove(seat, card):
            self.emit(bad_event(f"Retract of {card} by {seat}, which is not in the current trick; ignored.", ev.index,
                                self.board))
            return
        self.hands.setdefault(seat, []).append(card)
        r = self.revokes.retract(seat, card)
        if r is not None and r.id in self._revoke_findings:
            self.restep(self._revoke_findings[r.id], "corrected", ev, corrected=True, section="revoke_correction",
                         remedy="Taken back in time with every card played after it; the offender plays a card of "
                                "the suit led (J.4, J.5).")
        for x in self._out_of_turn:
            if x["status"] == "pending" and x["seat"] == seat and x["card"] == card:
                x["status"] = "corrected"
                self.restep(x["finding"], "corrected", ev, remedy="The card went back to the hand (J.1).")
        if t.cards:
            t.leader = t.cards[0][0]

    def _on_expose(self, ev: Event) -> None:
        if ev.seat == self.declarer and self._misar_open():
            return
        self.flag(kinds.EXPOSED_CARD, "out_of_turn", f"{ev.seat} showed {ev.card} from his hand; it is taken back "
                  "without penalty unless seeing it harmed the other side.", ev, seat=ev.seat, card=str(ev.card),
                  options=["no harm: the card goes back to the hand (J.1)",
                           "harm: the deal is stopped and the other side is paid the most favourable outcome still "
                           "possible (J.2)"])

    def _on_claim(self, ev: Event) -> None:
        self.claim = (ev.seat, ev.get("tricks"))
        if ev.seat in self.defenders:
            self.flag(kinds.CONCESSION, "concede", f"Defender {ev.seat} gave up the game; the declarer is home.", ev,
                      seat=ev.seat, status="info")
            self.forced.append(Forced(ev.index, "hemma", self.rules.section("concede")))

    def legal_plays(self) -> list[Card]:
        """Oracle: cards the player on turn may play (must follow suit); [] outside play."""
        if self.phase not in ("play", "purchase") or not self.deal.known or self.declarer is None:
            return []
        seat = self._expected_player() if self.phase == "play" else self.forehand  # forehand leads first
        hand = self.hands.get(seat, [])
        led = self.trick.led_suit() if self.trick is not None and self.trick.cards else None
        return sorted(legal_cards(hand, led))
