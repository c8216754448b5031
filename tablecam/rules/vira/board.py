"""The Vira board engine: one deal judged by the SM 2025 rules.

A fold over the deal's events. Nothing is refused: a bid out of turn, a card
bought too early, a revoke are all recorded as they happened and reported as
findings citing the rule text (``Vira SM 2025 F.5``), with the remedy the text
gives. What the deal is worth (hemma / bet / kodilj, pinnar and bets) is
decided at :meth:`ViraBoard.finish`, from the tricks or from the first
irregularity that ends the deal (D.8: only the first offender pays).

Phases: ``deal`` -> ``bidding`` -> ``purchase`` -> ``play`` -> ``done``.
Seats: the dealer is efterhand; forehand sits to his left and bids and leads
first; at a four-player table the player on the dealer's right sits out
(utkuperad) unless the board says otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...cards import Card, Seat, parse_seat
from ...engine import BoardEngine
from ...events import Event
from ...findings import Finding, bad_event
from ..tricks import RevokeTracker, Trick, legal_cards, trick_winner
from .deal import DealChecker
from .gok import compensation, laggarde_suits
from .settle import COLUMN_NAMES, best_possible, column, outcome_from_tricks, pay_contract
from .table import PASS_WORDS, Contract, ViraRules, load_ruleset, norm

SUIT_WORDS = {"s": "S", "h": "H", "d": "D", "c": "C", "spader": "S", "hjarter": "H", "ruter": "D", "klover": "C",
              "spades": "S", "hearts": "H", "diamonds": "D", "clubs": "C", "♠": "S", "♥": "H", "♦": "D", "♣": "C"}
DEAL_NEUTRAL = {"deal", "first_suit", "sit_out", "ruling", "settle", "expose"}
"""Events that may come before or during the deal without ending it."""
MISAR_WORDS = {"misar", "misere", "none", "-", "ingen"}


def parse_suit(text: str) -> str | None:
    """``S``/``spader``/``♠`` -> ``S``; ``misar`` -> ``""``; unknown -> None."""
    t = norm(text)
    if t in MISAR_WORDS:
        return ""
    return SUIT_WORDS.get(t) or SUIT_WORDS.get(str(text).strip())


@dataclass
class Forced:
    """An outcome imposed by an irregularity (G, H, J, C.14)."""

    event: int | None
    outcome: str  # hemma | bet | kodilj | lagd | neither
    reason: str
    bets: dict[str, int] | None = None
    column: int | None = None
    played_on: bool = False  # H.2: both defenders chose to play on


class ViraBoard(BoardEngine):
    """One Vira deal. ``ruleset``: overrides of ``config/vira/sm-2025.json``."""

    game = "vira"

    def __init__(self, board_event: Event, ruleset: dict[str, Any] | None = None) -> None:
        super().__init__(board_event, ruleset)
        self._early: list[Finding] = []
        try:
            self.rules: ViraRules = load_ruleset(ruleset)
        except (OSError, ValueError, KeyError, TypeError) as e:
            self._early.append(bad_event(f"Vira ruleset could not be loaded ({e}); using SM 2025 defaults.",
                                         board_event.index, self.board))
            self.rules = load_ruleset(None)
        raw = board_event.raw or {}
        self.dealer: Seat = board_event.get("dealer") or Seat.N
        self.players: list[Seat] = self._seats_field(raw.get("players"), board_event) or [Seat.N, Seat.E, Seat.S, Seat.W]
        sit = self._seat_field(raw.get("sit_out"), "sit_out", board_event)
        if sit is None and len(self.players) == 4:
            sit = self.dealer.rho
        self.sit_out: Seat | None = sit
        self.pack: str | None = board_event.get("pack")
        self.first_suit: str | None = None
        if raw.get("first_suit") is not None:
            self.first_suit = self._suit_of_first(raw.get("first_suit"))
        self.phase = "deal"
        self.hands: dict[Seat, list[Card]] = {s: [] for s in self.players}
        self.talong: list[Card] = []
        self.dealt_talong: list[Card] = []
        self.deal = DealChecker(self)
        # bidding
        self.auction: list[dict[str, Any]] = []
        self.passed: set[Seat] = set()
        self.turn: Seat | None = None
        self.high: Contract | None = None
        self.high_no = 0
        self.high_seat: Seat | None = None
        self.prev_no = 0  # the bid before the current high bid (A.4)
        self.high_event: Event | None = None
        self.bid_suit: str | None = None
        self._pending_insufficient: dict[Seat, Finding] = {}
        self._f4: dict[str, Any] | None = None
        self._may_bid_again: set[Seat] = set()
        self._a1: Finding | None = None
        self._must_call: dict[Seat, Finding] = {}  # void bids (A.3, A.4) waiting for the player's new call
        self._flagged: set[tuple[str, str]] = set()  # (rule, seat) flagged once per deal
        self._gok_passes: list[tuple[Seat, Event]] = []  # passes over a gök bid, in order (B.1)
        # contract
        self.declarer: Seat | None = None
        self.contract: Contract | None = None
        self.trump: str | None = None
        self.playing_misar = False
        self.trump_named = False
        self.shown: dict[Seat, list[Card]] = {}
        self.discards: dict[Seat, list[Card]] = {}
        self.bought: dict[Seat, list[Card]] = {}
        self.face_up_talong: set[Card] = set()
        self.bought_done: set[Seat] = set()  # players whose purchase is over (their 'buy' event came)
        self._a4: Finding | None = None
        self._a7_done = False
        # play
        self.tricks: list[Trick] = []
        self.trick: Trick | None = None
        self.revokes = RevokeTracker("next_trick", id_prefix=f"vira-{self.board}")
        self._revoke_findings: dict[str, Finding] = {}
        self._revoke_state: dict[str, tuple[int, int]] = {}  # revoke id -> (declarer's tricks before, trick no)
        self._out_of_turn: list[dict[str, Any]] = []
        self.claim: tuple[Seat, int] | None = None
        self.hand_size = self.rules.settings.get("deal", {}).get("hand", 13)
        # outcome
        self.forced: list[Forced] = []
        self.abort_bets: list[tuple[int | None, str, dict[str, int], str]] = []  # (event, kind, bets, rule)
        self.redeal: list[tuple[int | None, str]] = []
        self.rulings: list[Event] = []
        self.settled: Event | None = None
        self.score: dict[str, Any] | None = None

    # -- setup helpers -------------------------------------------------------------
    def _seats_field(self, v: Any, ev: Event) -> list[Seat] | None:
        if v is None:
            return None
        try:
            seats = [parse_seat(x) for x in (list(v.replace(",", "").replace(" ", "")) if isinstance(v, str) else v)]
        except (ValueError, TypeError):
            self._early.append(bad_event(f"Board 'players' {v!r} not understood; assuming N E S W.", ev.index, self.board))
            return None
        order = [s for s in (Seat.N, Seat.E, Seat.S, Seat.W) if s in seats]
        if len(order) not in (3, 4):
            self._early.append(bad_event(f"Vira needs 3 or 4 players, board lists {len(order)}; assuming N E S W.",
                                         ev.index, self.board))
            return None
        return order

    def _seat_field(self, v: Any, name: str, ev: Event) -> Seat | None:
        if v is None:
            return None
        try:
            return parse_seat(v)
        except ValueError:
            self._early.append(bad_event(f"Board field '{name}' {v!r} is not a seat; ignored.", ev.index, self.board))
            return None

    def _suit_of_first(self, v: Any) -> str | None:
        s = str(v).strip()
        if len(s) == 2 and s[0].upper() in "SHDC":
            return s[0].upper()
        return parse_suit(s) or None

    # -- seats ---------------------------------------------------------------------
    @property
    def active(self) -> list[Seat]:
        """The three active players from forehand: forehand, mellanhand, efterhand (the dealer)."""
        order = [self.dealer.next(i) for i in (1, 2, 3, 4)]
        return [s for s in order if s in self.players and s != self.sit_out][:3]

    @property
    def forehand(self) -> Seat:
        return self.active[0]

    def next_active(self, seat: Seat, skip_passed: bool = False) -> Seat:
        act = self.active
        if seat not in act:
            return act[0]
        i = act.index(seat)
        for k in range(1, 4):
            s = act[(i + k) % 3]
            if not skip_passed or s not in self.passed:
                return s
        return seat

    @property
    def defenders(self) -> list[Seat]:
        return [s for s in self.active if s != self.declarer]

    # -- findings --------------------------------------------------------------------
    def flag(self, kind: str, key: str, message: str, ev: Event | None, seat: Any = None, trick: int | None = None,
             status: str = "pending", options: list[str] | None = None, remedy: str | None = None,
             id: str | None = None, rule: str | None = None, **extra: Any) -> Finding:
        """Emit a finding citing ``Vira SM 2025 <section of key>`` (or ``rule`` verbatim)."""
        f = Finding(kind, rule=rule or self.rules.cite(key), message=message, board=self.board,
                    event=ev.index if ev is not None else None, seat=str(seat) if seat is not None else None,
                    trick=trick, status=status, options=list(options or []), remedy=remedy,
                    id=id or f"vira-{self.board}-{kind}-{ev.index if ev is not None else 'end'}", extra=extra)
        return self.emit(f)

    def restate(self, f: Finding, status: str, ev: Event | None = None, message: str | None = None,
                remedy: str | None = None, **extra: Any) -> Finding:
        """Re-emit a finding with the same id and a new lifecycle status."""
        g = Finding(f.kind, rule=f.rule, message=message or f.message, board=f.board,
                    event=ev.index if ev is not None else f.event, seat=f.seat, trick=f.trick, status=status,
                    options=list(f.options), remedy=remedy or f.remedy, id=f.id, extra={**f.extra, **extra})
        return self.emit(g)

    # -- the fold -----------------------------------------------------------------------
    def apply(self, event: Event) -> list[Finding]:
        start = len(self.findings)
        for f in self._early:
            self.emit(f)
        self._early = []
        handler = getattr(self, f"_on_{event.type}", None)
        if event.type not in DEAL_NEUTRAL and self.phase == "deal":
            self.deal.end(event)
        if handler is None:
            self.emit(bad_event(f"'{event.type}' is not a Vira event; ignored.", event.index, self.board))
        else:
            handler(event)
        return self.findings[start:]

    def _on_board(self, ev: Event) -> None:  # pragma: no cover - Table never routes board events here
        pass

    def _on_end(self, ev: Event) -> None:
        pass

    def _on_deal(self, ev: Event) -> None:
        self.deal.card(ev)

    def _on_sit_out(self, ev: Event) -> None:
        seat = ev.seat
        if seat == self.dealer:
            self.emit(bad_event(f"The dealer {seat} cannot sit out (the dealer is efterhand); ignored.",
                                ev.index, self.board))
            return
        if seat not in self.players:
            self.players = sorted(set(self.players) | {seat}, key=lambda s: s.index)
            self.hands.setdefault(seat, [])
        self.sit_out = seat

    def _on_first_suit(self, ev: Event) -> None:
        if ev.card is not None:
            self.first_suit = ev.card.suit
        elif ev.get("suit") is not None and parse_suit(ev.get("suit")):
            self.first_suit = parse_suit(ev.get("suit"))
        else:
            self.emit(bad_event("'first_suit' needs a card or a suit; ignored.", ev.index, self.board))

    def _on_talong_face_up(self, ev: Event) -> None:
        self.face_up_talong.add(ev.card)
        self.flag("talong_face_up", "talong_face_up", f"{ev.card} was found face up in the talong; it stays "
                  "face up: it may not be bought in a köpspel or solo and is ignored in a gask.", ev, status="info",
                  card=str(ev.card))

    def _on_ruling(self, ev: Event) -> None:
        self.rulings.append(ev)

    def _on_settle(self, ev: Event) -> None:
        self.settled = ev

    # -- bidding ---------------------------------------------------------------------------
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
            self.flag("sit_out_interference", "sit_out_interferes", f"{seat} is not an active player in this deal "
                      f"and may not bid; the bid '{text}' is ignored.", ev, seat=seat, status="rectified")
            return
        if self.phase != "bidding":
            self.flag("bid_out_of_turn", "bid_out_of_turn", f"{seat} bid '{text}' after the bidding ended; "
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
            self.restate(f, "corrected", ev, remedy=f"{seat} {what}.")

    def _pass(self, ev: Event, seat: Seat) -> None:
        if seat in self.passed and seat not in self._may_bid_again:
            self.emit(bad_event(f"{seat} passed again (he has already passed); ignored.", ev.index, self.board))
            return
        self._resolve_must_call(ev, seat, "passed instead")
        pend = self._pending_insufficient.pop(seat, None)
        if pend is not None:
            if pend.extra.get("may_pass"):
                self.restate(pend, "corrected", ev, remedy=f"{seat} chose to pass (F.3).")
            else:
                self.restate(pend, "established", ev)
                self.flag("pass_not_allowed", "insufficient_no_pass", f"{seat} passed after an insufficient bid while "
                          "higher bids of the same kind remained; he must make a higher bid instead.", ev, seat=seat,
                          remedy="Ask for a bid higher than the last one (F.2); the director decides if the table "
                                 "played on.")
        if not self.high and seat == self.forehand and not self._a1_done():
            self._a1 = self.flag("first_bid_pass", "first_bid_pass", f"Forehand {seat} opened the bidding with pass, "
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
            f = self.flag("pass_out_of_turn", "pass_out_of_turn", f"{seat} passed before {first}, whose turn it was, "
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
                self.restate(f4["finding"], "pending", ev, remedy=f"{self.high_seat} may require {f4['seat']} to make "
                             "a bid other than pass (F.4).")
                self.turn = f4["seat"]
                return
        self.turn = self.next_active(seat, skip_passed=True)

    def _a1_done(self) -> bool:
        return self._a1 is not None and self._a1.status != "pending"

    def _real_bid(self, ev: Event, seat: Seat, text: str) -> None:
        rules = self.rules
        if rules.is_unspecified_forbidden(text):
            self._must_call[seat] = self.flag("unspecified_bid", "unspecified", f"{seat} bid '{text}' without saying which solomisär; "
                      "solomisärer cannot be bid unspecified, so the bid is void.", ev, seat=seat,
                      remedy=f"{seat} names a bid from the table or passes.")
            return
        c = rules.contract(text)
        if c is None:
            self.emit(bad_event(f"'{text}' is not in the bid table {rules.table_name}; bid ignored.", ev.index, self.board))
            return
        if seat in self.passed and seat not in self._may_bid_again:
            self.flag("bid_after_pass", "passed_bids_again", f"{seat} bid {c.name} after having passed; a player who "
                      "has passed may not bid again, so the bid is void.", ev, seat=seat, status="rectified",
                      remedy="The bid does not count.")
            return
        if seat != self.turn and seat not in self._may_bid_again:
            self.flag("bid_out_of_turn", "bid_out_of_turn", f"{seat} bid {c.name} out of turn ({self.turn} was to "
                      "speak); the bid is not considered.", ev, seat=seat, status="rectified",
                      remedy=f"The bid is void; {self.turn} speaks.")
            return
        if not rules.biddable(c):
            self._must_call[seat] = self.flag("bid_not_allowed", "not_biddable", f"{seat} bid {c.name}, which may not be bid in this tournament "
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
            self.restate(pend, "corrected", ev, remedy=f"{seat} corrected to {c.name}.")
        if self._a1 is not None and self._a1.status == "pending" and seat == self.forehand:
            self._a1 = self.restate(self._a1, "corrected", ev, remedy=f"Forehand bid {c.name}.")
        if seat in self._may_bid_again:
            self._may_bid_again.discard(seat)
            if self._f4 is None:
                for f in reversed(self.findings):
                    if f.kind == "pass_out_of_turn" and f.seat == str(seat):
                        self.restate(f, "corrected", ev, remedy=f"{seat} bid {c.name} as required (F.4).")
                        break
        if self._f4 is not None and seat == self._f4["first"]:
            self.restate(self._f4["finding"], "established", ev, remedy=f"{seat} bid; the pass stands (C.8).")
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
        f = self.flag("insufficient_bid", key, f"{seat} bid {c.name}, which does not overcall {last}; he must "
                      + ("bid again and may not pass." if same else "pass or make a sufficient bid."), ev, seat=seat,
                      options=opts, may_pass=not same, bid=c.name, last=last)
        if same:
            f.rule = rules.cite("insufficient_bid")
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
            if rule.get("resolve") == "lowest_above_previous":
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
                self.flag("contract_mismatch", "unspecified", f"{ev.seat} won the bidding with {h.name} but "
                          f"names {c.name}; the contract is the one bid.", ev, seat=ev.seat, status="rectified")
            return
        rule = self.rules.unspecified_rule(h)
        ok_family = c.family in rule.get("families", [])
        if rule.get("resolve") == "lowest_above_previous":
            low = self.rules.lowest_above(h.family, self.prev_no)
            if c != low:
                self.flag("unspecified_contract", "unspecified_lowest", f"Unspecified {h.name.lower()} must be played "
                          f"as {low.name if low else '?'}, the lowest that overcalls the previous bid, not {c.name}.",
                          ev, seat=ev.seat, status="rectified", remedy=f"Played as {low.name if low else '?'}.")
            return
        if not ok_family or c.no <= self.prev_no or not self.rules.biddable(c):
            prev = self._contract_no(self.prev_no)
            self._a4 = self.flag("unspecified_contract", "unspecified", f"{ev.seat} named {c.name} for the unspecified "
                      f"{h.name.lower()}; it must be a {h.name.lower()} that overcalls {prev}.", ev, seat=ev.seat,
                      options=[m.name for m in self.rules.family_members(h.family)
                               if m.no > self.prev_no and self.rules.biddable(m)])
            return
        self.contract = c
        if self._a4 is not None:
            self.restate(self._a4, "corrected", ev, remedy=f"Declarer named {c.name}.")

    def _contract_no(self, no: int) -> str:
        for c in self.rules.contracts:
            if c.no == no:
                return c.name
        return "nothing"

    # -- purchase -----------------------------------------------------------------------
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
        want = self.rules.settings.get("turn_up", {}).get(fam)
        turned = ev.get("cards")
        if isinstance(want, int) and turned is not None and len(turned) != want:
            self._g1(ev, f"{ev.seat} turned up {len(turned)} talong cards for {c.name if c else fam}; "
                         f"{want} should be turned up.")

    def _g1(self, ev: Event, message: str) -> None:
        self.flag("trump_choice", "trump_choice", message.rstrip(".") + "; the deal is stopped and the declarer pays "
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
                self.flag("card_not_in_hand", "felekartering", f"{seat} discarded {c}, which is not in his hand.", ev,
                          seat=seat, status="info", card=str(c))
            self.discards.setdefault(seat, []).append(c)

    def _on_buy(self, ev: Event) -> None:
        seat = ev.seat
        cards = ev.get("cards")
        if self.phase in ("deal", "bidding"):
            self.flag("talong_before_auction", "talong_before_end", f"{seat} took cards from the talong before the "
                      "bidding was over; the deal is stopped and he pays a bet.", ev, seat=seat, status="established",
                      remedy=f"{seat} pays a bet into the pulla; the deal passes to the left (F.6).")
            self.abort_bets.append((ev.index, "talong_before_auction", {str(seat): 1}, self.rules.section("talong_before_end")))
        else:
            self._purchase_order(ev, seat)
            if seat == self.declarer and self.contract is not None:
                self._declarer_buy_checks(ev)
            if self.contract is not None and self.contract.royal and self.declarer not in self.shown \
                    and not self._a7_done:
                self._a7_done = True
                self.flag("open_misar_not_shown", "open_misar", f"The declarer {self.declarer} has not laid his cards "
                          f"face up before the purchase in {self.contract.name}.", ev, seat=self.declarer,
                          remedy="The declarer lays his cards face up now; the director judges any damage.")
        hand = self.hands.setdefault(seat, [])
        for c in cards:
            if c in self.talong:
                self.talong.remove(c)
            elif self.deal.known:
                self.flag("card_not_in_talong", "declarer_purchase" if seat == self.declarer else "defender_purchase",
                          f"{seat} bought {c}, which is not in the talong.", ev, seat=seat, status="info", card=str(c))
            if c in self.face_up_talong and self.contract is not None and self.contract.family != "gask":
                self.flag("face_up_card_bought", "face_up_bought", f"{seat} bought {c}, which lay face up in the "
                          "talong; in a köpspel or solo it may not be bought and is put aside.", ev, seat=seat,
                          remedy="Put the card aside (E.10).", card=str(c))
            hand.append(c)
        self.bought.setdefault(seat, []).extend(cards)
        self.bought_done.add(seat)

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
            self.flag("purchase_out_of_turn", "defender_purchase", f"Defender {seat} started his purchase before the "
                      f"declarer {self.declarer} had finished his; the declarer is home.", ev, seat=seat,
                      status="established", remedy="The declarer is paid as home (G.5).")
            self.forced.append(Forced(ev.index, "hemma", self.rules.section("defender_purchase")))
            return
        lho = self.next_active(self.declarer)
        if seat != lho and lho not in done and ("G.4", str(seat)) not in self._flagged:
            self._flagged.add(("G.4", str(seat)))
            self.flag("purchase_out_of_turn", "rho_early_purchase", f"{seat}, on the declarer's right, started his "
                      f"purchase before {lho} on the declarer's left had finished; the declarer is home.", ev,
                      seat=seat, status="established", remedy="The declarer is paid as home (G.4).")
            self.forced.append(Forced(ev.index, "hemma", self.rules.section("rho_early_purchase")))

    def _declarer_buy_checks(self, ev: Event) -> None:
        c = self.contract
        assert c is not None
        if c.purchase is False:
            self.flag("purchase_not_allowed", "declarer_purchase", f"The declarer {self.declarer} bought from the "
                      f"talong in {c.name}, where there is no purchase; he pays for a lagd hand.", ev,
                      seat=self.declarer, status="established", remedy="Declarer pays for a lagd hand (G.3).")
            self.forced.append(Forced(ev.index, "lagd", self.rules.section("declarer_purchase")))
            return
        need = c.family in self.rules.settings.get("trump_before_purchase", []) and not c.is_misar
        if need and not self.trump_named and self.declarer not in self.bought_done:
            if self.bid_suit and self.bid_suit == self.first_suit:
                return  # G.2: bid in högsta färg, the trump is already named
            self._g1(ev, f"The declarer {self.declarer} bought before naming trump in {c.name}.")

    def _on_purchase(self, ev: Event) -> None:
        """``purchase`` is another name for ``buy``."""
        self._on_buy(ev)

    def _on_show(self, ev: Event) -> None:
        self.shown.setdefault(ev.seat, []).extend(ev.get("cards"))

    # -- play -----------------------------------------------------------------------
    def _start_play(self, ev: Event) -> None:
        """First lead: everything that must be settled before it is checked here."""
        if self.phase in ("deal", "bidding"):
            self.flag("play_before_auction", "late", "A card was played before the bidding was over; the engine "
                      "treats the bidding as ended.", ev, status="info")
            if self.high is not None:
                self.declarer = self.high_seat
                self._set_contract(ev)
        self.phase = "play"
        c = self.contract
        if c is not None and c.unspecified and self._a4 is None:
            self._a4 = self.flag("unspecified_contract", "unspecified", f"The final bid was an unspecified "
                                 f"{c.name.lower()}, and the declarer {self.declarer} has not said which one he plays.",
                                 ev, seat=self.declarer, options=[m.name for m in self.rules.family_members(c.family)
                                                                  if m.no > self.prev_no and self.rules.biddable(m)])
        if c is not None and not c.is_misar and not self.trump_named and \
                not any(f.kind == "trump_choice" for f in self.findings):
            self.flag("trump_choice", "trump_choice", f"No trump was named for {c.name} before the first lead.", ev,
                      seat=self.declarer, remedy="The declarer names trump; if the deal cannot go on he pays for a "
                      "lagd hand (G.1-G.2).")
        if c is not None and self._misar_open() and self.declarer in self.shown and self.deal.known \
                and not self._a7_done:
            hidden = sorted(set(self.hands.get(self.declarer, [])) - set(self.shown[self.declarer]))
            if hidden:
                self._a7_done = True
                self.flag("open_misar_not_shown", "open_misar", f"The declarer {self.declarer} laid up his hand in "
                          f"{c.name} without {len(hidden)} card{'s' if len(hidden) > 1 else ''} "
                          f"({', '.join(map(str, hidden))}) before the first lead.", ev, seat=self.declarer,
                          remedy="The declarer lays those cards face up now; the director judges any damage.",
                          hidden=[str(x) for x in hidden])
        if c is not None and self._misar_open() and self.declarer not in self.shown and not self._a7_done:
            self._a7_done = True
            self.flag("open_misar_not_shown", "open_misar", f"The declarer {self.declarer} has not laid his cards face "
                      f"up before the first lead in {c.name} (an open misär).", ev, seat=self.declarer,
                      remedy="The declarer lays his cards face up now; the director judges any damage.")
        if c is not None:
            self.hand_size = self._expected_hand()
        self._check_felekartering(ev)
        self.talong_aside = list(self.talong)  # C.6: the rest of the talong is put aside

    def _misar_open(self) -> bool:
        c = self.contract
        if c is None or not c.misar:
            return False
        return c.open_misar and (c.is_misar or self.playing_misar)

    def _is_misar_game(self) -> bool:
        c = self.contract
        return c is not None and (c.is_misar or self.playing_misar)

    def _expected_hand(self) -> int:
        c = self.contract
        base = self.rules.settings.get("deal", {}).get("hand", 13)
        if c is not None and c.misar and (c.is_misar or self.playing_misar):
            return int(c.misar.get("cards", base))
        return base

    def _check_felekartering(self, ev: Event) -> None:
        if not self.deal.known or self.declarer is None:
            return
        want = self.hand_size
        wrong = [s for s in self.active if len(self.hands.get(s, [])) != want]
        if not wrong:
            return
        for s in wrong:
            n = len(self.hands.get(s, []))
            if s == self.declarer:
                self.flag("felekartering", "declarer_felekartering", f"The declarer {s} holds {n} cards after the "
                          f"purchase instead of {want}; the deal is stopped unless both defenders want to play on.",
                          ev, seat=s, count=n, expected=want, id=f"vira-{self.board}-felekartering-{s}",
                          options=["both defenders play on under the present conditions (D.9, D.10)",
                                   "stop the deal: the declarer pays for a lagd hand (H.3)"])
            else:
                self.flag("felekartering", "defender_felekartering", f"Defender {s} holds {n} cards after the purchase "
                          f"instead of {want}; the declarer is home.", ev, seat=s, count=n, expected=want,
                          status="established", id=f"vira-{self.board}-felekartering-{s}",
                          remedy="The declarer is paid as home (H.4).")
        if self.declarer in wrong and len(wrong) > 1:
            bets = {str(s): 1 for s in wrong}
            self.forced.append(Forced(ev.index, "neither", self.rules.section("both_felekartering"), bets=bets))
            self.flag("felekartering", "both_felekartering", "Both the declarer and a defender discarded wrongly: the "
                      "game is neither home nor bet, and each of them pays a bet.", ev, status="established",
                      remedy="Each faulty player pays a bet (H.5).", bets=bets)
        elif self.declarer in wrong:
            self.forced.append(Forced(ev.index, "felekartering_declarer", self.rules.section("declarer_felekartering")))
        else:
            self.forced.append(Forced(ev.index, "hemma", self.rules.section("defender_felekartering")))

    def _expected_player(self) -> Seat:
        t = self.trick
        if t is None or not t.cards:
            if self.tricks:
                return self.tricks[-1].winner or self.forehand
            return self.forehand
        return self.next_active(t.cards[-1][0])

    def _on_play(self, ev: Event) -> None:
        seat, card = ev.seat, ev.card
        if self.phase != "play":
            self._start_play(ev)
        if seat not in self.active:
            self.flag("sit_out_interference", "sit_out", f"{seat} is not an active player in this deal; the card "
                      f"{card} is ignored.", ev, seat=seat, status="info")
            return
        if self.trick is None:
            self.trick = Trick(leader=seat, number=len(self.tricks) + 1)
        number = self.trick.number
        if not self.trick.cards:
            self.trick.leader = seat
            self._establish_pending(ev, number)
        expected = self._expected_player()
        if seat != expected:
            lead = not self.trick.cards
            f = self.flag("lead_out_of_turn" if lead else "play_out_of_turn", "out_of_turn",
                          f"{seat} {'led' if lead else 'played'} {card} to trick {number} out of turn ({expected} was "
                          "to play); it is corrected without penalty unless seeing the card harmed the other side.",
                          ev, seat=seat, trick=number, card=str(card),
                          options=["the card goes back to the hand, play goes on in turn (J.1)",
                                   "the card harmed the other side: the deal is stopped and they are paid the most "
                                   "favourable outcome still possible (J.2)"])
            self._out_of_turn.append({"finding": f, "seat": seat, "card": card, "trick": number, "status": "pending"})
        hand = self.hands.setdefault(seat, [])
        if self.deal.known and card not in hand:
            self.flag("card_not_in_hand", "out_of_turn", f"{seat} played {card}, which is not in his hand.", ev,
                      seat=seat, trick=number, status="info", card=str(card), rule="tablecam event log")
        elif self.deal.known:
            led = self.trick.led_suit()
            r = self.revokes.check(seat, card, hand, led, number, ev.index)
            if r is not None:
                f = self.flag("revoke", "revoke", f"{seat} did not follow {led} with {card} in trick {number}; "
                              "corrected without penalty if taken back before the next trick is turned.", ev,
                              seat=seat, trick=number, id=r.id, established=False, card=str(card),
                              options=["correct now: take back this card and every card after it, play a card of "
                                       "the suit led (J.3-J.5)",
                                       "the other side was harmed anyway: the deal is stopped and they are paid the "
                                       "most favourable outcome still possible (J.6)"])
                self._revoke_findings[r.id] = f
                self._revoke_state[r.id] = (self._declarer_tricks(), number)
        if card in hand:
            hand.remove(card)
        self.trick.add(seat, card, ev.index)
        if len(self.trick.cards) == 3:
            self.trick.winner = trick_winner(self.trick.cards, self.trump)
            self.tricks.append(self.trick)
            self.trick = Trick(leader=self.trick.winner or seat, number=len(self.tricks) + 1)

    def _establish_pending(self, ev: Event, number: int) -> None:
        """A card to a new trick: the previous trick has been turned."""
        for r in self.revokes.on_play(ev.seat, number, ev.index):
            f = self._revoke_findings.get(r.id)
            if f is None:
                continue
            offender = r.seat
            taken, trick_no = self._revoke_state.get(r.id, (0, r.trick))
            outcome = self._most_favourable(offender, taken, trick_no)
            self.restate(f, "established", ev, established=True, outcome=outcome,
                         message=f"{offender}'s revoke in trick {r.trick} was not corrected before the next trick was "
                                 f"turned; the deal is stopped and the other side is paid the most favourable outcome "
                                 f"still possible ({outcome}).",
                         remedy=f"Settle as {outcome} for the declarer ({self.rules.section('revoke_established')}).")
            self.forced.append(Forced(r.event, outcome, self.rules.section("revoke_established")))
        for x in self._out_of_turn:
            if x["status"] == "pending" and x["trick"] < number:
                x["status"] = "established"
                self.restate(x["finding"], "established", ev, remedy="Not corrected before the next trick was turned: "
                             "play goes on under the present conditions (D.7).")
        self._out_of_turn = [x for x in self._out_of_turn if x["status"] == "pending"]
        for fz in self.forced:
            if fz.outcome == "felekartering_declarer" and number >= 2 and not fz.played_on:
                fz.played_on = True
                for f in reversed(self.findings):
                    if f.kind == "felekartering" and f.seat == str(self.declarer):
                        self.restate(f, "established", ev, remedy="Both defenders played on: the deal counts as "
                                     "with the right number of cards (D.9, D.10).")
                        break

    def _most_favourable(self, offender: Seat, taken: int, trick_no: int) -> str:
        c = self.contract
        needed = c.tricks if c is not None else None
        remaining = max(self.hand_size - (trick_no - 1), 0)
        return best_possible(needed, self._is_misar_game(), taken, remaining, for_declarer=offender != self.declarer)

    def _declarer_tricks(self) -> int:
        return sum(1 for t in self.tricks if t.winner == self.declarer)

    def _on_retract(self, ev: Event) -> None:
        seat, card = ev.seat, ev.card
        t = self.trick
        if (t is None or not t.cards) and self.tricks and any(s == seat and c == card for s, c in self.tricks[-1].cards):
            t = self.tricks.pop()
            t.winner = None
            self.trick = t
        if t is None or not t.remove(seat, card):
            self.emit(bad_event(f"Retract of {card} by {seat}, which is not in the current trick; ignored.", ev.index,
                                self.board))
            return
        self.hands.setdefault(seat, []).append(card)
        r = self.revokes.retract(seat, card)
        if r is not None and r.id in self._revoke_findings:
            self.restate(self._revoke_findings[r.id], "corrected", ev, corrected=True,
                         remedy="Taken back in time with every card played after it; the offender plays a card of "
                                "the suit led (J.4, J.5).")
        for x in self._out_of_turn:
            if x["status"] == "pending" and x["seat"] == seat and x["card"] == card:
                x["status"] = "corrected"
                self.restate(x["finding"], "corrected", ev, remedy="The card went back to the hand (J.1).")
        if t.cards:
            t.leader = t.cards[0][0]

    def _on_expose(self, ev: Event) -> None:
        if ev.seat == self.declarer and self._misar_open():
            return
        self.flag("exposed_card", "out_of_turn", f"{ev.seat} showed {ev.card} from his hand; it is taken back "
                  "without penalty unless seeing it harmed the other side.", ev, seat=ev.seat, card=str(ev.card),
                  options=["no harm: the card goes back to the hand (J.1)",
                           "harm: the deal is stopped and the other side is paid the most favourable outcome still "
                           "possible (J.2)"])

    def _on_claim(self, ev: Event) -> None:
        self.claim = (ev.seat, ev.get("tricks"))
        if ev.seat in self.defenders:
            self.flag("concession", "concede", f"Defender {ev.seat} gave up the game; the declarer is home.", ev,
                      seat=ev.seat, status="info")
            self.forced.append(Forced(ev.index, "hemma", self.rules.section("concede")))

    # -- end of deal -------------------------------------------------------------------
    def finish(self, event: Event | None = None) -> list[Finding]:
        start = len(self.findings)
        for f in self._early:
            self.emit(f)
        self._early = []
        if self.phase == "deal":
            self.deal.end(event)
        for r in self.revokes.close():
            f = self._revoke_findings.get(r.id)
            if f is not None:
                taken, trick_no = self._revoke_state.get(r.id, (0, r.trick))
                outcome = self._most_favourable(r.seat, taken, trick_no)
                self.restate(f, "established", event, established=True, outcome=outcome,
                             remedy=f"Settle as {outcome} for the declarer ({self.rules.section('revoke_established')}).")
                self.forced.append(Forced(r.event, outcome, self.rules.section("revoke_established")))
        self.phase = "done"
        self.score = self._settle(event)
        self.score["next_dealer"] = self._next_dealer(self.score.get("outcome"))
        self.emit(Finding("score", rule=self.score.pop("rule"), message=self.score.pop("message"), board=self.board,
                          event=event.index if event is not None else None, status="info",
                          id=f"vira-{self.board}-score", extra=self.score))
        self._check_payment(event)
        return self.findings[start:]

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
        if self.sit_out is not None and self.sit_out in self.players and self.rules.settings.get("sit_out_pays", True):
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
                outcome = "lagd" if not self._played_on() else None
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
            elif outcome == "lagd" and c.family in self.rules.settings.get("lagd_in_ofarg", ["solo", "gask"]):
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
        cfg = self.rules.settings.get("gok", {})
        if not self.deal.known or not cfg:
            return {}
        limits = {int(k): int(v) for k, v in cfg.get("laggarde_limits", {}).items()}
        needs = [cfg.get("first_hand_needs", 2), cfg.get("second_hand_needs", 1)]
        d = self.declarer
        order = [self.next_active(d), self.next_active(self.next_active(d))] if d else []
        thieves: list[str] = []
        for seat, ev in self._gok_passes:
            if seat not in order:
                continue
            need = needs[order.index(seat)]
            have = laggarde_suits(self.deal.dealt.get(seat, []), limits)
            if len(have) < need:
                thieves.append(str(seat))
                self.flag("tjuvpass", "tjuvpass", f"{seat} passed over the gök as {('first', 'second')[order.index(seat)]}"
                          f" hand with {len(have)} läggarde{'' if len(have) == 1 else 'r'} instead of {need}, and the "
                          "gök went home: he compensates.", ev, seat=seat, status="established",
                          laggarder=have, needed=need, id=f"vira-{self.board}-tjuvpass-{seat}")
        if not thieves:
            return {}
        partner = {str(a): str(b) for a in self.defenders for b in self.defenders if a != b}
        pay = compensation(thieves, partner, str(self.sit_out) if self.sit_out else None, cfg.get("compensation", {}))
        for f in self.findings:
            if f.kind == "tjuvpass" and f.seat in thieves:
                f.extra["compensation"] = pay
        return pay

    def _played_on(self) -> bool:
        return len(self.tricks) > 1 or any(r.get("outcome", "").lower() == "continue" for r in
                                           (e.data for e in self.rulings))

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
            self.flag("payment_error", "payment", "The table paid " + " and ".join(problems) + ".", ev,
                      remedy="Correct the payment; it can be claimed until everyone has picked up his cards in the "
                             "deal after next (D.7).", expected_pinnar=want_p, expected_bets=want_b)

    # -- views -----------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        dealt = {str(s): [str(c) for c in cs] for s, cs in self.deal.dealt.items()}
        cur = self.trick.to_dict() if self.trick is not None and self.trick.cards else None
        won = {str(s): sum(1 for t in self.tricks if t.winner == s) for s in self.active}
        turn: Seat | None = None
        if self.phase == "bidding":
            turn = self.turn or self.forehand
        elif self.phase == "play" or (self.phase == "purchase" and self.declarer is not None):
            turn = self._expected_player() if self.phase == "play" else self.declarer
        return {
            "game": self.game, "board": self.board, "dealer": str(self.dealer), "phase": self.phase,
            "hands": {str(s): [str(c) for c in sorted(cs)] for s, cs in self.hands.items() if s in self.active},
            "dealt": dealt,
            "auction": [{"seat": a["seat"], "call": a["bid"]} for a in self.auction],
            "contract": self.contract.name if self.contract else None,
            "declarer": str(self.declarer) if self.declarer else None,
            "trump": self.trump,
            "trick": cur,
            "tricks": [t.to_dict() for t in self.tricks],
            "tricks_won": won,
            "turn": str(turn) if turn else None,
            "open_findings": sum(1 for f in self._latest_findings() if f.status == "pending"),
            "extra": {
                "active": [str(s) for s in self.active], "sit_out": str(self.sit_out) if self.sit_out else None,
                "forehand": str(self.forehand), "talong": [str(c) for c in self.talong],
                "first_suit": self.first_suit, "pack": self.pack, "playing_misar": self.playing_misar,
                "discards": {str(s): [str(c) for c in cs] for s, cs in self.discards.items()},
                "bought": {str(s): [str(c) for c in cs] for s, cs in self.bought.items()},
                "shown": {str(s): [str(c) for c in cs] for s, cs in self.shown.items()},
                "score": self.score,
            },
        }

    def _latest_findings(self) -> list[Finding]:
        latest: dict[str, Finding] = {}
        for i, f in enumerate(self.findings):
            latest[f.id or f"#{i}"] = f
        return list(latest.values())

    def legal_plays(self) -> list[Card]:
        """Oracle: cards the player on turn may play (must follow suit); [] outside play."""
        if self.phase not in ("play", "purchase") or not self.deal.known or self.declarer is None:
            return []
        seat = self._expected_player() if self.phase == "play" else self.forehand  # forehand leads first
        hand = self.hands.get(seat, [])
        led = self.trick.led_suit() if self.trick is not None and self.trick.cards else None
        return sorted(legal_cards(hand, led))

    def legal_bids(self) -> list[str]:
        """Oracle: the bids the player on turn may make now (names), plus 'pass' where allowed."""
        if self.phase not in ("deal", "bidding"):
            return []
        out = [] if (not self.high) else ["pass"]
        for c in self.rules.contracts:
            if c.no > self.high_no and self.rules.biddable(c):
                out.append(c.name)
        return out


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
