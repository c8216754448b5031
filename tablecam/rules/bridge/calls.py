"""Judging the calls: insufficient bids, calls out of turn, inadmissible doubles, the contract (Laws 18-39).

Part of the bridge engine; the state lives on the board (see ``board.py``).
"""

from __future__ import annotations

from ...events import Event
from ...findings import Finding
from .auction import lowest_sufficient
from .common import AUCTION, DEALING, FINISHED, PLAY, seat_name
from .tables import (BID_RANK, BID_TEXT, CARD_TEXT, SEAT_INDEX, SEAT_LETTERS, STRAIN_TRUMP, bid_above_seven,
                     contract_text, parse_call, seat_index)


class AuctionRules:
    """Mixin of :class:`~tablecam.rules.bridge.board.BridgeBoard` for the rules in this module."""

    def _call(self, ev: Event) -> list[Finding]:
        self.last_index = ev.index
        out: list[Finding] = []
        if self.phase is DEALING:
            out += self._check_deal(ev)
            self.phase = AUCTION
        d = ev.data
        s = SEAT_INDEX.get(id(d["seat"]))
        if s is None:
            s = seat_index(d["seat"])
        code = parse_call(d["call"])
        big = bid_above_seven(d["call"]) if code is None else None
        if code is None and big is None:
            out.append(self._bad(f"{SEAT_LETTERS[s]}'s call {d['call']!r} is not a bridge call; skipped.", ev))
            return out
        a = self.auction
        if self.phase is not AUCTION or a.closed:
            out.append(self._call_after_auction(ev, s, code or big))
            return out
        if big is not None:  # Law 38B: cancelled, a pass substituted; the pass is judged like any call
            out.append(self._above_seven(ev, s, big))
            code = "P"
        if a.pending is not None:
            out += self._resolve_call(ev, s, code)
        if a.turn is None:  # no dealer on the board event: the first caller deals
            a.dealer = a.turn = self.dealer = s
        if a.window is not None and a.window[0] == s:
            if s != a.turn:  # Law 36A: back to the offender, whose call substitutes the inadmissible one
                out.append(self._inadmissible_reverted(ev, s, code))
            else:
                out.append(self._inadmissible_passed_over(ev))
        if s != a.turn:
            if s == a.last_caller and a.prev_snap is not None:
                out.append(self._change_of_call(ev, s, code))
            else:
                out.append(self._call_out_of_turn(ev, s, code))
        else:
            bar = a.bars.get(s)
            if bar is not None:
                if code != "P":
                    out.append(self._new("barred_call", "barred_call",
                                         f"{SEAT_LETTERS[s]} called {code} while required to pass ({bar[0]}).", ev,
                                         seat=s, call=code, required_by=bar[0]))
                if bar[1]:  # only at his next turn
                    del a.bars[s]
            if code == "P":
                a.apply(s, code)
            elif code == "X" or code == "XX":
                if a.admissible(s, code):
                    a.apply(s, code)
                else:
                    out.append(self._inadmissible(ev, s, code))
            elif BID_RANK[code] <= a.last_bid:
                out.append(self._insufficient(ev, s, code))
            else:
                a.apply(s, code)
        if a.closed:
            out += self._close_auction(ev)
        return out

    def _above_seven(self, ev: Event, s: int, big: str) -> Finding:
        """Law 38: a bid of more than seven is cancelled and a pass substituted; partner must pass."""
        a = self.auction
        partner = (s + 2) & 3
        a.calls.append([s, big, "cancelled", None])
        a.bars[partner] = ("Law 38C", False)
        return self._new("bid_above_seven", "bid_above_seven",
                         f"{SEAT_LETTERS[s]} bid {big}, more than seven: the bid is cancelled and a pass substituted "
                         f"(Law 38B); {SEAT_LETTERS[partner]} must pass whenever it is his turn (Law 38C).", ev,
                         seat=s, status="rectified", call=big, substituted="P", partner_barred=True)

    def _inadmissible_reverted(self, ev: Event, s: int, code: str) -> Finding:
        """Law 36A: the offender's LHO called over an inadmissible double or redouble and the director
        was called: that call and every later one are cancelled, the auction goes back to the player
        whose turn it was, and the offender's call now is his substitute."""
        a = self.auction
        o, f, snap = a.window
        a.window = None
        a.pending = None
        a.revert(snap)
        a.bars[(o + 2) & 3] = ("Law 36", False)
        return self._update(f, ev, "corrected", f"{SEAT_LETTERS[o]}'s inadmissible {f.extra['call']} and the calls "
                            f"after it are cancelled; the auction went back to {SEAT_LETTERS[a.turn]} and "
                            f"{SEAT_LETTERS[o]} substituted {code} (Law 36A); {SEAT_LETTERS[(o + 2) & 3]} must pass "
                            "whenever it is his turn.", rule="Law 36A", correction=code, partner_barred=True)

    def _inadmissible_passed_over(self, ev: Event | int | None) -> Finding:
        """The auction went on past an inadmissible double or redouble: it is cancelled, no effect."""
        a = self.auction
        o, f, snap = a.window
        a.window = None
        return self._update(f, ev, "rectified", f"The auction went on after {SEAT_LETTERS[o]}'s inadmissible "
                            f"{f.extra['call']}, which is cancelled and has no effect (Law 36).", rule="Law 36")

    def _call_after_auction(self, ev: Event, s: int, code: str) -> Finding:
        side = self.declarer is not None and (s & 1) == (self.declarer & 1)
        why = ("no rectification (Law 39B1)" if code == "P" or side else
               "Law 16 applies and lead restrictions (Law 26) may follow (Law 39B2)")
        return self._new("call_after_auction", "call_after_auction",
                         f"{SEAT_LETTERS[s]} called {code} after the auction had closed; the call is cancelled, {why}.",
                         ev, seat=s, status="info", call=code)

    def _insufficient(self, ev: Event, s: int, code: str) -> Finding:
        a = self.auction
        over = BID_TEXT[a.last_bid]
        snap = a.snap()
        f = self._new("insufficient_bid", "insufficient_bid",
                      f"{SEAT_LETTERS[s]} bid {code}, which is insufficient over {over}; {SEAT_LETTERS[(s + 1) & 3]} "
                      "may accept it.", ev, seat=s, call=code, over=over)
        a.apply(s, code, "irregular")
        a.pending = ("insufficient", s, f, snap, over)
        return f

    def _inadmissible(self, ev: Event, s: int, code: str) -> Finding:
        a = self.auction
        snap = a.snap()
        what = "double" if code == "X" else "redouble"
        f = self._new("inadmissible_double", "inadmissible_double",
                      f"{SEAT_LETTERS[s]}'s {what} is not allowed here (Law 19); it is cancelled.", ev, seat=s,
                      call=code)
        # The call takes the offender's turn but changes nothing (Law 36).
        a.prev_snap = snap
        a.calls.append([s, code, "cancelled", None])
        a.turn = (s + 1) & 3
        a.last_caller = s
        a.passes = 0  # Law 36C: three passes after it end the auction
        a.after_inadmissible = True
        a.pending = ("inadmissible", s, f, snap, None)
        return f

    def _call_out_of_turn(self, ev: Event, s: int, code: str) -> Finding:
        a = self.auction
        t = a.turn
        key = ("call_out_of_turn_pass" if code == "P" else
               "call_out_of_turn_double" if code in ("X", "XX") else "call_out_of_turn_bid")
        where = {1: "LHO's", 2: "partner's", 3: "RHO's"}[(t - s) & 3]
        f = self._new("call_out_of_turn", key,
                      f"{SEAT_LETTERS[s]} called {code} out of turn, at {where} ({SEAT_LETTERS[t]}'s) turn; "
                      f"{SEAT_LETTERS[(s + 1) & 3]} may accept it.", ev, seat=s, call=code,
                      expected=SEAT_LETTERS[t], at=where.rstrip("'s"))
        snap = a.snap()
        if code in ("X", "XX") and not a.admissible(s, code):
            a.prev_snap = snap
            a.calls.append([s, code, "cancelled", None])
            a.turn = (s + 1) & 3
            a.last_caller = s
        else:
            a.apply(s, code, "irregular")
        a.pending = ("oot", s, f, snap, t)
        return f

    def _change_of_call(self, ev: Event, s: int, code: str) -> Finding:
        a = self.auction
        first = a.calls[-1][1] if a.calls else None
        a.revert(a.prev_snap)
        a.apply(s, code, "changed")
        return self._new("change_of_call", "change_of_call",
                         f"{SEAT_LETTERS[s]} changed his call from {first} to {code} before LHO called; the log "
                         f"now holds {code}.", ev, seat=s, status="info", call=code, first_call=first)

    def _resolve_call(self, ev: Event, s: int, code: str) -> list[Finding]:
        """The call after an irregular one shows how the table resolved it."""
        a = self.auction
        kind, o, f, snap, info = a.pending
        a.pending = None
        lho = (o + 1) & 3
        if kind == "insufficient":
            if s == o:  # Law 27B: the offender substitutes a call
                a.revert(snap)
                strain = f.extra["call"][1]
                low = lowest_sufficient(snap[0], strain)
                if code == low:
                    note, barred, rule = (f"corrected to {code}, the lowest sufficient bid in the same strain: "
                                          "a comparable call, no further rectification (Law 27B1)", False, "Law 27B1")
                else:
                    note, barred, rule = (f"corrected to {code}: {SEAT_LETTERS[(o + 2) & 3]} must pass whenever it "
                                          "is his turn (Law 27B2) unless the director rules it comparable", True,
                                          "Law 27B2" if code not in ("X", "XX") else "Law 27B3")
                    a.bars[(o + 2) & 3] = ("Law 27B2", False)
                return [self._update(f, ev, "corrected", f"{SEAT_LETTERS[o]}'s insufficient bid {f.extra['call']} "
                                     f"was {note}.", rule=rule, accepted=False, correction=code,
                                     partner_barred=barred)]
            if a.calls and a.calls[-1][2] == "irregular":
                a.calls[-1][2] = "accepted"
            return [self._update(f, ev, "rectified", f"{SEAT_LETTERS[o]}'s insufficient bid {f.extra['call']} was "
                                 f"accepted by {SEAT_LETTERS[s]} calling (Law 27A).", rule="Law 27A", accepted=True)]
        if kind == "inadmissible":
            if s == o:
                a.revert(snap)
                a.bars[(o + 2) & 3] = ("Law 36", False)
                return [self._update(f, ev, "corrected", f"{SEAT_LETTERS[o]} replaced the inadmissible "
                                     f"{f.extra['call']} with {code}; {SEAT_LETTERS[(o + 2) & 3]} must pass whenever "
                                     "it is his turn (Law 36).", rule="Law 36", correction=code,
                                     partner_barred=True)]
            done = [self._inadmissible_passed_over(ev)] if a.window is not None else []
            a.window = (o, f, snap)  # LHO called before rectification: Law 36A if the director is called now
            return done
        # call out of turn
        if s == lho and s != info:
            if a.calls and a.calls[-1][2] == "irregular":
                a.calls[-1][2] = "accepted"
            return [self._update(f, ev, "rectified", f"{SEAT_LETTERS[o]}'s call out of turn was accepted by "
                                 f"{SEAT_LETTERS[s]} calling (Law 29A).", rule="Law 29A", accepted=True)]
        if s == lho:  # out of turn at LHO's turn: LHO calling is both; the call stands as made
            if a.calls and a.calls[-1][2] == "irregular":
                a.calls[-1][2] = "accepted"
            return [self._update(f, ev, "rectified", f"{SEAT_LETTERS[o]}'s call out of turn stands; "
                                 f"{SEAT_LETTERS[s]} called over it (Law 29A).", rule="Law 29A", accepted=True)]
        a.revert(snap)
        return [self._update(f, ev, "corrected", f"{SEAT_LETTERS[o]}'s call out of turn was cancelled; the auction "
                             f"went back to {SEAT_LETTERS[info]} (Law 29B){self._cancelled_pass_bar(o, f, info, snap)}.",
                             rule="Law 29B", accepted=False)]

    def _cancelled_pass_bar(self, o: int, f: Finding, expected: int, snap: tuple) -> str:
        """Law 30: what a cancelled pass out of turn obliges the offender to; sets the bar, returns the words.

        Before any bid, or at RHO's turn, he must pass at his next turn (30A, 30B1(a)); at partner's
        turn after a bid he must pass whenever it is his turn (30B1(b)). Bids and doubles out of turn
        (Laws 31, 32) turn on whether the substituted call is comparable, a judgement left to the director.
        """
        if f.extra.get("call") != "P":
            return "; Laws 31-32 say whether a partner must pass"
        a = self.auction
        at = (expected - o) & 3
        if snap[0] < 0 or at == 3:
            rule = "Law 30A" if snap[0] < 0 else "Law 30B1(a)"
            a.bars[o] = (rule, True)
            return f"; {SEAT_LETTERS[o]} must pass at his next turn ({rule})"
        if at == 2:
            a.bars[o] = ("Law 30B1(b)", False)
            return f"; {SEAT_LETTERS[o]} must pass whenever it is his turn (Law 30B1(b))"
        return ""

    def _close_auction(self, ev: Event) -> list[Finding]:
        a = self.auction
        a.pending = None
        out: list[Finding] = []
        if a.window is not None:
            o, f, snap = a.window
            later = [c for c in a.calls[snap[6] + 1:] if c[2] != "cancelled"]
            if len(later) >= 3 and all(c[1] == "P" for c in later):
                a.window = None
                bid, _, dbl = a.contract()
                what = contract_text(bid, dbl) if bid else "passed out"
                out.append(self._update(f, ev, "rectified", f"{SEAT_LETTERS[o]}'s inadmissible {f.extra['call']} "
                                        f"was followed by three passes: it is cancelled and the auction is over "
                                        f"({what}) (Law 36C).", rule="Law 36C"))
            else:
                out.append(self._inadmissible_passed_over(ev))
        if a.passed_out:
            self.phase = FINISHED
            self.turn = None
            return out
        bid, decl, dbl = a.contract()
        self._set_contract(bid, decl, dbl)
        return out + self._auction_exposures(ev)

    def _auction_exposures(self, ev: Event) -> list[Finding]:
        """Law 24: cards exposed in the auction become penalty cards if their owner defends."""
        out: list[Finding] = []
        for s, ci, f, low in self.auction_exposed:
            if low and sum(1 for x in self.auction_exposed if x[0] == s) == 1:
                continue  # Law 24A: a single low card, no rectification
            if self._is_defender(s):
                out.append(self._update(f, ev, "rectified", f"{SEAT_LETTERS[s]} is a defender: {CARD_TEXT[ci]} "
                                        "exposed during the auction becomes a penalty card (Law 24)."))
                out.append(self._penalty(ev, s, ci, True, "exposed during the auction (Law 24)", "Law 24"))
            else:
                out.append(self._update(f, ev, "rectified", f"{SEAT_LETTERS[s]} is declarer or dummy: "
                                        f"{CARD_TEXT[ci]} goes back to the hand (Law 24, Law 48A)."))
        self.auction_exposed = []
        if self.n_pen and self.lead_turn is not None:
            self._lead_options(ev, self.lead_turn, out)
        return out

    def _set_contract(self, bid: str | None, decl: int | None, dbl: int) -> None:
        self.bid, self.declarer, self.doubled = bid, decl, dbl
        self.trump = STRAIN_TRUMP[bid[1]] if bid else -1
        self.dummy = (decl + 2) & 3 if decl is not None else None
        self.lead_turn = self.turn = (decl + 1) & 3 if decl is not None else None
        self.phase = PLAY

    def _contract_event(self, ev: Event) -> list[Finding]:
        """``contract`` event: contract and declarer known without an auction (archives)."""
        self.last_index = ev.index
        out: list[Finding] = []
        if self.phase is DEALING:
            out += self._check_deal(ev)
        text = str(ev.data["contract"]).strip().upper().replace("NT", "N")
        decl = seat_index(ev.data.get("declarer")) if ev.data.get("declarer") is not None else None
        if self.auction.calls or self.phase not in (DEALING, AUCTION):
            mine = contract_text(self.bid, self.doubled) if self.bid else ("Pass" if self.auction.passed_out else None)
            if mine is None or mine.upper() != text or (decl is not None and decl != self.declarer):
                out.append(self._bad(f"Contract {text} by {seat_name(decl)} differs from the auction's "
                                     f"{mine} by {seat_name(self.declarer)}; the auction is kept.", ev))
            return out
        if text in ("P", "PASS", "AP", "PASSED"):
            self.auction.passed_out = self.auction.closed = True
            self.phase = FINISHED
            return out
        dbl = 2 if text.endswith("XX") else 1 if text.endswith("X") else 0
        bid = text.rstrip("X")
        if bid not in BID_RANK or decl is None:
            out.append(self._bad(f"Contract {ev.data['contract']!r} by {ev.data.get('declarer')!r} not understood; "
                                 "skipped.", ev))
            return out
        self.auction.closed = True
        self._set_contract(bid, decl, dbl)
        return out
