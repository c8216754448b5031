"""What the table says about an irregularity (SM 2025 C.7, C.8, D.7, E.3, E.8, F.4, H.2, H.3).

The cards alone do not tell everything the rules turn on. Three events say
the rest (documented with examples in ``docs/vira.md``):

* ``discovered`` -- the moment the table noticed an irregularity the engine
  has already recorded. The rules measure it against that moment: D.7 ("Fel
  skall anmälas så snart de upptäcks ... Om ett fel uppmärksammas för sent,
  förfaller den felande sidans ansvar") gives each kind of error its
  deadline, and a wrong talong count is a redeal without penalty when the
  dealer finds it counting before he puts the talong down (E.3), a felgiv
  the dealer pays for later (E.8).
* ``choice`` -- what a player chose where the rules give a choice: each
  defender's ``play_on`` or ``stop`` after the declarer's felekartering
  (H.2: the deal is stopped unless both want to play on; H.3: the declarer
  then pays for a lagd hand, unless he already was kodilj), and the bidder's
  ``demand_bid`` or ``no_demand`` after a pass out of turn (F.4).
* ``withdraw`` -- a player takes back his last call. A correctly given bid
  and a pass may not be taken back (C.7, C.8): the call stands.

Without these events the engine reads the log as before: an irregularity
counts as noticed when it happens, a played-on deal as the defenders'
choice, a bid after the F.4 situation as the demand met.
"""

from __future__ import annotations

from ... import kinds
from ...cards import Seat
from ...events import Event
from ...findings import Finding, bad_event
from .settle import best_possible

BIDDING_ERRORS = frozenset({kinds.BID_OUT_OF_TURN, kinds.BID_AFTER_PASS, kinds.BID_NOT_ALLOWED,
                            kinds.INSUFFICIENT_BID, kinds.PASS_NOT_ALLOWED, kinds.PASS_OUT_OF_TURN,
                            kinds.FIRST_BID_PASS, kinds.UNSPECIFIED_BID})
"""D.7: "Fel i budgivningen kan påtalas tills köpet påbörjats" (when two correct passes ended the bidding)."""

UNTIL_FIRST_TRICK = frozenset({kinds.TRUMP_CHOICE, kinds.PURCHASE_OUT_OF_TURN, kinds.PURCHASE_NOT_ALLOWED,
                               kinds.CARD_NOT_IN_TALONG, kinds.FACE_UP_CARD_BOUGHT, kinds.TALONG_BEFORE_AUCTION,
                               kinds.UNSPECIFIED_CONTRACT, kinds.CONTRACT_MISMATCH})
"""D.7: "fel vid val av trumf och alla fel i köpet utom felekartering kan påtalas tills första sticket vänts bort"."""

UNTIL_NEXT_TRICK = frozenset({kinds.LEAD_OUT_OF_TURN, kinds.PLAY_OUT_OF_TURN, kinds.EXPOSED_CARD})
"""D.7: "Felaktigt utspel eller påspel kan påtalas tills nästa stick vänts bort"."""

CHOICES = ("play_on", "stop", "demand_bid", "no_demand")


class ChoicesMixin:
    """The ``discovered``, ``choice`` and ``withdraw`` handlers."""

    # -- discovered ------------------------------------------------------------------------
    def _on_discovered(self, ev: Event) -> None:
        kind, of = ev.get("kind"), ev.get("of")
        f = self._latest_of(kind, of)
        if f is None:
            self.emit(bad_event(f"'discovered' names no {kind or 'irregularity'}"
                                f"{f' of {of}' if of is not None else ''} recorded in this deal; ignored.",
                                ev.index, self.board))
            return
        if kind == kinds.WRONG_CARD_COUNT and f.seat == "talong":
            self._talong_count_discovered(ev, f)
            return
        if kind == kinds.FELEKARTERING and f.seat == str(self.declarer):
            self._felekartering_found_in_play(ev, f)
            return
        late = self._too_late(f)
        if late is None:
            self.restep(f, f.status, ev, discovered=ev.index)
            return
        self.restep(f, "established", ev, section="late", discovered=ev.index, lapsed=True,
                    remedy=f"Reported after {late} (D.7): the offending side's responsibility lapses and play goes "
                           "on under the present conditions.")
        self.forced = [x for x in self.forced if x.event != f.event]
        self.abort_bets = [x for x in self.abort_bets if x[0] != f.event]

    def _felekartering_found_in_play(self, ev: Event, f: Finding) -> None:
        """D.9: the declarer's felekartering noticed only now: the defenders choose from here (H.2, H.3)."""
        kodilj = self._already_kodilj()
        self._felekartering_seen = (ev.index, len(self.tricks), kodilj)
        for fz in self.forced:
            if fz.outcome == "felekartering_declarer":
                fz.played_on = False
        self._play_on.clear()
        self.restep(f, "pending", ev, discovered=ev.index,
                    remedy="Found during play (D.9): both defenders may play on under the present conditions; "
                           "otherwise the deal is stopped and the declarer "
                           + ("is settled as kodilj, which he already was (H.3)." if kodilj else
                              "pays for a lagd hand (H.3)."))

    def _latest_of(self, kind: str | None, of: object) -> Finding | None:
        for f in reversed(self._latest_findings()):
            if f.kind == kind and f.status != "info" and (of is None or f.seat == str(of)):
                return f
        return None

    def _too_late(self, f: Finding) -> str | None:
        """What the table let pass before noticing ``f`` when that is past its D.7 deadline, else None."""
        first_trick_turned = len(self.tricks) >= 2 or (len(self.tricks) == 1 and self.trick is not None
                                                       and bool(self.trick.cards))
        if f.kind in BIDDING_ERRORS:
            properly_ended = not any(x.kind in (kinds.TALONG_BEFORE_AUCTION, kinds.PLAY_BEFORE_AUCTION)
                                     for x in self.findings)
            if properly_ended:
                return "the purchase had begun" if (self.discards or self.bought or self.phase == "play") else None
            return "the first trick was turned" if first_trick_turned else None
        if f.kind in UNTIL_FIRST_TRICK:
            return "the first trick was turned" if first_trick_turned else None
        if f.kind in UNTIL_NEXT_TRICK and f.trick is not None:
            turned = len(self.tricks) > f.trick or (self.trick is not None and self.trick.number > f.trick
                                                     and bool(self.trick.cards))
            return "the next trick was turned" if turned else None
        return None  # felekartering, revoke: until the cards go to the next dealer, i.e. the whole deal

    def _talong_count_discovered(self, ev: Event, f: Finding) -> None:
        """E.3 against E.8: before the talong is put down (no bid yet) the dealer's count gives a free redeal."""
        if self.auction or self.phase not in ("deal", "bidding") or (ev.seat is not None and ev.seat != self.dealer):
            self.restep(f, f.status, ev, discovered=ev.index)
            return
        section = self.rules.section("talong_counted")
        self.abort_bets = [x for x in self.abort_bets if x[3] != self.rules.section("talong_count")]
        self.redeal.append((ev.index, section))
        self.restep(f, "rectified", ev, section="talong_counted", discovered=ev.index,
                    message=f"The dealer {self.dealer} counted {f.extra.get('count')} cards in the talong before "
                            "putting it down: redeal without penalty.",
                    remedy="Redeal without penalty; the same dealer deals again (E.3, D.6).")

    # -- choice ------------------------------------------------------------------------------
    def _on_choice(self, ev: Event) -> None:
        what = str(ev.get("choice")).strip().lower().replace(" ", "_").replace("-", "_")
        if what in ("play_on", "stop"):
            self._felekartering_choice(ev, what)
        elif what in ("demand_bid", "no_demand"):
            self._f4_choice(ev, what)
        else:
            self.emit(bad_event(f"Unknown choice {ev.get('choice')!r}; expected one of {', '.join(CHOICES)}.",
                                ev.index, self.board))

    def _declarer_felekartering(self) -> Finding | None:
        for f in reversed(self._latest_findings()):
            if f.kind == kinds.FELEKARTERING and f.seat == str(self.declarer) and f.status == "pending":
                return f
        return None

    def _felekartering_choice(self, ev: Event, what: str) -> None:
        """H.2: the deal is stopped unless both defenders want to play on; H.3: then the declarer pays."""
        f = self._declarer_felekartering()
        if f is None or ev.seat not in self.defenders:
            self.emit(bad_event(f"{ev.seat} chose '{what}', but no declarer's felekartering waits for a "
                                "defender's choice; ignored.", ev.index, self.board))
            return
        if what == "stop":
            seen = getattr(self, "_felekartering_seen", None)
            kodilj = seen[2] if seen is not None else self._already_kodilj()
            self._felekartering_stop = (ev.index, kodilj)
            self.restep(f, "established", ev, section="declarer_felekartering_pay", choice="stop", chosen_by=str(ev.seat),
                        remedy=(f"{ev.seat} wants the deal stopped: the declarer already was kodilj when the error "
                                "was found and is settled as kodilj (H.3)." if kodilj else
                                f"{ev.seat} wants the deal stopped: the declarer pays for a lagd hand (H.3)."))
            return
        self._play_on.add(ev.seat)
        if all(d in self._play_on for d in self.defenders):
            for fz in self.forced:
                if fz.outcome == "felekartering_declarer":
                    fz.played_on = True
            self.restep(f, "established", ev, choice="play_on",
                        remedy="Both defenders chose to play on under the present conditions: the deal counts as with "
                               "the right number of cards (H.2, D.9, D.10).")

    def _already_kodilj(self) -> bool:
        """H.3: "såvida han inte redan var kodilj": even every trick still to play would leave him kodilj."""
        c = self.contract
        if c is None:
            return False
        remaining = max(self.hand_size - len(self.tricks), 0)
        best = best_possible(c.tricks, self._is_misar_game(), self._declarer_tricks(), remaining, for_declarer=True)
        return best == "kodilj"

    def _f4_choice(self, ev: Event, what: str) -> None:
        """F.4: after both passes, the bidder may require the offender to bid something other than pass."""
        open_ = self._f4_open
        if open_ is None or (self.high_seat is not None and ev.seat != self.high_seat):
            self.emit(bad_event(f"{ev.seat} chose '{what}', but no pass out of turn waits for the bidder's "
                                "demand (F.4); ignored.", ev.index, self.board))
            return
        offender: Seat = open_["seat"]
        if what == "demand_bid":
            open_["demanded"] = True
            open_["finding"] = self.restep(open_["finding"], "pending", ev, choice="demand_bid",
                                           remedy=f"{ev.seat} requires {offender} to make a bid other than pass (F.4).")
            return
        self._f4_open = None
        self._may_bid_again.discard(offender)
        self.passed.add(offender)
        self.restep(open_["finding"], "established", ev, choice="no_demand",
                    remedy=f"{ev.seat} makes no demand: {offender}'s pass stands (C.8).")
        self.turn = self.next_active(offender, skip_passed=True)

    # -- withdraw ----------------------------------------------------------------------------
    def _on_withdraw(self, ev: Event) -> None:
        """C.7: "Ett korrekt givet bud får inte återtas." C.8: "Ett pass får inte återtas"."""
        seat = ev.seat
        last = next((a for a in reversed(self.auction) if a["seat"] == str(seat)), None)
        if last is None:
            self.emit(bad_event(f"{seat} withdrew a call but has made none in this deal; ignored.", ev.index,
                                self.board))
            return
        if last["bid"] == "pass":
            self.flag(kinds.CALL_WITHDRAWN, "pass_stands", f"{seat} tried to take back his pass; a pass may not be "
                      "taken back, even one that breaks the gök convention.", ev, seat=seat, status="established",
                      remedy="The pass stands (C.8).", call="pass", call_event=last["event"])
            return
        irregular = seat in self._pending_insufficient or seat in self._must_call or \
            any(f.seat == str(seat) and f.event == last["event"] and f.status != "info"
                for f in self._latest_findings())
        if irregular:
            return  # an irregular bid is replaced by the player's next call (F.1-F.3, A.3, A.4)
        self.flag(kinds.CALL_WITHDRAWN, "bid_stands", f"{seat} tried to take back his bid {last['bid']}; a correctly "
                  "given bid may not be taken back.", ev, seat=seat, status="established",
                  remedy=f"{last['bid']} stands (C.7).", call=last["bid"], call_event=last["event"])
