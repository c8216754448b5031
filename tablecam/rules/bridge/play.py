"""Play of the cards: tricks, winners, turn, plays out of rotation, claims (Laws 41-46, 57, 58, 68).

Part of the bridge engine; the state lives on the board (see ``board.py``).
"""

from __future__ import annotations

from ...events import Event
from ...findings import Finding
from .common import FINISHED, PLAY
from .tables import (BIT, CARD_INDEX, CARD_TEXT, RANK_VALUE, SEAT_INDEX, SEAT_LETTERS, SUIT, SUIT_MASK,
                     card_index, contract_text, seat_index)


class PlayRules:
    """Mixin of :class:`~tablecam.rules.bridge.board.BridgeBoard` for the rules in this module."""

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

    def _find_in_trick(self, s: int, ci: int) -> int | None:
        for i, (x, c) in enumerate(self.cur):
            if x == s and c == ci:
                return i
        return None

    def _winner(self, cards: list[tuple[int, int]]) -> int:
        bs, b = cards[0]
        for s, c in cards[1:]:
            if (SUIT[c] == SUIT[b] and RANK_VALUE[c] > RANK_VALUE[b]) or (SUIT[c] == self.trump and SUIT[b] != self.trump):
                bs, b = s, c
        return bs

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
