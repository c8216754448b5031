"""A simulated Pidro table: whole deals as four players produce them (Pidroregler 1-5).

The deal goes 3 at a time from the dealer's left, 9 each; one bidding round
(each bids what the hand is worth in its best suit, or passes; the dealer may
take 14 over 14; all pass: the dealer plays 6); the bidder names trump;
everyone lays away the non-trumps (the dealer keeps at least six); the dealer
refills each player to six in turn as far as the 16 cards go and robs the
rest; a player with more than six trumps lays non-point trumps face up; then
only trumps are played, and a player out of trumps drops out.

Why the engine runs alongside: whose turn it is after players drop out, who
leads the next round and which cards are trumps are the engine's job
(``PidroBoard._expected_player``, ``legal_plays``); the simulator asks it
instead of re-implementing the rules, and only chooses *which* card.

>>> evs = simulate_board(2, seed=1, irregularity=None)
>>> evs[0]["dealer"], sum(e["type"] == "deal" for e in evs) >= 36, evs[-1]["type"]
('E', True, 'end')
"""

from __future__ import annotations

import random
import threading
from typing import Any

from ..cards import Card, Seat, shuffled_deck
from ..rules.pidro.cards import is_trump, point_value, suit_of, trump_rank
from .nordic import EngineFold

IRREGULARITIES = ("trump_discarded", "insufficient_bid", "non_trump_played")
"""What can go wrong once in a simulated deal (all Pidroregler 2 and 4)."""

FINAL = 6  # cards in hand after the refill


def dealer_of(board: int) -> Seat:
    return Seat("NESW"[(board - 1) % 4])


def _worth(hand: list[Card]) -> tuple[int, str]:
    """(the bid the hand is worth, its best suit): trumps held and the points among them."""
    def value(s: str) -> int:
        trumps = [c for c in hand if is_trump(c, s)]
        pts = sum(point_value(c, s) for c in trumps)
        high = sum(1 for c in trumps if c.rank in "AK")
        return 1 + len(trumps) + pts // 3 + high // 2
    suit = max("SHDC", key=value)
    return min(14, value(suit)), suit


def _winning(cards: list[tuple[Seat, Card]], trump: str) -> tuple[Seat, Card] | None:
    trumps = [(s, c) for s, c in cards if is_trump(c, trump)]
    return max(trumps, key=lambda sc: trump_rank(sc[1], trump)) if trumps else None


def _choose(hand: list[Card], legal: list[Card], trick: list[tuple[Seat, Card]], seat: Seat, trump: str,
            rng: random.Random) -> Card:
    """Lead the top trump; follow by winning cheaply when the round is worth it, giving points to a
    partner who is winning, else play the cheapest card without points (the 2 is always safe)."""
    rank = lambda c: trump_rank(c, trump)  # noqa: E731
    pts = lambda c: point_value(c, trump)  # noqa: E731
    if not trick:
        return max(legal, key=rank)
    win = _winning(trick, trump)
    if win is not None and win[0] is seat.partner:
        givers = [c for c in legal if pts(c) and rank(c) < rank(win[1])]
        if givers and (rank(win[1]) >= 11 or rng.random() < 0.5):
            return max(givers, key=pts)
        return min(legal, key=lambda c: (pts(c) > 0 and c.rank != "2", rank(c)))
    beaters = [c for c in legal if win is None or rank(c) > rank(win[1])]
    at_stake = sum(pts(c) for _, c in trick if c.rank != "2")
    if beaters and (at_stake or rng.random() < 0.4):
        return min(beaters, key=rank)
    return min(legal, key=lambda c: (pts(c) > 0 and c.rank != "2", rank(c)))


_HISTORY: dict[tuple[int, float], list[dict[str, int]]] = {}
"""(seed, rate) -> the running score before each board of that simulated match (index board - 1)."""
_LOCK = threading.Lock()


def score_before(board: int, seed: int, rate: float) -> dict[str, int]:
    """The game score before ``board`` in the session with this seed and rate (0-0 after a side
    reached 62, Pidroregler 6). Earlier boards are simulated once and remembered, so a session
    costs one simulation per board."""
    with _LOCK:  # several simulated tables may share a seed
        hist = _HISTORY.setdefault((seed, rate), [{"NS": 0, "EW": 0}])
        while len(hist) < board:
            _, after = _simulate(len(hist), seed, "random", rate, hist[-1])
            hist.append(after)
        return dict(hist[board - 1])


def simulate_board(board: int, seed: int = 1, irregularity: str | None = "random",
                   rate: float = 0.25) -> list[dict[str, Any]]:
    """Events (dicts, Pidro vocabulary, ``docs/pidro.md``) of one simulated deal.

    ``irregularity``: one of :data:`IRREGULARITIES`, ``None`` for a clean
    deal, or ``"random"`` to draw one with probability ``rate``. The board
    event carries the game's running ``score`` from the boards before it in
    the same simulated session (seed and rate), so the dashboard shows a
    game going to 62.
    """
    return _simulate(board, seed, irregularity, rate, score_before(board, seed, rate))[0]


def _simulate(board: int, seed: int, irregularity: str | None, rate: float,
              before: dict[str, int]) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """(events, the score after the deal: 0-0 when the deal ended the game)."""
    rng = random.Random(f"pidro:{seed}:{board}")
    if irregularity == "random":
        irregularity = rng.choice(IRREGULARITIES) if rng.random() < rate else None
    dealer = dealer_of(board)
    order = [dealer.next(i) for i in (1, 2, 3, 4)]  # dealing, bidding and refill order; dealer last
    t = EngineFold()
    t.emit({"type": "board", "game": "pidro", "board": board, "dealer": str(dealer), "score": dict(before)})
    deck = shuffled_deck(rng.randrange(1 << 30))
    for i, c in enumerate(deck[:36]):
        t.emit({"type": "deal", "to": str(order[(i // 3) % 4]), "card": str(c)})
    stock = deck[36:]
    b = t.board
    hands = {s: list(b.hands[s]) for s in Seat}

    # -- bidding (Pidroregler 2): one round, each higher than the last --------
    worth = {s: _worth(hands[s]) for s in Seat}
    calls: list[tuple[Seat, str]] = []
    high = 0
    slip = irregularity == "insufficient_bid"
    for i, s in enumerate(order):
        w = min(14, worth[s][0] + (1 if rng.random() < 0.2 else 0))
        if slip and high:
            # He names the number already bid, then corrects himself at once.
            calls.append((s, str(high)))
            slip = False
        if slip and i == 0:
            w = max(w, 7)  # someone must open for the slip to happen
        if w >= 6 and (w > high or (s is dealer and w == high == 14)):
            calls.append((s, str(w)))
            high = w
        else:
            calls.append((s, "P"))
    for s, c in calls:
        t.emit({"type": "call", "seat": str(s), "call": c})
    bidder = b.bidder if b.bidder is not None else dealer  # all pass: the dealer plays 6
    trump = worth[bidder][1]
    t.emit({"type": "trump", "seat": str(bidder), "suit": trump})

    # -- lay away the non-trumps, refill to six, the dealer robs (Pidroregler 3) --
    wrong = None
    if irregularity == "trump_discarded":
        cands = [s for s in order[:3] if any(is_trump(c, trump) and not point_value(c, trump) for c in hands[s])]
        wrong = rng.choice(cands) if cands else None
    for s in order:
        away = [c for c in hands[s] if not is_trump(c, trump)]
        if s is dealer:  # the dealer always keeps at least six cards in hand
            away = sorted(away, key=lambda c: -c.rank_index)[:max(0, len(hands[s]) - FINAL)]
        if s is wrong:
            away.append(min((c for c in hands[s] if is_trump(c, trump) and not point_value(c, trump)),
                            key=lambda c: trump_rank(c, trump)))
        if away:
            t.emit({"type": "discard", "seat": str(s), "cards": [str(c) for c in away]})
    for s in order[:3]:
        while len(b.hands[s]) < FINAL and stock:
            t.emit({"type": "deal", "to": str(s), "card": str(stock.pop(0))})
    while stock:
        t.emit({"type": "deal", "to": str(dealer), "card": str(stock.pop(0))})
    away = [c for c in b.hands[dealer] if not is_trump(c, trump)]
    if away:
        t.emit({"type": "discard", "seat": str(dealer), "cards": [str(c) for c in away]})
    for s in order:  # more than six trumps: lay non-point trumps face up (Pidroregler 4)
        trumps = sorted((c for c in b.hands[s] if is_trump(c, trump)), key=lambda c: trump_rank(c, trump))
        extra = len(trumps) - FINAL
        if extra > 0:
            down = [c for c in trumps if not point_value(c, trump)][:extra]
            t.emit({"type": "lay_down", "seat": str(s), "cards": [str(c) for c in down]})

    # -- play: only trumps; out of trumps, out of the deal (Pidroregler 4) -----
    bad_at = rng.randint(2, 4) if irregularity == "non_trump_played" else None
    lead = next((bidder.next(i) for i in range(4) if any(is_trump(c, trump) for c in b.hands[bidder.next(i)])),
                bidder)
    for _ in range(60):
        seat = b._expected_player() if b.play_started else lead
        if seat is None or (b.play_started and b.trick is None):
            break
        cur = b.trick.cards if b.play_started and b.trick is not None else []
        legal = b.legal_plays() if b.play_started else [c for c in b.hands[seat] if is_trump(c, trump)]
        if not legal:
            break
        card = _choose(b.hands[seat], legal, cur, seat, trump, rng)
        number = len(b.tricks) + 1
        if bad_at is not None and number >= bad_at and cur:
            junk = [c for c in b.hands[seat] if suit_of(c, trump) != trump]
            if junk:  # he slips a dead card from the refill onto the round
                card, bad_at = junk[0], None
        t.emit({"type": "play", "seat": str(seat), "card": str(card)})
    t.emit({"type": "end"})
    score = next((f for f in reversed(t.table.findings) if f.kind == "score"), None)
    if score is None or score.extra.get("game_over"):
        return t.events, {"NS": 0, "EW": 0}
    return t.events, dict(score.extra["score"])
