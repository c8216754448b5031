"""Bidding (SM 2025 A.1-A.5, F): the auction as the table played it, every slip reported.

A mixin of :class:`~tablecam.rules.vira.board.ViraBoard`: it reads and writes
the board's state (``self.passed``, ``self.high`` ...) and reports through
``self.flag``. Forehand bids first and may not pass (A.1); each bid must
overcall the last (F.1-F.3); a passed player may not bid again (A.2); the
bidding ends when two players have passed after the last bid.
"""

from __future__ import annotations

from ... import kinds
from ...cards import Seat
from ...events import Event
from ...findings import bad_event
from .table import PASS_WORDS, Contract, norm, parse_suit


class BiddingMixin:
    """The ``bid`` / ``call`` / ``contract_choice`` handlers and the bid oracle."""

    def _on_call(self, ev: Event) -> None:
        """The contract's generic ``call`` event is taken as a Vira bid."""
        self._bid(ev, ev.get("call"))

    def _on_bid(self, ev: Event) -> None:
        self._bid(ev, ev.get("bid"))

    def _bid(self, ev: Event, text: str) -> None:
        seat = ev.seat
        if self.phase == "deal":
            self.phase = "bidding"
        if self.turn is None and self.phase == "bidding":
            self.turn = self.forehand
        is_pass = norm(text) in PASS_WORDS
        if not is_pass and self.rules.contract(text) is None and not self.rules.is_unspecified_forbidden(text):
            self.emit(bad_event(f"'{text}' is not in the bid table {self.rules.table_name}; bid ignored.", ev.index,
                                self.board))
            return
        if seat not in self.active:
            self.flag(kinds.SIT_OUT_INTERFERENCE, "sit_out_interferes", f"{seat} is not an active player in this deal "
                      f"and may not bid; the bid '{text}' is ignored.", ev, seat=seat, status="rectified")
            return
        if self.phase != "bidding":
            self.flag(kinds.BID_OUT_OF_TURN, "bid_out_of_turn", f"{seat} bid '{text}' after the bidding ended; "
                      "it is not considered.", ev, seat=seat, status="rectified", remedy="The bid is void.")
            return
        self.auction.append({"seat": str(seat), "bid": "pass" if is_pass else str(text), "event": ev.index})
        if is_pass:
            self._pass(ev, seat)
        else:
            self._real_bid(ev, seat, text)
        self._maybe_end_auction(ev)

    def _resolve_must_call(self, ev: Event, seat: Seat, what: str) -> None:
        f = self._must_call.pop(seat, None)
        if f is not None:
            self.restep(f, "corrected", ev, remedy=f"{seat} {what}.")

    def _pass(self, ev: Event, seat: Seat) -> None:
        if seat in self.passed and seat not in self._may_bid_again:
            self.emit(bad_event(f"{seat} passed again (he has already passed); ignored.", ev.index, self.board))
            return
        self._resolve_must_call(ev, seat, "passed instead")
        f4 = self._f4_open
        if f4 is not None and seat == f4["seat"]:
            self._f4_open = None
            if f4.get("demanded"):
                self.flag(kinds.PASS_NOT_ALLOWED, "pass_out_of_turn", f"{seat} passed although {self.high_seat} "
                          "required a bid other than pass.", ev, seat=seat,
                          remedy=f"{seat} makes a bid other than pass (F.4).")
        pend = self._pending_insufficient.pop(seat, None)
        if pend is not None:
            if pend.extra.get("may_pass"):
                self.restep(pend, "corrected", ev, remedy=f"{seat} chose to pass (F.3).")
            else:
                self.restep(pend, "established", ev)
                self.flag(kinds.PASS_NOT_ALLOWED, "insufficient_no_pass", f"{seat} passed after an insufficient bid while "
                          "higher bids of the same kind remained; he must make a higher bid instead.", ev, seat=seat,
                          remedy="Ask for a bid higher than the last one (F.2); the director decides if the table "
                                 "played on.")
        if not self.high and seat == self.forehand and not self._a1_done():
            self._a1 = self.flag(kinds.FIRST_BID_PASS, "first_bid_pass", f"Forehand {seat} opened the bidding with pass, "
                                 "which is not allowed; he must make a bid.", ev, seat=seat,
                                 remedy="Forehand makes a bid; his pass does not count.")
            self.turn = seat
            return
        if seat != self.turn:
            first = self.turn
            self.passed.add(seat)  # C.8: a pass cannot be taken back
            opts = [f"{first} bids: the pass stands (C.8)"]
            if self.high_seat is not None:
                opts.append(f"{first} passes too: the bidder {self.high_seat} may require {seat} to bid something "
                            "other than pass")
            f = self.flag(kinds.PASS_OUT_OF_TURN, "pass_out_of_turn", f"{seat} passed before {first}, whose turn it was, "
                          "had spoken; the pass stands.", ev, seat=seat, options=opts)
            self._f4 = {"seat": seat, "first": first, "bidder": self.high_seat, "finding": f}
            return
        self.passed.add(seat)
        if self.high is not None and self.high.family == "gök":
            self._gok_passes.append((seat, ev))
        if self._f4 and seat == self._f4["first"]:
            f4 = self._f4
            self._f4 = None
            if self.high_seat is not None:
                self._may_bid_again.add(f4["seat"])
                self.passed.discard(f4["seat"])
                g = self.restep(f4["finding"], "pending", ev, remedy=f"{self.high_seat} may require {f4['seat']} to "
                                "make a bid other than pass (F.4).")
                self._f4_open = {"seat": f4["seat"], "finding": g}
                self.turn = f4["seat"]
                return
        self.turn = self.next_active(seat, skip_passed=True)

    def _a1_done(self) -> bool:
        return self._a1 is not None and self._a1.status != "pending"

    def _real_bid(self, ev: Event, seat: Seat, text: str) -> None:
        rules = self.rules
        if rules.is_unspecified_forbidden(text):
            self._must_call[seat] = self.flag(kinds.UNSPECIFIED_BID, "unspecified", f"{seat} bid '{text}' without saying which solomisär; "
                      "solomisärer cannot be bid unspecified, so the bid is void.", ev, seat=seat,
                      remedy=f"{seat} names a bid from the table or passes.")
            return
        c = rules.contract(text)
        if c is None:
            self.emit(bad_event(f"'{text}' is not in the bid table {rules.table_name}; bid ignored.", ev.index, self.board))
            return
        if seat in self.passed and seat not in self._may_bid_again:
            self.flag(kinds.BID_AFTER_PASS, "passed_bids_again", f"{seat} bid {c.name} after having passed; a player who "
                      "has passed may not bid again, so the bid is void.", ev, seat=seat, status="rectified",
                      remedy="The bid does not count.")
            return
        if seat != self.turn and seat not in self._may_bid_again:
            self.flag(kinds.BID_OUT_OF_TURN, "bid_out_of_turn", f"{seat} bid {c.name} out of turn ({self.turn} was to "
                      "speak); the bid is not considered.", ev, seat=seat, status="rectified",
                      remedy=f"The bid is void; {self.turn} speaks.")
            return
        if not rules.biddable(c):
            self._must_call[seat] = self.flag(kinds.BID_NOT_ALLOWED, "not_biddable", f"{seat} bid {c.name}, which may not be bid in this tournament "
                      "although it is in the bid table; the bid is void.", ev, seat=seat,
                      remedy=f"{seat} makes another bid or passes.")
            return
        eff = rules.effective_no(c, self.high_no)
        if eff is None or eff <= self.high_no:
            self._insufficient(ev, seat, c)
            return
        self._resolve_must_call(ev, seat, f"bid {c.name} instead")
        pend = self._pending_insufficient.pop(seat, None)
        if pend is not None:
            self.restep(pend, "corrected", ev, remedy=f"{seat} corrected to {c.name}.")
        if self._a1 is not None and self._a1.status == "pending" and seat == self.forehand:
            self._a1 = self.restep(self._a1, "corrected", ev, remedy=f"Forehand bid {c.name}.")
        if seat in self._may_bid_again:
            self._may_bid_again.discard(seat)
            self._f4_open = None
            if self._f4 is None:
                for f in reversed(self.findings):
                    if f.kind == kinds.PASS_OUT_OF_TURN and f.seat == str(seat):
                        self.restep(f, "corrected", ev, remedy=f"{seat} bid {c.name} as required (F.4).")
                        break
        if self._f4 is not None and seat == self._f4["first"]:
            self.restep(self._f4["finding"], "established", ev, remedy=f"{seat} bid; the pass stands (C.8).")
            self._f4 = None
        self.prev_no = self.high_no
        self.high, self.high_no, self.high_seat, self.high_event = c, eff, seat, ev
        self._gok_passes = []
        self.bid_suit = parse_suit(ev.get("suit")) if ev.get("suit") else None
        self.turn = self.next_active(seat, skip_passed=True)

    def _insufficient(self, ev: Event, seat: Seat, c: Contract) -> None:
        rules = self.rules
        same = rules.has_higher_in_family(c.family, self.high_no)
        last = self.high.name if self.high else "-"
        if same:
            opts = [f"a higher bid of the same kind or any bid above {last} (F.1, F.2); passing is not allowed"]
            key = "insufficient_bid"
        else:
            opts = ["pass", f"any bid above {last} (F.3)"]
            key = "insufficient_free"
        f = self.flag(kinds.INSUFFICIENT_BID, key, f"{seat} bid {c.name}, which does not overcall {last}; he must "
                      + ("bid again and may not pass." if same else "pass or make a sufficient bid."), ev, seat=seat,
                      options=opts, may_pass=not same, bid=c.name, last=last)
        self._pending_insufficient[seat] = f

    def _maybe_end_auction(self, ev: Event) -> None:
        if self.phase != "bidding" or self.high is None or self._pending_insufficient or self._may_bid_again:
            return
        left = [s for s in self.active if s not in self.passed]
        if left == [self.high_seat]:
            self.phase = "purchase"
            self.declarer = self.high_seat
            self.turn = None
            self._set_contract(ev)

    def _set_contract(self, ev: Event) -> None:
        c = self.high
        assert c is not None
        if c.unspecified:
            rule = self.rules.unspecified_rule(c)
            if rule is not None and rule.resolve == "lowest_above_previous":
                low = self.rules.lowest_above(c.family, self.prev_no)
                self.contract = low
            else:
                self.contract = c  # the declarer names it with a 'contract_choice' event (A.4)
        else:
            self.contract = c
        if self.bid_suit:
            self.trump = self.bid_suit
            self.trump_named = True

    # -- contract choice (A.4 / A.5) ----------------------------------------------------
    def _on_contract_choice(self, ev: Event) -> None:
        c = self.rules.contract(ev.get("name"))
        if c is None or c.unspecified:
            self.emit(bad_event(f"'{ev.get('name')}' is not a contract of the bid table; ignored.", ev.index, self.board))
            return
        if self.high is None or self.declarer is None:
            self.emit(bad_event("'contract_choice' before the bidding ended; ignored.", ev.index, self.board))
            return
        if ev.seat != self.declarer:
            self.emit(bad_event(f"'contract_choice' by {ev.seat}, not the declarer {self.declarer}; ignored.",
                                ev.index, self.board))
            return
        h = self.high
        if not h.unspecified:
            if c != h:
                self.flag(kinds.CONTRACT_MISMATCH, "unspecified", f"{ev.seat} won the bidding with {h.name} but "
                          f"names {c.name}; the contract is the one bid.", ev, seat=ev.seat, status="rectified")
            return
        rule = self.rules.unspecified_rule(h)
        ok_family = rule is not None and c.family in rule.families
        if rule is not None and rule.resolve == "lowest_above_previous":
            low = self.rules.lowest_above(h.family, self.prev_no)
            if c != low:
                self.flag(kinds.UNSPECIFIED_CONTRACT, "unspecified_lowest", f"Unspecified {h.name.lower()} must be played "
                          f"as {low.name if low else '?'}, the lowest that overcalls the previous bid, not {c.name}.",
                          ev, seat=ev.seat, status="rectified", remedy=f"Played as {low.name if low else '?'}.")
            return
        if not ok_family or c.no <= self.prev_no or not self.rules.biddable(c):
            prev = self._contract_no(self.prev_no)
            self._a4 = self.flag(kinds.UNSPECIFIED_CONTRACT, "unspecified", f"{ev.seat} named {c.name} for the unspecified "
                      f"{h.name.lower()}; it must be a {h.name.lower()} that overcalls {prev}.", ev, seat=ev.seat,
                      options=[m.name for m in self.rules.family_members(h.family)
                               if m.no > self.prev_no and self.rules.biddable(m)])
            return
        self.contract = c
        if self._a4 is not None:
            self.restep(self._a4, "corrected", ev, remedy=f"Declarer named {c.name}.")

    def _contract_no(self, no: int) -> str:
        for c in self.rules.contracts:
            if c.no == no:
                return c.name
        return "nothing"

    def legal_bids(self) -> list[str]:
        """Oracle: the bids the player on turn may make now (names), plus 'pass' where allowed."""
        if self.phase not in ("deal", "bidding"):
            return []
        out = [] if (not self.high) else ["pass"]
        for c in self.rules.contracts:
            if c.no > self.high_no and self.rules.biddable(c):
                out.append(c.name)
        return out
