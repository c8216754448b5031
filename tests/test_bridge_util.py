"""A small, independent bridge table for the bridge rule tests.

``Game`` deals a real shuffled pack, keeps its own hands and tricks (so the
tests do not take the engine's word for who won what), and writes the event
log the engine then judges through the public path: JSON Lines ->
``read_events`` -> ``Table``.
"""

from __future__ import annotations

import json
import os

from tablecam.cards import shuffled_deck
from tablecam.engine import Table
from tablecam.events import Event, parse_event, read_events

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WC2012 = os.path.join(ROOT, "..", "shared", "data", "bridge", "wc2012-vugraph.pbn")

SEATS = "NESW"
RANKS = "AKQJT98765432"


def nxt(seat: str, k: int = 1) -> str:
    return SEATS[(SEATS.index(seat) + k) % 4]


def side(seat: str) -> str:
    return "NS" if seat in "NS" else "EW"


class Game:
    """Deal, auction and play a board; record every event as a JSON object."""

    def __init__(self, seed: int = 1, dealer: str = "N", board: int = 1, deal: bool = True, vul: str = "None"):
        self.events: list[dict] = []
        self.add(type="board", game="bridge", board=board, dealer=dealer, vulnerable=vul)
        self.dealer = dealer
        self.hands: dict[str, list[str]] = {s: [] for s in SEATS}
        start = nxt(dealer)
        for i, c in enumerate(shuffled_deck(seed)):
            seat = nxt(start, i)
            self.hands[seat].append(str(c))
            if deal:
                self.add(type="deal", to=seat, card=str(c))
        self.trump: str | None = None
        self.declarer: str | None = None
        self.leader: str | None = None
        self.trick: list[tuple[str, str]] = []
        self.tricks: list[tuple[str, list[tuple[str, str]], str]] = []
        self.penalty: dict[str, list[str]] = {}

    @classmethod
    def from_real(cls, dicts: list[dict]) -> "Game":
        """A real board (event dicts from :func:`real_boards`): its deal and auction go into the log,
        its play waits in ``real_plays`` for :meth:`follow_real`."""
        g = cls.__new__(cls)
        g.events = [d for d in dicts if d["type"] in ("board", "deal", "call")]
        g.dealer = dicts[0]["dealer"]
        g.hands = {s: [d["card"] for d in dicts if d["type"] == "deal" and d["to"] == s] for s in SEATS}
        g.trick, g.tricks, g.penalty = [], [], {}
        g.trump = g.declarer = g.leader = None
        board = g.engine()
        g.contract(SEATS[board.declarer], board.bid[1])
        g.real_plays = [(d["seat"], d["card"]) for d in dicts if d["type"] == "play"]
        g.real_plays = g.real_plays[:len(g.real_plays) - len(g.real_plays) % 4]  # whole tricks
        g.real_calls = [(d["seat"], d["call"]) for d in dicts if d["type"] == "call"]
        return g

    def follow_real(self, stop=None) -> bool:
        """Play the real cards in order until ``stop(self)`` is true before a card (True) or none are left."""
        while len(self.tricks) * 4 + len(self.trick) < len(self.real_plays):
            if stop is not None and stop(self):
                return True
            self.play(*self.real_plays[len(self.tricks) * 4 + len(self.trick)])
        return False

    def defenders(self) -> tuple[str, str]:
        return nxt(self.declarer), nxt(self.declarer, 3)

    # -- recording ----------------------------------------------------------
    def add(self, **ev) -> int:
        self.events.append(ev)
        return len(self.events) - 1

    def calls(self, *calls: str, first: str | None = None) -> None:
        seat = first or self.dealer
        for c in calls:
            self.add(type="call", seat=seat, call=c)
            seat = nxt(seat)

    def contract(self, declarer: str, strain: str) -> None:
        """Tell the helper the contract the recorded auction reached."""
        self.declarer = declarer
        self.trump = None if strain == "N" else strain
        self.leader = nxt(declarer)

    def bid_and_set(self, bid: str, declarer: str) -> None:
        """Auction: declarer opens ``bid`` (others pass before him), then three passes."""
        calls, seat = [], self.dealer
        while seat != declarer:
            calls.append("P")
            seat = nxt(seat)
        calls += [bid, "P", "P", "P"]
        self.calls(*calls)
        self.contract(declarer, bid[1])

    # -- play ---------------------------------------------------------------
    @property
    def turn(self) -> str:
        return self.leader if not self.trick else nxt(self.trick[-1][0])

    @property
    def trick_no(self) -> int:
        return len(self.tricks) + 1

    def led(self) -> str | None:
        return self.trick[0][1][0] if self.trick else None

    def legal(self, seat: str | None = None) -> list[str]:
        """Follow suit; a major penalty card (``self.penalty``) at the first legal opportunity."""
        seat = seat or self.turn
        hand = self.hands[seat]
        led = self.led()
        follow = [c for c in hand if c[0] == led]
        pen = [c for c in self.penalty.get(seat, ()) if c in hand]
        if pen:
            if not self.trick:
                follow = pen
            elif any(c[0] == led for c in pen):
                follow = [c for c in pen if c[0] == led]
            elif not follow:
                follow = pen
        return sorted(follow or hand, key=lambda c: (c[0], -RANKS.index(c[1])))

    def winner(self, cards: list[tuple[str, str]]) -> str:
        led = cards[0][1][0]

        def key(sc):
            c = sc[1]
            return (2 if c[0] == self.trump else 1 if c[0] == led else 0, -RANKS.index(c[1]))

        return max(cards, key=key)[0]

    def play(self, seat: str, card: str) -> int:
        i = self.add(type="play", seat=seat, card=card)
        self.hands[seat].remove(card)
        if card in self.penalty.get(seat, ()):
            self.penalty[seat].remove(card)
        self.trick.append((seat, card))
        if len(self.trick) == 4:
            w = self.winner(self.trick)
            self.tricks.append((self.trick[0][0], self.trick, w))
            self.trick = []
            self.leader = w
        return i

    def play_low(self) -> int:
        """The player on turn plays his lowest legal card."""
        c = min(self.legal(), key=lambda c: -RANKS.index(c[1]))
        return self.play(self.turn, c)

    def play_high(self) -> int:
        c = max(self.legal(), key=lambda c: -RANKS.index(c[1]))
        return self.play(self.turn, c)

    def play_tricks(self, n: int, high: bool = False) -> None:
        """Play on until ``n`` tricks are complete in all."""
        while len(self.tricks) < n:
            (self.play_high if high else self.play_low)()

    def can_revoke(self, seat: str | None = None) -> list[str]:
        """Cards of another suit the player on turn holds while holding the led suit."""
        seat = seat or self.turn
        led = self.led()
        hand = self.hands[seat]
        if not led or not any(c[0] == led for c in hand):
            return []
        return [c for c in hand if c[0] != led]

    def retract(self, seat: str, card: str) -> int:
        i = self.add(type="retract", seat=seat, card=card)
        if not self.trick and self.tricks:  # reopen the trick just completed
            leader, cards, w = self.tricks.pop()
            self.trick = list(cards)
            self.leader = leader
        self.trick.remove((seat, card))
        self.hands[seat].append(card)
        return i

    def find_revoke(self, who: str, ruff: bool = False, max_trick: int = 13) -> str | None:
        """Play low until ``who`` (a seat letter, or 'defender'/'declarer'/'dummy') could revoke.

        Returns the card to revoke with (a trump if ``ruff``), or None if the
        chance never came before ``max_trick``.
        """
        roles = {"declarer": self.declarer, "dummy": nxt(self.declarer, 2)}
        while self.trick_no <= max_trick and any(self.hands.values()):
            seat = self.turn
            ok = (seat in (nxt(self.declarer), nxt(self.declarer, 3)) if who == "defender"
                  else seat == roles.get(who, who))
            other = self.can_revoke() if ok else []
            if ruff:
                other = [c for c in other if c[0] == self.trump]
            if other:
                return sorted(other, key=lambda c: RANKS.index(c[1]))[0 if ruff else -1]
            self.play_low()
        return None

    def won(self, s: str) -> int:
        return sum(1 for _, _, w in self.tricks if side(w) == side(s))

    # -- judging ------------------------------------------------------------
    def lines(self) -> list[str]:
        return [json.dumps(e) for e in self.events]

    def run(self) -> list[dict]:
        t = Table()
        out = [f.to_dict() for f in t.feed(read_events(self.lines()))]
        self.table = t
        return out

    def engine(self):
        """Fold the events so far and return the board engine (not finished)."""
        t = Table()
        for it in read_events(self.lines()):
            t.apply(it)
        return t.board


def kinds(findings: list[dict], kind: str) -> list[dict]:
    return [f for f in findings if f["kind"] == kind]


def result(findings: list[dict]) -> dict:
    rs = kinds(findings, "result")
    assert len(rs) == 1, rs
    return rs[0]


_REAL: list[list[dict]] = []


def real_boards(limit: int = 400) -> list[list[dict]]:
    """Boards of the 2012 World Championship vugraph archive (``shared/data/bridge``) whose auction
    and play replay clean: lists of event dicts (board, 52 deals, calls, plays, claim or not, end)."""
    if not _REAL:
        from tablecam.archive import load

        board: list[dict] = []
        for it in load(WC2012):
            if not isinstance(it, Event):
                board = []  # a board with an archive flaw is left out
                continue
            if it.type == "board":
                board = [it.to_dict()]
            elif board:
                board.append(it.to_dict())
                if it.type == "end":
                    if _clean(board):
                        _REAL.append(board)
                    board = []
                    if len(_REAL) >= 400:
                        break
    return _REAL[:limit]


def _clean(dicts: list[dict]) -> bool:
    if sum(1 for d in dicts if d["type"] == "play") < 16 or not any(d["type"] == "call" for d in dicts):
        return False
    out = [f.to_dict() for f in Table().feed(parse_event(d, i) for i, d in enumerate(dicts))]
    return [f["kind"] for f in out] == ["result"]
