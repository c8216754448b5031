"""One table result from a bridge archive, and the events it stands for.

PBN and LIN describe the same table differently (seat columns and tag
inheritance in PBN, order of play and one line per board in LIN). Both readers
fill a :class:`BoardRecord`; :func:`record_events` turns it into the live event
vocabulary (``board``, 52 ``deal``, ``call``, ``play``, ``claim``, ``end``) so
one engine judges live tables and archives alike.

Because it knows the deal, :func:`record_events` first checks that the record
is self-consistent. A mistake made by whoever *wrote the archive* (a card
listed for a player who no longer holds it, an auction that lost its opening
passes) is not a player's irregularity: it becomes an ``archive_flaw`` finding
with status ``info``, the flawed part is left out or repaired, and the board's
result stays the one the file records. The engine never sees an archive flaw
as a revoke or a call out of turn.

>>> from tablecam.cards import Seat
>>> auction_outcome(["1N", "P", "3N", "P", "P", "P"], Seat.N)
Outcome(ended=6, contract='3N', declarer=Seat.N, legal=True)
>>> auction_outcome(parse_calls("P P P P"), Seat.E).contract
'Pass'
>>> parse_call("1NT"), parse_call("Pass"), parse_call("Dbl"), parse_call("rdbl"), parse_call("4h!")
('1N', 'P', 'X', 'XX', '4H')
>>> parse_contract("3NTX"), parse_contract("pass"), parse_contract("6sxx")
('3NX', 'Pass', '6SXX')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..cards import DECK, RANKS, Card, Seat
from ..events import EVENT_TYPES, Event, register_event_type
from ..findings import Finding

if "contract" not in EVENT_TYPES:  # the bridge engine registers the same schema; archives need it without it
    register_event_type("contract", {"contract": "str"}, {"declarer": "seat"}, games=("bridge",),
                        doc="the final contract when the log has no auction (an archive with only the "
                            "Contract and Declarer tags)")

RULE = "PBN 2.1 standard"
"""Citation for archive flaws (the LIN reader cites its own format)."""

DENOMS = "CDHSN"
"""Bid denominations from low to high (``N`` = notrump)."""

SEATS: tuple[Seat, ...] = (Seat.N, Seat.E, Seat.S, Seat.W)
"""Seat objects by index; inside the reader seats are ints 0-3 (N E S W) because
hashing an Enum costs more than the rest of the trick loop."""
SEAT_INDEX: dict[Seat, int] = {s: i for i, s in enumerate(SEATS)}

_VALUE: dict[int, int] = {id(c): 12 - RANKS.index(c.rank) for c in DECK}
"""Rank value (ace 12) by ``id`` of the interned card: cheaper than ``Card.__hash__``."""
_INFO: dict[int, tuple[int, str, int]] = {id(c): (i, c.suit, 12 - RANKS.index(c.rank)) for i, c in enumerate(DECK)}
"""``(deck position, suit, rank value)`` by ``id`` of the interned card: one lookup per card played."""

_CALLS: dict[str, str] = {"P": "P", "PASS": "P", "X": "X", "DBL": "X", "D": "X", "XX": "XX",
                          "RDBL": "XX", "R": "XX", "REDBL": "XX"}
_BID: dict[str, int] = {}
for _lv in "1234567":
    for _d in DENOMS:
        _BID[_lv + _d] = (int(_lv) - 1) * 5 + DENOMS.index(_d)
        _CALLS[_lv + _d] = _lv + _d
    _CALLS[_lv + "NT"] = _lv + "N"


def parse_call(token: str) -> str | None:
    """Canonical call (``P X XX 1C .. 7N``) from any common spelling; ``None`` if unknown.

    Trailing ``!`` / ``?`` (PBN suffix annotations, LIN alert marks) are dropped.
    """
    hit = _CALLS.get(token)
    if hit is not None:
        return hit
    return _CALLS.get(token.upper().rstrip("!?"))


def parse_calls(text: str) -> list[str]:
    """Calls from a whitespace-separated string (unknown tokens dropped); for tests and docs."""
    return [c for c in (parse_call(t) for t in text.split()) if c]


def parse_contract(text: str | None) -> str | None:
    """``4SX`` / ``3N`` / ``Pass`` from a PBN Contract tag; ``None`` if unusable.

    >>> parse_contract("5DR"), parse_contract("?")
    ('5DXX', None)
    """
    if text is None:
        return None
    t = text.strip().upper()
    if t in ("PASS", "P", "AP"):
        return "Pass"
    dbl = ""
    if t.endswith("XX"):
        t, dbl = t[:-2], "XX"
    elif t.endswith("R"):  # some archives write a redouble as R
        t, dbl = t[:-1], "XX"
    elif t.endswith("X"):
        t, dbl = t[:-1], "X"
    c = _CALLS.get(t)
    if c is None or c in ("P", "X", "XX"):
        return None
    return c + dbl


class Outcome(NamedTuple):
    """What an auction led to. ``ended`` is the number of calls that ended it (0 = not ended)."""

    ended: int
    contract: str | None
    declarer: Seat | None
    legal: bool


def _auction(calls: list[str], start: int, all_pass: bool = False) -> tuple[int, str | None, int, bool, int]:
    """Simulate an auction (seats as ints); ``all_pass`` appends the passes an ``AP`` stands for.

    Returns ``(ended, contract, declarer, legal, passes_added)``; ``ended`` counts
    the calls (added passes included) up to the one that ended the auction, 0 if
    it never ended; ``declarer`` is -1 when there is none.
    """
    seat = start
    top = -1
    bidder = -1
    doubled = 0
    passes = 0
    namer: dict[int, int] = {}
    legal = True
    n = len(calls)
    i = 0
    added = 0
    while True:
        if i < n:
            c = calls[i]
        elif all_pass and added < 4:
            c = "P"
            added += 1
        else:
            return 0, None, -1, legal, added
        i += 1
        if c == "P":
            passes += 1
        elif c == "X":
            if bidder < 0 or doubled or (bidder & 1) == (seat & 1):
                legal = False
            doubled, passes = 1, 0
        elif c == "XX":
            if bidder < 0 or doubled != 1 or (bidder & 1) != (seat & 1):
                legal = False
            doubled, passes = 2, 0
        else:
            v = _BID[c]
            if v <= top:
                legal = False
            top, bidder, doubled, passes = v, seat, 0, 0
            namer.setdefault((seat & 1) * 5 + v % 5, seat)
        seat = (seat + 1) & 3
        if bidder < 0:
            if passes == 4:
                return i, "Pass", -1, legal, added
        elif passes == 3:
            contract = f"{top // 5 + 1}{DENOMS[top % 5]}" + ("", "X", "XX")[doubled]
            return i, contract, namer[(bidder & 1) * 5 + top % 5], legal, added


def _passes_after(calls: list[str], ended: int, added: int, legal: bool) -> int:
    """How many passes follow the call that ended a legal auction (0 if anything else follows).

    BBO VuGraph files sometimes record a pass or two after the final pass
    (``mb|3N|mb|p|mb|p|mb|p|mb|p|``): the contract is still what the auction reached.

    >>> calls = ["3N", "P", "P", "P", "P"]
    >>> _passes_after(calls, *_auction(calls, 0)[:1], 0, True)
    1
    """
    if not ended or added or not legal or ended >= len(calls):
        return 0
    rest = calls[ended:]
    return len(rest) if all(c == "P" for c in rest) else 0


def auction_outcome(calls: list[str], start: Seat) -> Outcome:
    """Simulate an auction of canonical calls starting at ``start``.

    Stops at the call that ends the auction (four passes, or three after a
    bid); ``legal`` is False if a bid is insufficient or a double/redouble is
    not allowed (Law 19) - in an archive that means the record, not the
    players, is most likely wrong.
    """
    ended, contract, decl, legal, _ = _auction(calls, SEAT_INDEX[start])
    return Outcome(ended, contract, SEATS[decl] if decl >= 0 else None, legal)


def complete_all_pass(calls: list[str], start: Seat) -> list[str]:
    """``calls`` followed by the passes an ``AP`` (all pass) stands for.

    >>> complete_all_pass(["1S", "P", "4S"], Seat.N)
    ['1S', 'P', '4S', 'P', 'P', 'P']
    """
    ended, _, _, _, added = _auction(calls, SEAT_INDEX[start], True)
    return list(calls) + ["P"] * added if ended else list(calls)


@dataclass
class BoardRecord:
    """A table result as an archive states it, before any checking.

    ``tricks`` holds the recorded play one trick at a time. With
    ``trick_form="seats"`` (PBN) each trick is a 4-tuple indexed by seat
    (N E S W) holding a card or ``None`` (not played); with ``"order"`` (LIN)
    each trick is a list of cards in order of play. ``calls`` are canonical
    calls from ``auction_start`` (default: dealer); ``all_pass`` stands for an
    ``AP`` after them. ``result`` is declarer's tricks per the file; ``claim``
    the tricks claimed (LIN ``mc``, declarer's side) when the file says so.
    ``notes`` maps a call's position in ``calls`` to its explanation.
    """

    board: Any = None
    dealer: Seat | None = None
    vulnerable: str | None = None
    hands: dict[Seat, list[Card]] | None = None
    auction_start: Seat | None = None
    calls: list[str] = field(default_factory=list)
    notes: dict[int, str] = field(default_factory=dict)
    all_pass: bool = False
    declarer: Seat | None = None
    contract: str | None = None
    result: int | None = None
    tricks: list[Any] = field(default_factory=list)
    trick_form: str = "seats"
    leader: Seat | None = None
    claim: int | None = None
    info: dict[str, Any] = field(default_factory=dict)
    line: int | None = None
    flaws: list[str] = field(default_factory=list)
    rule: str = RULE


def _flaw(rec: BoardRecord, message: str, what: str, index: int, trick: int | None = None) -> Finding:
    extra: dict[str, Any] = {"flaw": what}
    if rec.line is not None:
        extra["line"] = rec.line
    return Finding("archive_flaw", rule=rec.rule, message=message, board=rec.board, event=index,
                   trick=trick, status="info", extra=extra)


def _where(rec: BoardRecord) -> str:
    at = f" (line {rec.line})" if rec.line is not None else ""
    return f"Board {rec.board}{at}"


def trick_winner(cards: list[Card], trump: str | None) -> int:
    """Position (0-3) in ``cards`` (order of play) of the card that wins the trick.

    >>> from tablecam.cards import parse_card as p
    >>> trick_winner([p("HK"), p("HA"), p("S2"), p("H3")], "S"), trick_winner([p("HK"), p("HA"), p("S2"), p("H3")], None)
    (2, 1)
    """
    best = 0
    c = cards[0]
    bs, bv = c.suit, _VALUE.get(id(c)) or _value(c)
    for i in range(1, len(cards)):
        c = cards[i]
        s = c.suit
        if s == bs:
            v = _VALUE.get(id(c)) or _value(c)
            if v > bv:
                best, bv = i, v
        elif s == trump:
            best, bs, bv = i, s, _VALUE.get(id(c)) or _value(c)
    return best


def _value(c: Card) -> int:
    """Rank value of a card that is not the interned object (built by hand)."""
    return 12 - RANKS.index(c.rank)


BY_TAGS: list[str] = []
"""Returned instead of calls when the contract must come from the tags (a ``contract`` event)."""


def record_events(rec: BoardRecord, index: int = 0) -> tuple[list[Event | Finding], int]:
    """The events (and archive-flaw findings) for one record; returns them and the next index.

    Findings do not take an index, so the events' indices are their line
    numbers when the stream is exported as JSON Lines.
    """
    out: list[Event | Finding] = []
    dealer = rec.dealer
    hands = rec.hands
    problem = None
    if dealer is None:
        problem = "has no dealer"
    elif hands is None or set(hands) != set(SEATS):
        problem = "has no complete deal"
    elif any(len(h) != 13 for h in hands.values()):
        problem = "does not deal 13 cards to each player"
    else:
        ids = {id(c) for h in hands.values() for c in h}
        if len(ids) != 52 or not ids <= _VALUE.keys():
            try:  # cards built by hand rather than the interned ones
                hands = {s: [_canon(c) for c in h] for s, h in hands.items()}
            except ValueError:
                hands = None
            ids = {id(c) for h in (hands or {}).values() for c in h}
            if len(ids) != 52 or not ids <= _VALUE.keys():
                problem = "does not deal 52 different cards"
    if problem is not None:
        why = f" ({'; '.join(rec.flaws)})" if rec.flaws else ""
        out.append(_flaw(rec, f"{_where(rec)}: the record {problem}{why}; the table result is skipped.",
                         "incomplete_deal", index))
        return out, index
    assert dealer is not None and hands is not None
    data: dict[str, Any] = {"game": "bridge", "board": rec.board, "dealer": dealer,
                            "vulnerable": rec.vulnerable or "None"}
    data.update(rec.info)
    out.append(Event("board", data, index))
    index += 1
    for msg in rec.flaws:
        out.append(_flaw(rec, f"{_where(rec)}: {msg}.", "format", index))
    # The deal: one card at a time, clockwise from dealer's left.
    d0 = SEAT_INDEX[dealer]
    order = [SEATS[(d0 + 1) & 3], SEATS[(d0 + 2) & 3], SEATS[(d0 + 3) & 3], dealer]
    dealt = [c for four in zip(*(hands[s] for s in order)) for c in four]
    out += [Event("deal", {"to": to, "card": c}, i) for i, to, c in zip(range(index, index + 52), order * 13, dealt)]
    index += 52
    # The auction, repaired if it lost its opening passes.
    calls, contract, declarer, shift = _check_auction(rec, out, index, d0)
    if calls is BY_TAGS:
        # No usable auction: the engine takes the contract straight from the tags.
        out.append(Event("contract", {"contract": contract, "declarer": SEATS[declarer]}, index))
        index += 1
    elif calls is not None:
        seat = d0
        notes = rec.notes
        for i, c in enumerate(calls):
            d: dict[str, Any] = {"seat": SEATS[seat], "call": c}
            if notes and i - shift in notes:
                d["note"] = notes[i - shift]
            out.append(Event("call", d, index))
            index += 1
            seat = (seat + 1) & 3
    if contract is not None and contract != "Pass" and declarer >= 0:
        index = _play_events(rec, hands, out, index, contract, declarer)
    elif rec.tricks or rec.claim is not None:
        n = sum(1 for t in rec.tricks for c in t if c is not None)
        why = "the board was passed out" if contract == "Pass" else "the record gives no contract"
        out.append(_flaw(rec, f"{_where(rec)}: the record has {n} played card(s)"
                              f"{' and a claim' if rec.claim is not None else ''}, but {why}; the play is "
                              f"left out.", "play_without_contract", index))
    out.append(Event("end", {}, index))
    return out, index + 1


def _canon(c: Any) -> Card:
    from ..cards import parse_card

    return parse_card(str(c))


def _check_auction(rec: BoardRecord, out: list, index: int, d0: int) -> tuple[list[str] | None, str | None, int, int]:
    """The calls to feed, from the dealer on, and the contract they reach.

    Returns ``(calls, contract, declarer, shift)``: ``shift`` passes were
    inserted before the recorded calls (so note ``i`` belongs to call
    ``i + shift``). ``calls`` is None when no auction can be fed.
    """
    want_c = rec.contract
    want_d = SEAT_INDEX[rec.declarer] if rec.declarer is not None else -1
    tagged = want_c is not None and (want_c == "Pass" or want_d >= 0)
    desc = ("passed out" if want_c == "Pass" else f"{want_c} by {rec.declarer}") if tagged else ""
    if not rec.calls and not rec.all_pass:
        if not tagged:
            return None, None, -1, 0
        if want_c == "Pass":  # a passed-out board's auction is implied
            return ["P"] * 4, "Pass", -1, 0
        # The Contract and Declarer tags say enough for the engine; the calls themselves are lost.
        out.append(_flaw(rec, f"{_where(rec)}: the record has no auction; the contract ({desc}) is taken "
                              f"from the Contract and Declarer tags.", "auction_missing", index))
        return BY_TAGS, want_c, want_d, 0
    start = SEAT_INDEX[rec.auction_start] if rec.auction_start is not None else d0
    first = (start - d0) & 3
    tried = []
    for k in (first, *(x for x in (0, 1, 2, 3) if x != first)):
        calls = ["P"] * k + rec.calls if k else rec.calls
        ended, contract, decl, legal, added = _auction(calls, d0, rec.all_pass)
        extra = _passes_after(calls, ended, added, legal)
        if extra:  # the auction ended earlier; the passes after its end were recorded by mistake
            calls = calls[:ended]
        if not ended or ended != len(calls) + added or not legal:
            continue
        if added:
            calls = calls + ["P"] * added
        if not tagged or (contract == want_c and (decl == want_d or contract == "Pass")):
            if extra:
                end = f"{contract} by {SEATS[decl]}" if contract != "Pass" else "passed out"
                out.append(_flaw(rec, f"{_where(rec)}: {extra} pass{'es' if extra > 1 else ''} recorded after the "
                                      f"auction had ended ({end}); left out, the contract and the result stand.",
                                 "passes_after_auction", index))
            if k:
                what = "its opening pass" if k == 1 else f"its {k} opening passes"
                out.append(_flaw(rec, f"{_where(rec)}: the auction lost {what}; repaired by inserting "
                                      f"{'it' if k == 1 else 'them'} from dealer {SEATS[d0]} on, so that it "
                                      f"reaches the recorded {desc}.", "auction_repaired", index))
            return calls, contract, decl, k
        tried.append((k, calls, contract, decl))
        if not tagged:
            break
    # Does a reading differ from the tags only in the double or redouble?
    if tagged and want_c != "Pass":
        for k, calls, contract, decl in tried:
            if contract and contract != "Pass" and contract.rstrip("X") == want_c.rstrip("X") and decl == want_d:  # type: ignore[union-attr]
                fix = f" after inserting {k} opening pass(es)" if k else ""
                out.append(_flaw(rec, f"{_where(rec)}: the auction{fix} reaches {contract} by {SEATS[decl]} "
                                      f"but the Contract tag says {want_c}; the auction is fed as recorded.",
                                 "contract_mismatch", index))
                return calls, contract, decl, k
    if tagged:
        out.append(_flaw(rec, f"{_where(rec)}: the recorded auction reaches neither the Contract nor the "
                              f"Declarer tag from any starting seat; it is left out and the contract "
                              f"({desc}) is taken from the tags.", "auction_unfit", index))
        if want_c == "Pass":
            return ["P"] * 4, "Pass", -1, 0
        return BY_TAGS, want_c, want_d, 0
    calls = rec.calls
    ended, _, _, legal, _ = _auction(calls, d0)
    if legal and not ended and calls:
        out.append(_flaw(rec, f"{_where(rec)}: the recorded auction stops before its end and the file names "
                              f"no contract; the calls are fed, the play (if any) is left out.",
                         "auction_incomplete", index))
        return calls, None, -1, 0
    out.append(_flaw(rec, f"{_where(rec)}: the recorded auction is impossible (an insufficient bid or a "
                          f"double that is not allowed, or calls after its end) and the file names no "
                          f"contract; auction and play are left out.", "auction_unfit", index))
    return None, None, -1, 0


def _play_events(rec: BoardRecord, hands: dict[Seat, list[Card]], out: list, index: int,
                 contract: str, declarer: int) -> int:
    """Feed the recorded play, stopping at the first trick the deal cannot explain."""
    trump = contract[1] if contract[1] != "N" else None
    leader = (declarer + 1) & 3
    result = rec.result
    claim = rec.claim if rec.claim is not None else result
    tricks = rec.tricks
    if rec.leader is not None and tricks and SEAT_INDEX[rec.leader] != leader:
        out.append(_flaw(rec, f"{_where(rec)}: the play record starts with {rec.leader}, but the opening "
                              f"leader against {contract} by {SEATS[declarer]} is {SEATS[leader]}; the play "
                              f"is left out.", "play_leader", index, 1))
        return _claim(out, index, declarer, claim)
    owner = [-1] * 52  # deck position -> seat still holding the card (-1: played)
    for s, seat in enumerate(SEATS):
        for c in hands[seat]:
            owner[_INFO[id(c)][0]] = s
    info = _INFO.get
    by_seats = rec.trick_form == "seats"
    side = declarer & 1
    won = 0
    done = 0
    plays: list[tuple[int, Card]] = []
    flaw: tuple[int, str] | None = None
    last = len(tricks)
    for t, trick in enumerate(tricks, 1):
        if t > 13:
            flaw = (t, "the play record has more than 13 tricks")
            break
        if by_seats:
            cards = [trick[leader], trick[(leader + 1) & 3], trick[(leader + 2) & 3], trick[(leader + 3) & 3]]
            n = 0
            while n < 4 and cards[n] is not None:
                n += 1
            if n < 4:
                j = next((j for j in range(n + 1, 4) if cards[j] is not None), -1)
                if j >= 0:
                    flaw = (t, f"trick {t} lists {cards[j]} for {SEATS[(leader + j) & 3]}, but no card for "
                               f"{SEATS[(leader + n) & 3]}, who plays before {SEATS[(leader + j) & 3]} to that trick")
                    break
                del cards[n:]
        else:
            cards = list(trick)
            n = len(cards)
            if n > 4:
                flaw = (t, f"trick {t} has {n} cards")
                break
        # Check every card against the hands, and find the winner on the way.
        s = leader
        best = leader
        for k in range(n):
            c = cards[k]
            x = info(id(c))
            if x is None:
                c = cards[k] = _canon(c)
                x = info(id(c))
            if x is None or owner[x[0]] != s:
                holder = next((o for o in SEATS if any(h == c for h in hands[o])), None)
                why = "has already played it" if holder is SEATS[s] else f"never held it (dealt to {holder})"
                flaw = (t, f"trick {t} lists {c} for {SEATS[s]}, who {why}")
                break
            if k == 0:
                bs, bv = x[1], x[2]
            elif x[1] == bs:
                if x[2] > bv:
                    best, bv = s, x[2]
            elif x[1] == trump:
                best, bs, bv = s, x[1], x[2]
            s = (s + 1) & 3
        if flaw is not None:
            break
        if n < 4 and t < last:
            flaw = (t, f"trick {t} is incomplete but the record goes on after it")
            break
        s = leader
        for k in range(n):
            owner[info(id(cards[k]))[0]] = -1  # type: ignore[index]
            plays.append((s, cards[k]))
            s = (s + 1) & 3
        if n < 4:
            break
        if (best & 1) == side:
            won += 1
        done = t
        leader = best
    if flaw is not None:
        del plays[done * 4:]
    for s, c in plays:
        out.append(Event("play", {"seat": SEATS[s], "card": c}, index))
        index += 1
    if flaw is not None:
        t, msg = flaw
        res = f"; the result is taken from the file ({claim} tricks to declarer)" if claim is not None else ""
        out.append(_flaw(rec, f"{_where(rec)}: {msg}. Play is fed up to trick {t - 1}{res}.",
                         "play_inconsistent", index, t))
        return _claim(out, index, declarer, claim, won, done, rec)
    if done == 13:
        if result is not None and result != won:
            out.append(_flaw(rec, f"{_where(rec)}: the recorded play gives declarer {won} tricks but the "
                                  f"Result tag says {result}.", "result_mismatch", index, 13))
        return index
    return _claim(out, index, declarer, claim, won, done, rec)


def _claim(out: list, index: int, declarer: int, tricks: int | None, won: int = 0, done: int = 0,
           rec: BoardRecord | None = None) -> int:
    """A claim by declarer for the file's result (the rest of the play was not recorded)."""
    if tricks is None:
        return index
    if rec is not None and not won <= tricks <= won + 13 - done:
        out.append(_flaw(rec, f"{_where(rec)}: the file gives declarer {tricks} tricks, but declarer had "
                              f"already won {won} of {done} played; no claim is fed.", "result_impossible",
                         index, done + 1))
        return index
    out.append(Event("claim", {"seat": SEATS[declarer], "tricks": tricks, "final": True}, index))
    return index + 1
