"""``BridgeBoard``: one board of duplicate bridge as a fold over its events.

The engine never refuses an event. An illegal or impossible event is applied
the way the table evidently played it and recorded as a finding carrying the
Law, a one-sentence message for the director, the options the Law gives the
non-offending side and the remedy. Irregularities have a lifecycle: a revoke
is reported ``pending`` when it happens, then ``established`` (Law 63) or
``corrected`` (Law 62), each time re-emitted under the same ``id``.

Hot path: ``deal`` and ``play`` events are most of an archive (about 100 per
board), so they run on small integers (see :mod:`.tables`) and leave every
rarely needed check behind a single ``if``.
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any

from ...cards import Card
from ...engine import BoardEngine
from ...events import Event
from ...findings import Finding, bad_event
from .auction import Auction, lowest_sufficient
from .law64 import transfers
from .tables import (BID_RANK, BID_TEXT, BIT, CARD_BY_TEXT, CARD_OBJ, LOW_MASK, CARD_INDEX, CARD_TEXT, FULL_MASK, HONOUR, RANK_VALUE, SEAT_INDEX,
                     SEAT_LETTERS, SIDE_NAME, STRAIN_TRUMP, SUIT, SUIT_LETTER, SUIT_MASK, SUIT_WORD,
                     card_index, contract_text, mask_cards, parse_call, seat_index)

with open(os.path.join(os.path.dirname(__file__), "laws.json"), encoding="utf-8") as _fp:
    LAWS: dict[str, Any] = json.load(_fp)
"""Rule citations, options and remedies by situation (data, see laws.json)."""

DEALING, AUCTION, PLAY, FINISHED = "dealing", "auction", "play", "finished"
VULNERABLE = {"none": "None", "-": "None", "love": "None", "ns": "NS", "ew": "EW", "all": "All", "both": "All", "b": "All"}


class Revoke:
    """One revoke: who, where, and how far it has come in its lifecycle."""

    __slots__ = ("seat", "trick", "suit", "card", "event", "established", "corrected", "faced", "kind", "finding")

    def __init__(self, seat: int, trick: int, suit: int, card: int, event: int | None, kind: str, faced: bool) -> None:
        self.seat, self.trick, self.suit, self.card, self.event = seat, trick, suit, card, event
        self.kind, self.faced = kind, faced
        self.established = False
        self.corrected = False
        self.finding: Finding | None = None


class PenaltyCard:
    __slots__ = ("seat", "card", "major", "finding")

    def __init__(self, seat: int, card: int, major: bool, finding: Finding) -> None:
        self.seat, self.card, self.major, self.finding = seat, card, major, finding


def _seat_name(s: int | None) -> str | None:
    return None if s is None else SEAT_LETTERS[s]


class BridgeBoard(BoardEngine):
    """Contract bridge, Laws of Duplicate Bridge 2017. See ``docs/bridge.md``."""

    game = "bridge"

    def __init__(self, board_event: Event, ruleset: dict[str, Any] | None = None) -> None:
        super().__init__(board_event, ruleset)
        # A tournament may reword citations, options or remedies (e.g. translate them): ruleset["laws"].
        self.laws = {**LAWS, **self.ruleset["laws"]} if "laws" in self.ruleset else LAWS
        d = board_event.data
        dealer = d.get("dealer")
        self.dealer: int | None = SEAT_INDEX.get(id(dealer)) if dealer is not None else None
        if self.dealer is None and dealer is not None:
            self.dealer = seat_index(dealer)
        vul = d.get("vulnerable")
        self.vulnerable = VULNERABLE.get(str(vul).lower(), str(vul)) if vul is not None else None
        self.phase = DEALING
        self.last_index = board_event.index
        self._n = 0
        # deal
        self.held = [0, 0, 0, 0]
        self.ndealt = [0, 0, 0, 0]
        self.extra_dealt = [0, 0, 0, 0]
        self.dealt_mask = 0
        self.dealt: list[int] | None = None
        self.watch = False
        self.deal_checked = False
        self.misdealt = False
        self.known = [False, False, False, False]
        # auction
        self.auction = Auction(self.dealer)
        self.bid: str | None = None
        self.doubled = 0
        self.declarer: int | None = None
        self.dummy: int | None = None
        self.trump = -1
        # play
        self.cur: list[tuple[int, int]] = []
        self.cur_led = -1
        self.cur_best = -1
        self.cur_best_seat = -1
        self.lead_turn: int | None = None
        self.turn: int | None = self.dealer
        self.tricks: list[tuple[int, list[tuple[int, int]], int]] = []
        self.won = [0, 0]
        self.revokes: list[Revoke] = []
        self.unest: list[Revoke] = []
        self.pen: list[dict[int, PenaltyCard]] = [{}, {}, {}, {}]
        self.n_pen = 0
        self.ootl: list[Any] | None = None
        self.demand: list[Any] | None = None
        self.void = [0, 0, 0, 0]
        self.void_at: dict[tuple[int, int], tuple[int, int, int | None]] = {}
        self.premature: list[Any] | None = None
        self.fix: list[Any] | None = None  # [trick, position, offending side, non-offender withdrew]
        self.late: Revoke | None = None
        self.claim: tuple[int, int, int | None] | None = None
        self.open: dict[str, Finding] = {}
        self.auction_exposed: list[tuple[int, int, Finding, bool]] = []

    # ------------------------------------------------------------------ fold
    def apply(self, event: Event) -> list[Finding]:
        t = event.type
        if t == "play":
            return self._play(event)
        if t == "deal":  # inlined: 52 of these per board
            d = event.data
            s = SEAT_INDEX.get(id(d["to"]))
            ci = CARD_INDEX.get(id(d["card"]))
            if s is None or ci is None or self.phase is not DEALING or "face_up" in d:
                return self._deal(event)
            bit = BIT[ci]
            m = self.dealt_mask
            if m & bit:
                return self._deal(event)
            self.dealt_mask = m | bit
            self.held[s] |= bit
            return []
        h = _DISPATCH.get(t)
        if h is None:
            self.last_index = event.index
            return [self._bad(f"'{event.type}' events mean nothing in bridge; skipped.", event)]
        out = h(self, event)
        self._rewatch()
        return out

    def _rewatch(self) -> None:
        """Keep ``watch`` true while anything makes the next play need the full checks."""
        self.watch = bool(self.ootl is not None or self.late is not None or self.unest or self.n_pen
                          or self.demand is not None or self.premature is not None)

    # -- finding helpers ------------------------------------------------------
    def _new(self, kind: str, key: str, message: str, ev: Event | int | None, seat: int | None = None,
             trick: int | None = None, status: str = "pending", rule: str | None = None, **extra: Any) -> Finding:
        law = self.laws[key]
        self._n += 1
        idx = ev.index if isinstance(ev, Event) else (ev if ev is not None else self.last_index)
        f = Finding(kind, rule=rule or law["rule"], message=message, board=self.board, event=idx,
                    seat=_seat_name(seat), trick=trick, status=status, options=list(law["options"]),
                    remedy=law["remedy"], id=f"{self.board}-{kind}-{self._n}", extra=extra)
        self.findings.append(f)
        if status == "pending":
            self.open[f.id] = f
        return f

    def _update(self, f: Finding, ev: Event | int | None, status: str, message: str, rule: str | None = None,
                key: str | None = None, **extra: Any) -> Finding:
        idx = ev.index if isinstance(ev, Event) else (ev if ev is not None else self.last_index)
        g = dataclasses.replace(f, status=status, message=message, event=idx, extra={**f.extra, **extra})
        if key is not None:
            law = self.laws[key]
            g.rule, g.options, g.remedy = law["rule"], list(law["options"]), law["remedy"]
        if rule is not None:
            g.rule = rule
        self.findings.append(g)
        if status == "pending":
            self.open[g.id] = g
        else:
            self.open.pop(g.id, None)
        return g

    def _bad(self, message: str, ev: Event | None) -> Finding:
        f = bad_event(message, ev.index if ev is not None else self.last_index, self.board)
        self.findings.append(f)
        return f

    def _is_defender(self, s: int) -> bool:
        return self.declarer is not None and s != self.declarer and s != self.dummy

    # ------------------------------------------------------------------ deal
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

    # --------------------------------------------------------------- auction
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
        if code is None:
            out.append(self._bad(f"{SEAT_LETTERS[s]}'s call {d['call']!r} is not a bridge call; skipped.", ev))
            return out
        a = self.auction
        if self.phase is not AUCTION or a.closed:
            out.append(self._call_after_auction(ev, s, code))
            return out
        if a.pending is not None:
            out += self._resolve_call(ev, s, code)
        if a.turn is None:  # no dealer on the board event: the first caller deals
            a.dealer = a.turn = self.dealer = s
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
                                         seat=s, call=code))
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
            return [self._update(f, ev, "rectified", f"The auction went on after {SEAT_LETTERS[o]}'s inadmissible "
                                 f"{f.extra['call']}, which has no effect (Law 36).", rule="Law 36")]
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
                             f"went back to {SEAT_LETTERS[info]} (Law 29B; Laws 30-32 say whether a partner must "
                             "pass).", rule="Law 29B", accepted=False)]

    def _close_auction(self, ev: Event) -> list[Finding]:
        a = self.auction
        a.pending = None
        if a.passed_out:
            self.phase = FINISHED
            self.turn = None
            return []
        bid, decl, dbl = a.contract()
        self._set_contract(bid, decl, dbl)
        return self._auction_exposures(ev)

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
                out.append(self._bad(f"Contract {text} by {_seat_name(decl)} differs from the auction's "
                                     f"{mine} by {_seat_name(self.declarer)}; the auction is kept.", ev))
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

    # ------------------------------------------------------------------ play
    def _enter_play(self, ev: Event, s: int | None) -> list[Finding]:
        """First card (or claim / expose) after the deal or the auction."""
        out: list[Finding] = []
        if not self.deal_checked:
            out += self._check_deal(ev)
        if self.phase is FINISHED:
            why = "the board was passed out" if self.auction.passed_out else "play is over (claim)"
            out.append(self._bad(f"'{ev.type}' event after {why}; skipped.", ev))
            return out
        a = self.auction
        if a.last_bid >= 0:
            bid, decl, dbl = a.contract()
            out.append(self._new("auction_incomplete", "result",
                                 f"Play began before the auction was closed by three passes; the contract is taken "
                                 f"as {contract_text(bid, dbl)} by {SEAT_LETTERS[decl]}.", ev, status="info",
                                 rule="Law 22A"))
            a.closed = True
            self._set_contract(bid, decl, dbl)
        else:
            # No auction in the log (camera-only): the first lead names the defenders.
            self.phase = PLAY
            if ev.type == "play" and s is not None:
                self.declarer = (s + 3) & 3
                self.dummy = (s + 1) & 3
                self.lead_turn = self.turn = s
        return out

    def _play(self, ev: Event) -> list[Finding]:
        """A card played. Fast path: in turn, from a known hand, following suit (or void)."""
        d = ev.data
        s = SEAT_INDEX.get(id(d["seat"]))
        ci = CARD_INDEX.get(id(d["card"]))
        if self.watch or s is None or ci is None or s != self.turn or self.phase is not PLAY:
            return self._play_full(ev)
        held = self.held
        h = held[s]
        bit = BIT[ci]
        if not h & bit:
            return self._play_full(ev)
        cur = self.cur
        su = SUIT[ci]
        if cur:
            led = self.cur_led
            if su != led:
                if h & SUIT_MASK[led]:
                    return self._play_full(ev)  # a revoke
                if su == self.trump:
                    b = self.cur_best
                    if SUIT[b] != su or RANK_VALUE[ci] > RANK_VALUE[b]:
                        self.cur_best = ci
                        self.cur_best_seat = s
            elif RANK_VALUE[ci] > RANK_VALUE[self.cur_best] and SUIT[self.cur_best] == su:
                self.cur_best = ci
                self.cur_best_seat = s
            cur.append((s, ci))
            held[s] = h ^ bit
            if len(cur) == 4:
                w = self.cur_best_seat
                self.tricks.append((cur[0][0], cur, w))
                self.won[w & 1] += 1
                self.cur = []
                self.lead_turn = self.turn = w
            else:
                self.turn = (s + 1) & 3
            return []
        self.cur_led = su
        self.cur_best = ci
        self.cur_best_seat = s
        cur.append((s, ci))
        held[s] = h ^ bit
        self.turn = (s + 1) & 3
        return []

    def _play_full(self, ev: Event) -> list[Finding]:
        """Every check: irregular turn, revokes, penalty cards, unknown hands, pending irregularities."""
        d = ev.data
        s = SEAT_INDEX.get(id(d["seat"]))
        ci = CARD_INDEX.get(id(d["card"]))
        self.last_index = ev.index
        out = self._play_checked(ev, s, ci)
        self._rewatch()
        return out

    def _play_checked(self, ev: Event, s: int | None, ci: int | None) -> list[Finding]:
        d = ev.data
        if s is None or ci is None:
            s = seat_index(d["seat"])
            ci = card_index(d["card"])
            if ci is None:
                return [self._bad(f"{d['card']} is not a bridge card; skipped.", ev)]
        out: list[Finding] = []
        if self.phase is not PLAY:
            out = self._enter_play(ev, s)
            if self.phase is not PLAY:
                return out
        if self.ootl is not None or self.late is not None or self.unest:
            handled = self._play_pre(ev, s, ci, out)
            if handled:
                return out
        cur = self.cur
        su = SUIT[ci]
        if not cur:
            if s != self.lead_turn and self.lead_turn is not None:
                out.append(self._lead_out_of_turn(ev, s, ci))
            self.cur_led = su
            self.cur_best = ci
            self.cur_best_seat = s
            if self.n_pen or self.demand is not None:
                self._penalty_duties(ev, s, ci, True, out)
        else:
            if s != self.turn:
                if self._cur_mask() >> s & 1:
                    out.append(self._second_card(ev, s, ci))
                    return out
                out.append(self._play_out_of_turn(ev, s, ci))
            led = self.cur_led
            if su != led:
                if self.known[s]:
                    if self.held[s] & SUIT_MASK[led]:
                        out.append(self._revoke(ev, s, ci, "suit"))
                else:
                    self._show_out(ev, s, led)
                if su == self.trump:
                    b = self.cur_best
                    if SUIT[b] != su or RANK_VALUE[ci] > RANK_VALUE[b]:
                        self.cur_best = ci
                        self.cur_best_seat = s
            elif RANK_VALUE[ci] > RANK_VALUE[self.cur_best] and SUIT[self.cur_best] == su:
                self.cur_best = ci
                self.cur_best_seat = s
            if self.n_pen:
                self._penalty_duties(ev, s, ci, False, out)
        if self.void[s] and self.void[s] >> su & 1:
            out.append(self._late_revoke(ev, s, su))
        bit = BIT[ci]
        h = self.held[s]
        if h & bit:
            self.held[s] = h ^ bit
        elif self.known[s] or self._played_mask() & bit:
            out.append(self._not_held(ev, s, ci))
        cur.append((s, ci))
        if len(cur) == 4:
            w = self.cur_best_seat
            self.tricks.append((cur[0][0], cur, w))
            self.won[w & 1] += 1
            self.cur = []
            self.lead_turn = self.turn = w
            if self.demand is not None and self.demand[2] == "forbid" and w != self.demand[0]:
                self.demand = None
            if self.n_pen and len(self.tricks) < 13:
                self._lead_options(ev, w, out)
            pm = self.premature
            if pm is not None:
                self.premature = None
                out.append(self._update(pm[2], ev, "rectified", f"{SEAT_LETTERS[pm[0]]}'s premature "
                                        f"{CARD_TEXT[pm[1]]} stayed played and trick {pm[3]} was completed; no "
                                        "rectification was applied."))
        else:
            t = (s + 1) & 3
            m = self._cur_mask()
            while m >> t & 1:
                t = (t + 1) & 3
            self.turn = t
        return out

    def _cur_mask(self) -> int:
        m = 0
        for x, _ in self.cur:
            m |= 1 << x
        return m

    def _played_mask(self) -> int:
        m = 0
        for _, cards, _ in self.tricks:
            for _, c in cards:
                m |= BIT[c]
        for _, c in self.cur:
            m |= BIT[c]
        return m

    def _play_pre(self, ev: Event, s: int, ci: int, out: list[Finding]) -> bool:
        """Rare work before a play: establishment, a pending lead out of turn, a trick-12 fix.

        Returns True when the play was fully handled here.
        """
        if self.late is not None:
            return self._late_fix(ev, s, ci, out)
        if self.ootl is not None:
            self._resolve_lead(ev, s, out)
        if self.unest:
            tn = len(self.tricks) + 1
            for r in list(self.unest):
                if tn > r.trick and (s & 1) == (r.seat & 1):
                    out.append(self._establish(r, ev, f"{SEAT_LETTERS[s]} played to trick {tn}"))
        return False

    # -- revokes ------------------------------------------------------------
    def _revoke(self, ev: Event, s: int, ci: int, kind: str, required: list[str] | None = None) -> Finding:
        tn = len(self.tricks) + 1
        faced = kind == "penalty" or (s == self.dummy and self.dummy is not None)
        r = Revoke(s, tn, self.cur_led if kind == "suit" else SUIT[ci], ci, ev.index, kind, faced)
        who = f"{SEAT_LETTERS[s]} (dummy)" if s == self.dummy else SEAT_LETTERS[s]
        if kind == "suit":
            msg = (f"{who} revoked on trick {tn}: played {CARD_TEXT[ci]} on a {SUIT_WORD[self.cur_led][:-1]} "
                   f"lead while holding {SUIT_WORD[self.cur_led]}.")
            key = "revoke_trick12" if tn == 12 else "revoke"
        elif kind == "penalty":
            msg = (f"{who} played {CARD_TEXT[ci]} on trick {tn} instead of the penalty card "
                   f"{' or '.join(required or [])} it had to play (Law 50, a revoke under Law 61A).")
            key = "revoke_penalty_card"
        else:
            msg = f"{who} led {CARD_TEXT[ci]} against declarer's lead demand ({(required or [''])[0]}), a revoke (Law 61A)."
            key = "revoke_demand"
        extra: dict[str, Any] = {"established": False, "card": CARD_TEXT[ci]}
        if required:
            extra["required"] = required
        r.finding = self._new("revoke", key, msg, ev, seat=s, trick=tn, **extra)
        self.revokes.append(r)
        self.unest.append(r)
        return r.finding

    def _establish(self, r: Revoke, ev: Event | int | None, why: str) -> Finding:
        r.established = True
        self.unest.remove(r)
        key = "revoke_trick12" if r.trick == 12 else "revoke_established"
        note = ("; it must still be corrected (Law 62D)" if r.trick == 12 else
                "; tricks may be transferred at the end of play (Law 64)")
        r.finding = self._update(r.finding, ev, "established",
                                 f"{SEAT_LETTERS[r.seat]}'s revoke on trick {r.trick} became established when "
                                 f"{why}{note}.", key=key, established=True)
        return r.finding

    def _show_out(self, ev: Event, s: int, led: int) -> None:
        """Unknown hand failed to follow: remember it, a later card of the suit proves a revoke."""
        if not self.void[s] >> led & 1:
            self.void[s] |= 1 << led
            self.void_at[(s, led)] = (len(self.tricks) + 1, self.cur[0][1], ev.index)

    def _late_revoke(self, ev: Event, s: int, su: int) -> Finding:
        """Law 61 seen afterwards: a hand that showed out of a suit now plays it."""
        self.void[s] &= ~(1 << su)
        tn, _, idx = self.void_at.pop((s, su))
        r = Revoke(s, tn, su, -1, idx, "suit", s == self.dummy and self.dummy is not None)
        now = len(self.tricks) + 1
        r.established = now > tn
        self.revokes.append(r)
        msg = (f"{SEAT_LETTERS[s]} revoked on trick {tn}: it did not follow to {SUIT_WORD[su]} there but plays a "
               f"{SUIT_WORD[su][:-1]} now, on trick {now}.")
        r.finding = self._new("revoke", "revoke_established" if r.established else "revoke", msg, ev, seat=s,
                              trick=tn, status="established" if r.established else "pending",
                              established=r.established, detected_at=ev.index, revoke_event=idx,
                              retrospective=True)
        if not r.established:
            self.unest.append(r)
        return r.finding

    def _not_held(self, ev: Event, s: int, ci: int) -> Finding:
        bit = BIT[ci]
        if self._played_mask() & bit:
            return self._bad(f"{CARD_TEXT[ci]} was played a second time (by {SEAT_LETTERS[s]}); check the card "
                             "recognition or the log.", ev)
        other = [SEAT_LETTERS[x] for x in range(4) if self.held[x] & bit]
        if other:
            for x in range(4):
                self.held[x] &= ~bit
            return self._bad(f"{SEAT_LETTERS[s]} played {CARD_TEXT[ci]}, which was dealt to {', '.join(other)}.", ev)
        if self.dealt_mask and not self.dealt_mask & bit and self.ndealt[s] < 13:
            # Law 14B: a missing card found during play belongs to the deficient hand.
            self.dealt_mask |= bit
            self.ndealt[s] += 1
            return self._new("missing_card", "missing_card",
                             f"The missing card {CARD_TEXT[ci]} turned up in {SEAT_LETTERS[s]}'s hand, which was "
                             f"short; it is deemed to have belonged to it throughout (Law 14B).", ev, seat=s,
                             status="info", rule="Law 14B", card=CARD_TEXT[ci])
        return self._bad(f"{SEAT_LETTERS[s]} played {CARD_TEXT[ci]}, which was not dealt in this board.", ev)

    # -- leads and plays out of turn ------------------------------------------
    def _lead_out_of_turn(self, ev: Event, s: int, ci: int) -> Finding:
        tn = len(self.tricks) + 1
        correct = self.lead_turn
        defender = self._is_defender(s)
        if tn == 1 and defender:
            key = "lead_out_of_turn_opening"
        elif defender:
            key = "lead_out_of_turn_defender"
        else:
            key = "lead_out_of_turn_declarer"
        role = "" if defender else (" from dummy" if s == self.dummy else " (declarer)")
        f = self._new("lead_out_of_turn", key,
                      f"{SEAT_LETTERS[s]}{role} led {CARD_TEXT[ci]} to trick {tn} out of turn; "
                      f"{SEAT_LETTERS[correct]} should have led.", ev, seat=s, trick=tn, card=CARD_TEXT[ci],
                      expected=SEAT_LETTERS[correct])
        self.ootl = [s, ci, f, correct, tn, key]
        return f

    def _resolve_lead(self, ev: Event, s: int, out: list[Finding]) -> None:
        """The card after a lead out of turn shows whether it was accepted (Law 53A)."""
        o, oci, f, correct, tn, key = self.ootl
        if s != correct or s == ((o + 1) & 3) or not self.cur:
            self.ootl = None
            law = "Law 54B" if key == "lead_out_of_turn_opening" else "Law 53A"
            how = ("declarer accepted it and plays second from his own hand (Law 54B)" if law == "Law 54B" else
                   f"it was accepted when {SEAT_LETTERS[s]} played to it (Law 53A)")
            out.append(self._update(f, ev, "rectified", f"{SEAT_LETTERS[o]}'s lead out of turn stands: {how}.",
                                    rule=law, accepted=True))
            return
        out += self._reject_lead(ev, f"{SEAT_LETTERS[correct]} led instead")

    def _reject_lead(self, ev: Event, why: str) -> list[Finding]:
        o, oci, f, correct, tn, key = self.ootl
        self.ootl = None
        out: list[Finding] = []
        self._take_back(o, oci)
        self.cur = []
        self.lead_turn = self.turn = correct
        if self._is_defender(o):
            law = "Law 54D" if key == "lead_out_of_turn_opening" else "Law 56"
            out.append(self._update(f, ev, "corrected", f"{SEAT_LETTERS[o]}'s lead out of turn was not accepted "
                                    f"({why}); {CARD_TEXT[oci]} becomes a major penalty card ({law}).", rule=law,
                                    accepted=False))
            out.append(self._penalty(ev, o, oci, True, f"led out of turn and not accepted ({law})", law))
            self._lead_options(ev, correct, out)
        else:
            out.append(self._update(f, ev, "corrected", f"The lead out of turn from {SEAT_LETTERS[o]} was not "
                                    f"accepted ({why}); {CARD_TEXT[oci]} goes back without rectification "
                                    "(Law 55B).", rule="Law 55B", accepted=False))
        return out

    def _play_out_of_turn(self, ev: Event, s: int, ci: int) -> Finding:
        tn = len(self.tricks) + 1
        defender = self._is_defender(s)
        partner_played = self._cur_mask() >> ((s + 2) & 3) & 1
        if defender and not partner_played:  # Law 57A: premature play before partner
            f = self._new("play_out_of_turn", "play_out_of_turn_defender",
                          f"{SEAT_LETTERS[s]} played {CARD_TEXT[ci]} to trick {tn} before partner "
                          f"({SEAT_LETTERS[(s + 2) & 3]}) had played, at {SEAT_LETTERS[self.turn]}'s turn.", ev,
                          seat=s, trick=tn, card=CARD_TEXT[ci])
            self.premature = [s, ci, f, tn]
            return f
        key = "play_out_of_rotation" if defender else "play_out_of_turn_declarer"
        return self._new("play_out_of_turn", key,
                         f"{SEAT_LETTERS[s]} played {CARD_TEXT[ci]} to trick {tn} before "
                         f"{SEAT_LETTERS[self.turn]} had played; no rectification.", ev, seat=s, trick=tn,
                         status="info", card=CARD_TEXT[ci])

    def _second_card(self, ev: Event, s: int, ci: int) -> Finding:
        """Law 58B: a second card from one hand to one trick is not played."""
        tn = len(self.tricks) + 1
        if self._is_defender(s):
            return self._penalty(ev, s, ci, False, f"a second card played to trick {tn} (Law 58B)", "Law 58B")
        return self._new("play_out_of_turn", "two_cards_to_trick",
                         f"{SEAT_LETTERS[s]} played a second card ({CARD_TEXT[ci]}) to trick {tn}; it goes back to "
                         "the hand.", ev, seat=s, trick=tn, status="info", card=CARD_TEXT[ci])

    # -- penalty cards ------------------------------------------------------
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

    # -- retract / expose / accept / lead demand -----------------------------
    def _take_back(self, s: int, ci: int) -> None:
        bit = BIT[ci]
        self.held[s] |= bit

    def _recompute_trick(self) -> None:
        cur = self.cur
        if not cur:
            self.turn = self.lead_turn
            return
        mask = 0
        self.cur_led = SUIT[cur[0][1]]
        self.cur_best, self.cur_best_seat = cur[0][1], cur[0][0]
        for s, c in cur:
            mask |= 1 << s
            b = self.cur_best
            if (SUIT[c] == SUIT[b] and RANK_VALUE[c] > RANK_VALUE[b]) or (SUIT[c] == self.trump and SUIT[b] != self.trump):
                self.cur_best, self.cur_best_seat = c, s
        t = cur[0][0]
        if mask != 15:
            while mask >> t & 1:
                t = (t + 1) & 3
        self.turn = t

    def _retract(self, ev: Event) -> list[Finding]:
        self.last_index = ev.index
        d = ev.data
        s, ci = seat_index(d["seat"]), card_index(d["card"])
        if ci is None:
            return [self._bad(f"{d['card']} is not a bridge card; skipped.", ev)]
        if self.phase is not PLAY:
            return [self._bad(f"{SEAT_LETTERS[s]} took back {CARD_TEXT[ci]} but no card is in play; skipped.", ev)]
        out: list[Finding] = []
        pos = self._find_in_trick(s, ci)
        if pos is None and not self.cur and self.tricks and (s, ci) in self.tricks[-1][1]:
            leader, cards, w = self.tricks.pop()  # reopen the trick just turned
            self.won[w & 1] -= 1
            self.cur = list(cards)
            self.lead_turn = leader
            self._recompute_trick()
            pos = self._find_in_trick(s, ci)
        if pos is None:
            r = next((r for r in self.revokes if r.trick == 12 and r.seat == s and r.card == ci and not r.corrected),
                     None)
            if r is not None and len(self.tricks) >= 12 and (s, ci) in self.tricks[11][1]:
                self.late = r
                return out
            return [self._bad(f"{SEAT_LETTERS[s]} took back {CARD_TEXT[ci]}, which is not in the current trick; "
                              "skipped.", ev)]
        tn = len(self.tricks) + 1
        ootl = self.ootl
        if ootl is not None and ootl[0] == s and ootl[1] == ci:
            return self._reject_lead(ev, f"{SEAT_LETTERS[s]} took the card back")
        pm = self.premature
        if pm is not None and pm[0] == s and pm[1] == ci and pm[3] == tn:
            self.premature = None
            del self.cur[pos]
            self._take_back(s, ci)
            out.append(self._update(pm[2], ev, "corrected", f"{SEAT_LETTERS[s]}'s premature {CARD_TEXT[ci]} was "
                                    "taken back; it becomes a major penalty card and declarer chooses for partner "
                                    "(Law 57A).", rule="Law 57A"))
            out.append(self._penalty(ev, s, ci, True, "played before partner and taken back (Law 57A)", "Law 57A"))
            self._recompute_trick()
            return out
        r = next((r for r in self.unest if r.seat == s and r.card == ci and r.trick == tn), None)
        del self.cur[pos]
        self._take_back(s, ci)
        if r is not None:
            r.corrected = True
            self.unest.remove(r)
            self.fix = [tn, pos, s & 1, False]
            defender = self._is_defender(s)
            key = "revoke_trick12" if tn == 12 else "revoke_corrected"
            tail = (f"; {CARD_TEXT[ci]} becomes a major penalty card (Law 62B1)" if defender else
                    "; declarer's card is simply replaced (Law 62B2)")
            r.finding = self._update(r.finding, ev, "corrected",
                                     f"{SEAT_LETTERS[s]} corrected the revoke on trick {tn}{tail}.", key=key,
                                     rule="Law 62D" if tn == 12 else "Law 62B", corrected=True)
            out.append(r.finding)
            if defender:
                why = ("a withdrawn revoke card (Law 62B1)" if r.kind != "penalty" else
                       "played instead of a penalty card and withdrawn (Law 52B2)")
                out.append(self._penalty(ev, s, ci, True, why, "Law 62B1" if r.kind != "penalty" else "Law 52B2"))
        elif self.fix is not None and self.fix[0] == tn and pos >= self.fix[1]:
            if (s & 1) != self.fix[2]:
                self.fix[3] = True  # Law 62C1: the non-offending side may take back cards played after it
            elif not self.fix[3]:
                out.append(self._new("card_withdrawn", "card_withdrawn",
                                     f"{SEAT_LETTERS[s]} took back {CARD_TEXT[ci]} after the revoke was corrected, "
                                     "but no opponent had changed his card first (Law 62C2).", ev, seat=s, trick=tn,
                                     rule="Law 62C2", card=CARD_TEXT[ci]))
            elif self._is_defender(s):
                out.append(self._penalty(ev, s, ci, True, "withdrawn after the revoke was corrected (Law 62C2)",
                                         "Law 62C2"))
        else:
            out.append(self._new("card_withdrawn", "card_withdrawn",
                                 f"{SEAT_LETTERS[s]} took back {CARD_TEXT[ci]} from trick {tn} without a Law "
                                 "allowing it.", ev, seat=s, trick=tn, card=CARD_TEXT[ci]))
        self._recompute_trick()
        return out

    def _find_in_trick(self, s: int, ci: int) -> int | None:
        for i, (x, c) in enumerate(self.cur):
            if x == s and c == ci:
                return i
        return None

    def _late_fix(self, ev: Event, s: int, ci: int, out: list[Finding]) -> bool:
        """Law 62D: a trick-12 revoke corrected after trick 13 began - swap the two cards."""
        r = self.late
        self.late = None
        t12 = self.tricks[11]
        if s != r.seat:
            out.append(self._bad(f"Expected {SEAT_LETTERS[r.seat]} to replace {CARD_TEXT[r.card]} on trick 12; "
                                 "the correction is abandoned.", ev))
            return False
        cards12 = [(x, ci if (x == s and c == r.card) else c) for x, c in t12[1]]
        moved = False
        if len(self.tricks) >= 13:
            cards13 = [(x, r.card if (x == s and c == ci) else c) for x, c in self.tricks[12][1]]
            moved = cards13 != self.tricks[12][1]
            if moved:
                self.tricks[12] = (self.tricks[12][0], cards13, self._winner(cards13))
        else:
            for i, (x, c) in enumerate(self.cur):
                if x == s and c == ci:
                    self.cur[i] = (x, r.card)
                    moved = True
            if not moved:
                self._take_back(s, ci)
                self.held[s] &= ~BIT[r.card]
                self.held[s] &= ~BIT[ci]
            self._recompute_trick()
        self.tricks[11] = (t12[0], cards12, self._winner(cards12))
        self.won = [0, 0]
        for _, _, w in self.tricks:
            self.won[w & 1] += 1
        r.corrected = True
        if r in self.unest:
            self.unest.remove(r)
        r.finding = self._update(r.finding, ev, "corrected",
                                 f"{SEAT_LETTERS[s]} corrected the revoke on trick 12 by playing {CARD_TEXT[ci]} "
                                 "(Law 62D); no trick transfer.", key="revoke_trick12", corrected=True)
        out.append(r.finding)
        return True

    def _winner(self, cards: list[tuple[int, int]]) -> int:
        bs, b = cards[0]
        for s, c in cards[1:]:
            if (SUIT[c] == SUIT[b] and RANK_VALUE[c] > RANK_VALUE[b]) or (SUIT[c] == self.trump and SUIT[b] != self.trump):
                bs, b = s, c
        return bs

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

    def _accept(self, ev: Event) -> list[Finding]:
        """``accept``: the non-offending side's choice about the last irregularity."""
        self.last_index = ev.index
        d = ev.data
        yes = d.get("accepted", True)
        law = str(d.get("law", "")).upper().replace("LAW", "").strip()
        out: list[Finding] = []
        if self.ootl is not None:
            o, oci, f, correct, tn, key = self.ootl
            if not yes:
                return self._reject_lead(ev, f"{SEAT_LETTERS[seat_index(d['seat'])]} did not accept it")
            self.ootl = None
            if law == "54A" and key == "lead_out_of_turn_opening":
                self.declarer, self.dummy = self.dummy, self.declarer
                out.append(self._update(f, ev, "rectified", f"Declarer accepted {SEAT_LETTERS[o]}'s opening lead "
                                        f"and became dummy; {SEAT_LETTERS[self.declarer]} is declarer (Law 54A).",
                                        rule="Law 54A", accepted=True))
            else:
                out.append(self._update(f, ev, "rectified", f"{SEAT_LETTERS[o]}'s lead out of turn was accepted "
                                        "(Law 53A).", rule="Law 54B" if key.endswith("opening") else "Law 53A",
                                        accepted=True))
            return out
        a = self.auction
        if a.pending is not None:
            kind, o, f, snap, info = a.pending
            a.pending = None
            if not yes and kind != "oot":
                # Laws 27B / 36: the offender must now substitute a call; his next call resolves it.
                a.revert(snap)
                a.turn = o
                a.pending = (kind, o, f, snap, info)
                rule = "Law 27B" if kind == "insufficient" else "Law 36"
                return [self._update(f, ev, "pending", f"{SEAT_LETTERS[o]}'s {f.kind.replace('_', ' ')} was not "
                                     f"accepted; {SEAT_LETTERS[o]} must substitute a legal call ({rule}).",
                                     rule=rule, accepted=False)]
            if yes:
                if a.calls and a.calls[-1][2] in ("irregular", "cancelled") and kind != "inadmissible":
                    a.calls[-1][2] = "accepted"
                rule = "Law 27A" if kind == "insufficient" else "Law 29A"
                out.append(self._update(f, ev, "rectified", f"{SEAT_LETTERS[o]}'s {f.kind.replace('_', ' ')} was "
                                        f"accepted ({rule}).", rule=rule, accepted=True))
            else:
                a.revert(snap)
                out.append(self._update(f, ev, "corrected", f"{SEAT_LETTERS[o]}'s call out of turn was not "
                                        f"accepted; it is cancelled and the auction goes back to {SEAT_LETTERS[info]} "
                                        "(Law 29B).", rule="Law 29B", accepted=False))
            return out
        return [self._bad("'accept' event with no irregularity waiting for a choice; skipped.", ev)]

    def _lead_demand(self, ev: Event) -> list[Finding]:
        """``lead_demand``: declarer requires or forbids a suit (Laws 50D2, 54D, 56, 26)."""
        self.last_index = ev.index
        d = ev.data
        suit_txt = str(d["suit"]).strip().upper()[:1]
        mode = str(d.get("demand", "require")).lower()
        if suit_txt not in SUIT_LETTER or mode not in ("require", "forbid"):
            return [self._bad(f"lead_demand {d.get('demand')!r} {d['suit']!r} not understood; skipped.", ev)]
        suit = SUIT_LETTER.index(suit_txt)
        leader = self.lead_turn if self.lead_turn is not None else self.turn
        if d.get("seat") is not None and self.declarer is None:
            self.declarer = seat_index(d["seat"])
        self.demand = [leader, suit, mode]
        out: list[Finding] = []
        if leader is not None:
            for p in list(self.pen[(leader + 2) & 3].values()):
                if SUIT[p.card] == suit:
                    out.append(self._drop_penalty(ev, p, f"Declarer chose to {mode} {SUIT_WORD[suit]} from "
                                                  f"{SEAT_LETTERS[leader]}; {CARD_TEXT[p.card]} goes back to the hand "
                                                  "(Law 50D2)."))
        return out

    # ----------------------------------------------------------------- claim
    def _claim(self, ev: Event) -> list[Finding]:
        self.last_index = ev.index
        d = ev.data
        s = seat_index(d["seat"])
        n = d["tricks"]
        out: list[Finding] = []
        if self.phase is not PLAY:
            out += self._enter_play(ev, None)
            if self.phase is not PLAY:
                return out
        if not 0 <= n <= 13:
            out.append(self._bad(f"{SEAT_LETTERS[s]} claimed {n} tricks, which is impossible; skipped.", ev))
            return out
        for r in list(self.unest):
            out.append(self._establish(r, ev, f"{SEAT_LETTERS[s]} claimed (Law 63A3)"))
        if self.ootl is not None:
            self._resolve_lead(ev, (self.ootl[0] + 1) & 3, out)
        side = s & 1
        have = self.won[side]
        left = 13 - len(self.tricks)
        if n < have or n > have + left:
            out.append(self._bad(f"{SEAT_LETTERS[s]}'s claim of {n} tricks does not fit the play: the side has "
                                 f"{have} tricks and {left} remain; the claim is kept.", ev))
        self.claim = (s, n, ev.index)
        self.phase = FINISHED
        self.turn = None
        return out

    def _end(self, ev: Event) -> list[Finding]:
        self.last_index = ev.index
        return []

    # ----------------------------------------------------------------- finish
    def finish(self, event: Event | None = None) -> list[Finding]:
        if event is None and len(self.events) > 1:  # the Table keeps the board's events; the fast path
            self.last_index = self.events[-1].index  # does not track the index itself
        idx = event.index if event is not None else self.last_index
        out: list[Finding] = []
        if not self.deal_checked:
            out += self._check_deal(event)
        if self.ootl is not None:
            self.ootl = None
        for r in list(self.unest):
            out.append(self._establish(r, idx, "the board ended without a correction"))
        # Law 64 at the end of play.
        winners: list[int | None] = [w for _, _, w in self.tricks]
        claimed = [0, 0]
        if self.claim is not None:
            cs, n, _ = self.claim
            side = cs & 1
            left = 13 - len(self.tricks)
            mine = max(0, min(left, n - self.won[side]))
            claimed[side] = mine
            claimed[side ^ 1] = left - mine
        moved = [0, 0]
        est = [r for r in self.revokes if r.established and not r.corrected]
        for t in transfers(est, winners, (claimed[0], claimed[1])):
            r = t.revoke
            side = t.seat & 1
            moved[side] += t.tricks
            law = self.laws["trick_transfer"]
            self._n += 1
            msg = (f"{t.tricks} trick{'s' if t.tricks != 1 else ''} transferred from {SIDE_NAME[side]} to "
                   f"{SIDE_NAME[side ^ 1]} for {SEAT_LETTERS[t.seat]}'s revoke on trick {r.trick}: {t.reason} "
                   f"({t.rule})." if t.tricks else
                   f"No trick transferred for {SEAT_LETTERS[t.seat]}'s revoke on trick {r.trick}: {t.reason} "
                   f"({t.rule}); the director may still adjust (Law 64C).")
            f = Finding("trick_transfer", rule=t.rule, message=msg, board=self.board, event=idx,
                        seat=SEAT_LETTERS[t.seat], trick=r.trick, status="info", options=list(law["options"]),
                        remedy=law["remedy"] if t.tricks else None, id=f"{self.board}-trick_transfer-{self._n}",
                        extra={"tricks": t.tricks, "revoke_event": r.event, "revoke": r.finding.id if r.finding else None})
            self.findings.append(f)
            out.append(f)
        out.append(self._result(idx, claimed, moved))
        for s in range(4):
            for p in list(self.pen[s].values()):
                out.append(self._update(p.finding, idx, "info", f"{CARD_TEXT[p.card]} was still a penalty card of "
                                        f"{SEAT_LETTERS[s]} when the board ended.", open=False))
        self.phase = FINISHED
        return out

    def _result(self, idx: int | None, claimed: list[int], moved: list[int]) -> Finding:
        law = self.laws["result"]
        self._n += 1
        a = self.auction
        extra: dict[str, Any] = {}
        if a.passed_out:
            decl, contract, tricks, complete = None, "Pass", None, True
            msg = "Passed out."
        else:
            decl = self.declarer
            contract = contract_text(self.bid, self.doubled) if self.bid else None
            if contract is None and a.last_bid >= 0:
                bid, d2, dbl = a.contract()
                contract, decl = contract_text(bid, dbl), d2
            tricks = None
            complete = False
            if decl is not None:
                side = decl & 1
                if self.claim is not None:  # the agreed claim decides, even if it does not fit the play
                    cs, n, _ = self.claim
                    tricks = n if (cs & 1) == side else 13 - n
                    complete = True
                else:
                    tricks = self.won[side]
                    complete = len(self.tricks) == 13
                tricks += moved[side ^ 1] - moved[side]
                extra["tricks_played"] = len(self.tricks)
                if moved[0] or moved[1]:
                    extra["transferred"] = moved[side ^ 1] - moved[side]
            if contract is None:
                msg = (f"No auction in the log; {SEAT_LETTERS[decl]}'s side took {tricks} tricks." if decl is not None
                       else "No contract and no play in the log.")
            elif not a.closed and not self.tricks and self.claim is None:
                msg = f"Auction incomplete; last bid {contract}."
            else:
                msg = f"{contract} by {SEAT_LETTERS[decl]}, {tricks} trick{'s' if tricks != 1 else ''}"
                msg += "." if complete else " so far (play incomplete)."
        f = Finding("result", rule=law["rule"], message=msg, board=self.board, event=idx, seat=None,
                    status="info", id=f"{self.board}-result-{self._n}",
                    extra={"declarer": _seat_name(decl), "contract": contract, "tricks": tricks,
                           "complete": complete, **({"vulnerable": self.vulnerable} if self.vulnerable else {}),
                           **extra})
        self.findings.append(f)
        return f

    # ------------------------------------------------------------------ views
    def snapshot(self) -> dict[str, Any]:
        def cards(lst: list[tuple[int, int]]) -> list[dict[str, str]]:
            return [{"seat": SEAT_LETTERS[s], "card": CARD_TEXT[c]} for s, c in lst]

        hands = {SEAT_LETTERS[s]: mask_cards(self.held[s]) for s in range(4) if self.known[s] or self.held[s]}
        dealt = {SEAT_LETTERS[s]: mask_cards(m) for s, m in enumerate(self.dealt or self.held) if m}
        contract = None
        if self.auction.passed_out:
            contract = "Pass"
        elif self.bid:
            contract = contract_text(self.bid, self.doubled)
        trick = {"leader": SEAT_LETTERS[self.cur[0][0]], "cards": cards(self.cur)} if self.cur else None
        return {
            "game": self.game, "board": self.board, "dealer": _seat_name(self.dealer), "phase": self.phase,
            "hands": hands, "dealt": dealt, "auction": self.auction.record(), "contract": contract,
            "declarer": _seat_name(self.declarer), "trump": SUIT_LETTER[self.trump] if self.trump >= 0 else (
                "N" if self.bid else None),
            "trick": trick,
            "tricks": [{"leader": SEAT_LETTERS[ld], "cards": cards(cs), "winner": SEAT_LETTERS[w]}
                       for ld, cs, w in self.tricks],
            "tricks_won": {"NS": self.won[0], "EW": self.won[1]},
            "turn": _seat_name(self.auction.turn if self.phase is AUCTION else self.turn),
            "open_findings": len(self.open),
            "extra": {"vulnerable": self.vulnerable, "dummy": _seat_name(self.dummy),
                      "penalty_cards": {SEAT_LETTERS[s]: [CARD_TEXT[c] for c in self.pen[s]] for s in range(4)
                                        if self.pen[s]},
                      "claim": ({"seat": SEAT_LETTERS[self.claim[0]], "tricks": self.claim[1]}
                                if self.claim else None),
                      "legal": self._legal() if self.phase is PLAY else self.auction.legal_calls()
                      if self.phase is AUCTION else []},
        }

    def legal_plays(self) -> list[Card]:
        """Oracle: cards the player on turn may play now (follow suit, penalty cards, demands).

        Empty when the hand is unknown or no card is due. Never a gate: the
        engine accepts any card and reports what was wrong with it.
        """
        return [CARD_OBJ[CARD_BY_TEXT[c]] for c in self._legal()]

    def _legal(self) -> list[str]:
        if self.phase is not PLAY or self.turn is None:
            return []
        s = self.turn
        if not self.known[s]:
            return []
        hand = self.held[s]
        pens = self.pen[s]
        majors = [p.card for p in pens.values() if p.major]
        if self.cur:
            led = self.cur_led
            maj_led = [c for c in majors if SUIT[c] == led]
            if maj_led:  # Law 50D1: a major penalty card of the suit led
                return [CARD_TEXT[c] for c in sorted(maj_led)]
            mask = hand & SUIT_MASK[led]
            if not mask:  # void: a major penalty card is discarded (or ruffs) first
                if majors:
                    return [CARD_TEXT[c] for c in sorted(majors)]
                mask = hand
        else:
            if majors:
                return [CARD_TEXT[c] for c in sorted(majors)]
            mask = hand
            dm = self.demand
            if dm is not None and dm[0] == s:
                m = SUIT_MASK[dm[1]]
                if dm[2] == "require" and hand & m:
                    mask = hand & m
                elif dm[2] == "forbid" and hand & ~m:
                    mask = hand & ~m
        for p in pens.values():  # Law 50C: no other low card of a minor penalty card's suit
            if not p.major:
                low = SUIT_MASK[SUIT[p.card]] & LOW_MASK & ~BIT[p.card]
                if mask & ~low:
                    mask &= ~low
        return mask_cards(mask)

    def legal_calls(self) -> list[str]:
        return self.auction.legal_calls() if self.phase is AUCTION or self.phase is DEALING else []


_DISPATCH = {
    "deal": BridgeBoard._deal,
    "play": BridgeBoard._play,
    "call": BridgeBoard._call,
    "retract": BridgeBoard._retract,
    "expose": BridgeBoard._expose,
    "claim": BridgeBoard._claim,
    "end": BridgeBoard._end,
    "accept": BridgeBoard._accept,
    "lead_demand": BridgeBoard._lead_demand,
    "contract": BridgeBoard._contract_event,
}
