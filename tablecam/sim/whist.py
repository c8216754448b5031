"""A simulated es-makker whist table: whole deals as four players produce them.

55 cards (52 and 3 jokers) go one at a time clockwise from the dealer's
left, and three times in the deal the dealer lays a card on the kitty:
never two in a row, never the last card (Kortgivningen). The auction is the
text's duel (the engine's ``next_to_call`` says who speaks); each player
bids the number of tricks the hand is worth with a partner, one rung at a
time; all pass: redeal. The winner names a partner ace he does not hold (an
ace he holds when he has all four: selvmakker), the trump (his longest
suit), and exchanges with the kitty. Play: follow suit, win cheaply, ruff
when void, a joker led now and then (it wins when led), and the ace's holder
plays it the first time its suit is led.

The engine runs alongside (:class:`tablecam.sim.nordic.EngineFold`): the
simulator asks it whose turn it is and which cards are legal.

>>> evs = simulate_board(1, seed=1, irregularity=None)
>>> evs[0]["dealer"], sum(e["type"] == "deal" and e["to"] == "kitty" for e in evs) % 3, evs[-1]["type"]
('N', 0, 'end')
"""

from __future__ import annotations

import random
from typing import Any

from ..cards import Card, Seat, parse_card, shuffled_deck
from ..rules.whist.bids import bid_key, is_jernhand, is_nolo, parse_bid
from .nordic import EngineFold

IRREGULARITIES = ("kitty_misdeal", "partner_ace_not_played", "revoke", "revoke_corrected")
"""What can go wrong once in a simulated deal (Kortgivningen; Valg af Trumf og Makker-es;
Spillet & meldeforløbet)."""

SUITS = "SHDC"


def dealer_of(board: int) -> Seat:
    return Seat("NESW"[(board - 1) % 4])


def kitty_slots(rng: random.Random, misdeal: bool = False) -> set[int]:
    """Where in the 55-card deal the three kitty cards fall: never two in a row, never the last card.
    ``misdeal``: two in a row (or, now and then, the last card to the kitty).

    >>> s = kitty_slots(random.Random(3)); len(s), 54 in s, any(i + 1 in s for i in s)
    (3, False, False)
    """
    while True:
        slots = set(rng.sample(range(1, 54), 3))
        if not any(i + 1 in slots for i in slots):
            break
    if misdeal:
        a = sorted(slots)
        if rng.random() < 0.25:
            slots = {a[0], a[1], 54}
        else:
            slots = {a[0], a[0] + 1, a[2] if a[2] != a[0] + 2 else a[2] + 1}
    return slots


def _deal(t: EngineFold, dealer: Seat, rng: random.Random, misdeal: bool = False) -> None:
    deck = shuffled_deck(rng.randrange(1 << 30), jokers=3)
    slots = kitty_slots(rng, misdeal)
    seat = dealer.next()
    for i, c in enumerate(deck):
        if i in slots:
            t.emit({"type": "deal", "to": "kitty", "card": str(c)})
        else:
            t.emit({"type": "deal", "to": str(seat), "card": str(c)})
            seat = seat.next()


def _longest(hand: list[Card]) -> str:
    return max(SUITS, key=lambda s: (sum(1 for c in hand if c.suit == s and not c.is_joker),
                                     -max((c.rank_index for c in hand if c.suit == s and not c.is_joker),
                                          default=99)))


def _worth(hand: list[Card]) -> int:
    """Tricks a declarer with this hand expects to take with an ace partner (about three of his own)."""
    own = sum(1 for c in hand if c.is_joker or c.rank == "A") + 0.5 * sum(1 for c in hand if c.rank == "K")
    length = sum(1 for c in hand if c.suit == _longest(hand) and not c.is_joker)
    return int(3.2 + own + max(0, length - 3))


def _nolo_hand(hand: list[Card]) -> bool:
    """Low cards only: a hand for sol (at most one trick)."""
    return not any(c.rank in "AK" for c in hand) and sum(1 for c in hand if c.rank in "QJ") <= 2 \
        and sum(1 for c in hand if c.is_joker) <= 2


def _auction(t: EngineFold, rng: random.Random, force: Seat | None) -> None:
    """The duel, one rung at a time: a plain number, or the same number with stærke / gode when the
    hand's suit is spades / clubs and one more trick is too many; sol on a hand of low cards (the others
    may go along with "gå med" on a hand like it)."""
    b = t.board
    rules = b.rules
    worth = {s: _worth(b.hands[s]) + (1 if rng.random() < 0.15 else 0) for s in Seat}
    nolo = {s: _nolo_hand(b.hands[s]) and rng.random() < 0.8 for s in Seat}
    if force is not None:
        worth[force] = max(worth[force], 7)
    key = lambda text: bid_key(parse_bid(text, rules), rules)  # noqa: E731
    while not b.auction_over:
        seat = b.next_to_call()
        if seat is None:
            break
        high = None if b.high is None else bid_key(b.high, rules)
        nxt = next((n for n in range(7, 14) if high is None or key(str(n)) > high), None)
        call = "pas"
        if nolo[seat] and b.high is not None and is_nolo(b.high, rules):
            call = "gå med"
        elif nolo[seat] and (high is None or key("sol") > high):
            call = "sol"
        elif nxt is not None and worth[seat] >= nxt:
            call = str(nxt)
        elif b.high is not None and not b.high.is_plus and not is_nolo(b.high, rules) \
                and worth[seat] == int(b.high.rung) and _longest(b.hands[seat]) in "SC":
            call = f"{b.high.rung} {'stærke' if _longest(b.hands[seat]) == 'S' else 'gode'}"
        t.emit({"type": "call", "seat": str(seat), "call": call})


def _beats(card: Card, best: Card, led: str | None, trump: str | None) -> bool:
    if card.is_joker:
        return False
    if best.is_joker:  # only a led joker can be the best card, and nothing beats it
        return False
    if card.suit == best.suit:
        return card.rank_index < best.rank_index
    return card.suit == trump


def _current_winner(cards: list[tuple[Seat, Card]], trump: str | None) -> tuple[Seat, Card]:
    if cards[0][1].is_joker:
        return cards[0]
    led = cards[0][1].suit
    best = cards[0]
    for s, c in cards[1:]:
        if _beats(c, best[1], led, trump):
            best = (s, c)
    return best


def _choose(b: Any, seat: Seat, legal: list[Card], cur: list[tuple[Seat, Card]], team: set[Seat],
            rng: random.Random) -> Card:
    trump, ace = b.trump, b.partner_ace
    low = lambda cs: max(cs, key=lambda c: (c.is_joker, c.suit == trump, c.rank_index))  # noqa: E731
    if is_nolo(b.high, b.rules):
        return _choose_nolo(seat, legal, cur, team)
    if not cur:
        card = _lead(seat, legal, team, trump, rng)
        if ace is not None and ace in legal and card.suit == ace.suit and not card.is_joker and b.ace_trick is None:
            return ace  # leading the partner ace's suit for the first time: the ace it must be
        return card
    led = None if cur[0][1].is_joker else cur[0][1].suit
    if ace is not None and ace in legal and led == ace.suit and b.ace_trick == len(b.tricks) + 1:
        return ace  # the partner ace is played the first time its suit is led
    win_seat, win = _current_winner(cur, trump)
    if win_seat in team and seat in team or (win_seat not in team and seat not in team):
        return low(legal)
    beaters = [c for c in legal if _beats(c, win, led, trump)]
    if beaters:
        return min(beaters, key=lambda c: (c.suit == trump and led != trump, -c.rank_index))
    return low(legal)


def _choose_nolo(seat: Seat, legal: list[Card], cur: list[tuple[Seat, Card]], soloists: set[Seat]) -> Card:
    """Sol: the soloist ducks (the highest card that still loses, a joker is a safe discard); the others
    play low so that his cards win."""
    plain = [c for c in legal if not c.is_joker]
    if seat not in soloists:
        return max(plain or legal, key=lambda c: c.rank_index)
    if not cur:
        return max(plain or legal, key=lambda c: c.rank_index)  # lead the lowest card
    jokers = [c for c in legal if c.is_joker]
    win_seat, win = _current_winner(cur, None)
    led = None if cur[0][1].is_joker else cur[0][1].suit
    under = [c for c in plain if not _beats(c, win, led, None)]
    if under:
        return min(under, key=lambda c: (c.suit == led, c.rank_index) if led else c.rank_index)
    if jokers:
        return jokers[0]
    return min(plain, key=lambda c: c.rank_index)  # must win: with the highest card


def _lead(seat: Seat, legal: list[Card], team: set[Seat], trump: str | None, rng: random.Random) -> Card:
    """A joker now and then (it takes the trick), trumps from a long holding on the declaring side,
    a side-suit ace, else low from the longest side suit."""
    jokers = [c for c in legal if c.is_joker]
    if jokers and rng.random() < 0.3:
        return jokers[0]
    plain = [c for c in legal if not c.is_joker]
    if not plain:
        return legal[0]
    trumps = [c for c in plain if c.suit == trump]
    if seat in team and len(trumps) >= 4:
        return min(trumps, key=lambda c: c.rank_index)
    aces = [c for c in plain if c.rank == "A" and c.suit != trump]
    if aces:
        return aces[0]
    side = [c for c in plain if c.suit != trump] or plain
    suit = max(SUITS, key=lambda s: sum(1 for c in side if c.suit == s))
    return max((c for c in side if c.suit == suit), key=lambda c: c.rank_index)


def simulate_board(board: int, seed: int = 1, irregularity: str | None = "random",
                   rate: float = 0.25) -> list[dict[str, Any]]:
    """Events (dicts, es-makker whist vocabulary, ``docs/whist.md``) of one simulated deal.

    ``irregularity``: one of :data:`IRREGULARITIES`, ``None`` for a clean
    deal, or ``"random"`` to draw one with probability ``rate``. A misdeal or
    an auction where everyone passes is followed by a ``redeal`` and the new
    deal in the same list.
    """
    rng = random.Random(f"whist:{seed}:{board}")
    if irregularity == "random":
        irregularity = rng.choice(IRREGULARITIES) if rng.random() < rate else None
    dealer = dealer_of(board)
    t = EngineFold()
    t.emit({"type": "board", "game": "whist", "board": board, "dealer": str(dealer)})
    b = t.board
    if irregularity == "kitty_misdeal":
        _deal(t, dealer, rng, misdeal=True)
        t.emit({"type": "redeal", "seat": str(dealer), "reason": "misdeal"})
    for attempt in range(3):
        _deal(t, dealer, rng)
        iron = [s for s in Seat if is_jernhand(b.hands[s])]
        if iron and attempt < 2 and rng.random() < 0.7:
            # Jernhånd: the player shows no ace, court card or joker and the deal restarts.
            t.emit({"type": "jernhand", "seat": str(iron[0])})
            t.emit({"type": "redeal", "seat": str(dealer), "reason": "jernhånd"})
            continue
        _auction(t, rng, force=dealer.next() if attempt == 2 else None)
        if b.high is not None:
            break
        t.emit({"type": "redeal", "seat": str(dealer), "reason": "passed out"})
    declarer: Seat = b.holder
    nolo = is_nolo(b.high, b.rules)
    hand = b.hands[declarer]
    ace: Card | None = None
    if nolo:
        # Sol: no trump, no partner; the last to go along exchanges first (Byttekort).
        trump = None
        t.emit({"type": "trump", "seat": str(declarer), "suit": "N"})
        exchanger = b.soloists()[-1]
    else:
        trump = _longest(hand)
        if b.high.paahaeng in ("stærke", "gode"):
            trump = "S" if b.high.paahaeng == "stærke" else "C"
        mine = {c for c in hand if c.rank == "A"}
        others = [c for c in (_ace(s) for s in SUITS) if c not in mine]
        if others:
            # A side-suit ace where he has length, so the partner's ace helps; the trump ace is welcome too.
            ace = max(others, key=lambda c: (sum(1 for h in hand if h.suit == c.suit), rng.random()))
        else:
            ace = _ace(trump)  # all four aces: selvmakker
        t.emit({"type": "partner_ace", "seat": str(declarer), "card": str(ace)})
        t.emit({"type": "trump", "seat": str(declarer), "suit": trump})
        exchanger = declarer
    kitty = list(b.kitty)
    for c in kitty:
        t.emit({"type": "kitty_take", "seat": str(exchanger), "card": str(c)})
    hand = b.hands[exchanger]
    if nolo:  # away with the high cards
        give = sorted(hand, key=lambda c: (c.is_joker, c.rank_index))[:len(kitty)]
    else:  # away with low side cards, never the partner ace or an ace
        give = sorted(hand, key=lambda c: (c.is_joker, c == ace, c.rank == "A", c.suit == trump,
                                           -c.rank_index))[:len(kitty)]
    for c in give:
        t.emit({"type": "kitty_give", "seat": str(exchanger), "card": str(c)})

    holder = next((s for s in Seat if ace is not None and ace in b.hands[s]), None)
    team = set(b.soloists()) if nolo else {declarer} | ({holder} if holder is not None else set())
    misplay = irregularity in ("partner_ace_not_played", "revoke", "revoke_corrected")
    revoke_from = rng.randint(2, 9)
    for _ in range(80):
        seat = b._expected_player() if b.play_started else b.forhaand
        if seat is None or (b.play_started and b.trick is None):
            break
        if nolo and len(team) == 1 and b.trick is not None and not b.trick.cards and \
                sum(1 for x in b.tricks if x.winner == declarer) > b.rules.nolo[b.high.rung].max_tricks:
            break  # the soloist has taken one trick too many: "spillet afbrydes"
        cur = list(b.trick.cards) if b.play_started and b.trick is not None else []
        legal = b.legal_plays() if b.play_started else list(b.hands[seat])
        card = _choose(b, seat, legal, cur, team, rng)
        led = cur[0][1].suit if cur and not cur[0][1].is_joker else None
        number = len(b.tricks) + 1
        wrong = None
        if misplay and (cur and led is not None or irregularity == "partner_ace_not_played"):
            hand = b.hands[seat]
            if irregularity == "partner_ace_not_played" and card == ace:
                # The ace's holder leads or plays a small card of the suit instead of the ace.
                small = [c for c in hand if c.suit == ace.suit and c != ace]
                wrong = max(small, key=lambda c: c.rank_index) if small else None
            elif irregularity.startswith("revoke") and number >= revoke_from and number <= 11 \
                    and any(c.suit == led for c in hand) and not (ace in hand and led == ace.suit):
                off = [c for c in hand if not c.is_joker and c.suit != led]
                wrong = max(off, key=lambda c: c.rank_index) if off else None
        if wrong is not None:
            misplay = False
            t.emit({"type": "play", "seat": str(seat), "card": str(wrong)})
            if irregularity == "revoke" or (irregularity == "partner_ace_not_played" and rng.random() < 0.5):
                continue  # nobody notices: it stands
            t.emit({"type": "retract", "seat": str(seat), "card": str(wrong)})
        t.emit({"type": "play", "seat": str(seat), "card": str(card)})
    t.emit({"type": "end"})
    return t.events


def _ace(suit: str) -> Card:
    return parse_card(suit + "A")
