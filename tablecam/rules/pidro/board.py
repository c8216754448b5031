"""Pidro (Finland-Swedish, SÖU tournament rules): one deal as a fold over events.

Source: ``shared/rules/pidro-regler.sv.txt``; findings cite its numbered
sections (``Pidroregler 1`` ... ``Pidroregler 6``). The rule table (variant
switches, penalty sizes, point values) is ``rules/pidro/tables/<name>.json``.

The deal, in events (see ``docs/pidro.md``)::

    board (game pidro, dealer)        -> 36 x deal, 3 at a time from dealer's left
    4 x call ("6".."14" or "P")      -> one round, dealer last
    trump (bidder names the suit)     -> discard (non-trumps, face down)
    deal (refill each to 6; the dealer robs the rest)
    lay_down (non-point trumps above 6, face up)
    play ... (only trumps; a player out of trumps drops out)  -> end

The trump suit is in :mod:`.cards`, the settlement in :mod:`.scoring`, the
event types in :mod:`.events`.
"""

from __future__ import annotations

from typing import Any

from ...cards import Card, Seat
from ...engine import BoardEngine
from ...events import Event
from ...findings import Finding, bad_event
from ..tricks import Trick, load_ruleset, trick_winner
from . import events  # noqa: F401  (registers trump, discard, lay_down, redeal)
from .cards import SIDES, is_trump, other_side, parse_suit, point_value, side_of, suit_of, trump_rank
from .scoring import settle

GAME = "pidro"
RULE = "Pidroregler"


class PidroBoard(BoardEngine):
    """One Pidro deal. State is a fold over events; every irregularity is a finding."""

    game = GAME

    def __init__(self, board_event: Event, ruleset: dict[str, Any] | None = None) -> None:
        super().__init__(board_event, ruleset)
        raw = board_event.raw or {}
        self._pending: list[Finding] = []  # findings raised in __init__, flushed on the first apply
        name = (ruleset or {}).get("name") or raw.get("ruleset")
        try:
            self.rules = load_ruleset(GAME, name if isinstance(name, str) else None, "sou", ruleset)
        except ValueError as e:
            self.rules = load_ruleset(GAME, None, "sou", None)
            self._pending.append(bad_event(f"Pidro rule table not found ({e}); using the SÖU default.",
                                           board_event.index, self.board))
        self.dealer: Seat = self.dealer_or_north(self._pending)
        session = (ruleset or {}).get("session")
        self.match_state: dict[str, Any] | None = session if isinstance(session, dict) else None
        last = (self.match_state or {}).get("dealer")
        if isinstance(last, str) and last in "NESW" and board_event.get("dealer") is not None \
                and self.dealer != Seat(last).next():
            self._pending.append(Finding(
                "dealer_not_rotated", f"{RULE} 1", f"{self.dealer} deals, but the deal passes one step to the "
                f"left after every deal: {Seat(last).next()} should deal after {last}.", self.board,
                board_event.index, str(self.dealer), status="info",
                extra={"expected_seat": str(Seat(last).next())}))
        if self.match_state is not None:
            self.match_state["dealer"] = str(self.dealer)
        self.score_before = self._score_before(raw)
        self.prior_offenders = self._prior_offenders(raw)
        self.players: dict[str, str] = raw.get("players") if isinstance(raw.get("players"), dict) else {}
        self._reset_deal()
        self.calls: list[tuple[Seat, str, int | None]] = []
        self.called: set[Seat] = set()
        self.high_bid: int | None = None
        self.bidder: Seat | None = None
        self.fourteen_over_fourteen = False
        self.forced = False
        self.bidding_closed = False
        self._open_insufficient: Finding | None = None
        self.trump: str | None = None
        self.discards: dict[Seat, list[Card]] = {s: [] for s in Seat}
        self.laid_down: dict[Seat, list[Card]] = {s: [] for s in Seat}
        self.refill_started = False
        self.refilled: dict[Seat, list[Card]] = {s: [] for s in Seat}
        self._refill_order_flagged = False
        self.tricks: list[Trick] = []
        self.trick: Trick | None = None
        self.points = {"NS": 0, "EW": 0}
        self.offences: list[Finding] = []  # penalised irregularities, in order
        self._discard_events: dict[tuple[Seat, Card], Event] = {}
        self.play_started = False
        self._trick_players: list[Seat] = []  # who plays to the current round (still holding trumps)

    # -- match state (Pidroregler 4: repeat offences; 6: game to 62) ----------
    def _score_before(self, raw: dict) -> dict[str, int]:
        src = (self.match_state or {}).get("score") or raw.get("score") or {}
        try:
            return {s: int(src.get(s, 0)) for s in SIDES}
        except (TypeError, ValueError, AttributeError):
            return {"NS": 0, "EW": 0}

    def _prior_offenders(self, raw: dict) -> set[str]:
        src = (self.match_state or {}).get("offenders") or raw.get("offenders") or []
        return {str(x) for x in src} if isinstance(src, (list, tuple, set)) else set()

    def player(self, seat: Seat) -> str:
        """Who sits in ``seat`` (name from the board event, else the seat letter)."""
        return str(self.players.get(str(seat), seat))

    # -- deal -------------------------------------------------------------------
    def _reset_deal(self) -> None:
        self.hands: dict[Seat, list[Card]] = {s: [] for s in Seat}
        self.dealt: dict[Seat, list[Card]] = {s: [] for s in Seat}
        self.seen: set[Card] = set()
        self.deal_count = 0
        self.deal_closed = False
        self.misdeal_flagged = False

    def _fid(self, *parts: Any) -> str:
        return "-".join([f"pidro-{self.board}"] + [str(p) for p in parts])

    def _finding(self, kind: str, section: int, message: str, ev: Event | None, **kw: Any) -> Finding:
        extra = kw.pop("extra", {})
        f = Finding(kind, rule=f"{RULE} {section}", message=message, board=self.board,
                    event=ev.index if ev else None, extra=extra, **kw)
        return self.emit(f)

    def _on_deal(self, ev: Event) -> list[Finding]:
        out: list[Finding] = []
        card: Card = ev.card
        to = ev.get("to")
        if card in self.seen or card.is_joker:
            why = "a joker is not part of a Pidro pack" if card.is_joker else "it was already dealt in this board"
            out.append(self._finding("duplicate_card", 1, f"{card} was dealt to {to} but {why}.", ev,
                                     status="pending", options=["find the stray card", "redeal"],
                                     id=self._fid("duplicate", card, ev.index), extra={"card": str(card)}))
        self.seen.add(card)
        if not isinstance(to, Seat):
            out.append(self._finding("misdeal", 1, f"{card} was dealt to the {to}; Pidro has no talong or kitty.",
                                     ev, seat=str(self.dealer), status="pending", options=["redeal"],
                                     id=self._fid("misdeal", "pile", ev.index)))
            return out
        if self.trump is None and not self.bidding_started():
            # the first deal: 9 each, 3 at a time, from the dealer's left
            packet = self.rules["deal"]["packet"]
            expected = self.dealer.next(1 + (self.deal_count // packet) % 4)
            if to != expected and not self.misdeal_flagged:
                self.misdeal_flagged = True
                out.append(self._finding(
                    "misdeal", 1, f"Card {self.deal_count + 1} of the deal went to {to} instead of {expected}: "
                    f"Pidro is dealt {packet} at a time clockwise from the dealer's left.", ev,
                    seat=str(self.dealer), status="pending", options=["redeal", "let the deal stand"],
                    id=self._fid("misdeal", "order"), extra={"expected_seat": str(expected)}))
            self.deal_count += 1
            self.dealt[to].append(card)
        else:
            self.refill_started = True
            self.refilled[to].append(card)
            limit = self.rules["deal"]["final_hand"]
            if to != self.dealer and len(self.hands[to]) >= limit:
                out.append(self._finding(
                    "wrong_card_count", 3, f"{to} already held {len(self.hands[to])} cards and was given {card}; "
                    f"the refill only brings each player up to {limit}.", ev, seat=str(to), status="pending",
                    options=["return the extra card to the dealer"], id=self._fid("refill", to, ev.index),
                    extra={"count": len(self.hands[to]) + 1, "expected": limit}))
            out += self._check_refill_order(to, ev)
        self.hands[to].append(card)
        return out

    def _check_refill_order(self, to: Seat, ev: Event) -> list[Finding]:
        """The refill goes clockwise from the dealer's left, each player up to 6; the dealer robs last."""
        if self._refill_order_flagged:
            return []
        limit = self.rules["deal"]["final_hand"]
        order = [self.dealer.next(i) for i in (1, 2, 3)]
        before = order if to == self.dealer else order[:order.index(to)]
        short = [s for s in before if len(self.hands[s]) < limit]
        if not short:
            return []
        self._refill_order_flagged = True
        return [self._finding("refill_out_of_order", 3, f"{to} was given a refill card while {short[0]} still "
                              f"had {len(self.hands[short[0]])} cards; the dealer fills each player to {limit} in "
                              "turn from his left and takes the rest last.", ev, seat=str(self.dealer),
                              status="info", extra={"expected_seat": str(short[0])})]

    def _close_deal(self, ev: Event) -> list[Finding]:
        if self.deal_closed:
            return []
        self.deal_closed = True
        out = []
        n = self.rules["deal"]["cards_each"]
        for s in Seat:
            if len(self.dealt[s]) != n and self.deal_count:
                out.append(self._finding(
                    "wrong_card_count", 1, f"{s} was dealt {len(self.dealt[s])} cards instead of {n}.", ev,
                    seat=str(s), status="pending", options=["redeal", "correct the hands before bidding"],
                    id=self._fid("count", s), extra={"count": len(self.dealt[s]), "expected": n}))
        return out

    def _on_redeal(self, ev: Event) -> list[Finding]:
        out = []
        latest = {f.id: f for f in self.findings if f.id}  # each finding's latest lifecycle step
        for f in latest.values():
            if f.kind in ("misdeal", "wrong_card_count", "duplicate_card") and f.status == "pending":
                out.append(self.emit(Finding(f.kind, f.rule, f"Redealt: {f.message}", self.board, ev.index,
                                             f.seat, status="rectified", id=f.id, extra=dict(f.extra))))
        self._reset_deal()
        return out

    # -- bidding (Pidroregler 2) -----------------------------------------------
    def bidding_started(self) -> bool:
        return bool(self.calls) or self.bidding_closed

    def bid_order(self) -> list[Seat]:
        return [self.dealer.next(i) for i in (1, 2, 3, 4)]

    def next_to_call(self) -> Seat | None:
        for s in self.bid_order():
            if s not in self.called:
                return s
        return None

    def _on_call(self, ev: Event) -> list[Finding]:
        out: list[Finding] = []
        seat: Seat = ev.seat
        text = str(ev.get("call")).strip().lower()
        if self.bidding_closed:
            return [self._finding("call_after_bidding", 2, f"{seat} called '{ev.get('call')}' after the single "
                                  "bidding round was over; the call is ignored.", ev, seat=str(seat), status="info")]
        bid: int | None
        if text in ("p", "pass", "0"):
            bid = None
        else:
            try:
                bid = int(text)
            except ValueError:
                return [bad_event(f"Pidro call {ev.get('call')!r} is neither a bid 6-14 nor pass; skipped.",
                                  ev.index, self.board)]
        # a correction of the player's own insufficient bid, before anyone else called
        corr = self._open_insufficient
        if corr is not None and corr.seat == str(seat) and self.calls and self.calls[-1][0] == seat:
            self._open_insufficient = None
            out.append(self.emit(Finding(corr.kind, corr.rule, f"{seat} corrected the bid to "
                                         f"{'pass' if bid is None else bid}.", self.board, ev.index, str(seat),
                                         status="corrected", id=corr.id, extra=dict(corr.extra))))
            self.called.discard(seat)
        elif corr is not None:
            self._open_insufficient = None
            out.append(self.emit(Finding(corr.kind, corr.rule, f"{corr.seat}'s bid stood uncorrected and counts "
                                         "as a pass.", self.board, ev.index, corr.seat, status="established",
                                         id=corr.id, extra=dict(corr.extra))))
        expected = self.next_to_call()
        if seat in self.called:
            out.append(self._finding("call_out_of_turn", 2, f"{seat} called again; Pidro has one bidding round "
                                     "and each player calls once. The call is ignored.", ev, seat=str(seat),
                                     status="pending", id=self._fid("twice", seat, ev.index)))
            return out
        if expected is not None and seat != expected:
            out.append(self._finding("call_out_of_turn", 2, f"{seat} called before {expected}; bidding goes "
                                     f"clockwise from the dealer's left. The call is recorded.", ev,
                                     seat=str(seat), status="pending", options=["accept the call", "cancel it"],
                                     id=self._fid("oot", seat, ev.index), extra={"expected_seat": str(expected)}))
        self.called.add(seat)
        lo, hi = self.rules["bidding"]["min_bid"], self.rules["bidding"]["max_bid"]
        if bid is not None and not lo <= bid <= hi:
            out.append(self._finding("bid_out_of_range", 2, f"{seat} bid {bid}; a bid is {lo} to {hi}. It counts "
                                     "as a pass.", ev, seat=str(seat), status="established",
                                     id=self._fid("range", seat, ev.index), extra={"bid": bid}))
            bid = None
        if bid is not None and self.high_bid is not None and bid <= self.high_bid:
            over = (seat == self.dealer and bid == hi and self.high_bid == hi)
            if over and self.rules.get("dealer_14_over_14", True):
                self.fourteen_over_fourteen = True
            else:
                why = (" (this tournament does not allow the dealer's 14 over 14)" if over else "")
                f = self._finding("insufficient_bid", 2, f"{seat} bid {bid}, not higher than {self.high_bid}"
                                  f"{why}; a bid must always be higher than the one before.", ev, seat=str(seat),
                                  status="pending", options=[f"bid higher than {self.high_bid}", "pass"],
                                  id=self._fid("insufficient", seat, ev.index),
                                  extra={"bid": bid, "high_bid": self.high_bid})
                out.append(f)
                self._open_insufficient = f
                self.calls.append((seat, text, None))
                return out
        self.calls.append((seat, text, bid))
        if bid is not None:
            self.high_bid, self.bidder = bid, seat
        return out

    def _close_bidding(self, ev: Event) -> list[Finding]:
        out: list[Finding] = []
        if self.bidding_closed:
            return out
        corr = self._open_insufficient
        if corr is not None:
            self._open_insufficient = None
            out.append(self.emit(Finding(corr.kind, corr.rule, f"{corr.seat}'s bid stood uncorrected and counts "
                                         "as a pass.", self.board, ev.index, corr.seat, status="established",
                                         id=corr.id, extra=dict(corr.extra))))
        self.bidding_closed = True
        if self.bidder is None:
            self.forced = True
            self.bidder, self.high_bid = self.dealer, int(self.rules["bidding"]["all_pass_dealer_bid"])
            out.append(self._finding("forced_bid", 2, f"Everyone passed: the dealer {self.dealer} must play "
                                     f"{self.high_bid} in a suit of his choice.", ev, seat=str(self.dealer),
                                     status="info"))
        return out

    # -- trump, discards, refill, lay-down (Pidroregler 2-4) ---------------------
    def _on_trump(self, ev: Event) -> list[Finding]:
        suit = parse_suit(ev.get("suit"))
        if suit is None:
            return [bad_event(f"Unknown trump suit {ev.get('suit')!r}; expected S, H, D or C.", ev.index,
                              self.board)]
        out = self._close_bidding(ev)
        if ev.seat != self.bidder:
            out.append(self._finding("trump_by_wrong_player", 2, f"{ev.seat} named the trump but {self.bidder} "
                                     "has the highest bid and names the suit.", ev, seat=str(ev.seat),
                                     status="pending", options=["let the bidder name the suit"],
                                     id=self._fid("trumpseat", ev.index)))
        self.trump = suit
        out += self._check_discards(ev)
        return out

    def _on_discard(self, ev: Event) -> list[Finding]:
        out = self._close_bidding(ev)
        seat = ev.seat
        for card in ev.get("cards") or []:
            if card in self.hands[seat]:
                self.hands[seat].remove(card)
            else:
                out.append(bad_event(f"{seat} discarded {card}, which the deal did not give them; recorded.",
                                     ev.index, self.board))
            self.discards[seat].append(card)
            self._discard_events[(seat, card)] = ev
            if self.trump is not None:
                out += self._check_discard(seat, card, ev)
        limit = self.rules["deal"]["final_hand"]
        if seat == self.dealer and not self.refill_started and len(self.hands[seat]) < limit:
            out.append(self._finding("dealer_below_six", 3, f"The dealer {seat} laid away cards down to "
                                     f"{len(self.hands[seat])}; the dealer always keeps at least {limit} cards in "
                                     "hand before the refill.", ev, seat=str(seat), status="info",
                                     extra={"count": len(self.hands[seat]), "expected": limit}))
        return out

    def _check_discards(self, ev: Event) -> list[Finding]:
        out = []
        for seat in Seat:
            for card in self.discards[seat]:
                out += self._check_discard(seat, card, self._discard_events.get((seat, card), ev))
        return out

    def _check_discard(self, seat: Seat, card: Card, ev: Event) -> list[Finding]:
        if not is_trump(card, self.trump):
            return []
        fid = self._fid("trumpdiscard", seat, card)
        if any(f.id == fid for f in self.findings):
            return []
        return [self._offence("trump_discarded", 4, seat, ev,
                              f"{seat} discarded {card}, a trump; players may not lay away cards of the suit "
                              "being played.", fid, card=card)]

    def _offence(self, kind: str, section: int, seat: Seat, ev: Event, message: str, fid: str,
                 card: Card | None = None) -> Finding:
        """A section-4 error: penalised with 14 points (62 when the same player repeats it in the match)."""
        penalised = kind in self.rules.get("penalised", [])
        extra: dict[str, Any] = {"card": str(card)} if card else {}
        remedy = None
        if penalised:
            pts = self._penalty_for(seat)
            extra.update({"penalty": pts, "to_side": other_side(side_of(seat))})
            remedy = f"{pts} points to {other_side(side_of(seat))}" + (" (repeated offence in this match)"
                                                                  if pts != self.rules['penalty'] else "")
        f = self._finding(kind, section, message, ev, seat=str(seat), status="pending", remedy=remedy, id=fid,
                          extra=extra)
        if penalised:
            self.offences.append(f)
        return f

    def _penalty_for(self, seat: Seat) -> int:
        who = self.player(seat)
        repeat = who in self.prior_offenders or str(seat) in self.prior_offenders or \
            any(f.seat == str(seat) for f in self.offences)
        return int(self.rules["repeat_penalty"] if repeat else self.rules["penalty"])

    def _on_lay_down(self, ev: Event) -> list[Finding]:
        out = self._close_bidding(ev)
        cards = list(ev.get("cards") or []) + ([ev.card] if ev.card is not None else [])
        if not cards:
            return out + [bad_event("A lay_down event names no card; ignored.", ev.index, self.board)]
        for card in cards:
            out += self._lay_down_one(ev, ev.seat, card)
        return out

    def _lay_down_one(self, ev: Event, seat: Seat, card: Card) -> list[Finding]:
        out: list[Finding] = []
        if card in self.hands[seat]:
            self.hands[seat].remove(card)
        else:
            out.append(bad_event(f"{seat} laid down {card}, which the deal did not give them; recorded.",
                                 ev.index, self.board))
        self.laid_down[seat].append(card)
        if self.trump is not None and point_value(card, self.trump, self.rules["points"]):
            out.append(self._offence("point_card_laid_down", 4, seat, ev,
                                     f"{seat} laid down {card}, a point card; only cards without points may be "
                                     "laid down to get to six.", self._fid("pointdown", seat, card), card=card))
        elif self.trump is not None and not is_trump(card, self.trump):
            out.append(self._finding("lay_down_non_trump", 4, f"{seat} laid down {card} face up, which is not a "
                                     "trump; only surplus trumps are laid down (non-trumps are discarded).", ev,
                                     seat=str(seat), status="info"))
        return out

    # -- play (Pidroregler 4) --------------------------------------------------
    def active(self) -> list[Seat]:
        """Seats still holding a trump (a player out of trumps drops out)."""
        return [s for s in Seat if any(is_trump(c, self.trump) for c in self.hands[s])]

    def _start_play(self, ev: Event) -> list[Finding]:
        out = self._close_bidding(ev)
        self.play_started = True
        if self.trump is None:
            # the bidder names the suit by leading it
            self.trump = suit_of(ev.card, None)
            out += self._check_discards(ev)
        limit = self.rules["deal"]["final_hand"]
        for s in Seat:
            kept = [c for c in self.hands[s] if c in self.dealt[s] and not is_trump(c, self.trump)]
            if s != self.dealer and kept:
                out.append(self._finding(
                    "non_trump_kept", 3, f"{s} kept {', '.join(map(str, kept))} from the deal; only cards of the "
                    "suit played (with both pidros) are kept before the refill.", ev, seat=str(s),
                    status="pending", options=["lay the card(s) away", "let play go on"],
                    id=self._fid("kept", s), extra={"cards": [str(c) for c in kept]}))
            n = sum(1 for c in self.hands[s] if is_trump(c, self.trump))
            if n > limit:
                out.append(self._offence("too_many_trumps", 4, s, ev,
                                         f"{s} began play with {n} trumps in hand; a player with more than {limit} "
                                         f"must lay non-point trumps face up until {limit} remain.",
                                         self._fid("toomany", s)))
        # The bidder leads; if he holds no trump, the lead passes to the next
        # player on his left who does (Pidroregler 4), as in later rounds.
        leader = self.bidder or ev.seat
        holders = self.active()
        if holders and leader not in holders:
            leader = next((leader.next(i) for i in range(1, 4) if leader.next(i) in holders), leader)
        self.trick = Trick(leader, 1)
        self._trick_players = holders or list(Seat)
        return out

    def _expected_player(self) -> Seat | None:
        t = self.trick
        if t is None:
            return None
        order = [t.leader.next(i) for i in range(4)]
        for s in order:
            if s in self._trick_players and s not in t.seats():
                return s
        return None

    def _on_play(self, ev: Event) -> list[Finding]:
        out: list[Finding] = []
        if not self.play_started:
            out += self._start_play(ev)
        seat, card = ev.seat, ev.card
        t = self.trick
        assert t is not None
        expected = self._expected_player()
        if not t.cards and seat != t.leader:
            out.append(self._finding("lead_out_of_turn", 4, f"{seat} led to round {t.number} but {t.leader} was "
                                     "to lead.", ev, seat=str(seat), trick=t.number, status="info",
                                     extra={"expected_seat": str(t.leader)}))
        elif t.cards and expected is not None and seat != expected:
            out.append(self._finding("play_out_of_turn", 4, f"{seat} played before {expected}; cards should be "
                                     "played clockwise in turn.", ev, seat=str(seat), trick=t.number,
                                     status="info", extra={"expected_seat": str(expected)}))
        if card in self.hands[seat]:
            self.hands[seat].remove(card)
        else:
            out.append(bad_event(f"{seat} played {card}, which is not in their hand; accepted as played.",
                                 ev.index, self.board))
        if not is_trump(card, self.trump):
            out.append(self._offence("non_trump_played", 4, seat, ev,
                                     f"{seat} played {card}, which is not a trump; only trumps are played.",
                                     self._fid("nontrump", seat, ev.index), card=card))
        if seat not in self._trick_players:
            self._trick_players.append(seat)
        t.add(seat, card, ev.index)
        if all(s in t.seats() for s in self._trick_players):
            self._complete_trick()
        return out

    def _complete_trick(self) -> None:
        t = self.trick
        assert t is not None
        trump = self.trump
        t.winner = trick_winner(t.cards, trump, suit_of=lambda c: suit_of(c, trump),
                                rank_of=lambda c: trump_rank(c, trump) if is_trump(c, trump) else -1) or t.leader
        for seat, card in t.cards:
            pts = point_value(card, trump, self.rules["points"])
            if card.rank == "2":  # the two scores for the side that played it (it cannot be captured)
                self.points[side_of(seat)] += pts
            else:
                self.points[side_of(t.winner)] += pts
        self.tricks.append(t)
        left = self.active()
        if not left:
            self.trick = None
            return
        leader = t.winner
        for i in range(4):
            if leader.next(i) in left:
                leader = leader.next(i)
                break
        self.trick = Trick(leader, t.number + 1)
        self._trick_players = left

    def _on_retract(self, ev: Event) -> list[Finding]:
        t = self.trick
        if t is not None and t.remove(ev.seat, ev.card):
            self.hands[ev.seat].append(ev.card)
            return []
        return [bad_event(f"{ev.seat} took back {ev.card}, which is not in the current round; ignored.",
                          ev.index, self.board)]

    # -- the fold ---------------------------------------------------------------
    def apply(self, event: Event) -> list[Finding]:
        out, self._pending = list(self._pending), []
        for f in out:
            self.emit(f)
        t = event.type
        if t == "deal":
            if self.play_started:
                return out + [bad_event("A card was dealt after play began; recorded as dealt.", event.index,
                                        self.board)] + self._on_deal(event)
            return out + self._on_deal(event)
        if t in ("call", "trump", "discard", "lay_down", "play", "expose") and not self.refill_started:
            out += self._close_deal(event)
        if t == "call":
            return out + self._on_call(event)
        if t == "trump":
            return out + self._on_trump(event)
        if t == "discard":
            return out + self._on_discard(event)
        if t == "lay_down" or (t == "expose" and not self.play_started):
            return out + self._on_lay_down(event)
        if t == "play":
            if self.play_started and self.trick is None:
                return out + [bad_event(f"{event.seat} played {event.card} after every trump was played; "
                                        "ignored.", event.index, self.board)]
            return out + self._on_play(event)
        if t == "retract":
            return out + self._on_retract(event)
        if t == "redeal":
            return out + self._on_redeal(event)
        if t in ("end", "expose", "claim"):
            return out
        return out + [bad_event(f"'{t}' events have no meaning in Pidro; ignored.", event.index, self.board)]

    def finish(self, event: Event | None = None) -> list[Finding]:
        out: list[Finding] = [self.emit(f) for f in self._pending]
        self._pending = []
        idx = event.index if event else None
        if not self.play_started:
            # nothing was played: no score (a redeal or an abandoned deal); still check the deal
            if self.deal_count and not self.refill_started and event is not None:
                out += self._close_deal(event)
            return out
        if self.trick is not None and self.trick.cards:
            out.append(Finding("incomplete_round", f"{RULE} 4", f"Round {self.trick.number} was not finished; "
                               "its cards score for nobody.", self.board, idx, status="info"))
            self.emit(out[-1])
        bid_side = side_of(self.bidder) if self.bidder else "NS"
        other = other_side(bid_side)
        penalties = []
        for f in self.offences:
            pts, to = int(f.extra["penalty"]), f.extra["to_side"]
            penalties.append({"seat": f.seat, "kind": f.kind, "points": pts, "to_side": to})
            out.append(self.emit(Finding(f.kind, f.rule, f"{f.message[:-1]}: {pts} points to {to}.", self.board,
                                         idx, f.seat, status="rectified", remedy=f.remedy, id=f.id,
                                         extra=dict(f.extra))))
        res = settle(self.points, bid_side, self.high_bid or 0, self.fourteen_over_fourteen, penalties,
                     self.score_before, self.rules)
        made, delta, after, winner = res.made, res.delta, res.score, res.winner
        contract = f"{self.high_bid}" + (" (14 over 14)" if self.fourteen_over_fourteen else "") + \
            (" (forced)" if self.forced else "")
        msg = (f"{self.bidder} bid {contract} in {self.trump}: {bid_side} took {self.points[bid_side]}, "
               f"{other} {self.points[other]}; the bid was {'made' if made else 'set'}."
               + (f" {winner} wins the game at {after[winner]}." if winner else ""))
        if self.match_state is not None:  # the caller keeps the match going across boards
            self.match_state["score"] = dict(after)
            if winner is not None:  # the game ("spel") is over: the next deal starts a new one at 0-0
                self.match_state.setdefault("games", []).append({"winner": winner, "score": dict(after)})
                self.match_state["score"] = {"NS": 0, "EW": 0}
                self.match_state["dealer"] = None  # a new game draws its dealer by lot
            self.match_state.setdefault("offenders", [])
            self.match_state["offenders"] += [self.player(Seat(f.seat)) for f in self.offences]
        out.append(self.emit(Finding(
            "score", f"{RULE} 5", msg, self.board, idx, str(self.bidder) if self.bidder else None, status="info",
            extra={"bidder": str(self.bidder), "bid": self.high_bid, "trump": self.trump,
                   "fourteen_over_fourteen": self.fourteen_over_fourteen, "forced": self.forced,
                   "points": dict(self.points), "made": made, "delta": delta, "penalties": penalties,
                   "score_before": dict(self.score_before), "score": after, "game_over": winner is not None,
                   "winner": winner, "ruleset": self.rules.get("name")})))
        return out

    # -- views ------------------------------------------------------------------
    def legal_plays(self) -> list[Card]:
        s = self._expected_player() if self.trick else None
        if s is None:
            return []
        return [c for c in self.hands[s] if is_trump(c, self.trump)]

    def snapshot(self) -> dict[str, Any]:
        phase = ("play" if self.play_started else "refill" if self.refill_started else "discard" if self.trump
                 else "bidding" if self.bidding_started() else "deal")
        if self.finished:
            phase = "done"
        return {
            "game": GAME, "board": self.board, "dealer": str(self.dealer), "phase": phase,
            "hands": {str(s): [str(c) for c in self.hands[s]] for s in Seat},
            "dealt": {str(s): [str(c) for c in self.dealt[s]] for s in Seat},
            "auction": [{"seat": str(s), "call": c} for s, c, _ in self.calls],
            "contract": str(self.high_bid) if self.high_bid else None,
            "declarer": str(self.bidder) if self.bidder else None, "trump": self.trump,
            "trick": self.trick.to_dict() if self.trick else None,
            "tricks": [t.to_dict() for t in self.tricks],
            "tricks_won": {s: sum(1 for t in self.tricks if t.winner and t.winner.side == s) for s in SIDES},
            "turn": str(self._expected_player()) if self.trick and self._expected_player() else None,
            "open_findings": sum(1 for f in {f.id or id(f): f for f in self.findings}.values()
                                 if f.status == "pending"),
            "extra": {"points": dict(self.points), "score_before": self.score_before,
                      "discards": {str(s): [str(c) for c in v] for s, v in self.discards.items()},
                      "laid_down": {str(s): [str(c) for c in v] for s, v in self.laid_down.items()},
                      "ruleset": self.rules.get("name")},
        }


__all__ = ["PidroBoard"]
