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

Bids live in :mod:`.bids`, the duel auction in :mod:`.auction`, the settlement in :mod:`.scoring`, event types in
:mod:`.events`.
"""

from __future__ import annotations

from typing import Any

from ...cards import Card, Seat
from ...engine import BoardEngine
from ...events import Event
from ...findings import Finding, bad_event
from ..pidro import parse_suit
from ..tricks import RevokeTracker, Trick, legal_cards, load_ruleset, trick_winner
from . import events  # noqa: F401  (registers partner_ace, kitty_take, ...)
from .auction import Auction
from .bids import GAME, default_rules, is_jernhand, is_nolo, parse_bid
from .deal import Deal
from .scoring import settle

RULE = "Es-makker whist"

class WhistBoard(BoardEngine):
    """One es-makker whist deal; every irregularity the text names becomes a finding."""

    game = GAME

    def __init__(self, board_event: Event, ruleset: dict[str, Any] | None = None) -> None:
        super().__init__(board_event, ruleset)
        raw = board_event.raw or {}
        self._pending: list[Finding] = []
        name = (ruleset or {}).get("name") or raw.get("ruleset")
        try:
            self.rules = load_ruleset(GAME, name if isinstance(name, str) else None, "whistklubben", ruleset)
            self._check_rules()
        except (ValueError, KeyError, TypeError) as e:
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

    def _check_rules(self) -> None:
        order = self.rules["paahaeng_order"]
        if sorted(order) != sorted(self.rules["paahaeng"]):
            raise ValueError(f"paahaeng_order {order} must list each påhæng once")
        for p, place in self.rules.get("paahaeng_fixed_places", {}).items():
            if order.index(p) + 1 != place:
                raise ValueError(f"{p} must be at place {place} of the påhæng order (Påhæng)")

    def _fid(self, *parts: Any) -> str:
        return "-".join([f"whist-{self.board}"] + [str(p) for p in parts])

    def _finding(self, kind: str, section: str, message: str, ev: Event | None, **kw: Any) -> Finding:
        extra = kw.pop("extra", {})
        return self.emit(Finding(kind, rule=f"{RULE}: {section}", message=message, board=self.board,
                                 event=ev.index if ev else None, extra=extra, **kw))

    def _restep(self, f: Finding, status: str, message: str, ev: Event | None) -> Finding:
        """Re-emit a finding with the same id at its next lifecycle step."""
        return self.emit(Finding(f.kind, f.rule, message, self.board, ev.index if ev else None, f.seat, f.trick,
                                 status=status, options=list(f.options), remedy=f.remedy, id=f.id,
                                 extra=dict(f.extra)))

    # -- the deal (Kortgivningen, Jernhånd, Omblanding) ------------------------
    def _reset_deal(self) -> None:
        self.deal = Deal(self.dealer, self.rules["deal"])
        self.hands: dict[Seat, list[Card]] = {s: [] for s in Seat}  # cards held now
        self.kitty: list[Card] = []  # the kitty now (after any exchange)

    dealt = property(lambda self: self.deal.dealt)
    dealt_kitty = property(lambda self: self.deal.kitty)
    deal_closed = property(lambda self: self.deal.closed)

    def _misdeal(self, why: str, index: int | None, fid: str, **extra: Any) -> Finding:
        """Kortgivningen: "Ved ureglementeret kortgivning er der omblanding" (always a redeal)."""
        return self.emit(Finding("misdeal", f"{RULE}: Kortgivningen", why, self.board, index, str(self.dealer),
                                 status="pending", options=["redeal"],
                                 remedy="Omblanding: the cards are shuffled and dealt again.", id=fid, extra=extra))

    def _on_deal(self, ev: Event) -> list[Finding]:
        out: list[Finding] = []
        card: Card = ev.card
        to = ev.get("to")
        if ev.get("face_up"):
            out.append(self._finding("card_exposed_in_deal", "Omblanding", f"{card} was turned face up while "
                                     f"dealing to {to}; other dealing errors that are corrected need no redeal.",
                                     ev, seat=str(self.dealer), status="info",
                                     options=["play on", "redeal, if asked before anyone looked at their cards"],
                                     extra={"card": str(card)}))
        for what, d in self.deal.add(to, card, ev.index):
            if what == "duplicate":
                why = (f"a joker number {d['n']}; the pack has {self.deal.jokers}" if card.is_joker
                       else "it was already dealt in this board")
                out.append(self._finding("duplicate_card", "Kortgivningen", f"{card} was dealt to {to} but {why}.",
                                         ev, status="pending", options=["find the stray card", "redeal"],
                                         id=self._fid("duplicate", card, ev.index), extra={"card": str(card)}))
            elif what == "kitty_row":
                out.append(self._misdeal("Two cards in a row went to the kitty; only one kitty card may be laid "
                                         "between cards to the hands.", ev.index, self._fid("misdeal", "kitty-row")))
            elif what == "kitty_last":
                out.append(self._misdeal("The last card of the deal went to the kitty; it must go to a hand.",
                                         ev.index, self._fid("misdeal", "kitty-last")))
            elif what == "out_of_order":
                out.append(self._finding(
                    "deal_out_of_order", "Kortgivningen", f"{card} went to {to} out of the clockwise order "
                    f"(expected {d['expected']}); cards are always dealt clockwise from the dealer's left.", ev,
                    seat=str(self.dealer), status="pending",
                    options=["correct the hands (Omblanding: no redeal once corrected)",
                             "redeal, if asked before anyone looked at their cards"],
                    id=self._fid("order"), extra={"expected_seat": str(d["expected"])}))
        if isinstance(to, Seat):
            self.hands[to].append(card)
        else:
            self.kitty.append(card)
        return out

    def _close_deal(self, ev: Event) -> list[Finding]:
        out: list[Finding] = []
        for what, d in self.deal.close():
            if what == "kitty_last":  # reported at the card itself
                out.append(self._misdeal("The last card of the deal went to the kitty; it must go to a hand.",
                                         self.deal.last_index, self._fid("misdeal", "kitty-last")))
            elif what == "kitty_count":
                out.append(self._misdeal(f"The kitty holds {d['count']} cards instead of {d['expected']}.", ev.index,
                                         self._fid("misdeal", "kitty-count"), **d))
            elif what == "wrong_count":
                s = d["seat"]
                out.append(self._finding("wrong_card_count", "Kortgivningen",
                                         f"{s} was dealt {d['count']} cards instead of {d['expected']}.", ev,
                                         seat=str(s), status="pending",
                                         options=["correct the hand (Omblanding)", "redeal"],
                                         id=self._fid("count", s),
                                         extra={"count": d["count"], "expected": d["expected"]}))
            elif what == "jernhand":
                s = d["seat"]
                out.append(self._finding("jernhand", "Jernhånd", f"{s} holds jernhånd (no ace, court card or "
                                         "joker) and may have the deal restarted.", ev, seat=str(s),
                                         status="info", options=["declare jernhånd: redeal", "play the cards"],
                                         id=self._fid("jernhand", s)))
        return out

    def _on_jernhand(self, ev: Event) -> list[Finding]:
        seat = ev.seat
        if is_jernhand(self.hands[seat]) or is_jernhand(self.dealt[seat]):
            return []
        return [self._finding("false_jernhand", "Jernhånd", f"{seat} claimed jernhånd but holds an ace, a court "
                              "card or a joker.", ev, seat=str(seat), status="pending",
                              options=["play on with the cards as dealt"], id=self._fid("falsejern", seat))]

    def _on_redeal(self, ev: Event) -> list[Finding]:
        out = []
        latest = {f.id: f for f in self.findings if f.id}  # each finding's latest lifecycle step
        for f in latest.values():
            if f.kind in ("misdeal", "wrong_card_count", "duplicate_card", "deal_out_of_order", "false_jernhand") \
                    and f.status == "pending":
                out.append(self._restep(f, "rectified", f"Redealt: {f.message}", ev))
        self._reset_deal()
        self._reset_auction()
        return out

    # -- the auction (Afgivelse af meldinger, Gå med, Nolomeldinger, Påhæng) -----
    def _reset_auction(self) -> None:
        self.auction = Auction(self.forhaand, self.rules)

    # the auction's state, read (and, for vip, the holder set) by the rest of the board
    calls = property(lambda self: self.auction.calls)
    high = property(lambda self: self.auction.high)
    joined = property(lambda self: self.auction.joined)
    out = property(lambda self: self.auction.out)

    @property
    def holder(self) -> Seat | None:
        return self.auction.holder

    @holder.setter
    def holder(self, seat: Seat | None) -> None:
        self.auction.holder = seat

    @property
    def auction_over(self) -> bool:
        return self.auction.over

    @auction_over.setter
    def auction_over(self, value: bool) -> None:
        self.auction.over = value

    def next_to_call(self) -> Seat | None:
        return self.auction.next_to_call()

    def soloists(self) -> list[Seat]:
        return self.auction.soloists()

    def _on_call(self, ev: Event) -> list[Finding]:
        seat: Seat = ev.seat
        call = parse_bid(ev.get("call"), self.rules)
        if call is None:
            return [bad_event(f"Whist call {ev.get('call')!r} is not on the bid ladder; skipped.", ev.index,
                              self.board)]
        out: list[Finding] = []
        for what, d in self.auction.call(seat, call):
            if what == "after_auction":
                out.append(self._finding("call_after_auction", "Afgivelse af meldinger", f"{seat} called "
                                         f"'{call}' after the auction was over; ignored.", ev, seat=str(seat),
                                         status="info"))
            elif what == "after_pass":
                out.append(self._finding("call_after_pass", "Gå med på en melding", f"{seat} called '{call}' "
                                         "after passing or going along; such a player has no further say. "
                                         "Ignored.", ev, seat=str(seat), status="pending",
                                         id=self._fid("afterpass", seat, ev.index)))
            elif what == "out_of_turn":
                out.append(self._finding("call_out_of_turn", "Afgivelse af meldinger", f"{seat} called before "
                                         f"{d['expected']}; the bidding goes clockwise from forhånd. Recorded.",
                                         ev, seat=str(seat), status="pending",
                                         options=["accept the call", "cancel it"],
                                         id=self._fid("oot", seat, ev.index),
                                         extra={"expected_seat": str(d["expected"])}))
            elif what == "invalid_join":
                what_bid = f"'{d['high']}'" if d["high"] else "no bid"
                out.append(self._finding("invalid_join", "Gå med på en melding", f"{seat} went along with "
                                         f"{what_bid}; only nolo bids and vip can be joined. Counted as a pass.",
                                         ev, seat=str(seat), status="established",
                                         id=self._fid("join", seat, ev.index)))
            elif what == "insufficient":
                out.append(self._finding("insufficient_bid", "Afgivelse af meldinger", f"{seat} bid '{call}', "
                                         f"which does not beat '{d['high']}'; a bid can only be beaten by a "
                                         "higher one. Counted as a pass.", ev, seat=str(seat),
                                         status="established", options=[f"bid higher than '{d['high']}'", "pass"],
                                         id=self._fid("insufficient", seat, ev.index),
                                         extra={"bid": str(call), "high_bid": str(d["high"])}))
            elif what == "passed_out":
                out.append(self._finding("passed_out", "Afgivelse af meldinger", "Everyone passed; the round is "
                                         "restarted with a new deal.", ev, status="info", options=["redeal"]))
        return out

    @property
    def declarer(self) -> Seat | None:
        return self.holder

    # -- partner ace, trump, kitty (Valg af Trumf og Makker-es, Påhæng, Byttekort) --
    def _need_auction_end(self, ev: Event) -> list[Finding]:
        out = self._close_deal(ev)
        if not self.auction_over and self.high is not None:
            out.append(self._finding("auction_incomplete", "Afgivelse af meldinger", f"'{ev.type}' came before "
                                     f"the auction ended; '{self.high}' by {self.holder} is taken as the final "
                                     "bid.", ev, status="info"))
            self.auction_over = True
        return out

    def _on_partner_ace(self, ev: Event) -> list[Finding]:
        out = self._need_auction_end(ev)
        card: Card = ev.card
        sec = "Valg af Trumf og Makker-es"
        if is_nolo(self.high, self.rules):
            return out + [self._finding("partner_ace_in_nolo", "Nolomeldinger", f"{ev.seat} named {card} as "
                                        f"partner ace, but '{self.high}' is played alone. Ignored.", ev,
                                        seat=str(ev.seat), status="info")]
        vip = self.high is not None and self.high.paahaeng == "vip"
        if ev.seat != self.holder and not vip:
            out.append(self._finding("partner_ace_by_wrong_player", sec, f"{ev.seat} named the partner ace but "
                                     f"{self.holder} won the auction.", ev, seat=str(ev.seat), status="pending",
                                     id=self._fid("aceseat", ev.index)))
        if card.is_joker or card.rank != "A":
            out.append(self._finding("partner_ace_not_an_ace", sec, f"{ev.seat} named {card}; the partner is "
                                     "chosen by naming an ace.", ev, seat=str(ev.seat), status="pending",
                                     id=self._fid("notace", ev.index)))
            return out
        if vip and self.turned:
            out.append(self._finding("partner_ace_after_vip", "Påhæng", f"{ev.seat} named the partner ace after "
                                     "kitty cards were turned; with vip the ace is named before the turning.", ev,
                                     seat=str(ev.seat), status="pending", id=self._fid("vipace", ev.index)))
        if self.trump_named and self.high is not None and self.high.paahaeng == "halve" and \
                card.suit == self.trump:
            out += self._halve_clash(ev)
        self.partner_ace = card
        return out

    def _halve_clash(self, ev: Event) -> list[Finding]:
        return [self._finding("wrong_trump", "Påhæng", f"With halve the trump must differ from the partner "
                              f"ace's suit ({self.partner_ace or ''}).", ev, seat=str(ev.seat), status="pending",
                              id=self._fid("halve", ev.index))]

    def _ace_holder(self) -> Seat | None:
        if self.partner_ace is None:
            return None
        for s in Seat:
            if self.partner_ace in self.hands[s]:
                return s
        return None

    def _on_turn_kitty(self, ev: Event) -> list[Finding]:
        out = self._need_auction_end(ev)
        self.turned.append(ev.card)
        if self.high is None or self.high.paahaeng != "vip":
            out.append(self._finding("kitty_turned", "Påhæng", f"A kitty card ({ev.card}) was turned up but the "
                                     "contract is not vip.", ev, status="info"))
        elif len(self.turned) > int(self.rules["deal"]["kitty"]):
            out.append(bad_event("More kitty cards turned than the kitty holds; recorded.", ev.index, self.board))
        return out

    def _on_trump(self, ev: Event) -> list[Finding]:
        text = str(ev.get("suit")).strip().lower()
        suit = None if text in ("n", "nt", "sans", "none", "-", "uden") else parse_suit(text)
        if suit is None and text not in ("n", "nt", "sans", "none", "-", "uden"):
            return [bad_event(f"Unknown trump {ev.get('suit')!r}; expected S, H, D, C or N.", ev.index,
                              self.board)]
        out = self._need_auction_end(ev)
        self.trump, self.trump_named = suit, True
        seat, bid = ev.seat, self.high
        sec = "Påhæng"
        if bid is None:
            return out
        if is_nolo(bid, self.rules):
            if suit is not None:
                out.append(self._finding("wrong_trump", "Nolomeldinger", f"'{bid}' is played without trump; "
                                         f"{suit} was named.", ev, seat=str(seat), status="pending",
                                         id=self._fid("trump", ev.index)))
                self.trump = None
            return out
        how = self.rules["paahaeng"].get(bid.paahaeng, {}).get("trump", "declarer") if bid.paahaeng else "declarer"
        if how == "kitty":  # vip: the player who accepts the turned suit wins the contract
            if seat != self.holder and seat not in self.joined:
                out.append(self._finding("trump_by_wrong_player", sec, f"{seat} accepted the vip trump but is not "
                                         "in the vip.", ev, seat=str(seat), status="pending",
                                         id=self._fid("trumpseat", ev.index)))
            elif seat != self.holder:
                self.holder = seat  # Vip: the one who accepts the trump wins the bid
            if self.turned:
                shown = self.turned[-1]
                want = None if shown.is_joker else shown.suit
                if want != suit:
                    out.append(self._finding("wrong_trump", sec, f"The last turned kitty card is {shown}, so the "
                                             f"trump is {want or 'none (joker)'}, not {suit or 'none'}.", ev,
                                             seat=str(seat), status="pending", id=self._fid("trump", ev.index)))
            return out
        if how == "partner":  # halve: the ace's holder names trump, not the ace's suit
            holder = self._ace_holder() or self.holder
            if seat != holder:
                out.append(self._finding("trump_by_wrong_player", sec, f"With halve the partner ({holder}) names "
                                         f"the trump, not {seat}.", ev, seat=str(seat), status="pending",
                                         id=self._fid("trumpseat", ev.index)))
            if self.partner_ace is not None and suit == self.partner_ace.suit:
                out += self._halve_clash(ev)
            return out
        if how in ("S", "H", "D", "C") or how is None:
            if suit != how:
                out.append(self._finding("wrong_trump", sec, f"'{bid}' is played with "
                                         f"{'no trump' if how is None else how + ' as trump'}, not "
                                         f"{suit or 'no trump'}.", ev, seat=str(seat), status="pending",
                                         id=self._fid("trump", ev.index)))
                self.trump = how
            return out
        if seat != self.holder:
            out.append(self._finding("trump_by_wrong_player", "Valg af Trumf og Makker-es", f"{seat} named trump "
                                     f"but {self.holder} won the auction.", ev, seat=str(seat), status="pending",
                                     id=self._fid("trumpseat", ev.index)))
        return out

    def _exchange_order(self) -> list[Seat]:
        """Who may exchange, in order (Byttekort): the declarer, then the players after him in turn;
        nolo: the last to go along first, then the one before, ...; halve: the partner first."""
        if is_nolo(self.high, self.rules):
            return list(reversed(self.soloists()))
        first = self.holder
        if self.high is not None and self.high.paahaeng == "halve":
            first = self._ace_holder() or self.holder
        return [first.next(i) for i in range(4)] if first is not None else []

    def _on_kitty(self, ev: Event) -> list[Finding]:
        out = self._need_auction_end(ev)
        seat, card = ev.seat, ev.card
        order = self._exchange_order()
        done = [order.index(s) for s, _, _ in self.exchanges if s in order]
        if any(s == seat for s, _, _ in self.exchanges):
            pass  # the same player's exchange goes on (take and give are separate events)
        elif order and seat not in order:
            out.append(self._finding("exchange_out_of_turn", "Byttekort", f"{seat} exchanged with the kitty but "
                                     "is not one of the players who may.", ev, seat=str(seat), status="pending",
                                     id=self._fid("exchange", ev.index)))
        elif order and not done and seat != order[0]:
            out.append(self._finding("exchange_out_of_turn", "Byttekort", f"{seat} exchanged with the kitty "
                                     f"first; {order[0]} has the first right to exchange.", ev, seat=str(seat),
                                     status="pending", id=self._fid("exchange", ev.index),
                                     extra={"expected_seat": str(order[0])}))
        elif order and done and order.index(seat) < max(done):
            out.append(self._finding("exchange_out_of_turn", "Byttekort", f"{seat} exchanged after "
                                     f"{order[max(done)]}, whose turn to exchange comes later.", ev, seat=str(seat),
                                     status="pending", id=self._fid("exchange", ev.index)))
        self.exchanges.append((seat, ev.type, card))
        if ev.type == "kitty_take":
            if card in self.kitty:
                self.kitty.remove(card)
            else:
                out.append(bad_event(f"{seat} took {card} from the kitty, which does not hold it; recorded.",
                                     ev.index, self.board))
            self.hands[seat].append(card)
            taken = sum(1 for _, t, _ in self.exchanges if t == "kitty_take")
            if taken > int(self.rules["deal"]["kitty"]):
                out.append(self._finding("exchange_too_many", "Byttekort", f"{taken} cards taken from a kitty of "
                                         f"{self.rules['deal']['kitty']}.", ev, seat=str(seat), status="pending"))
        else:
            if card in self.hands[seat]:
                self.hands[seat].remove(card)
            else:
                out.append(bad_event(f"{seat} put {card} into the kitty but does not hold it; recorded.",
                                     ev.index, self.board))
            self.kitty.append(card)
        return out

    # -- Renons i Makker-es kulør -------------------------------------------------
    def _suit_of(self, card: Card) -> str | None:
        """A card's suit in this deal: jokers have none; the renons card counts as the ace's suit."""
        if card.is_joker:
            return None
        if self.renons is not None and card == self.renons[1] and self.partner_ace is not None:
            return self.partner_ace.suit
        return card.suit

    def _on_renons(self, ev: Event) -> list[Finding]:
        out = self._need_auction_end(ev)
        seat, card = ev.seat, ev.card
        sec = "Renons i Makker-es kulør"
        why = None
        if self.play_started:
            why = "after the first trick had begun; it must be chosen before"
        elif seat != self.holder:
            why = f"but only the declarer ({self.holder}) may do so"
        elif self.partner_ace is None:
            why = "before any partner ace was named"
        elif any(c.suit == self.partner_ace.suit for c in self.hands[seat] if not c.is_joker):
            why = f"while holding {self.partner_ace.suit} cards; only a player void in that suit may"
        elif card not in self.hands[seat]:
            why = "which is not in the hand"
        if why is not None:
            return out + [self._finding("renons_card_invalid", sec, f"{seat} chose {card} to count as the partner "
                                        f"ace's suit {why}. It keeps its own suit.", ev, seat=str(seat),
                                        status="pending", id=self._fid("renons", ev.index),
                                        extra={"card": str(card)})]
        self.renons = (seat, card)
        return out

    # -- play (Jokere i udspillet, makker-es, revoke) ---------------------------
    def _led_suit(self, t: Trick) -> str | None:
        if not t.cards:
            return None
        first = t.cards[0][1]
        if not first.is_joker:
            return self._suit_of(first)
        if self.rules.get("joker_lead_suit") == "next":
            return next((self._suit_of(c) for _, c in t.cards if not c.is_joker), None)
        return None

    def _winner(self, t: Trick) -> Seat | None:
        """A led joker takes the trick (Jokere i udspillet); other jokers have no power."""
        if t.cards and t.cards[0][1].is_joker:
            return t.cards[0][0]
        return trick_winner(t.cards, self.trump, self._suit_of)

    def _start_play(self, ev: Event) -> list[Finding]:
        out = self._need_auction_end(ev)
        self.play_started = True
        each = int(self.rules["deal"]["cards_each"])
        if self.exchanges:
            for s in Seat:
                if len(self.hands[s]) != each:
                    out.append(self._finding("wrong_card_count", "Byttekort", f"{s} holds {len(self.hands[s])} "
                                             f"cards after the kitty exchange instead of {each}.", ev, seat=str(s),
                                             status="pending", id=self._fid("exchangecount", s),
                                             extra={"count": len(self.hands[s]), "expected": each}))
        if self.high is not None and not is_nolo(self.high, self.rules):
            holder = self._ace_holder()
            self.partner = holder if holder not in (None, self.holder) else None
        first = self.forhaand if self.rules.get("first_lead", "forhaand") == "forhaand" else \
            (self.holder or self.forhaand).next()
        self.trick = Trick(first, 1)
        return out

    def _expected_player(self) -> Seat | None:
        t = self.trick
        if t is None:
            return None
        for i in range(4):
            s = t.leader.next(i)
            if s not in t.seats():
                return s
        return None

    def _on_play(self, ev: Event) -> list[Finding]:
        out: list[Finding] = []
        if not self.play_started:
            out += self._start_play(ev)
        t = self.trick
        if t is None:
            return out + [bad_event(f"{ev.seat} played {ev.card} after the last trick; ignored.", ev.index,
                                    self.board)]
        seat, card = ev.seat, ev.card
        if t.number == 2 and not t.cards:
            out += self._check_open_hand(ev)
        for r in self.revokes.on_play(seat, t.number, ev.index):
            out.append(self._revoke_finding(r, ev, established=True))
        if self._ace_duty is not None and self._ace_duty.status == "pending" and t.number > self._ace_duty.trick:
            self._ace_duty = self._restep(self._ace_duty, "established", self._ace_duty.message, ev)
            out.append(self._ace_duty)
        expected = self._expected_player()
        sec = "Spillet & meldeforløbet"
        if seat != expected:
            kind = "lead_out_of_turn" if not t.cards else "play_out_of_turn"
            out.append(self._finding(kind, sec, f"{seat} played {card} to trick {t.number} but {expected} was on "
                                     "turn.", ev, seat=str(seat), trick=t.number, status="pending",
                                     options=["accept the card", "take it back"],
                                     id=self._fid(kind, seat, ev.index), extra={"expected_seat": str(expected)}))
        hand = list(self.hands[seat])
        if card in self.hands[seat]:
            self.hands[seat].remove(card)
        else:
            out.append(bad_event(f"{seat} played {card}, which is not in their hand; accepted as played.",
                                 ev.index, self.board))
        led = self._led_suit(t)
        if t.cards:
            r = self.revokes.check(seat, card, hand, led, t.number, ev.index)
            if r is not None:
                out.append(self._revoke_finding(r, ev, established=False))
        out += self._check_partner_ace(seat, card, hand, t, ev)
        t.add(seat, card, ev.index)
        if len(t.cards) == 4:
            t.winner = self._winner(t)
            self.tricks.append(t)
            out += self._check_nolo_lost(ev)
            self.trick = Trick(t.winner or t.leader, t.number + 1) if t.number < 13 else None
        return out

    def _check_open_hand(self, ev: Event) -> list[Finding]:
        """Bordlægger: the soloist lays the hand face up after the first lead (Nolomeldinger)."""
        if not is_nolo(self.high, self.rules) or not self.rules["nolo"][self.high.rung].get("open"):
            return []
        return [self._finding("hand_not_shown", "Nolomeldinger", f"{s} plays '{self.high}' but did not lay the "
                              "cards face up after the first lead.", ev, seat=str(s), status="pending",
                              options=["lay the hand face up now"], id=self._fid("open", s))
                for s in self.soloists() if s not in self.shown]

    def _revoke_finding(self, r: Any, ev: Event, established: bool) -> Finding:
        suit_name = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}.get(r.led, r.led)
        status = "established" if established else "pending"
        msg = (f"{r.seat} did not follow {suit_name} in trick {r.trick} ({r.card}) while holding one"
               + ("; the revoke is now established." if established else "."))
        return self.emit(Finding("revoke", f"{RULE}: Spillet & meldeforløbet", msg, self.board, ev.index,
                                 str(r.seat), r.trick, status=status, remedy=self.rules.get("revoke_remedy"),
                                 id=r.id, options=[] if established else ["correct: play a card of the suit led"],
                                 extra={"established": established, "card": str(r.card)}))

    def _check_partner_ace(self, seat: Seat, card: Card, hand: list[Card], t: Trick, ev: Event) -> list[Finding]:
        """The ace's holder must play it the first time its suit is led (Valg af Trumf og Makker-es)."""
        ace = self.partner_ace
        if ace is None or is_nolo(self.high, self.rules):
            return []
        if not t.cards:  # a lead: is this the first time the ace's suit is led?
            if self.ace_trick is None and self._suit_of(card) == ace.suit:
                self.ace_trick = t.number
        if self.ace_trick != t.number or ace not in hand or card == ace:
            return []
        f = self._finding("partner_ace_not_played", "Valg af Trumf og Makker-es",
                          f"{seat} holds the partner ace {ace} but played {card} the first time {ace.suit} was "
                          "led; the ace must be played then.", ev, seat=str(seat), trick=t.number,
                          status="pending", options=["take the card back and play the ace"],
                          id=self._fid("aceduty", seat, t.number), extra={"card": str(card), "ace": str(ace)})
        self._ace_duty = f
        return [f]

    def _check_nolo_lost(self, ev: Event) -> list[Finding]:
        out = []
        last = self.tricks[-1].winner if self.tricks else None
        for s in self.soloists():
            allowed = int(self.rules["nolo"][self.high.rung]["max_tricks"])
            won = sum(1 for t in self.tricks if t.winner == s)
            if s == last and won == allowed + 1:
                out.append(self._finding("nolo_lost", "Nolomeldinger", f"{s} has taken {won} tricks in "
                                         f"'{self.high}' and has lost; play may stop here.", ev, seat=str(s),
                                         status="info"))
        return out

    def _on_retract(self, ev: Event) -> list[Finding]:
        seat, card = ev.seat, ev.card
        t = self.trick
        target = t if t is not None and (seat, card) in t.cards else (self.tricks[-1] if self.tricks else None)
        if target is None or not target.remove(seat, card):
            return [bad_event(f"{seat} took back {card}, which is not in the current trick; ignored.", ev.index,
                              self.board)]
        if target is not t:  # taken back from a completed trick: it is open again
            self.tricks.pop()
            target.winner = None
            self.trick = target
        self.hands[seat].append(card)
        out = []
        r = self.revokes.retract(seat, card)
        if r is not None:
            out.append(self.emit(Finding("revoke", f"{RULE}: Spillet & meldeforløbet", f"{seat} corrected the "
                                         f"revoke in trick {r.trick} by taking back {card}.", self.board,
                                         ev.index, str(seat), r.trick, status="corrected", id=r.id,
                                         extra={"established": False, "corrected": True, "card": str(card)})))
        d = self._ace_duty
        if d is not None and d.status == "pending" and d.seat == str(seat) and d.extra.get("card") == str(card):
            self._ace_duty = self._restep(d, "corrected", f"{seat} took back {card} to play the partner ace.", ev)
            out.append(self._ace_duty)
        return out

    def _on_claim(self, ev: Event) -> list[Finding]:
        self.claimed = int(ev.get("tricks"))
        self._claimer = ev.seat
        return []

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
            self._ace_duty = self._restep(self._ace_duty, "established", self._ace_duty.message, event)
            out.append(self._ace_duty)
        out.append(self.emit(self._score(idx)))
        return out

    # -- scoring (Meldingernes rækkefølge og pointgivning: zero-sum, data table) --
    def tricks_by_seat(self) -> dict[Seat, int]:
        won = {s: 0 for s in Seat}
        for t in self.tricks:
            if t.winner is not None:
                won[t.winner] += 1
        return won

    def _score(self, idx: int | None) -> Finding:
        bid, decl = self.high, self.holder
        assert bid is not None and decl is not None
        won = self.tricks_by_seat()
        claimed = self.claimed if self._claimer in (decl, self.partner) else None
        res = settle(bid, self.rules, won, decl, self.partner, self.soloists(), claimed)
        if is_nolo(bid, self.rules):
            msg = "; ".join(f"{r['seat']} took {r['tricks']} ({'made' if r['made'] else 'lost'})" for r in res.nolo)
            msg = f"'{bid}' by {', '.join(r['seat'] for r in res.nolo)}: {msg}."
        else:
            who = f"{decl}" + (f" with {self.partner}" if self.partner else " alone (selvmakker)")
            msg = (f"'{bid}' by {who}, trump {self.trump or 'none'}: {res.side_tricks} tricks, "
                   f"{'made' if res.made else 'set'}.")
        table = self.rules["points"]
        return Finding("score", f"{RULE}: Meldingernes rækkefølge", msg, self.board, idx, str(decl),
                       status="info", extra={
                           "contract": str(bid), "declarer": str(decl),
                           "partner": str(self.partner) if self.partner else None,
                           "partner_ace": str(self.partner_ace) if self.partner_ace else None,
                           "trump": self.trump, "soloists": [str(s) for s in self.soloists()],
                           "tricks": {str(s): n for s, n in won.items()}, "side_tricks": res.side_tricks,
                           "made": res.made, "nolo": res.nolo or None,
                           "points": {str(s): p for s, p in res.points.items()},
                           "points_table": self.rules.get("name"),
                           "points_table_is_guess": "GUESS" in str(table.get("_status", ""))})

    # -- views ------------------------------------------------------------------
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
                      "ruleset": self.rules.get("name")},
        }


__all__ = ["WhistBoard"]
