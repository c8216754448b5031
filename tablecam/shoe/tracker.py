"""Shoe messages -> ``deal`` events, and the shoe's count checked against the game.

:class:`DealTracker` follows the dealing order of :mod:`tablecam.shoe.dealing`:
every card out of the slot takes the next slot, so a card the reader missed
(CARD_UNREADABLE) still moves the order on - the following cards go to the
right players - and becomes a ``shoe_misread`` finding for the director to
enter by hand.

It checks what only the shoe can see:

- ``duplicate_card``: the same card twice in one board (jokers: more than the
  game has);
- ``foreign_card``: a card whose pack mark is not this board's pack (Vira
  alternates two packs; the pack is in each CARD and in SHOE_LOADED);
- ``extra_card``: a card after the deal is complete (a 53rd card);
- ``wrong_card_count``: the shoe ran empty before the deal was complete;
- ``cards_left_in_shoe``: the deal is complete but the shoe still holds cards
  (games that deal the whole pack);
- ``shoe_jam``, ``shoe_double_feed``, ``shoe_link`` (frames lost, restarts),
  ``low_confidence``.

>>> from tablecam.shoe.driver import ShoeMessage
>>> t = DealTracker("bridge", "N")
>>> out = t.feed(ShoeMessage("CARD", 1, 0, {"card": "SA", "pack": 1, "confidence": 99, "flags": 0}, 0.0))
>>> [(o.type, o.to_dict().get("to")) for o in out]
[('board', None), ('deal', 'E')]
>>> out = t.feed(ShoeMessage("CARD_UNREADABLE", 2, 0, {"count": 1, "flags": 0, "reason": 1}, 0.0))
>>> out[0].kind, out[0].extra["to"]
('shoe_misread', 'S')
>>> out = t.feed(ShoeMessage("CARD", 3, 0, {"card": "SK", "pack": 1, "confidence": 99, "flags": 0}, 0.0))
>>> out[0].to_dict()["to"]
'W'
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any, Iterable

from ..events import Event, make_event
from ..findings import Finding
from . import protocol as P
from .dealing import DealPlan, dealing_plan, next_dealer

LINK_RULE = "tablecam shoe protocol (firmware/PROTOCOL.md)"

BRIDGE_VULNERABLE = ("None", "NS", "EW", "All", "NS", "EW", "All", "None",
                     "EW", "All", "None", "NS", "All", "None", "NS", "EW")
"""Vulnerability of duplicate boards 1-16 (the cycle repeats every 16 boards)."""


class DealTracker:
    """Fold shoe messages into the event log of the boards dealt."""

    def __init__(self, game: str, dealer: str, board: int = 1, players: Iterable[str] | None = None,
                 sit_out: str | None = None, packs: list[int] | None = None, min_confidence: int = 50,
                 left_in_shoe_grace: float = 2.0) -> None:
        self.game = game
        self.dealer = str(dealer).upper()
        self.board = board
        self.players = list(players) if players else None
        self.sit_out = sit_out
        self.packs = packs
        self.min_confidence = min_confidence
        self.grace = left_in_shoe_grace
        self.events_out = 0
        self._seq: int | None = None
        self.started = False
        self.finished = False
        self.plan: DealPlan = dealing_plan(game, self.dealer, self.players, sit_out)
        self._reset_counts()

    # --- boards --------------------------------------------------------------------

    def _reset_counts(self) -> None:
        self.slot = 0
        self.kitty = 0
        self.counts: Counter[str] = Counter()
        self.seen: Counter[str] = Counter()
        self.extra = 0
        self.complete_at: float | None = None
        self.left_reported = False
        self.pack = self.packs[(self.board - 1) % len(self.packs)] if self.packs else None
        self.refill = []
        self.refill_set = False
        self._discards: dict[str, int] = {}

    def _emit(self, ev: Event, out: list) -> Event:
        """Number ``ev`` as the next event of this shoe's stream and put it out; return the numbered one."""
        ev = dataclasses.replace(ev, index=self.events_out)
        self.events_out += 1
        out.append(ev)
        return ev

    def _finding(self, kind: str, rule: str, message: str, out: list, seat: str | None = None,
                 status: str = "pending", id: str | None = None, **extra: Any) -> Finding:
        f = Finding(kind, rule=rule, message=message, board=self.board,
                    event=max(self.events_out - 1, 0), seat=seat, status=status, id=id, extra=extra)
        out.append(f)
        return f

    def _start(self, ts: float | None, out: list) -> None:
        if self.started:
            return
        self.started = True
        self.finished = False
        fields: dict[str, Any] = {"game": self.game, "board": self.board, "dealer": self.dealer}
        if self.game == "bridge" and isinstance(self.board, int) and self.board > 0:
            fields["vulnerable"] = BRIDGE_VULNERABLE[(self.board - 1) % 16]
        if self.plan.sitting_out:
            fields["sit_out"] = self.plan.sitting_out[0]   # Vira at a 4-table (the Vira engine reads it)
        if self.pack:
            fields["pack"] = str(self.pack)
        self._emit(make_event("board", ts=ts, source="shoe", **fields), out)

    def _next_board(self) -> None:
        self.board += 1
        self.dealer = next_dealer(self.game, self.dealer)
        # Who sits out moves with the deal (by default the dealer's right-hand
        # player), so a fixed choice only applies to the first board.
        self.sit_out = None
        self.plan = dealing_plan(self.game, self.dealer)
        self.started = False
        self._reset_counts()

    @property
    def complete(self) -> bool:
        return self.slot >= len(self.plan.slots) and self.kitty >= self.plan.kitty

    def set_refill(self, counts: dict[str, int]) -> None:
        """Pidro: after the discard, how many cards each seat gets (dealt from the
        dealer's left, the dealer last); cards after those go to the dealer, who
        keeps ("robs") the rest of the pack."""
        order = [s for s in self.plan.active]
        self.refill = [s for s in order for _ in range(counts.get(s, 0))]
        self.refill_set = True

    def note(self, event: Event) -> None:
        """Events from other sources at the table (camera, operator) that the
        dealing order depends on: Pidro ``discard`` events fix the refill."""
        if event.type != "discard" or not self.plan.refill_to or event.seat is None:
            return
        self._discards[str(event.seat)] = len(event.get("cards") or [])
        if len(self._discards) == len(self.plan.active):
            held = {s: self.plan.expected.get(s, 0) - n for s, n in self._discards.items()}
            self.set_refill({s: max(0, self.plan.refill_to - h) for s, h in held.items()})

    def resume(self, events: Iterable[dict[str, Any]]) -> None:
        """Take up the board under way from the table's stored log (a
        restarted table node): its number, dealer and pack, and where the
        dealing order stands.

        Why: a new tracker would start board 1 again with the first card,
        give the rest of the deal to the wrong players, and count short.
        The log holds the ``deal`` events, not the cards the reader missed
        (those were findings): each deal takes the first slot for its player
        from where the last one left off, so a miss between two deals is
        counted again; one after the last deal is not known."""
        board: dict[str, Any] | None = None
        deals: list[dict[str, Any]] = []
        for ev in events:
            if ev.get("type") == "board":
                board, deals = ev, []
            elif ev.get("type") == "deal":
                deals.append(ev)
        if board is None:
            return
        b = board.get("board")
        if isinstance(b, int) or (isinstance(b, str) and b.isdigit()):
            self.board = int(b)        # (a board without a number keeps the tracker's count)
        self.dealer = str(board.get("dealer") or self.dealer).upper()
        self.sit_out = board.get("sit_out") or self.sit_out
        self.plan = dealing_plan(self.game, self.dealer, self.players, self.sit_out)
        self._reset_counts()
        if board.get("pack") and str(board["pack"]).isdigit():
            self.pack = int(board["pack"])
        self.started, self.finished, self.events_out = True, False, 1 + len(deals)   # what it would have emitted
        for ev in deals:
            to, card = str(ev.get("to")), ev.get("card")
            nxt = next((j for j in range(self.slot, len(self.plan.slots)) if self.plan.slots[j] == to), None)
            if nxt is not None:
                self.slot = nxt + 1
            elif to == "kitty":
                self.kitty += 1
            self.counts[to] += 1
            if card:
                self.seen[str(card)] += 1
        if self.complete:
            self.complete_at = deals[-1].get("ts") if deals else None

    # --- messages ------------------------------------------------------------------

    def feed(self, msg: Any) -> list[Event | Finding]:
        """One :class:`~tablecam.shoe.driver.ShoeMessage` or link notice in, events/findings out."""
        out: list[Event | Finding] = []
        self._seq = getattr(msg, "seq", None) if getattr(msg, "kind", "") == "CARD" else None
        kind = getattr(msg, "kind", "")
        f = getattr(msg, "fields", None) or getattr(msg, "data", {}) or {}
        ts = getattr(msg, "ts", None)
        if kind == "CARD":
            self._card(f, ts, out)
        elif kind == "CARD_UNREADABLE":
            self._unreadable(f, ts, out)
        elif kind == "SHOE_LOADED":
            self._loaded(f, ts, out)
        elif kind == "SHOE_EMPTY":
            self._empty(f, out)
        elif kind == "HEARTBEAT":
            self._heartbeat(f, ts, out)
        elif kind == "ERROR":
            self._error(f, out)
        elif kind == "lost":
            self._finding("shoe_link", LINK_RULE, f"{f.get('count')} message(s) from the shoe were lost; "
                          "check the cards dealt around here and enter any missing card.", out,
                          lost=f.get("count"))
        elif kind == "unheard":
            self._finding("shoe_link", LINK_RULE, f"The host could not read the shoe's first {f.get('damaged')} "
                          "message(s), before it restarted: if it was dealing then, count the cards "
                          "dealt and enter any missing card.", out, damaged=f.get("damaged"))
        elif kind == "reboot" and f.get("tail_unconfirmed"):
            self._finding("shoe_link", LINK_RULE, "The shoe restarted before it confirmed its last "
                          "cards: a card dealt just before the restart may be missing; count the "
                          "cards dealt and enter any missing card.", out, reboot=True)
        elif kind == "reboot":
            self._finding("shoe_link", LINK_RULE, "The shoe restarted during the session; "
                          "check that no card was missed.", out, status="info", reboot=True)
        return out

    def _card(self, f: dict, ts: float | None, out: list) -> None:
        if self.finished:
            self._next_board()
        self._start(ts, out)
        card = f.get("card")
        if card is None:
            self._unreadable({"count": 1, "flags": f.get("flags", 0), "reason": 0}, ts, out)
            return
        to = self._take_slot(bool(f.get("flags", 0) & P.FLAG_KITTY))
        pack = f.get("pack", 0)
        if self.pack is None and pack:
            self.pack = pack
        if to is None and self.plan.refill_to:
            self._finding("refill_unassigned", self.plan.count_rule,
                          f"{card} came out of the shoe for the refill, but the discards are not known yet, "
                          "so the shoe cannot tell who got it; enter it.", out, card=card)
            return
        if to is None:
            self.extra += 1
            self._finding("extra_card", self.plan.count_rule,
                          f"{card} came out of the shoe after the deal was complete "
                          f"(card {self.plan.total + self.extra}); the pack has too many cards.",
                          out, card=card, count=self.plan.total + self.extra, expected=self.plan.total,
                          duplicate=self.seen[card] > 0)
            return
        kw: dict[str, Any] = {}
        if f.get("flags", 0) & P.FLAG_FACE_UP:
            kw["face_up"] = True
        if isinstance(self._seq, int):
            kw["shoe_seq"] = self._seq     # where a restarted host takes up the shoe's numbering
        self._emit(make_event("deal", to=to, card=card, ts=ts, source="shoe", **kw), out)
        self.seen[card] += 1
        limit = self.plan.jokers if card == "JK" else 1
        if self.seen[card] > limit:
            self._finding("duplicate_card", self.plan.count_rule,
                          f"{card} was dealt {'again' if card != 'JK' else 'once more than the pack has'} "
                          f"in board {self.board}.", out, card=card, seat=to if len(to) == 1 else None)
        if pack and self.pack and pack != self.pack:
            self._finding("foreign_card", self.plan.count_rule,
                          f"{card} to {to} is from pack {pack}, but board {self.board} uses pack {self.pack}.",
                          out, card=card, pack=pack, expected_pack=self.pack, seat=to if len(to) == 1 else None)
        conf = f.get("confidence", 100)
        if conf < self.min_confidence:
            self._finding("low_confidence", "tablecam shoe: reader confidence",
                          f"The shoe read {card} to {to} with low confidence ({conf}%); please check it.",
                          out, status="info", card=card, confidence=conf)
        if self.complete and self.complete_at is None:
            self.complete_at = ts

    def _take_slot(self, kitty_flag: bool) -> str | None:
        if kitty_flag and self.plan.kitty:
            self.kitty += 1
            self.counts["kitty"] += 1
            return "kitty"
        if self.slot < len(self.plan.slots):
            to = self.plan.slots[self.slot]
            self.slot += 1
        elif self.kitty < self.plan.kitty:
            # whist: every player has 13 but the kitty is short - the dealer
            # forgot the KITTY button; the card can only be a kitty card.
            self.kitty += 1
            to = "kitty"
        elif self.refill:
            to = self.refill.pop(0)
        elif self.refill_set:
            to = self.plan.dealer          # the dealer keeps the rest of the pack
        else:
            return None
        self.counts[to] += 1
        return to

    def _unreadable(self, f: dict, ts: float | None, out: list) -> None:
        if self.finished:
            self._next_board()
        self._start(ts, out)
        n = max(1, int(f.get("count", 1)))
        for i in range(n):
            to = self._take_slot(i == 0 and bool(f.get("flags", 0) & P.FLAG_KITTY))
            number = self.slot + self.kitty
            if to is None:
                self.extra += 1
                self._finding("extra_card", self.plan.count_rule,
                              f"An unreadable card came out of the shoe after the deal was complete "
                              f"(card {self.plan.total + self.extra}).", out,
                              count=self.plan.total + self.extra, expected=self.plan.total)
                continue
            why = {P.Unreadable.DOUBLE_FEED: "two cards left the shoe together",
                   P.Unreadable.LOW_CONFIDENCE: "the reader was not sure"}.get(f.get("reason"), "it was not read")
            self._finding("shoe_misread", "tablecam shoe: CARD_UNREADABLE",
                          f"Card {number} of board {self.board} went to {to} but {why}; enter it by hand.",
                          out, seat=to if len(to) == 1 else None, id=f"shoe-{self.board}-{number}",
                          to=to, slot=number)
        if self.complete and self.complete_at is None:
            self.complete_at = ts

    def _loaded(self, f: dict, ts: float | None, out: list) -> None:
        if self.started and (self.slot or self.kitty):
            self._finish(out)
            self._next_board()
        if f.get("pack"):
            self.pack = f["pack"] if not self.packs else self.pack
        self.finished = False

    def _finish(self, out: list) -> None:
        """End of a board: counts per destination against the game."""
        if self.finished:
            return
        self.finished = True
        if not self.complete:
            for to, want in self.plan.expected.items():
                got = self.counts.get(to, 0)
                if got != want:
                    self._finding("wrong_card_count", self.plan.count_rule,
                                  f"{to} received {got} cards from the shoe in board {self.board}; "
                                  f"the deal gives {want}.", out, seat=to, count=got, expected=want)

    def _empty(self, f: dict, out: list) -> None:
        if not self.started:
            return
        self._finish(out)

    def _heartbeat(self, f: dict, ts: float | None, out: list) -> None:
        if (self.complete and self.complete_at is not None and not self.left_reported
                and not self.finished and self.plan.left_in_shoe == 0 and not f.get("empty", True)
                and ts is not None and ts - self.complete_at >= self.grace):
            self.left_reported = True
            self._finding("cards_left_in_shoe", self.plan.count_rule,
                          f"The deal of board {self.board} is complete but cards are still in the shoe.",
                          out)

    def _error(self, f: dict, out: list) -> None:
        code = f.get("code")
        if code == P.ErrorCode.JAM:
            self._finding("shoe_jam", "tablecam shoe: ERROR JAM",
                          "A card is stuck in the shoe's slot; free it (the card still counts).", out)
        elif code == P.ErrorCode.DOUBLE_FEED:
            self._finding("shoe_double_feed", "tablecam shoe: ERROR DOUBLE_FEED",
                          "Two cards left the shoe together; check both went to the right players.",
                          out, status="info")
        elif code == P.ErrorCode.RING_OVERFLOW:
            self._finding("shoe_link", LINK_RULE, "The shoe's memory overflowed while the host was away; "
                          "check the cards dealt around here.", out)
