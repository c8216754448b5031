"""Play of the cards: tricks, winners, turn, plays out of rotation, claims (Laws 41-46, 57, 58, 68).

Part of the bridge engine; the state lives on the board (see ``board.py``).
"""

from __future__ import annotations

from ...events import Event
from ...findings import Finding
from .common import FINISHED, PLAY
from .tables import (BIT, CARD_INDEX, CARD_TEXT, RANK_VALUE, SEAT_INDEX, SEAT_LETTERS, SUIT, SUIT_MASK,
                     card_index, contract_text, seat_index)


def known_card(board: "PlayRules", s: int, ci: int) -> bool:
    """The card is (as far as the log knows) still in ``s``'s hand, so it can be a penalty card."""
    return bool(board.held[s] & BIT[ci]) or not board.known[s]


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
        undo, self.undo_play = self.undo_play, None
        if undo is not None and d.get("simultaneous") and self._simultaneous(ev, s, undo, out):
            return out
        if self.ootl is not None or self.late is not None or self.unest:
            handled = self._play_pre(ev, s, ci, out)
            if handled:
                return out
        cur = self.cur
        su = SUIT[ci]
        # A play out of turn may be reordered by the next event (Law 58A): remember how to take it back.
        oot = (s != self.turn and s not in self.holes) if cur else (self.lead_turn is not None and s != self.lead_turn)
        before = self._play_state(s) if oot else None
        relead = bool(self.holes) and self.holes.get(s) == s  # the leader replaces his withdrawn lead
        if not cur or relead:
            if not cur and s != self.lead_turn and self.lead_turn is not None:
                out.append(self._lead_out_of_turn(ev, s, ci))
            self.cur_led = su
            self.cur_best = ci
            self.cur_best_seat = s
            if self.n_pen or self.demand is not None:
                self._penalty_duties(ev, s, ci, True, out)
        else:
            if s != self.turn and s not in self.holes:
                if self._cur_mask() >> s & 1:
                    out += self._second_card(ev, s, ci)
                    return out
                out.append(self._play_out_of_turn(ev, s, ci))
                self.askew = True
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
        if s in self.holes:
            self._fill_hole(s, ci)
            self._recompute_trick()
        else:
            cur.append((s, ci))
        if before is not None and all(f.kind in ("lead_out_of_turn", "play_out_of_turn") for f in out):
            self.undo_play = (ev, s, ci, before, out)
        if len(cur) == 4:
            self._trick_done(ev, out)
        else:
            self.turn = self._next_to_play()
        return out

    def _next_to_play(self) -> int:
        """Whose turn it is in the trick in progress: the first player in rotation from the leader who
        has not played (Law 57C1 - after a premature play the skipped player is still to play)."""
        m = self._cur_mask()
        t = self.holes[next(iter(self.holes))] if self.holes else self.cur[0][0]
        if m == 15:
            return t
        while m >> t & 1:
            t = (t + 1) & 3
        return t

    def _trick_done(self, ev: Event, out: list[Finding]) -> None:
        """The fourth card of a trick: its winner leads next; what waited for the trick's end is settled."""
        cur = self.cur
        w = self.cur_best_seat
        self.tricks.append((cur[0][0], cur, w))
        self.won[w & 1] += 1
        self.cur = []
        self.askew = False
        self.holes = {}
        self.free_back = set()
        self.lead_turn = self.turn = w
        if self.demand is not None and self.demand[2] == "forbid" and w != self.demand[0]:
            self.demand = None
        if self.n_pen and len(self.tricks) < 13:
            self._lead_options(ev, w, out)
        pm = self.premature
        if pm is not None:
            self.premature = None
            if len(pm) > 4:  # a premature lead: the card waits on the table as a major penalty card
                msg = (f"Trick {pm[3]} was completed; {CARD_TEXT[pm[1]]}, led by {SEAT_LETTERS[pm[0]]} before "
                       "partner played, stays a major penalty card (Law 57A).")
            else:
                msg = (f"{SEAT_LETTERS[pm[0]]}'s premature {CARD_TEXT[pm[1]]} stayed played and trick {pm[3]} "
                       "was completed; no rectification was applied.")
            out.append(self._update(pm[2], ev, "rectified", msg))
        if self.parked is not None:
            self._unpark(ev, out)

    def _play_state(self, s: int) -> tuple:
        """What a play out of turn changes, so a simultaneous legal play can go first (Law 58A)."""
        return (list(self.cur), self.held[s], self.turn, self.lead_turn, self.cur_led, self.cur_best,
                self.cur_best_seat, self.ootl, self.premature, self.askew, dict(self.void_at), list(self.void))

    def _simultaneous(self, ev: Event, s: int, undo: tuple, out: list[Finding]) -> bool:
        """Law 58A: a play made at the same moment as another player's legal play is deemed subsequent.

        The log had to put one of the two first. When the earlier one was out of turn and this one is
        the legal play, the earlier one is taken back, this one applied, and the earlier one applied
        again after it; what it was first reported as is withdrawn (re-emitted as ``info``).
        """
        prev, ps, pci, before, found = undo
        if len(self.events) < 2 or self.events[-2] is not prev or ps == s or s != before[2 if before[0] else 3]:
            return False
        (self.cur, self.held[ps], self.turn, self.lead_turn, self.cur_led, self.cur_best, self.cur_best_seat,
         self.ootl, self.premature, self.askew, self.void_at, self.void) = before
        for f in found:
            self.open.pop(f.id, None)
            out.append(self._update(f, ev, "info", f"Withdrawn: {SEAT_LETTERS[ps]}'s {CARD_TEXT[pci]} was played at "
                                    f"the same moment as {SEAT_LETTERS[s]}'s legal play and is deemed played after "
                                    "it (Law 58A).", rule="Law 58A"))
        self._rewatch()
        out += self._play_checked(ev, seat_index(ev.data["seat"]), card_index(ev.data["card"]))
        self._rewatch()
        self.marks = {"simultaneous": True}
        try:
            again = self._play_checked(prev, ps, pci)
        finally:
            self.marks = {}
        out += again
        return True

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
        """A card played to the trick in progress before the player whose turn it was (Law 57)."""
        tn = len(self.tricks) + 1
        defender = self._is_defender(s)
        m = self._cur_mask()
        partner_played = m >> ((s + 2) & 3) & 1
        both_hands = (self.declarer is not None and self.dummy is not None and m >> self.declarer & 1
                      and m >> self.dummy & 1)
        what = f"{SEAT_LETTERS[s]} played {CARD_TEXT[ci]} to trick {tn} before {SEAT_LETTERS[self.turn]} had played"
        if defender and not partner_played and both_hands:
            return self._new("play_out_of_turn", "play_out_of_rotation", f"{what}; declarer had played from both "
                             "hands, so there is no rectification (Law 57C1).", ev, seat=s, trick=tn, status="info",
                             rule="Law 57C1", card=CARD_TEXT[ci])
        if defender and not partner_played:  # Law 57A: premature play before partner
            f = self._new("play_out_of_turn", "play_out_of_turn_defender",
                          f"{SEAT_LETTERS[s]} played {CARD_TEXT[ci]} to trick {tn} before partner "
                          f"({SEAT_LETTERS[(s + 2) & 3]}) had played, at {SEAT_LETTERS[self.turn]}'s turn.", ev,
                          seat=s, trick=tn, card=CARD_TEXT[ci])
            self.premature = [s, ci, f, tn]
            return f
        if defender:
            return self._new("play_out_of_turn", "play_out_of_rotation", f"{what}; partner had already played, "
                             "no rectification.", ev, seat=s, trick=tn, status="info", card=CARD_TEXT[ci])
        return self._new("play_out_of_turn", "play_out_of_turn_declarer", f"{what}; declarer is not subject to "
                         "rectification for it (Law 57D).", ev, seat=s, trick=tn, status="info", card=CARD_TEXT[ci])

    def _second_card(self, ev: Event, s: int, ci: int) -> list[Finding]:
        """A second card from a hand that has already played to the trick in progress.

        Played at the same moment as his first (``simultaneous``): Law 58B, the other card is not played
        (a defender's becomes a penalty card). A defender leading to the next trick before his partner
        has played to this one: Law 57A, the card led is a major penalty card. Otherwise a defender's
        card led too early is a card exposed (Laws 49, 50); declarer's goes back to the hand (Law 48A).
        """
        tn = len(self.tricks) + 1
        defender = self._is_defender(s)
        partner = (s + 2) & 3
        prev = self.events[-2] if len(self.events) >= 2 else None
        same_moment = bool(ev.data.get("simultaneous")) and prev is not None and prev.type == "play" and \
            seat_index(prev.data["seat"]) == s
        if defender and not same_moment and known_card(self, s, ci):
            if not self._cur_mask() >> partner & 1:
                f = self._new("play_out_of_turn", "premature_lead",
                              f"{SEAT_LETTERS[s]} led {CARD_TEXT[ci]} to the next trick before partner "
                              f"({SEAT_LETTERS[partner]}) had played to trick {tn}: it is a major penalty card and "
                              f"declarer may direct {SEAT_LETTERS[partner]}'s play to this trick (Law 57A).", ev,
                              seat=s, trick=tn, rule="Law 57A", card=CARD_TEXT[ci])
                self.premature = [s, ci, f, tn, "lead"]
                return [f, self._penalty(ev, s, ci, True, "led to the next trick before partner had played "
                                         "(Law 57A)", "Law 57A")]
            return [self._penalty(ev, s, ci, True, f"led to the next trick before trick {tn} was complete (Law 50B)",
                                  "Law 50B")]
        if defender:
            return [self._penalty(ev, s, ci, False, f"a second card played to trick {tn} (Law 58B)", "Law 58B")]
        return [self._new("play_out_of_turn", "two_cards_to_trick",
                         f"{SEAT_LETTERS[s]} played a second card ({CARD_TEXT[ci]}) to trick {tn}; it goes back to "
                         "the hand.", ev, seat=s, trick=tn, status="info", card=CARD_TEXT[ci])]

    def _take_back(self, s: int, ci: int) -> None:
        bit = BIT[ci]
        self.held[s] |= bit

    def _recompute_trick(self) -> None:
        """Led suit, best card and turn of the trick in progress, from its cards (after a withdrawal)."""
        cur = self.cur
        if not cur:
            self.turn = self.lead_turn
            return
        self.cur_led = SUIT[cur[0][1]]
        self.cur_best, self.cur_best_seat = cur[0][1], cur[0][0]
        for s, c in cur:
            b = self.cur_best
            if (SUIT[c] == SUIT[b] and RANK_VALUE[c] > RANK_VALUE[b]) or (SUIT[c] == self.trump and SUIT[b] != self.trump):
                self.cur_best, self.cur_best_seat = c, s
        self.turn = self._next_to_play()

    def _withdraw_from_trick(self, s: int, pos: int) -> None:
        """Take ``s``'s card at ``pos`` out of the trick in progress; his next card fills its place."""
        self.holes.setdefault(s, self.holes[next(iter(self.holes))] if self.holes else self.cur[0][0])
        del self.cur[pos]

    def _fill_hole(self, s: int, ci: int) -> None:
        """Put a replacement card where ``s``'s withdrawn card was, in rotation from the trick's leader."""
        leader = self.holes.pop(s)
        off = (s - leader) & 3
        k = sum(1 for x, _ in self.cur if (x - leader) & 3 < off)
        self.cur.insert(k, (s, ci))

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
        if n > have + left:
            out.append(self._bad(f"{SEAT_LETTERS[s]}'s claim of {n} tricks does not fit the play: the side has "
                                 f"{have} tricks and {left} remain; the claim is kept.", ev))
        elif not d.get("final"):  # an archive's scored result is past the correction period (Law 79C)
            n = self._concession(ev, s, n, have, out)
        self.claim = (s, n, ev.index)
        self.phase = FINISHED
        self.turn = None
        return out

    def _concession(self, ev: Event, s: int, n: int, have: int, out: list[Finding]) -> int:
        """Law 71: a concession of a trick the side had in fact won, or could not lose by any legal play
        of the remaining cards, is cancelled. Returns the tricks the claimer's side is credited with.

        The second case is computed exactly when every hand is known and at most three tricks remain
        (a search over every legal play); with more cards left it is a judgement for the director.
        """
        side = s & 1
        if n < have:
            out.append(self._new("concession_cancelled", "concession_cancelled",
                                 f"{SEAT_LETTERS[s]}'s side was conceded down to {n} tricks but had already won "
                                 f"{have}: the concession of a trick the side had won is cancelled (Law 71.1).", ev,
                                 seat=s, status="corrected", rule="Law 71", claimed=n, tricks=have))
            n = have
        sure = self._sure_tricks(side)
        if sure is not None and n < have + sure:
            out.append(self._new("concession_cancelled", "concession_cancelled",
                                 f"{SEAT_LETTERS[s]}'s side conceded {have + sure - n} trick(s) it could not lose by "
                                 f"any legal play of the remaining cards: the concession is cancelled, the side takes "
                                 f"{have + sure} (Law 71.2).", ev, seat=s, status="corrected", rule="Law 71",
                                 claimed=n, tricks=have + sure))
            n = have + sure
        return n

    def _sure_tricks(self, side: int) -> int | None:
        """Fewest tricks ``side`` takes from here under any legal play; None when not computable."""
        if not all(self.known) or self.trump is None:
            return None
        held = tuple(self.held)
        counts = [h.bit_count() for h in held]
        for x, _ in self.cur:
            counts[x] += 1
        leader = self.cur[0][0] if self.cur else self.lead_turn
        if max(counts) > 3 or min(counts) != max(counts) or leader is None:
            return None
        return fewest_tricks(held, tuple(self.cur), leader, self.trump, side)


def fewest_tricks(held: tuple[int, ...], cur: tuple[tuple[int, int], ...], leader: int, trump: int,
                  side: int) -> int:
    """The fewest tricks ``side`` (0 = NS, 1 = EW) can take from this position when all four hands
    play any legal card (follow suit when able): what no normal play could lose (Law 71.2).

    >>> from tablecam.rules.bridge.tables import CARD_BY_TEXT as C, BIT
    >>> n, e, s, w = BIT[C["SA"]], BIT[C["S3"]], BIT[C["S2"]], BIT[C["HA"]]
    >>> fewest_tricks((n, e, s, w), (), 1, -1, 0)   # E leads the S3: N's ace must win it
    1
    >>> fewest_tricks((BIT[C["HK"]], e, s, w), (), 1, -1, 0)   # N can only discard: E's S3 wins
    0
    """
    memo: dict[tuple, int] = {}

    def go(held: tuple[int, ...], cur: tuple[tuple[int, int], ...], leader: int) -> int:
        if not cur and not any(held):
            return 0
        key = (held, cur, leader)
        hit = memo.get(key)
        if hit is not None:
            return hit
        if len(cur) == 4:
            best_s, best_c = cur[0]
            for x, c in cur[1:]:
                if (SUIT[c] == SUIT[best_c] and RANK_VALUE[c] > RANK_VALUE[best_c]) or (
                        SUIT[c] == trump and SUIT[best_c] != trump):
                    best_s, best_c = x, c
            r = (1 if (best_s & 1) == side else 0) + go(held, (), best_s)
        else:
            p = leader
            m = 0
            for x, _ in cur:
                m |= 1 << x
            while m >> p & 1:
                p = (p + 1) & 3
            h = held[p]
            if cur:
                follow = h & SUIT_MASK[SUIT[cur[0][1]]]
                if follow:
                    h = follow
            r = 99
            while h:
                low = h & -h
                h ^= low
                c = low.bit_length() - 1
                nh = held[:p] + (held[p] ^ low,) + held[p + 1:]
                r = min(r, go(nh, cur + ((p, c),), leader))
            if r == 99:  # nothing left to play (an inconsistent hand): count nothing more
                r = 0
        memo[key] = r
        return r

    return go(held, cur, leader)
