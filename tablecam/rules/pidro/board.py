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

The rules live in mixins, one module per phase of the deal: :mod:`.deal`
(the deal, the refill, the redeal), :mod:`.bidding`, :mod:`.discards` (trump,
discards, lay-down), :mod:`.play`, :mod:`.scoring` (offences, penalties,
the settlement) and :mod:`.match` (score, offenders and dealer carried from
deal to deal). The trump suit is in :mod:`.cards`, the event types in
:mod:`.events`. This class holds the state they share, the fold and the views.
"""

from __future__ import annotations

from typing import Any

from ...cards import Card, Seat
from ...engine import BoardEngine
from ...events import Event
from ...findings import Finding, bad_event
from ..tables import load_table
from ..tricks import Trick
from . import events  # noqa: F401  (registers trump, discard, lay_down, redeal)
from .bidding import BiddingRules
from .cards import SIDES, is_trump
from .deal import DealRules
from .discards import DiscardRules
from .match import MatchRules
from .play import PlayRules
from .scoring import ScoringRules

GAME = "pidro"
RULE = "Pidroregler"


class PidroBoard(MatchRules, DealRules, BiddingRules, DiscardRules, PlayRules, ScoringRules, BoardEngine):
    """One Pidro deal. State is a fold over events; every irregularity is a finding."""

    game = GAME
    keeps_match_state = True

    def __init__(self, board_event: Event, ruleset: dict[str, Any] | None = None) -> None:
        super().__init__(board_event, ruleset)
        raw = board_event.raw or {}
        self._pending: list[Finding] = []  # findings raised in __init__, flushed on the first apply
        name = (ruleset or {}).get("name") or raw.get("ruleset")
        try:
            self.rules = load_table(GAME, name if isinstance(name, str) else None, "sou", ruleset)
        except ValueError as e:
            self.rules = load_table(GAME, None, "sou", shipped=True)
            self._pending.append(bad_event(f"Pidro rule table not found ({e}); using the SÖU default.",
                                           board_event.index, self.board))
        self.dealer: Seat = self.dealer_or_north(self._pending)
        self.players: dict[str, str] = raw.get("players") if isinstance(raw.get("players"), dict) else {}
        self.offences: list[Finding] = []  # penalised irregularities, in order
        self._pending += self._start_match_deal(board_event, (ruleset or {}).get("session"))
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
        self._discard_events: dict[tuple[Seat, Card], Event] = {}
        self.play_started = False
        self._trick_players: list[Seat] = []  # who plays to the current round (still holding trumps)

    def cite(self, section: Any) -> str:
        """Findings cite the numbered sections: ``Pidroregler 4``."""
        return f"{RULE} {section}"

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
        if not self.play_started:
            # nothing was played: no score (a redeal or an abandoned deal); still check the deal
            if self.deal_count and not self.refill_started and event is not None:
                out += self._close_deal(event)
            return out
        return out + self._settle(event)

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
                      "ruleset": self.rules.name},
        }


__all__ = ["PidroBoard"]
