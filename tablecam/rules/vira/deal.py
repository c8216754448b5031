"""Deal validation from the shoe's card sequence (SM 2025 section E).

The shoe reports every card in dealing order, so the engine knows at once
when the dealer goes wrong. The expected order, from the ruleset's ``deal``
entry: clockwise from forehand 4 cards each, then three rounds of 3 to the
three active players, then the last 13 to the talong.

* a card turned face up while dealing -> redeal without penalty (E.4);
* a card to the wrong place in the dealing order: reported (E.2, the dealer
  is responsible) but harmless if the counts come out right (D.4);
* the same card twice, or a card whose back (``pack``) is not this deal's
  pack -> a card from the other pack: redeal without penalty whenever it is
  found (E.5);
* when the deal is over: a hand without 13 cards (E.7: felgiv, each player
  with a wrong count pays a bet, the deal passes on) or a talong without 13
  (E.8: the dealer pays a bet). The engine cannot see whether the table
  noticed it before the dealer put the talong down (then E.3/E.4: redeal
  without penalty); the finding lists that option and a ``ruling`` event
  with ``outcome: "redeal"`` records it.

How the pack is identified: the ``board`` event's ``pack`` names the pack in
use for this deal (two packs alternate, told apart by their backs: e.g.
``"red"`` / ``"blue"``); a ``deal`` event may carry the ``pack`` the shoe or
camera saw on that card's back. A card whose ``pack`` differs is from the
other pack. Without ``pack`` fields a duplicate card is the evidence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ... import kinds
from ...cards import Card, Seat
from ...events import Event
from ...findings import bad_event

if TYPE_CHECKING:  # pragma: no cover
    from .board import ViraBoard


class DealChecker:
    """Follows the deal card by card for one :class:`ViraBoard`."""

    def __init__(self, board: "ViraBoard") -> None:
        self.b = board
        self.dealt: dict[Any, list[Card]] = {}
        self.seen: set[Card] = set()
        self.count = 0
        self.order_error = False
        self.redeal_flagged = False
        self.ended = False

    @property
    def known(self) -> bool:
        """True when the cards were dealt through the log (hands are known)."""
        return self.count > 0

    def expected(self) -> list[str]:
        """Where each card should go, in dealing order (seat letters, then 'talong')."""
        cfg = self.b.rules.settings.deal
        rounds = [cfg.first_round, *cfg.rounds]
        out: list[str] = []
        for n in rounds:
            for s in self.b.active:
                out += [str(s)] * n
        out += ["talong"] * cfg.talong
        return out

    def card(self, ev: Event) -> None:
        b = self.b
        if self.ended:
            b.emit(bad_event(f"Card {ev.card} dealt after the deal was over (phase {b.phase}); ignored.", ev.index,
                             b.board))
            return
        to, card = ev.get("to"), ev.card
        key = "talong" if to in ("talong", "kitty") else to
        pos = self.count
        self.count += 1
        self.dealt.setdefault(key if isinstance(key, str) else key, []).append(card)
        if key == "talong":
            b.talong.append(card)
            b.dealt_talong.append(card)
        else:
            b.hands.setdefault(key, []).append(card)
        raw = ev.raw or {}
        back = raw.get("pack")
        if card in self.seen:
            b.flag(kinds.DUPLICATE_CARD, "other_pack", f"{card} was dealt twice in this deal, so the pack holds a card "
                   "from another pack; redeal without penalty.", ev, card=str(card), status="established",
                   remedy="Redeal without penalty, same dealer (E.5, D.6).")
            self._redeal(ev, "other_pack", f"A card from another pack ({card}, dealt twice) is in the deal; "
                         "redeal without penalty whenever it is found.")
        elif back is not None and b.pack is not None and str(back) != str(b.pack):
            self._redeal(ev, "other_pack", f"{card} has the back of the '{back}' pack, not this deal's '{b.pack}' pack; "
                         "redeal without penalty whenever it is found.", card=str(card), pack=str(back))
        self.seen.add(card)
        if ev.get("face_up"):
            self._redeal(ev, "dealer_error", f"{card} was turned face up while dealing; redeal without penalty.",
                         seat=b.dealer, card=str(card), to=str(key))
        exp = self.expected()
        want = exp[pos] if pos < len(exp) else None
        got = str(key)
        if want is None:
            if not self.order_error:
                self.order_error = True
                self._redeal(ev, "other_pack", f"More than {len(exp)} cards were dealt ({card} is card {pos + 1}), so the "
                             "pack holds cards from another pack; redeal without penalty.", card=str(card))
        elif got != want and not self.order_error:
            self.order_error = True
            who = "the player who sits out" if isinstance(key, Seat) and key not in b.active else got
            b.flag(kinds.DEAL_ORDER, "dealer_responsible", f"Card {pos + 1} ({card}) went to {who} where the dealing "
                   f"order (4, 3, 3, 3 from forehand) gives it to {want}; harmless if every hand and the talong end "
                   "with 13 cards (D.4), otherwise see the card counts.", ev, seat=b.dealer, status="info",
                   card=str(card), position=pos + 1, expected_to=want, to=got)

    def _redeal(self, ev: Event, key: str, message: str, seat: Any = None, **extra: Any) -> None:
        b = self.b
        section = b.rules.section(key)
        b.flag(kinds.MISDEAL, key, message, ev, seat=seat, status="established",
               remedy="Redeal without penalty; the same dealer deals again (D.6).", **extra)
        b.redeal.append((ev.index, section))

    def end(self, ev: Event | None) -> None:
        """The deal is over (first non-deal event, or the end of the board): check the counts."""
        b = self.b
        if self.ended:
            return
        self.ended = True
        if b.phase == "deal":
            b.phase = "bidding"
            b.turn = b.forehand
        if not self.known:
            return
        hand, tal = b.rules.settings.deal.hand, b.rules.settings.deal.talong
        explained = bool(b.redeal)
        for s in b.active:
            n = len(b.hands.get(s, []))
            if n != hand:
                remedy = ("The deal is redealt anyway (see the misdeal above)." if explained else
                          f"Felgiv: {s} pays a bet and the deal passes to the left (E.7).")
                b.flag(kinds.WRONG_CARD_COUNT, "hand_count", f"{s} was dealt {n} cards instead of {hand}; felgiv: he pays "
                       "a bet and the deal passes to the left.", ev, seat=s,
                       count=n, expected=hand, status="established", remedy=remedy,
                       id=f"vira-{b.board}-wrong_card_count-{s}",
                       options=["found before the talong was put down: redeal without penalty (E.4)",
                                "found later, before he bought or played: felgiv, he pays a bet (E.7)"])
                if not explained:
                    b.abort_bets.append((ev.index if ev else None, kinds.WRONG_CARD_COUNT, {str(s): 1}, b.rules.section("hand_count")))
        for s in b.players:
            if s not in b.active and b.hands.get(s):
                if not explained:
                    b.flag(kinds.WRONG_CARD_COUNT, "dealer_responsible", f"{s}, who sits out, was dealt {len(b.hands[s])} cards.",
                           ev, seat=s, count=len(b.hands[s]), expected=0, status="established",
                           id=f"vira-{b.board}-wrong_card_count-{s}")
        n = len(b.talong)
        if n != tal:
            remedy = ("The deal is redealt anyway (see the misdeal above)." if explained else
                      f"Felgiv: the dealer {b.dealer} pays a bet and the deal passes to the left (E.8).")
            b.flag(kinds.WRONG_CARD_COUNT, "talong_count", f"The talong holds {n} cards instead of {tal}; felgiv: the "
                   f"dealer {b.dealer} pays a bet and the deal passes to the left.", ev,
                   seat="talong", count=n, expected=tal, status="established", remedy=remedy,
                   id=f"vira-{b.board}-wrong_card_count-talong",
                   options=["the dealer counted it before putting it down: redeal without penalty (E.3)",
                            "found before anyone but the dealer bought and before the first lead: felgiv, the dealer "
                            "pays a bet (E.8)"])
            if not explained:
                b.abort_bets.append((ev.index if ev else None, kinds.WRONG_CARD_COUNT, {str(b.dealer): 1}, b.rules.section("talong_count")))
