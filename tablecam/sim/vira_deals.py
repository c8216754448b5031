"""Build complete, rule-abiding Vira deals as event logs (tests, demos, docs).

A deal is shuffled from a seed, dealt in the SM 2025 order (4, 3, 3, 3 to the
three active players from forehand, 13 to the talong), bid as scripted, the
purchase done in order (declarer, then left, then right-hand opponent) and
the cards played by a simple, legal strategy that asks the engine's own
``legal_plays`` oracle. Irregular logs in the tests start from these and
change one line, the way a real table goes wrong once.

>>> evs = complete_deal(7, dealer="N", bids=[("E", "7-spel"), ("S", "pass"), ("N", "pass")], trump="H",
...                     first_suit="D", buys={"E": 3, "S": 2, "N": 1})
>>> sum(1 for e in evs if e["type"] == "deal"), sum(1 for e in evs if e["type"] == "play")
(52, 39)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..cards import Card, Seat, parse_seat, shuffled_deck
from ..engine import Table
from ..events import parse_event


def deal_order(dealer: str, players: str = "NESW", sit_out: str | None = None) -> list[str]:
    """Recipients in dealing order (seat letters, then 'talong')."""
    d = parse_seat(dealer)
    if sit_out is None and len(players) == 4:
        sit_out = str(d.rho)
    active = [str(d.next(i)) for i in (1, 2, 3, 4) if str(d.next(i)) in players and str(d.next(i)) != sit_out][:3]
    out: list[str] = []
    for n in (4, 3, 3, 3):
        for s in active:
            out += [s] * n
    return out + ["talong"] * 13


def deal_events(seed: int, dealer: str = "N", players: str = "NESW", sit_out: str | None = None,
                pack: str = "red") -> list[dict[str, Any]]:
    deck = shuffled_deck(seed)
    return [{"type": "deal", "to": to, "card": str(c), "source": "shoe"}
            for to, c in zip(deal_order(dealer, players, sit_out), deck)]


def _play_strategy(hand: list[Card], legal: list[Card], trick: list[tuple[Seat, Card]], trump: str | None,
                   misar: bool) -> Card:
    """Lead the highest card of the longest suit; follow by winning as cheaply as
    possible, else throw the lowest. In misär play as low as possible."""
    rank = lambda c: 12 - c.rank_index  # noqa: E731
    if misar:
        return min(legal, key=rank)
    if not trick:
        longest = max("SHDC", key=lambda s: (sum(1 for c in legal if c.suit == s), s == trump))
        return max((c for c in legal if c.suit == longest), key=rank)
    led = trick[0][1].suit

    def beats(c: Card) -> bool:
        for _, o in trick:
            if o.suit == c.suit and rank(o) > rank(c):
                return False
            if o.suit == trump and c.suit != trump:
                return False
        return c.suit in (led, trump)

    winners = [c for c in legal if beats(c)]
    if winners:
        return min(winners, key=lambda c: (c.suit == trump, rank(c)))
    return min(legal, key=lambda c: (c.suit == trump, rank(c)))


@dataclass(frozen=True)
class DealSetup:
    """The board event and the deal: which board, who plays, which pack, which cards.

    ``sit_out``: at a four-player table, the player who sits out (default:
    the dealer's right-hand neighbour); ``extra``: more fields for the board
    event; ``deck``: the pack in dealing order instead of the seed's shuffle;
    ``deal_hook``: called with the deal events to change them in place (a
    dealing error for a test log).
    """

    board: int = 1
    players: str = "NESW"
    sit_out: str | None = None
    pack: str = "red"
    extra: Mapping[str, Any] | None = None
    deck: Sequence[Card] | None = None
    deal_hook: Callable[[list[dict[str, Any]]], None] | None = None


@dataclass(frozen=True)
class Slip:
    """One irregularity in the play, the way a table goes wrong once.

    ``revoke_at`` / ``out_of_turn_at``: from this trick (1-based) on, the
    first chance a player has to revoke, or to lead out of turn, he takes;
    ``corrected``: the card is taken back at once, else it stays played.
    """

    revoke_at: int | None = None
    out_of_turn_at: int | None = None
    corrected: bool = True


def complete_deal(seed: int, *, dealer: str = "N", bids: Iterable[tuple[str, str]] = (), trump: str | None = None,
                  first_suit: str | None = None, buys: dict[str, Any] | None = None, contract: str | None = None,
                  turned: int | None = None, buy_order: list[str] | None = None, show: bool = False,
                  setup: DealSetup = DealSetup(), slip: Slip = Slip()) -> list[dict[str, Any]]:
    """A whole legal deal as JSON-ready event dicts (see the module doctest).

    ``bids``: (seat, bid) in order; ``contract``: the name the declarer
    chooses (gask, vingel); ``trump``, with ``turned`` talong cards shown;
    ``buys``: seat -> cards bought (and discarded), or ``(discarded,
    bought)``, in ``buy_order`` (default: declarer, then left, then right);
    ``show``: the declarer shows his hand (open misär).
    """
    board, players, sit_out, pack = setup.board, setup.players, setup.sit_out, setup.pack
    evs: list[dict[str, Any]] = [{"type": "board", "game": "vira", "board": board, "dealer": dealer,
                                  "players": players, "pack": pack, **(setup.extra or {})}]
    if sit_out:
        evs[0]["sit_out"] = sit_out
    if first_suit:
        evs.append({"type": "first_suit", "suit": first_suit})
    if setup.deck is None:
        evs += deal_events(seed, dealer, players, sit_out, pack)
    else:
        evs += [{"type": "deal", "to": to, "card": str(c), "source": "shoe"}
                for to, c in zip(deal_order(dealer, players, sit_out), setup.deck)]
    if setup.deal_hook is not None:
        setup.deal_hook([e for e in evs if e["type"] == "deal"])
    declarer = None
    for seat, bid in bids:
        evs.append({"type": "bid", "seat": seat, "bid": bid})
        if bid != "pass":
            declarer = seat
    t = Table()
    for i, e in enumerate(evs):
        t.apply(parse_event(e, i))
    b = t.board
    assert b is not None
    if b.declarer is not None:
        declarer = str(b.declarer)
    if contract:
        evs.append({"type": "contract_choice", "seat": declarer, "name": contract})
    if trump:
        evs.append({"type": "trump", "seat": declarer, "suit": trump})
        if turned is not None:
            evs[-1]["cards"] = [str(c) for c in b.talong[:turned]]
    for e in evs[len(evs) - (bool(contract) + bool(trump)):]:
        t.apply(parse_event(e, len(t.board.events)))
    buys = buys or {}
    if declarer and buys:
        order = [parse_seat(declarer)]
        order += [b.next_active(order[0]), b.next_active(b.next_active(order[0]))]
        if buy_order:
            order = [parse_seat(x) for x in buy_order]
        for s in order:
            k = buys.get(str(s), 0)
            nd, nb = k if isinstance(k, tuple) else (k, k)
            hand = b.hands[s]
            rank = lambda c: 12 - c.rank_index  # noqa: E731
            if b.contract is not None and (b.contract.is_misar or b.playing_misar):
                throw = sorted(hand, key=rank, reverse=True)[:nd]
            else:
                throw = sorted((c for c in hand if c.suit != b.trump), key=rank)[:nd]
            take = list(b.talong[:nb])
            for e in ({"type": "discard", "seat": str(s), "cards": [str(c) for c in throw]},
                      {"type": "buy", "seat": str(s), "cards": [str(c) for c in take]}):
                evs.append(e)
                t.apply(parse_event(e, len(evs) - 1))
    if show and declarer:
        e = {"type": "show", "seat": declarer, "cards": [str(c) for c in b.hands[parse_seat(declarer)]]}
        evs.append(e)
        t.apply(parse_event(e, len(evs) - 1))
    misar = bool(b.contract and (b.contract.is_misar or b.playing_misar))

    def emit(e: dict[str, Any]) -> None:
        evs.append(e)
        t.apply(parse_event(e, len(evs) - 1))

    done_revoke = done_oot = False
    for _ in range(60):
        if b.phase == "play":
            seat = b._expected_player()
        else:
            seat = b.forehand
        if not b.hands.get(seat):
            break
        hand = b.hands[seat]
        cur = b.trick.cards if b.trick is not None else []
        led = cur[0][1].suit if cur else None
        number = len(b.tricks) + 1
        legal = [c for c in hand if c.suit == led] if led else list(hand)
        legal = legal or list(hand)
        card = _play_strategy(hand, legal, cur, b.trump, misar)
        if slip.out_of_turn_at is not None and number >= slip.out_of_turn_at and not cur and not done_oot:
            done_oot = True
            wrong = b.next_active(seat)
            bad = _play_strategy(b.hands[wrong], list(b.hands[wrong]), [], b.trump, misar)
            emit({"type": "play", "seat": str(wrong), "card": str(bad), "source": "camera"})
            if slip.corrected:
                emit({"type": "retract", "seat": str(wrong), "card": str(bad), "source": "camera"})
            else:
                continue
        if slip.revoke_at is not None and number >= slip.revoke_at and cur and not done_revoke:
            others = [c for c in hand if c.suit != led]
            if led and others and len(legal) < len(hand) and legal and legal[0].suit == led:
                done_revoke = True
                bad = min(others, key=lambda c: 12 - c.rank_index)
                emit({"type": "play", "seat": str(seat), "card": str(bad), "source": "camera"})
                if slip.corrected:
                    emit({"type": "retract", "seat": str(seat), "card": str(bad), "source": "operator"})
                else:
                    continue
        emit({"type": "play", "seat": str(seat), "card": str(card), "source": "camera"})
    evs.append({"type": "end"})
    return evs
