"""Revokes: failure to follow suit, its establishment and correction (Laws 61-63).

Part of the bridge engine; the state lives on the board (see ``board.py``).
"""

from __future__ import annotations

from typing import Any

from ...events import Event
from ...findings import Finding
from .common import PLAY
from .tables import (BIT, CARD_TEXT, SEAT_LETTERS, SUIT, SUIT_WORD, card_index, seat_index)


class Revoke:
    """One revoke: who, where, and how far it has come in its lifecycle."""

    __slots__ = ("seat", "trick", "suit", "card", "event", "established", "corrected", "faced", "kind", "finding",
                 "penalty")

    def __init__(self, seat: int, trick: int, suit: int, card: int, event: int | None, kind: str, faced: bool) -> None:
        self.seat, self.trick, self.suit, self.card, self.event = seat, trick, suit, card, event
        self.kind, self.faced = kind, faced
        self.established = False
        self.corrected = False
        self.finding: Finding | None = None
        self.penalty: Any = None  # the penalty card played in the revoke (a faced card, Law 62B2)


class RevokeRules:
    """Mixin of :class:`~tablecam.rules.bridge.board.BridgeBoard` for the rules in this module."""

    def _revoke(self, ev: Event, s: int, ci: int, kind: str, required: list[str] | None = None) -> Finding:
        tn = len(self.tricks) + 1
        faced = kind == "penalty" or (s == self.dummy and self.dummy is not None)
        r = Revoke(s, tn, self.cur_led if kind == "suit" else SUIT[ci], ci, ev.index, kind, faced)
        r.penalty = self.pen[s].get(ci)
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

    def _retract(self, ev: Event) -> list[Finding]:
        self.last_index = ev.index
        d = ev.data
        s, ci = seat_index(d["seat"]), card_index(d["card"])
        if ci is None:
            return [self._bad(f"{d['card']} is not a bridge card; skipped.", ev)]
        if self.phase is not PLAY:
            return [self._bad(f"{SEAT_LETTERS[s]} took back {CARD_TEXT[ci]} but no card is in play; skipped.", ev)]
        out: list[Finding] = []
        if self.parked is not None and (s, ci) in self.parked:
            # Law 62C1: the non-offending side takes back its lead to the next trick, no rectification.
            self.parked.remove((s, ci))
            self._take_back(s, ci)
            if not self.parked:
                self.parked = None
            return out
        pos = self._find_in_trick(s, ci)
        if pos is None and self.tricks and (s, ci) in self.tricks[-1][1] and (
                not self.cur or self._next_lead_parkable(s, ci)):
            if self.cur:  # Law 63A1: the next trick's lead waits while the revoke trick is corrected
                self.parked = self.cur
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
        leader = self.holes[next(iter(self.holes))] if self.holes else self.cur[0][0]
        after = (s - leader) & 3  # the card's place in the trick, in rotation from the leader
        pm = self.premature
        if pm is not None and pm[0] == s and pm[1] == ci and pm[3] == tn:
            self.premature = None
            self._withdraw_from_trick(s, pos)
            self._take_back(s, ci)
            out.append(self._update(pm[2], ev, "corrected", f"{SEAT_LETTERS[s]}'s premature {CARD_TEXT[ci]} was "
                                    "taken back; it becomes a major penalty card and declarer chooses for partner "
                                    "(Law 57A).", rule="Law 57A"))
            out.append(self._penalty(ev, s, ci, True, "played before partner and taken back (Law 57A)", "Law 57A"))
            self._recompute_trick()
            return out
        r = next((r for r in self.unest if r.seat == s and r.card == ci and r.trick == tn), None)
        self._withdraw_from_trick(s, pos)
        self._take_back(s, ci)
        if r is not None:
            out += self._corrected(ev, r, tn, after)
        elif (s, ci) in self.free_back:
            self.free_back.discard((s, ci))  # Law 62C1: the next trick's lead, played after the revoke
        elif self.fix is not None and self.fix[0] == tn and after > self.fix[1]:
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

    def _next_lead_parkable(self, s: int, ci: int) -> bool:
        """Law 63A1: the revoke in the trick just turned is not established while only the non-offending
        side has played to the next trick, so it may still be corrected."""
        r = next((r for r in self.unest if r.seat == s and r.card == ci and r.trick == len(self.tricks)), None)
        return r is not None and self.parked is None and all((x & 1) != (s & 1) for x, _ in self.cur)

    def _unpark(self, ev: Event, out: list[Finding]) -> None:
        """The corrected revoke trick is complete again: the waiting lead to the next trick is put back.

        If the corrected trick was won by someone else, that lead is now out of turn (the
        non-offending side could have taken it back under Law 62C1 and did not).
        """
        parked, self.parked = self.parked, None
        for s, ci in parked:
            self.held[s] &= ~BIT[ci]
        self.cur = list(parked)
        self.free_back = set(parked)  # still the non-offenders' to take back (Law 62C1)
        s0, c0 = parked[0]
        if s0 != self.lead_turn:
            out.append(self._lead_out_of_turn(ev, s0, c0))
        self._recompute_trick()

    def _corrected(self, ev: Event, r: Revoke, tn: int, after: int) -> list[Finding]:
        """Law 62B: the revoke card was withdrawn; a defender's becomes a major penalty card (62B1) unless
        it was a faced card (a penalty card already on the table), which is replaced without further
        rectification (62B2); declarer's and dummy's are replaced (62B2)."""
        out: list[Finding] = []
        s, ci = r.seat, r.card
        r.corrected = True
        self.unest.remove(r)
        self.fix = [tn, after, s & 1, False]
        defender = self._is_defender(s)
        faced = r.penalty
        key = "revoke_trick12" if tn == 12 else "revoke_corrected"
        if defender and faced is not None:
            tail = (f"; {CARD_TEXT[ci]} was a faced card (a {'major' if faced.major else 'minor'} penalty card) "
                    "and is replaced without further rectification (Law 62B2)")
        elif defender:
            tail = f"; {CARD_TEXT[ci]} becomes a major penalty card (Law 62B1)"
        else:
            tail = "; declarer's card is simply replaced (Law 62B2)"
        r.finding = self._update(r.finding, ev, "corrected", f"{SEAT_LETTERS[s]} corrected the revoke on trick "
                                 f"{tn}{tail}.", key=key, rule="Law 62D" if tn == 12 else "Law 62B", corrected=True)
        out.append(r.finding)
        if defender and faced is not None:
            self.pen[s][ci] = faced
            self.n_pen += 1
            faced.finding = self._update(faced.finding, ev, "pending", f"{CARD_TEXT[ci]} is back on the table as a "
                                         f"{'major' if faced.major else 'minor'} penalty card of {SEAT_LETTERS[s]} "
                                         "(Law 62B2).", rule="Law 62B2", major=faced.major)
            out.append(faced.finding)
        elif defender:
            why = ("a withdrawn revoke card (Law 62B1)" if r.kind != "penalty" else
                   "played instead of a penalty card and withdrawn (Law 52B2)")
            out.append(self._penalty(ev, s, ci, True, why, "Law 62B1" if r.kind != "penalty" else "Law 52B2"))
        return out

    def _late_fix(self, ev: Event, s: int, ci: int, out: list[Finding]) -> bool:
        """Law 62D: a trick-12 revoke corrected after trick 13 began, even when established.

        The card played now (``ci``) takes the revoke card's place in trick 12. The revoke card goes
        back to the hand it came from - a defender's as a major penalty card (Law 62B1), which his only
        card left must then be: if he had already played ``ci`` to trick 13, the two cards change places.
        """
        r = self.late
        self.late = None
        t12 = self.tricks[11]
        if s != r.seat:
            out.append(self._bad(f"Expected {SEAT_LETTERS[r.seat]} to replace {CARD_TEXT[r.card]} on trick 12; "
                                 "the correction is abandoned.", ev))
            return False
        cards12 = [(x, ci if (x == s and c == r.card) else c) for x, c in t12[1]]
        self.tricks[11] = (t12[0], cards12, self._winner(cards12))
        swapped = False  # the revoke card went to trick 13 in place of ci
        if len(self.tricks) >= 13:
            cards13 = [(x, r.card if (x == s and c == ci) else c) for x, c in self.tricks[12][1]]
            swapped = cards13 != self.tricks[12][1]
            if swapped:
                self.tricks[12] = (self.tricks[12][0], cards13, self._winner(cards13))
        else:
            for i, (x, c) in enumerate(self.cur):
                if x == s and c == ci:
                    self.cur[i] = (x, r.card)
                    swapped = True
            if not swapped:  # ci leaves the hand for trick 12, the revoke card comes back to it
                self.held[s] = (self.held[s] & ~BIT[ci]) | BIT[r.card]
            self._recompute_trick()
        self.won = [0, 0]
        for _, _, w in self.tricks:
            self.won[w & 1] += 1
        r.corrected = True
        if r in self.unest:
            self.unest.remove(r)
        defender = self._is_defender(s)
        tail = f"; {CARD_TEXT[r.card]} becomes a major penalty card (Law 62B1)" if defender else ""
        r.finding = self._update(r.finding, ev, "corrected",
                                 f"{SEAT_LETTERS[s]} corrected the revoke on trick 12 by playing {CARD_TEXT[ci]} "
                                 f"(Law 62D){tail}; no trick transfer.", key="revoke_trick12", corrected=True)
        out.append(r.finding)
        if defender:
            out.append(self._penalty(ev, s, r.card, True, "a withdrawn revoke card (Law 62B1, Law 62D)", "Law 62B1"))
            if swapped:
                p = self.pen[s][r.card]
                out.append(self._drop_penalty(ev, p, f"{SEAT_LETTERS[s]}'s penalty card {CARD_TEXT[r.card]} is his "
                                              "card to trick 13, where it takes the place of the card moved to "
                                              "trick 12."))
        return True
