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
from typing import Any

from ...cards import Card
from ...engine import BoardEngine
from ...events import Event
from ...findings import Finding, bad_event
from .auction import Auction
from .calls import AuctionRules
from .common import AUCTION, DEALING, LAWS, PLAY, VULNERABLE, seat_name
from .deal import DealRules
from .leads import LeadRules
from .penalty import PenaltyCard, PenaltyRules
from .play import PlayRules
from .result import ResultRules
from .revoke import Revoke, RevokeRules
from .rulings import RulingRules
from .tables import (BIT, CARD_BY_TEXT, CARD_INDEX, CARD_OBJ, CARD_TEXT, LOW_MASK, SEAT_INDEX, SEAT_LETTERS,
                     SUIT, SUIT_LETTER, SUIT_MASK, contract_text, mask_cards, seat_index)


class BridgeBoard(DealRules, AuctionRules, PlayRules, RevokeRules, LeadRules, PenaltyRules, RulingRules,
                  ResultRules, BoardEngine):
    """Contract bridge, Laws of Duplicate Bridge 2017. See ``docs/bridge.md``.

    The rules live in mixins, one module per subject (deal, calls, play, revoke,
    leads, penalty, result); this class holds the state, the dispatch and the views.
    """

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
        room = d.get("room")
        self.room: str | None = str(room) if room else None
        self.key = f"{self.board}-{self.room}" if self.room else f"{self.board}"
        """Prefix of this board's finding ids: the board number, and the room when the log names one
        (an open and a closed room play the same board number)."""
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
        self.askew = False  # a card of the current trick was played out of rotation: turns need the full check
        self.undo_play: tuple | None = None  # the last play made out of turn, as Law 58A may reorder it
        self.parked: list[tuple[int, int]] | None = None  # Law 63A1: the next trick's lead while a revoke is fixed
        self.holes: dict[int, int] = {}  # seat -> leader: a card withdrawn from the trick, its replacement to come
        self.free_back: set[tuple[int, int]] = set()  # cards of this trick played after a corrected revoke (62C1)
        self.fix: list[Any] | None = None  # [trick, position, offending side, non-offender withdrew]
        self.late: Revoke | None = None
        self.claim: tuple[int, int, int | None] | None = None
        self.open: dict[str, Finding] = {}
        self.marks: dict[str, Any] = {}
        """Fields every finding made now carries (``simultaneous``: while a play is applied again after the
        simultaneous legal play it was deemed to follow, Law 58A), set before the findings are made because
        a finding cannot be changed after."""
        self.auction_exposed: list[tuple[int, int, Finding, bool]] = []

    def may_be_redealt(self) -> bool:
        """Misdealt (a card dealt face up, twice or to the wrong hand) and nobody called or played."""
        return (not self.auction.calls and not self.tricks and not self.cur
                and any(f.kind in ("misdeal", "wrong_card_count", "duplicate_card", "missing_card")
                        for f in self.findings))

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
                          or self.demand is not None or self.premature is not None or self.askew
                          or self.parked is not None or bool(self.holes))

    def _new(self, kind: str, key: str, message: str, ev: Event | int | None, seat: int | None = None,
             trick: int | None = None, status: str = "pending", rule: str | None = None, **extra: Any) -> Finding:
        law = self.laws[key]
        self._n += 1
        idx = ev.index if isinstance(ev, Event) else (ev if ev is not None else self.last_index)
        f = Finding(kind, rule=rule or law["rule"], message=message, board=self.board, event=idx,
                    seat=seat_name(seat), trick=trick, status=status, options=law["options"],
                    remedy=law["remedy"], id=f"{self.key}-{kind}-{self._n}", extra=self._marked(extra))
        self.findings.append(f)
        if status == "pending":
            self.open[f.id] = f
        return f

    def _update(self, f: Finding, ev: Event | int | None, status: str, message: str, rule: str | None = None,
                key: str | None = None, **extra: Any) -> Finding:
        idx = ev.index if isinstance(ev, Event) else (ev if ev is not None else self.last_index)
        law = self.laws[key] if key is not None else {"rule": f.rule, "options": f.options, "remedy": f.remedy}
        g = dataclasses.replace(f, status=status, message=message, event=idx, extra=self._marked({**f.extra, **extra}),
                                rule=rule if rule is not None else law["rule"], options=law["options"],
                                remedy=law["remedy"])
        self.findings.append(g)
        if status == "pending":
            self.open[g.id] = g
        else:
            self.open.pop(g.id, None)
        return g

    def _bad(self, message: str, ev: Event | None) -> Finding:
        f = bad_event(message, ev.index if ev is not None else self.last_index, self.board)
        if self.marks:
            f = dataclasses.replace(f, extra=self._marked(f.extra))
        self.findings.append(f)
        return f

    def _marked(self, extra: dict[str, Any]) -> dict[str, Any]:
        """``extra`` with the :attr:`marks` it does not set itself added after its own fields."""
        if not self.marks:
            return extra
        return {**extra, **{k: v for k, v in self.marks.items() if k not in extra}}

    def _is_defender(self, s: int) -> bool:
        return self.declarer is not None and s != self.declarer and s != self.dummy

    def _end(self, ev: Event) -> list[Finding]:
        self.last_index = ev.index
        return []

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
            "game": self.game, "board": self.board, "dealer": seat_name(self.dealer), "phase": self.phase,
            "hands": hands, "dealt": dealt, "auction": self.auction.record(), "contract": contract,
            "declarer": seat_name(self.declarer), "trump": SUIT_LETTER[self.trump] if self.trump >= 0 else (
                "N" if self.bid else None),
            "trick": trick,
            "tricks": [{"leader": SEAT_LETTERS[ld], "cards": cards(cs), "winner": SEAT_LETTERS[w]}
                       for ld, cs, w in self.tricks],
            "tricks_won": {"NS": self.won[0], "EW": self.won[1]},
            "turn": seat_name(self.auction.turn if self.phase is AUCTION else self.turn),
            "open_findings": len(self.open),
            "extra": {"vulnerable": self.vulnerable, "dummy": seat_name(self.dummy),
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
