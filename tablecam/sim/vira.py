"""A simulated Vira table: whole deals as a four-player table produces them.

Why a separate simulator from the test scenarios: the demo and ``tablecam
run`` need an endless supply of *different*, plausible deals, so the bids
come from the hands (a player bids the köpspel his hand is worth, forehand
must open, the others overcall or pass) instead of a script. The deal, the
purchase and the card play are those of
:func:`tablecam.sim.vira_deals.complete_deal`, which already plays legal
cards by asking the engine; this module only decides what the table bids and
which irregularity (if any) it commits.

Dealer rotates N E S W with the board number; at the four-player table the
player on the dealer's right sits out (SM 2025 C); the two packs alternate
(red on odd boards); the other pack's top card sets högsta färg.

>>> evs = simulate_board(3, seed=1, irregularity=None)
>>> evs[0]["dealer"], evs[0]["sit_out"], sum(e["type"] == "deal" for e in evs), evs[-1]["type"]
('S', 'E', 52, 'end')
"""

from __future__ import annotations

import random
from typing import Any

from ..cards import Card, Seat, shuffled_deck
from .vira_deals import DealSetup, Slip, complete_deal, deal_order

IRREGULARITIES = ("revoke", "revoke_corrected", "bid_out_of_turn", "face_up_in_deal", "lead_out_of_turn")
"""What can go wrong once in a simulated deal (SM 2025 J.3-J.6, F.5, E.4, J.1)."""

LADDER = ((1, "Begär 6"), (3, "7-spel"), (10, "8-spel"), (19, "9-spel"))  # köpspel: (number in the bid table, name)
MISAR = (13, "Köpmisär på 2")  # a closed misär over 12 cards, with purchase
HCP = {"A": 4, "K": 3, "Q": 2, "J": 1}


def dealer_of(board: int) -> Seat:
    return Seat("NESW"[(board - 1) % 4])


def _worth(hand: list[Card]) -> tuple[int, str]:
    """(index into LADDER or -1, best trump suit): high cards plus length in the longest suit,
    counting on a purchase of about three cards from the talong."""
    suit = max("SHDC", key=lambda s: (sum(1 for c in hand if c.suit == s),
                                      sum(HCP.get(c.rank, 0) for c in hand if c.suit == s)))
    length = sum(1 for c in hand if c.suit == suit)
    points = sum(HCP.get(c.rank, 0) for c in hand) + 2 * max(0, length - 4)
    return min(3, (points - 11) // 4) if points >= 11 else -1, suit  # index into LADDER


def _auction(hands: dict[str, list[Card]], order: list[str], rng: random.Random,
             out_of_turn: bool) -> tuple[list[tuple[str, str]], str, str | None]:
    """Bids as the table makes them: (bids, declarer, trump or None for misär). Forehand must open
    (A.1); the others overcall one step while the hand is worth it, and a hand with nothing in it
    may go for Köpmisär på 2; two passes after the last bid end it."""
    worth = {s: _worth(hands[s]) for s in order}
    ladder = list(LADDER)

    def misar_hand(seat: str) -> bool:
        h = hands[seat]
        return not any(c.rank in "AK" for c in h) and sum(1 for c in h if c.rank in "QJT") <= 3

    def step_above(no: int, seat: str) -> tuple[int, str] | None:
        """The next bid this player would make over contract number ``no``, if any."""
        target = worth[seat][0] + (1 if rng.random() < 0.15 else 0)
        if misar_hand(seat) and no < MISAR[0]:
            return MISAR
        for i, (n, name) in enumerate(ladder):
            if n > no and i <= target:
                return n, name
        return None

    opening = MISAR if misar_hand(order[0]) and rng.random() < 0.5 else ladder[max(0, min(worth[order[0]][0], 1))]
    high, high_seat = opening[0], order[0]
    bids: list[tuple[str, str]] = [(order[0], opening[1])]
    passed: set[str] = set()
    if out_of_turn:
        # Efterhand, eager, bids before mellanhand has spoken (F.5: the bid is not considered).
        bids.append((order[2], next(name for n, name in ladder if n > high)))
    i = 1
    while len(passed) < 2:
        seat = order[i % 3]
        i += 1
        if seat in passed or seat == high_seat:
            continue
        over = step_above(high, seat)
        if over is not None:
            high, high_seat = over[0], seat
            bids.append((seat, over[1]))
        else:
            passed.add(seat)
            bids.append((seat, "pass"))
    return bids, high_seat, None if high == MISAR[0] else worth[high_seat][1]


def simulate_board(board: int, seed: int = 1, irregularity: str | None = "random",
                   rate: float = 0.25) -> list[dict[str, Any]]:
    """Events (dicts, Vira vocabulary, ``docs/vira.md``) of one simulated deal.

    ``irregularity``: one of :data:`IRREGULARITIES`, ``None`` for a clean
    deal, or ``"random"`` to draw one with probability ``rate``. A deal with
    a card turned up in the deal (E.4) is gathered after the last card and
    redealt by the same dealer in the same list (a second ``board`` event
    with ``redeal: true``).
    """
    rng = random.Random(f"vira:{seed}:{board}")
    if irregularity == "random":
        irregularity = rng.choice(IRREGULARITIES) if rng.random() < rate else None
    dealer = dealer_of(board)
    sit_out = str(dealer.rho)
    head = {"board": board, "dealer": str(dealer), "players": "NESW", "sit_out": sit_out,
            "pack": "red" if board % 2 else "blue"}
    events: list[dict[str, Any]] = []
    if irregularity == "face_up_in_deal":
        # A card is turned face up while dealing: redeal without penalty by the same dealer (E.4, D.6).
        deck = shuffled_deck(rng.randrange(1 << 30))
        first = {"type": "board", "game": "vira", **head}
        deals = [{"type": "deal", "to": to, "card": str(c), "source": "shoe"}
                 for to, c in zip(deal_order(str(dealer), "NESW", sit_out), deck)]
        deals[rng.randrange(3, 38)]["face_up"] = True
        events += [first, {"type": "first_suit", "suit": rng.choice("SHDC")}, *deals, {"type": "end"}]
        head["redeal"] = True
    deck = shuffled_deck(rng.randrange(1 << 30))
    order = deal_order(str(dealer), "NESW", sit_out)
    hands: dict[str, list[Card]] = {}
    for to, c in zip(order, deck):
        hands.setdefault(to, []).append(c)
    seats = [s for s in dict.fromkeys(order) if s != "talong"]  # forehand, mellanhand, efterhand
    bids, declarer, trump = _auction(hands, seats, rng, irregularity == "bid_out_of_turn")
    # Purchase: the declarer buys most; the talong's 13 cards are shared in turn (G.4, G.5).
    rest = seats[seats.index(declarer) + 1:] + seats[:seats.index(declarer)]
    buys: dict[str, Any]
    if trump is None:
        # Köpmisär på 2 is played with 12 cards: the declarer lays away 3 and buys 2, the others lay away 1.
        buys = {declarer: (3, 2), **{s: (1, 0) for s in rest}}
    else:
        # Each lays away non-trumps only (vira_deals' purchase), so nobody buys more than he holds of them.
        side = {s: sum(1 for c in hands[s] if c.suit != trump) for s in seats}
        k = min(side[declarer], rng.randint(3, 6))
        buys = {declarer: k}
        left = 13 - k
        for s in rest:
            n = min(left, side[s], rng.randint(1, 4))
            buys[s] = n
            left -= n
    slip = Slip()
    if irregularity in ("revoke", "revoke_corrected"):
        slip = Slip(revoke_at=rng.randint(2, 9), corrected=irregularity == "revoke_corrected")
    elif irregularity == "lead_out_of_turn":
        slip = Slip(out_of_turn_at=rng.randint(2, 10), corrected=rng.random() < 0.5)
    extra = {k2: v for k2, v in head.items() if k2 not in ("board", "dealer", "players", "sit_out", "pack")}
    setup = DealSetup(board=board, players="NESW", sit_out=sit_out, pack=head["pack"], deck=deck, extra=extra)
    events += complete_deal(0, dealer=str(dealer), bids=bids, trump=trump, first_suit=rng.choice("SHDC"),
                            buys=buys, setup=setup, slip=slip)
    return events
