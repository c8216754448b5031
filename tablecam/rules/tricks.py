"""Trick-taking mechanics shared by the Nordic games (Pidro, es-makker whist, Vira).

Each game differs only in three small things, so they are parameters here
instead of subclasses:

* ``suit_of(card)`` -- the suit a card *belongs to* in this deal. In Pidro the
  off-colour five ("fel pidro") belongs to the trump suit; in whist a joker
  belongs to no suit (``None``).
* ``rank_of(card)`` -- a number, higher wins, among cards of one suit. Pidro
  ranks the two fives between the 6 and the 4.
* ``trump`` -- the trump suit letter, or ``None`` for no-trump / nolo.

A game may add a rule that overrides the normal winner (whist: a joker *led*
wins the trick) through ``special_winner``.

The :class:`RevokeTracker` gives revokes (failure to follow suit when able)
the lifecycle every engine reports: ``pending`` when it happens, ``corrected``
when the card is taken back in time, ``established`` when it is too late.
When "too late" starts differs by game, so it is a parameter:

* ``"next_trick"`` -- as soon as anyone plays to the next trick (Vira J, whist);
* ``"offending_side"`` -- when the offender or partner plays to the next trick
  (bridge Law 63A1).

>>> from tablecam.cards import parse_card as C, Seat
>>> t = Trick(leader=Seat.N, number=1)
>>> for s, c in ((Seat.N, "H7"), (Seat.E, "HK"), (Seat.S, "S2"), (Seat.W, "HA")):
...     t.add(s, C(c))
>>> t.led_suit(plain_suit), str(trick_winner(t.cards, trump="S"))
('H', 'S')
>>> str(trick_winner(t.cards, trump=None))
'W'
>>> must_follow([C("H2"), C("SA")], "H"), must_follow([C("SA")], "H")
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Literal

from ..cards import Card, Seat

SuitOf = Callable[[Card], "str | None"]
RankOf = Callable[[Card], int]
SpecialWinner = Callable[[list[tuple[Seat, Card]]], "Seat | None"]


def plain_suit(card: Card) -> str | None:
    """A card's printed suit; a joker has none."""
    return None if card.is_joker else card.suit


def plain_rank(card: Card) -> int:
    """Ace high, deuce low (0..12); a joker ranks below everything."""
    return -1 if card.is_joker else 12 - card.rank_index


def must_follow(hand: Iterable[Card], led: str | None, suit_of: SuitOf = plain_suit) -> bool:
    """True if ``hand`` holds a card of suit ``led`` (so it must follow)."""
    if led is None:
        return False
    return any(suit_of(c) == led for c in hand)


def is_revoke(card: Card, hand_before: Iterable[Card], led: str | None, suit_of: SuitOf = plain_suit,
              exempt: Callable[[Card], bool] | None = None) -> bool:
    """Did playing ``card`` fail to follow suit when the hand could?

    ``hand_before`` is the hand *including* ``card``. ``exempt`` names cards
    that may always be played (whist jokers).
    """
    if led is None or suit_of(card) == led:
        return False
    if exempt is not None and exempt(card):
        return False
    return must_follow((c for c in hand_before if c != card), led, suit_of)


def legal_cards(hand: Iterable[Card], led: str | None, suit_of: SuitOf = plain_suit,
                exempt: Callable[[Card], bool] | None = None) -> list[Card]:
    """Oracle: the cards of ``hand`` that may be played to a trick led in ``led``."""
    hand = list(hand)
    if not must_follow(hand, led, suit_of):
        return hand
    return [c for c in hand if suit_of(c) == led or (exempt is not None and exempt(c))]


def trick_winner(cards: list[tuple[Seat, Card]], trump: str | None, suit_of: SuitOf = plain_suit,
                 rank_of: RankOf = plain_rank, special_winner: SpecialWinner | None = None) -> Seat | None:
    """The seat that wins a (complete or partial) trick.

    Highest trump if any trump was played, else the highest card of the suit
    led. A card of no suit (a joker) never wins here; ``special_winner`` may
    decide first (e.g. whist's led joker).
    """
    if not cards:
        return None
    if special_winner is not None:
        w = special_winner(cards)
        if w is not None:
            return w
    led = next((suit_of(c) for _, c in cards if suit_of(c) is not None), None)
    best: tuple[int, int] | None = None
    winner: Seat | None = None
    for seat, card in cards:
        s = suit_of(card)
        if s is None:
            continue
        if trump is not None and s == trump:
            key = (2, rank_of(card))
        elif s == led:
            key = (1, rank_of(card))
        else:
            continue
        if best is None or key > best:
            best, winner = key, seat
    return winner


@dataclass
class Trick:
    """One trick in progress or done: who led, the cards in order, the winner."""

    leader: Seat
    number: int
    cards: list[tuple[Seat, Card]] = field(default_factory=list)
    winner: Seat | None = None
    events: list[int | None] = field(default_factory=list)

    def add(self, seat: Seat, card: Card, event: int | None = None) -> None:
        self.cards.append((seat, card))
        self.events.append(event)

    def remove(self, seat: Seat, card: Card) -> bool:
        """Take a card back (``retract``); False if it is not in this trick."""
        for i, (s, c) in enumerate(self.cards):
            if s == seat and c == card:
                del self.cards[i]
                del self.events[i]
                return True
        return False

    def led_suit(self, suit_of: SuitOf = plain_suit) -> str | None:
        """The suit to follow: the first card's suit (a suitless lead sets none)."""
        if not self.cards:
            return None
        return suit_of(self.cards[0][1])

    def seats(self) -> list[Seat]:
        return [s for s, _ in self.cards]

    def next_to_play(self, players: Iterable[Seat] | None = None) -> Seat | None:
        """Whose turn it is: the first seat clockwise from the leader that has not played yet,
        among ``players`` when only some play to this trick (Pidro: those still holding trumps)."""
        among = None if players is None else set(players)
        played = self.seats()
        for i in range(4):
            s = self.leader.next(i)
            if s not in played and (among is None or s in among):
                return s
        return None

    def to_dict(self) -> dict:
        return {"leader": str(self.leader), "cards": [{"seat": str(s), "card": str(c)} for s, c in self.cards],
                "winner": str(self.winner) if self.winner else None}


Establish = Literal["next_trick", "offending_side"]


@dataclass
class Revoke:
    """One revoke and where it stands (``pending``, ``corrected``, ``established``)."""

    seat: Seat
    trick: int
    card: Card
    led: str
    event: int | None
    id: str
    status: str = "pending"


class RevokeTracker:
    """Revokes with their lifecycle; the engine turns each change into a finding.

    >>> from tablecam.cards import parse_card as C, Seat
    >>> rt = RevokeTracker("next_trick", id_prefix="b1")
    >>> r = rt.check(Seat.E, C("S2"), [C("S2"), C("H3")], "H", trick=1, event=5)
    >>> r.status, r.id
    ('pending', 'b1-revoke-E-1')
    >>> [x.status for x in rt.on_play(Seat.S, trick=2, event=9)]
    ['established']
    """

    def __init__(self, establish: Establish = "next_trick", id_prefix: str = "",
                 suit_of: SuitOf = plain_suit, exempt: Callable[[Card], bool] | None = None) -> None:
        self.establish = establish
        self.id_prefix = id_prefix
        self.suit_of = suit_of
        self.exempt = exempt
        self.revokes: list[Revoke] = []

    def check(self, seat: Seat, card: Card, hand_before: Iterable[Card], led: str | None, trick: int,
              event: int | None) -> Revoke | None:
        """Record a revoke if playing ``card`` is one; return it (else None)."""
        if not is_revoke(card, hand_before, led, self.suit_of, self.exempt):
            return None
        n = sum(1 for r in self.revokes if r.seat == seat and r.trick == trick)
        rid = f"{self.id_prefix}-revoke-{seat}-{trick}" + (f"-{n + 1}" if n else "")
        r = Revoke(seat, trick, card, led or "", event, rid)
        self.revokes.append(r)
        return r

    def retract(self, seat: Seat, card: Card) -> Revoke | None:
        """The revoke card was taken back while still pending: corrected."""
        for r in self.revokes:
            if r.status == "pending" and r.seat == seat and r.card == card:
                r.status = "corrected"
                return r
        return None

    def on_play(self, seat: Seat, trick: int, event: int | None) -> list[Revoke]:
        """A card was played to ``trick``; return revokes that just became established."""
        out = []
        for r in self.revokes:
            if r.status != "pending" or trick <= r.trick:
                continue
            if self.establish == "offending_side" and seat not in (r.seat, r.seat.partner):
                continue
            r.status = "established"
            out.append(r)
        return out

    def close(self) -> list[Revoke]:
        """End of play: every revoke still pending is established."""
        out = []
        for r in self.revokes:
            if r.status == "pending":
                r.status = "established"
                out.append(r)
        return out

    def pending(self) -> list[Revoke]:
        return [r for r in self.revokes if r.status == "pending"]
