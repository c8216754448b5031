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

from typing import Any

from ... import kinds
from ...cards import Card, Seat, parse_seat
from ...engine import BoardEngine
from ...events import Event
from ...findings import Finding, bad_event
from ..tricks import RevokeTracker, Trick
from .bidding import BiddingMixin
from .choices import ChoicesMixin
from .deal import DealChecker
from .outcome import OutcomeMixin
from .play import PlayMixin
from .purchase import PurchaseMixin
from .settle import Forced
from .table import Contract, ViraRules, load_ruleset, parse_suit

DEAL_NEUTRAL = {"deal", "first_suit", "sit_out", "ruling", "settle", "expose"}
"""Events that may come before or during the deal without ending it."""


class ViraBoard(BiddingMixin, PurchaseMixin, PlayMixin, ChoicesMixin, OutcomeMixin, BoardEngine):
    """One Vira deal. ``ruleset``: overrides of ``rules/vira/tables/sm-2025.json``.

    The handlers live in mixins by phase (:mod:`.bidding`, :mod:`.purchase`,
    :mod:`.play`, :mod:`.outcome`) and for what the table says (:mod:`.choices`); this class holds the state they share,
    the seats, the findings helpers and the fold.
    """

    game = "vira"

    def __init__(self, board_event: Event, ruleset: dict[str, Any] | None = None) -> None:
        super().__init__(board_event, ruleset)
        self._early: list[Finding] = []
        try:
            self.rules: ViraRules = load_ruleset(ruleset)
        except (OSError, ValueError, KeyError, TypeError) as e:
            self._early.append(bad_event(f"Vira ruleset could not be loaded ({e}); using SM 2025 defaults.",
                                         board_event.index, self.board))
            self.rules = load_ruleset(None, shipped=True)
        raw = board_event.raw or {}
        self.dealer: Seat = self.dealer_or_north(self._early)
        self.players: list[Seat] = self._seats_field(raw.get("players"), board_event) or [Seat.N, Seat.E, Seat.S, Seat.W]
        if self.dealer not in self.players:
            self._early.append(bad_event(f"The dealer {self.dealer} is not among the players "
                                         f"{''.join(map(str, self.players))}; he is counted as playing.",
                                         board_event.index, self.board))
            self.players = sorted({*self.players, self.dealer}, key=lambda x: x.index)
        sit = self._seat_field(raw.get("sit_out"), "sit_out", board_event)
        if sit == self.dealer:
            self._early.append(bad_event(f"The dealer {sit} cannot sit out (the dealer is efterhand); the player on "
                                         "his right sits out.", board_event.index, self.board))
            sit = None
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
        self._h_checked = False  # the hands were counted after the purchase (H.1)
        self._play_on: set[Seat] = set()  # defenders who chose to play on after a felekartering (H.2)
        self._felekartering_stop: tuple[int | None, bool] | None = None  # (event, already kodilj) (H.3)
        self._felekartering_seen: tuple[int | None, int, bool] | None = None  # (event, tricks, kodilj) (D.9)
        self._f4_open: dict[str, Any] | None = None  # a pass out of turn waiting for the bidder's demand (F.4)
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
        self.hand_size = self.rules.settings.deal.hand
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

    @staticmethod
    def _index(ev: Event | None) -> int | None:
        return ev.index if ev is not None else None

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
    def cite(self, section: Any) -> str:
        """Findings cite the rule text by a situation's key in the rule table: ``Vira SM 2025 E.7``."""
        return self.rules.cite(section)

    def default_finding_id(self, kind: str, event: int | None) -> str | None:
        """Every Vira finding has an id: ``vira-<board>-<kind>-<event>``."""
        return f"vira-{self.board}-{kind}-{event if event is not None else 'end'}"

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
        self.flag(kinds.TALONG_FACE_UP, "talong_face_up", f"{ev.card} was found face up in the talong; it stays "
                  "face up: it may not be bought in a köpspel or solo and is ignored in a gask.", ev, status="info",
                  card=str(ev.card))

    def _on_ruling(self, ev: Event) -> None:
        self.rulings.append(ev)

    def _on_settle(self, ev: Event) -> None:
        self.settled = ev

    # -- end of deal -------------------------------------------------------------------
    def finish(self, event: Event | None = None) -> list[Finding]:
        start = len(self.findings)
        for f in self._early:
            self.emit(f)
        self._early = []
        if self.phase == "deal":
            self.deal.end(event)
        if self.phase == "purchase":
            self._check_felekartering(event)  # the deal ended before the first lead
        for r in self.revokes.close():
            f = self._revoke_findings.get(r.id)
            if f is not None:
                taken, trick_no = self._revoke_state.get(r.id, (0, r.trick))
                outcome = self._most_favourable(r.seat, taken, trick_no)
                self.restep(f, "established", event, established=True, outcome=outcome, section="revoke_established",
                             message=f"{r.seat}'s revoke in trick {r.trick} was never corrected; the deal is settled "
                                     f"at the most favourable outcome still possible for the other side: the declarer "
                                     f"{outcome}.",
                             remedy=f"Settle as {outcome} for the declarer ({self.rules.section('revoke_established')}).")
                self.forced.append(Forced(r.event, outcome, self.rules.section("revoke_established")))
        self.phase = "done"
        self.score = self._settle(event)
        self.score["next_dealer"] = self._next_dealer(self.score.get("outcome"))
        self.flag(kinds.SCORE, None, self.score.pop("message"), event, rule=self.score.pop("rule"), status="info",
                  id=f"vira-{self.board}-score", **self.score)
        self._check_payment(event)
        return self.findings[start:]

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
