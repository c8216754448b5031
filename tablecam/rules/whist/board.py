"""Es-makker whist (Danish): one deal as a fold over events.

Source: ``shared/rules/esmakker-whist-regler.da.txt``. It has no numbered
paragraphs, so findings cite its section headings
(``Es-makker whist: Kortgivningen``, ``... : Jernhånd``, ...). The rule table
(bid ladder, påhæng and their order for the session, nolo contracts, the
points table) is ``rules/whist/tables/<name>.json``; the points table there is a
marked guess because the club's table is not public.

The deal, in events (see ``docs/whist.md``)::

    board (game whist, dealer)   -> 55 x deal (13 to each seat, 3 to "kitty",
                                    never two kitty cards in a row, never the last)
    call ... ("7", "8 vip", "sol", "gå med", "pas") -> the duel auction
    partner_ace (declarer names an ace), trump (suit or N)
    kitty_take / kitty_give       -> the exchange
    play ...                       -> end

The rules live in mixins, one module per phase of the deal: :mod:`.deal`
(the deal, jernhånd, redeal), :mod:`.auction` (the duel auction),
:mod:`.contract` (partner ace, trump, kitty exchange, renons card),
:mod:`.play` (tricks, revokes, the ace's duty) and :mod:`.scoring` (the
zero-sum settlement). Bids are in :mod:`.bids`, event types in :mod:`.events`.
This class holds the state they share, the fold and the views.
"""

from __future__ import annotations

from typing import Any

from ...cards import Card, Seat
from ...engine import BoardEngine
from ...events import Event
from ...findings import Finding, bad_event, next_step
from ..tables import load_table
from ..tricks import RevokeTracker, Trick, legal_cards
from . import events  # noqa: F401  (registers partner_ace, kitty_take, ...)
from .auction import AuctionRules
from .bids import GAME, default_rules
from .contract import ContractRules
from .deal import DealRules
from .play import PlayRules
from .scoring import ScoringRules

RULE = "Es-makker whist"


class WhistBoard(DealRules, AuctionRules, ContractRules, PlayRules, ScoringRules, BoardEngine):
    """One es-makker whist deal; every irregularity the text names becomes a finding."""

    game = GAME

    def __init__(self, board_event: Event, ruleset: dict[str, Any] | None = None) -> None:
        super().__init__(board_event, ruleset)
        raw = board_event.raw or {}
        self._pending: list[Finding] = []
        name = (ruleset or {}).get("name") or raw.get("ruleset")
        try:
            self.rules = load_table(GAME, name if isinstance(name, str) else None, "whistklubben", ruleset)
        except ValueError as e:
            self.rules = default_rules()
            self._pending.append(bad_event(f"Whist rule table unusable ({e}); using the Whistklubben default.",
                                           board_event.index, self.board))
        self.dealer: Seat = self.dealer_or_north(self._pending)
        self.forhaand = self.dealer.next()
        self._reset_deal()
        self._reset_auction()
        self.partner_ace: Card | None = None
        self.trump: str | None = None
        self.trump_named = False
        self.turned: list[Card] = []
        self.exchanges: list[tuple[Seat, str, Card]] = []
        self.play_started = False
        self.tricks: list[Trick] = []
        self.trick: Trick | None = None
        self.partner: Seat | None = None
        self.ace_trick: int | None = None  # the trick in which the ace's suit was first led
        self.renons: tuple[Seat, Card] | None = None  # (declarer, card counting as the ace's suit)
        self.revokes = RevokeTracker("next_trick", id_prefix=f"whist-{self.board}", suit_of=self._suit_of,
                                     exempt=lambda c: c.is_joker)
        self._ace_duty: Finding | None = None
        self.claimed: int | None = None
        self._claimer: Seat | None = None
        self.shown: set[Seat] = set()  # seats that laid cards face up during play (bordlægger)

    def cite(self, section: Any) -> str:
        """Findings cite the text's section headings: ``Es-makker whist: Påhæng``."""
        return f"{RULE}: {section}"


    # -- the fold ---------------------------------------------------------------
    def apply(self, event: Event) -> list[Finding]:
        out, self._pending = list(self._pending), []
        for f in out:
            self.emit(f)
        t = event.type
        if t == "deal":
            if self.deal_closed:
                return out + [bad_event(f"{event.card} dealt after the deal was over; recorded as dealt.",
                                        event.index, self.board)] + self._on_deal(event)
            return out + self._on_deal(event)
        if t not in ("redeal", "end"):
            out += self._close_deal(event)
        handlers = {"call": self._on_call, "partner_ace": self._on_partner_ace, "trump": self._on_trump,
                    "turn_kitty": self._on_turn_kitty, "kitty_take": self._on_kitty, "kitty_give": self._on_kitty,
                    "play": self._on_play, "retract": self._on_retract, "redeal": self._on_redeal,
                    "jernhand": self._on_jernhand, "claim": self._on_claim, "renons_card": self._on_renons}
        h = handlers.get(t)
        if h is not None:
            return out + h(event)
        if t == "expose":
            if self.play_started:
                self.shown.add(event.seat)
            return out
        if t == "end":
            return out
        return out + [bad_event(f"'{t}' events have no meaning in es-makker whist; ignored.", event.index,
                                self.board)]

    def finish(self, event: Event | None = None) -> list[Finding]:
        out: list[Finding] = [self.emit(f) for f in self._pending]
        self._pending = []
        if not self.deal_closed and event is not None:
            out += self._close_deal(event)
        idx = event.index if event else None
        if not self.play_started or self.high is None:
            return out
        for r in self.revokes.close():
            out.append(self._revoke_finding(r, event or Event("end", index=idx), established=True))
        if self._ace_duty is not None and self._ace_duty.status == "pending":
            self._ace_duty = self.emit(next_step(self._ace_duty, "established", idx))
            out.append(self._ace_duty)
        out.append(self._score(idx))
        return out

    def legal_plays(self) -> list[Card]:
        s = self._expected_player()
        if s is None or self.trick is None:
            return []
        return legal_cards(self.hands[s], self._led_suit(self.trick), self._suit_of, lambda c: c.is_joker)

    def snapshot(self) -> dict[str, Any]:
        phase = "done" if self.finished else "play" if self.play_started else "exchange" if self.auction_over \
            else "bidding" if self.calls else "deal"
        return {
            "game": GAME, "board": self.board, "dealer": str(self.dealer), "phase": phase,
            "hands": {str(s): [str(c) for c in self.hands[s]] for s in Seat},
            "dealt": {**{str(s): [str(c) for c in self.dealt[s]] for s in Seat},
                      "kitty": [str(c) for c in self.dealt_kitty]},
            "auction": [{"seat": str(s), "call": c} for s, c in self.calls],
            "contract": str(self.high) if self.high else None,
            "declarer": str(self.holder) if self.holder else None, "trump": self.trump,
            "trick": self.trick.to_dict() if self.trick else None,
            "tricks": [t.to_dict() for t in self.tricks],
            "tricks_won": {str(s): n for s, n in self.tricks_by_seat().items()},
            "turn": str(self._expected_player()) if self._expected_player() else None,
            "open_findings": sum(1 for f in {f.id or id(f): f for f in self.findings}.values()
                                 if f.status == "pending"),
            "extra": {"kitty": [str(c) for c in self.kitty], "partner_ace": str(self.partner_ace)
                      if self.partner_ace else None, "joined": [str(s) for s in self.joined],
                      "ruleset": self.rules.name},
        }


__all__ = ["WhistBoard"]
