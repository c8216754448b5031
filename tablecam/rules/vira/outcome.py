"""What the deal is worth (SM 2025 D.6, D.8, D.10, B.1, L): the ``score`` finding.

The first irregularity that ends the deal decides (D.8); otherwise the
tricks do (D.10). Money comes from :mod:`.settle` and the bid table.
"""

from __future__ import annotations

from typing import Any

from ... import kinds
from ...cards import Seat, parse_seat
from ...events import Event
from ...findings import bad_event
from .gok import compensation, laggarde_suits
from .settle import COLUMN_NAMES, column, outcome_from_tricks, pay_contract


class OutcomeMixin:
    """Settlement of one deal, B.1 compensation and the check of what the table paid."""

    def _next_dealer(self, outcome: str | None) -> str:
        """D.6: after a redeal without penalty the same player deals again; otherwise the deal passes clockwise."""
        if outcome in ("redeal", "void"):
            return str(self.dealer)
        for k in (1, 2, 3):
            s = self.dealer.next(k)
            if s in self.players:
                return str(s)
        return str(self.dealer)

    def _seats_at_table(self) -> list[str]:
        return [str(s) for s in self.players]

    def _settle(self, event: Event | None) -> dict[str, Any]:
        zero = {s: 0 for s in self._seats_at_table()}
        base: dict[str, Any] = {"pinnar": dict(zero), "bets": {}, "contract": None, "declarer": None,
                                "outcome": None, "tricks": None, "needed": None}
        ruling = self.rulings[-1].get("outcome").strip().lower() if self.rulings else None
        prefix = self.rules.prefix
        # 1. misdeals: redeal without penalty, same dealer again (D.6)
        if self.redeal and ruling not in ("continue", "hemma", "bet", "kodilj"):
            base.update(outcome="redeal", rule=f"{prefix} {self.redeal[0][1]}",
                        message=f"Misdeal: the deal is redealt without penalty by the same dealer ({self.redeal[0][1]}).")
            return base
        if ruling in ("redeal", "void"):
            base.update(outcome=ruling, rule=self.rules.cite("director"), message=f"By ruling: {ruling}; no payment.")
            return base
        # 2. aborted with bets (E.7, E.8, F.6): the deal passes to the left
        if self.abort_bets and ruling not in ("continue", "hemma", "bet", "kodilj"):
            first = min(self.abort_bets, key=lambda x: x[0] if x[0] is not None else -1)
            bets: dict[str, int] = {}
            for _, _, b, _ in self.abort_bets if first[3] in (self.rules.section("hand_count"), self.rules.section("talong_count")) else [first]:
                for s, n in b.items():
                    bets[s] = bets.get(s, 0) + n
            base.update(outcome="aborted", bets=bets, rule=f"{prefix} {first[3]}",
                        message=f"The deal was stopped ({first[3]}); "
                                + ", ".join(f"{s} pays {n} bet{'s' if n > 1 else ''}" for s, n in bets.items())
                                + "; the deal passes to the left.")
            return base
        c, d = self.contract, self.declarer
        note = ""
        if c is not None and c.unspecified:
            low = self.rules.lowest_above(c.family, self.prev_no)
            if low is not None:
                note = f" (unspecified {c.name.lower()} never named: settled as {low.name}, the lowest allowed; A.4)"
                c = low
        if c is None or d is None:
            base.update(outcome="incomplete", rule=self.rules.cite("counting"),
                        message="The bidding did not end in a contract; nothing to settle.")
            return base
        misar = self._is_misar_game()
        needed = None if misar else c.tricks
        taken = self._declarer_tricks()
        base.update(contract=c.name, declarer=str(d), needed=0 if misar else needed, tricks=taken,
                    trump=self.trump, first_suit=self.first_suit)
        payers = [str(s) for s in self.defenders]
        if self.sit_out is not None and self.sit_out in self.players and self.rules.settings.sit_out_pays:
            payers.append(str(self.sit_out))
        col = column(self.trump, self.first_suit, misar)
        reason = "tricks"
        outcome: str | None = None
        forced = sorted(self.forced, key=lambda f: f.event if f.event is not None else 10**9)
        fz = forced[0] if forced else None
        if ruling in ("hemma", "bet", "kodilj"):
            outcome, reason = ruling, "ruling"
        elif fz is not None and not (fz.outcome == "felekartering_declarer" and ruling == "continue"):
            reason = fz.reason
            if fz.outcome == "felekartering_declarer":
                outcome = None if self._played_on() else "kodilj" if self._stopped_kodilj() else "lagd"
                reason = self.rules.section("declarer_felekartering_pay")
                if outcome is None:
                    reason = "tricks"
            elif fz.outcome == "neither":
                base.update(outcome="neither", bets=fz.bets or {}, rule=f"{prefix} {fz.reason}",
                            message=f"Neither home nor bet ({fz.reason}); each faulty player pays a bet.")
                return base
            else:
                outcome = fz.outcome
            if outcome == "lagd" and fz.column is not None:
                col = fz.column
            elif outcome == "lagd" and c.family in self.rules.settings.lagd_in_ofarg:
                # Stockholm table: a lagd solo or gask is paid in ofärg unless it was bid in a suit
                col = column(self.bid_suit, self.first_suit, misar) if self.bid_suit else 0
        if outcome is None:
            n_tricks = len(self.tricks)
            if self.claim is not None:
                cs, ct = self.claim
                taken = ct if cs == d else max(self.hand_size - ct, 0)
                base["tricks"] = taken
                reason = "claim"
            elif n_tricks < self.hand_size and (not self.deal.known or all(self.hands.get(s) for s in self.active)):
                base.update(outcome="incomplete", rule=self.rules.cite("counting"),
                            message=f"Only {n_tricks} of {self.hand_size} tricks were played; nothing settled.")
                return base
            outcome = outcome_from_tricks(needed, misar, taken)
        if outcome == "lagd":
            pay_as = "bet"
        else:
            pay_as = outcome
        om = bool((self.high_event.raw or {}).get("om")) if self.high_event is not None else False
        pinnar, bets = pay_contract(self.rules, c, str(d), payers, pay_as, col, om=om)
        full = dict(zero)
        full.update(pinnar)
        if c.family == "gök" and outcome == "hemma":
            for s, n in self._tjuvpass(event).items():
                full[s] = full.get(s, 0) + n
        rule = f"{prefix} " + {"tricks": self.rules.section("counting"), "claim": self.rules.section("counting"),
                               "ruling": self.rules.section("director")}.get(reason, reason)
        word = {"hemma": "is home", "bet": "is bet", "kodilj": "is kodilj", "lagd": "pays for a lagd hand"}[outcome]
        p = c.pinnar[col] if col < len(c.pinnar) else None
        base.update(outcome=outcome, pinnar=full, bets=bets, column=COLUMN_NAMES[col], reason=reason, rule=rule,
                    message=f"{d} {word} in {c.name}"
                            + (f" with {taken} tricks" if reason in ("tricks", "claim") else f" ({reason})")
                            + f": {p or 0} {'pinne' if p == 1 else 'pinnar'} "
                              f"{'from' if pay_as == 'hemma' else 'to'} each of {', '.join(payers)}"
                            + (f", {abs(bets[str(d)])} bet{'s' if abs(bets[str(d)]) > 1 else ''} "
                               f"{'from' if bets[str(d)] < 0 else 'into'} the pulla" if bets.get(str(d)) else "")
                            + note + ".")
        return base

    def _tjuvpass(self, event: Event | None) -> dict[str, int]:
        """B.1: flag each pass over the gök without the läggarder it needs; return the compensation."""
        cfg = self.rules.settings.gok
        if not self.deal.known or cfg is None:
            return {}
        limits = cfg.laggarde_limits
        needs = [cfg.first_hand_needs, cfg.second_hand_needs]
        d = self.declarer
        order = [self.next_active(d), self.next_active(self.next_active(d))] if d else []
        short: list[tuple[Seat, Event, int, list[str]]] = []  # each tjuvpass: seat, his pass, needed, had
        for seat, ev in self._gok_passes:
            if seat not in order:
                continue
            need = needs[order.index(seat)]
            have = laggarde_suits(self.deal.dealt.get(seat, []), limits)
            if len(have) < need:
                short.append((seat, ev, need, have))
        if not short:
            return {}
        thieves = [str(seat) for seat, *_ in short]
        partner = {str(a): str(b) for a in self.defenders for b in self.defenders if a != b}
        pay = compensation(thieves, partner, str(self.sit_out) if self.sit_out else None, cfg.compensation)
        for seat, ev, need, have in short:
            self.flag(kinds.TJUVPASS, "tjuvpass", f"{seat} passed over the gök as {('first', 'second')[order.index(seat)]}"
                      f" hand with {len(have)} läggarde{'' if len(have) == 1 else 'r'} instead of {need}, and the "
                      "gök went home: he compensates.", ev, seat=seat, status="established",
                      laggarder=have, needed=need, compensation=pay, id=f"vira-{self.board}-tjuvpass-{seat}")
        return pay

    def _played_on(self) -> bool:
        """H.2: both defenders played on after the declarer's felekartering was found (D.9).

        Their ``choice`` events say so; a defender's ``stop`` says not. Without
        them, a ``ruling`` of ``continue`` or play going on past the trick in
        which it was found (the purchase, or a ``discovered`` event) counts as
        playing on.
        """
        if self._felekartering_stop is not None:
            return False
        if any(fz.played_on for fz in self.forced if fz.outcome == "felekartering_declarer") and self._play_on:
            return True
        seen = self._felekartering_seen[1] if self._felekartering_seen is not None else 0
        return len(self.tricks) > seen + 1 or any(r.get("outcome", "").lower() == "continue" for r in
                                                   (e.data for e in self.rulings))

    def _stopped_kodilj(self) -> bool:
        """H.3: "såvida han inte redan var kodilj när felet upptäcktes"."""
        if self._felekartering_stop is not None:
            return self._felekartering_stop[1]
        return self._felekartering_seen is not None and self._felekartering_seen[2]

    def _check_payment(self, event: Event | None) -> None:
        ev = self.settled
        if ev is None or self.score is None:
            return
        want_p = {k: v for k, v in self.score.get("pinnar", {}).items() if v}
        want_b = {k: v for k, v in self.score.get("bets", {}).items() if v}
        got_p = _seat_ints(ev.get("pinnar"))
        got_b = _seat_ints(ev.get("bets"))
        if got_p is None or got_b is None:
            self.emit(bad_event("'settle' pinnar/bets must map seats to whole numbers; not checked.", ev.index,
                                self.board))
            return
        problems = []
        if ev.get("pinnar") is not None and got_p != want_p:
            problems.append(f"pinnar {got_p} instead of {want_p}")
        if ev.get("bets") is not None and got_b != want_b:
            problems.append(f"bets {got_b} instead of {want_b}")
        if problems:
            self.flag(kinds.PAYMENT_ERROR, "payment", "The table paid " + " and ".join(problems) + ".", ev,
                      remedy="Correct the payment; it can be claimed until everyone has picked up his cards in the "
                             "deal after next (D.7).", expected_pinnar=want_p, expected_bets=want_b)


def _seat_ints(v: Any) -> dict[str, int] | None:
    if v is None:
        return {}
    if not isinstance(v, dict):
        return None
    out: dict[str, int] = {}
    for k, n in v.items():
        try:
            s = str(parse_seat(k))
        except ValueError:
            return None
        if isinstance(n, bool) or not isinstance(n, int):
            return None
        if n:
            out[s] = n
    return out
