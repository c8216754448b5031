"""The purchase (SM 2025 G, E.9-E.10): trump choice, discards and buying from the talong.

Order: the declarer names trump (where the contract needs it before buying)
and buys first, then the defender on his left, then the one on his right.
"""

from __future__ import annotations

from ... import kinds
from ...cards import Seat
from ...events import Event
from ...findings import bad_event
from .settle import Forced
from .table import parse_suit


class PurchaseMixin:
    """The ``trump``, ``discard``, ``buy`` / ``purchase`` and ``show`` handlers."""

    def _on_trump(self, ev: Event) -> None:
        s = parse_suit(ev.get("suit"))
        if s is None:
            self.emit(bad_event(f"Trump '{ev.get('suit')}' not understood (S H D C or misar); ignored.", ev.index,
                                self.board))
            return
        if self.declarer is None or ev.seat != self.declarer:
            self.emit(bad_event(f"Trump named by {ev.seat}, who is not the declarer; ignored.", ev.index, self.board))
            return
        c = self.contract
        fam = c.family if c else ""
        if s == "":
            if c is None or not (c.misar and c.tricks is not None):
                self.emit(bad_event("'misar' as trump is only for a gask played as misär; ignored.", ev.index,
                                    self.board))
                return
            self.playing_misar = True
            self.trump = None
        else:
            self.trump = s
            self.playing_misar = False
        self.trump_named = True
        want = self.rules.settings.turn_up.counts.get(fam)
        turned = ev.get("cards")
        if isinstance(want, int) and turned is not None and len(turned) != want:
            self._g1(ev, f"{ev.seat} turned up {len(turned)} talong cards for {c.name if c else fam}; "
                         f"{want} should be turned up.")

    def _g1(self, ev: Event, message: str) -> None:
        self.flag(kinds.TRUMP_CHOICE, "trump_choice", message.rstrip(".") + "; the deal is stopped and the declarer pays "
                  "for a lagd hand in the lowest suit that could have been trump.", ev, seat=self.declarer,
                  status="established", remedy="Declarer pays for a lagd hand (G.1), paid in the lowest colour (G.2).")
        self.forced.append(Forced(ev.index, "lagd", self.rules.section("trump_choice"), column=0))

    def _on_discard(self, ev: Event) -> None:
        seat = ev.seat
        self._purchase_order(ev, seat)
        hand = self.hands.setdefault(seat, [])
        for c in ev.get("cards"):
            if c in hand:
                hand.remove(c)
            elif self.deal.known:
                self.flag(kinds.CARD_NOT_IN_HAND, "felekartering", f"{seat} discarded {c}, which is not in his hand.", ev,
                          seat=seat, status="info", card=str(c))
            self.discards.setdefault(seat, []).append(c)

    def _on_buy(self, ev: Event) -> None:
        seat = ev.seat
        cards = ev.get("cards")
        if self.phase in ("deal", "bidding"):
            self.flag(kinds.TALONG_BEFORE_AUCTION, "talong_before_end", f"{seat} took cards from the talong before the "
                      "bidding was over; the deal is stopped and he pays a bet.", ev, seat=seat, status="established",
                      remedy=f"{seat} pays a bet into the pulla; the deal passes to the left (F.6).")
            self.abort_bets.append((ev.index, kinds.TALONG_BEFORE_AUCTION, {str(seat): 1}, self.rules.section("talong_before_end")))
        else:
            self._purchase_order(ev, seat)
            if seat == self.declarer and self.contract is not None:
                self._declarer_buy_checks(ev)
            if self.contract is not None and self.contract.royal and self.declarer not in self.shown \
                    and not self._a7_done:
                self._a7_done = True
                self.flag(kinds.OPEN_MISAR_NOT_SHOWN, "open_misar", f"The declarer {self.declarer} has not laid his cards "
                          f"face up before the purchase in {self.contract.name}.", ev, seat=self.declarer,
                          remedy="The declarer lays his cards face up now; the director judges any damage.")
        hand = self.hands.setdefault(seat, [])
        for c in cards:
            if c in self.talong:
                self.talong.remove(c)
            elif self.deal.known:
                self.flag(kinds.CARD_NOT_IN_TALONG, "declarer_purchase" if seat == self.declarer else "defender_purchase",
                          f"{seat} bought {c}, which is not in the talong.", ev, seat=seat, status="info", card=str(c))
            if c in self.face_up_talong and self.contract is not None and self.contract.family != "gask":
                self.flag(kinds.FACE_UP_CARD_BOUGHT, "face_up_bought", f"{seat} bought {c}, which lay face up in the "
                          "talong; in a köpspel or solo it may not be bought and is put aside.", ev, seat=seat,
                          remedy="Put the card aside (E.10).", card=str(c))
            hand.append(c)
        self.bought.setdefault(seat, []).extend(cards)
        self.bought_done.add(seat)
        if self.phase == "purchase" and all(s in self.bought_done for s in self.active):
            self._check_felekartering(ev)  # H.1: the purchase is over; the hands are counted before the first lead

    def _purchase_order(self, ev: Event, seat: Seat) -> None:
        """G.4 / G.5: the declarer buys first, then left, then right-hand opponent."""
        if self.declarer is None or self.phase != "purchase" or seat == self.declarer:
            return
        done = self.bought_done
        c = self.contract
        if c is not None and c.purchase and self.declarer not in done:
            if ("G.5", str(seat)) in self._flagged:
                return
            self._flagged.add(("G.5", str(seat)))
            self.flag(kinds.PURCHASE_OUT_OF_TURN, "defender_purchase", f"Defender {seat} started his purchase before the "
                      f"declarer {self.declarer} had finished his; the declarer is home.", ev, seat=seat,
                      status="established", remedy="The declarer is paid as home (G.5).")
            self.forced.append(Forced(ev.index, "hemma", self.rules.section("defender_purchase")))
            return
        lho = self.next_active(self.declarer)
        if seat != lho and lho not in done and ("G.4", str(seat)) not in self._flagged:
            self._flagged.add(("G.4", str(seat)))
            self.flag(kinds.PURCHASE_OUT_OF_TURN, "rho_early_purchase", f"{seat}, on the declarer's right, started his "
                      f"purchase before {lho} on the declarer's left had finished; the declarer is home.", ev,
                      seat=seat, status="established", remedy="The declarer is paid as home (G.4).")
            self.forced.append(Forced(ev.index, "hemma", self.rules.section("rho_early_purchase")))

    def _declarer_buy_checks(self, ev: Event) -> None:
        c = self.contract
        assert c is not None
        if c.purchase is False:
            self.flag(kinds.PURCHASE_NOT_ALLOWED, "declarer_purchase", f"The declarer {self.declarer} bought from the "
                      f"talong in {c.name}, where there is no purchase; he pays for a lagd hand.", ev,
                      seat=self.declarer, status="established", remedy="Declarer pays for a lagd hand (G.3).")
            self.forced.append(Forced(ev.index, "lagd", self.rules.section("declarer_purchase")))
            return
        need = c.family in self.rules.settings.trump_before_purchase and not c.is_misar
        if need and not self.trump_named and self.declarer not in self.bought_done:
            if self.bid_suit and self.bid_suit == self.first_suit:
                return  # G.2: bid in högsta färg, the trump is already named
            self._g1(ev, f"The declarer {self.declarer} bought before naming trump in {c.name}.")

    def _on_purchase(self, ev: Event) -> None:
        """``purchase`` is another name for ``buy``."""
        self._on_buy(ev)

    def _on_show(self, ev: Event) -> None:
        self.shown.setdefault(ev.seat, []).extend(ev.get("cards"))
