"""A simulated bridge table: deals, auctions and card play as players produce them.

The demo, the load benchmark and the camera/shoe simulators need a source of
*realistic* event logs: a shuffled deal dealt one card at a time, a sensible
auction, card play by simple but plausible heuristics (second hand low, third
hand high, ruff when void), claims near the end, and now and then the
irregularities directors really see: a revoke (corrected or established), a
lead out of turn, a dropped card, a misdealt hand. Every log is reproducible
from its seed.

>>> evs = simulate_board(1, seed=7, irregularity=None)
>>> evs[0]["type"], sum(e["type"] == "deal" for e in evs), evs[-1]["type"]
('board', 52, 'end')
"""

from __future__ import annotations

import random
from typing import Any, Iterator

from ..cards import RANKS, SUITS, Card, Seat, shuffled_deck

IRREGULARITIES = ("revoke", "revoke_corrected", "lead_out_of_turn", "exposed_card", "misdeal")
VULNERABILITY = ("None", "NS", "EW", "All", "NS", "EW", "All", "None",
                 "EW", "All", "None", "NS", "All", "None", "NS", "EW")
HCP = {"A": 4, "K": 3, "Q": 2, "J": 1}

# Seconds each kind of action takes at a real table (speed 1.0).
PACE = {"deal": 0.4, "call": 4.0, "play": 6.0, "retract": 8.0, "expose": 3.0, "claim": 15.0,
        "board": 20.0, "end": 5.0}


def dealer_of(board: int) -> Seat:
    return Seat("NESW"[(board - 1) % 4])


def vulnerability_of(board: int) -> str:
    return VULNERABILITY[(board - 1) % 16]


def _hcp(hand: list[Card]) -> int:
    return sum(HCP.get(c.rank, 0) for c in hand)


def _suit(hand: list[Card], suit: str) -> list[Card]:
    return sorted((c for c in hand if c.suit == suit), key=lambda c: c.rank_index)


class _Play:
    """Card play by simple heuristics; tracks hands and tricks."""

    def __init__(self, hands: dict[Seat, list[Card]], trump: str | None, declarer: Seat,
                 rng: random.Random) -> None:
        self.hands = {s: list(h) for s, h in hands.items()}
        self.trump, self.declarer, self.rng = trump, declarer, rng

    def beats(self, a: Card, b: Card, led: str) -> bool:
        """Does ``a`` beat ``b`` (the current winner) in a trick led in ``led``?"""
        if a.suit == b.suit:
            return a.rank_index < b.rank_index
        if a.suit == self.trump:
            return True
        return False

    def winner(self, cards: list[tuple[Seat, Card]]) -> Seat:
        led = cards[0][1].suit
        best_seat, best = cards[0]
        for seat, c in cards[1:]:
            if self.beats(c, best, led):
                best_seat, best = seat, c
        return best_seat

    def choose(self, seat: Seat, trick: list[tuple[Seat, Card]]) -> Card:
        hand = self.hands[seat]
        if not trick:
            # Lead: top of a sequence in the longest non-trump suit, else lowest.
            suits = sorted((s for s in SUITS if _suit(hand, s) and s != self.trump),
                           key=lambda s: -len(_suit(hand, s))) or [c.suit for c in hand]
            cards = _suit(hand, suits[0])
            if len(cards) >= 2 and cards[0].rank_index + 1 == cards[1].rank_index and cards[0].is_honour:
                return cards[0]
            return cards[-1] if self.rng.random() < 0.7 else cards[min(3, len(cards) - 1)]
        led = trick[0][1].suit
        win_seat = self.winner(trick)
        win_card = dict(trick)[win_seat]
        partner_winning = win_seat is seat.partner
        same = _suit(hand, led)
        if same:
            winners = [c for c in same if self.beats(c, win_card, led)]
            if winners and not partner_winning and len(trick) >= 1:
                return winners[-1]  # cheapest winning card
            return same[-1]
        trumps = _suit(hand, self.trump) if self.trump else []
        if trumps and not partner_winning:
            overs = [c for c in trumps if self.beats(c, win_card, led)]
            if overs:
                return overs[-1]
        # Discard the lowest card of the longest side suit.
        side = [s for s in SUITS if s != self.trump and _suit(hand, s)] or [c.suit for c in hand]
        longest = max(side, key=lambda s: len(_suit(hand, s)))
        return _suit(hand, longest)[-1]

    def revoke_card(self, seat: Seat, led: str) -> Card | None:
        """A card of another suit a player *could* wrongly play while holding ``led``."""
        hand = self.hands[seat]
        if not _suit(hand, led):
            return None
        others = [c for c in hand if c.suit != led]
        return min(others, key=lambda c: -c.rank_index) if others else None


def _auction(hands: dict[Seat, list[Card]], dealer: Seat, rng: random.Random) -> tuple[list[tuple[Seat, str]], Seat | None, str | None]:
    ns = _hcp(hands[Seat.N]) + _hcp(hands[Seat.S])
    side = (Seat.N, Seat.S) if ns >= 20 else (Seat.E, Seat.W)
    pts = ns if side[0] is Seat.N else 40 - ns
    if pts < 20 or (pts == 20 and rng.random() < 0.5):
        return [(dealer.next(i), "P") for i in range(4)], None, None
    fits = {s: len(_suit(hands[side[0]], s)) + len(_suit(hands[side[1]], s)) for s in SUITS}
    best = max(SUITS, key=lambda s: (fits[s] + (1 if s in "SH" else 0), -SUITS.index(s)))
    strain = best if fits[best] >= 8 else "N"
    if pts >= 33:
        level = 7
    elif pts >= 30:
        level = 6
    elif pts >= 25:
        level = {"N": 3, "S": 4, "H": 4}.get(strain, 5)
    elif pts >= 23:
        level = 2 if strain == "N" else 3
    else:
        level = 1 if strain == "N" else 2
    if strain == "N":
        declarer = max(side, key=lambda s: _hcp(hands[s]))
    else:
        declarer = max(side, key=lambda s: (len(_suit(hands[s], strain)), _hcp(hands[s])))
    opener_bid = f"1{strain}" if level > 1 and rng.random() < 0.6 else None
    calls: list[tuple[Seat, str]] = []
    seat = dealer
    if opener_bid:
        # Declarer opens at the one level, partner raises, declarer bids the final contract.
        while seat is not declarer:
            calls.append((seat, "P"))
            seat = seat.next()
        seq = [opener_bid, "P", f"{max(2, level - 1) if level > 2 else 2}{strain}", "P", f"{level}{strain}"]
        if seq[2] == seq[4] or int(seq[2][0]) >= level:
            seq = [opener_bid, "P", f"{level}{strain}"]
            # partner bids the final contract: declarer of a suit contract is the
            # first of the side to name the strain, which is still the opener.
        for c in seq:
            calls.append((seat, c))
            seat = seat.next()
    else:
        while seat is not declarer:
            calls.append((seat, "P"))
            seat = seat.next()
        calls.append((seat, f"{level}{strain}"))
        seat = seat.next()
    for _ in range(3):
        calls.append((seat, "P"))
        seat = seat.next()
    return calls, declarer, f"{level}{strain}"


def simulate_board(board: int, seed: int = 1, irregularity: str | None = "random",
                   rate: float = 0.25) -> list[dict[str, Any]]:
    """Events (as dicts, contract vocabulary) of one simulated board.

    ``irregularity``: one of :data:`IRREGULARITIES`, ``None`` for a clean
    board, or ``"random"`` to draw one with probability ``rate``.
    """
    rng = random.Random(seed * 1009 + board)
    if irregularity == "random":
        irregularity = rng.choice(IRREGULARITIES) if rng.random() < rate else None
    dealer = dealer_of(board)
    events: list[dict[str, Any]] = [{"type": "board", "game": "bridge", "board": board,
                                     "dealer": str(dealer), "vulnerable": vulnerability_of(board)}]
    deck = shuffled_deck(rng.randrange(1 << 30))
    if irregularity == "misdeal":
        # One card goes to the wrong hand; the director has the board redealt.
        for i, c in enumerate(deck):
            to = dealer.next(1 + i) if i != 30 else dealer.next(2 + i)
            events.append({"type": "deal", "to": str(to), "card": str(c)})
        events.append({"type": "end"})
        events.append(dict(events[0], redeal=True))
        deck = shuffled_deck(rng.randrange(1 << 30))
    hands: dict[Seat, list[Card]] = {s: [] for s in Seat}
    for i, c in enumerate(deck):
        to = dealer.next(1 + i)
        hands[to].append(c)
        events.append({"type": "deal", "to": str(to), "card": str(c)})
    calls, declarer, contract = _auction(hands, dealer, rng)
    events += [{"type": "call", "seat": str(s), "call": c} for s, c in calls]
    if declarer is None or contract is None:
        events.append({"type": "end"})
        return events
    trump = None if contract[-1] == "N" else contract[-1]
    play = _Play(hands, trump, declarer, rng)
    defenders = (declarer.lho, declarer.rho)
    odd_trick = rng.randint(2, 9)
    done_irregular = False
    penalty: tuple[Seat, Card] | None = None
    leader = declarer.lho
    tricks_won = {"NS": 0, "EW": 0}
    claim_at = rng.randint(9, 13) if rng.random() < 0.6 else 14
    for trick_no in range(1, 14):
        if trick_no == claim_at:
            rest = _play_out(play, leader, tricks_won)
            side = declarer.side
            events.append({"type": "claim", "seat": str(declarer), "tricks": rest[side]})
            break
        trick: list[tuple[Seat, Card]] = []
        order = [leader.next(i) for i in range(4)]
        if (irregularity == "lead_out_of_turn" and not done_irregular and trick_no >= odd_trick
                and leader in defenders):
            # The wrong defender leads; declarer accepts by playing next (Law 53/55).
            order = [leader.partner.next(i) for i in range(4)]
            done_irregular = True
        for pos, seat in enumerate(order):
            card = play.choose(seat, trick)
            if (irregularity == "exposed_card" and not done_irregular and seat in defenders
                    and trick_no >= odd_trick and pos > 0 and len(play.hands[seat]) > 3):
                # The defender drops a card while about to follow: a penalty card
                # he must play at the first legal opportunity (Law 50).
                drop = [c for c in play.hands[seat] if c is not card][-1]
                events.append({"type": "expose", "seat": str(seat), "card": str(drop)})
                penalty = (seat, drop)
                done_irregular = True
            if penalty and penalty[0] is seat and penalty[1] in play.hands[seat]:
                pc = penalty[1]
                if not trick or pc.suit == trick[0][1].suit or not _suit(play.hands[seat], trick[0][1].suit):
                    card = pc
                    penalty = None
            if (irregularity in ("revoke", "revoke_corrected") and not done_irregular and trick
                    and trick_no >= odd_trick and trick_no <= 11):
                wrong = play.revoke_card(seat, trick[0][1].suit)
                if wrong is not None:
                    done_irregular = True
                    events.append({"type": "play", "seat": str(seat), "card": str(wrong)})
                    if irregularity == "revoke_corrected":
                        events.append({"type": "retract", "seat": str(seat), "card": str(wrong)})
                        if seat in defenders:
                            penalty = (seat, wrong)  # withdrawn card: major penalty card (Law 62B)
                    else:
                        card = wrong
                        play.hands[seat].remove(card)
                        trick.append((seat, card))
                        continue
            play.hands[seat].remove(card)
            trick.append((seat, card))
            events.append({"type": "play", "seat": str(seat), "card": str(card)})
        leader = play.winner(trick)
        tricks_won[leader.side] += 1
    events.append({"type": "end"})
    return events


def _play_out(play: _Play, leader: Seat, won: dict[str, int]) -> dict[str, int]:
    """Play the remaining tricks silently (for a claim's trick count)."""
    shadow = _Play(play.hands, play.trump, play.declarer, random.Random(0))
    total = dict(won)
    while any(shadow.hands.values()):
        trick: list[tuple[Seat, Card]] = []
        for i in range(4):
            seat = leader.next(i)
            c = shadow.choose(seat, trick)
            shadow.hands[seat].remove(c)
            trick.append((seat, c))
        leader = shadow.winner(trick)
        total[leader.side] += 1
    return total


def simulate_session(boards: int, seed: int = 1, rate: float = 0.25, first: int = 1) -> Iterator[dict[str, Any]]:
    """Events of ``boards`` consecutive boards (``boards=0``: forever)."""
    b = first
    while boards == 0 or b < first + boards:
        yield from simulate_board(b, seed, "random", rate)
        b += 1


def pace(event: dict[str, Any]) -> float:
    """Seconds a real table takes for this event (before a speed factor)."""
    return PACE.get(event.get("type", ""), 1.0)
