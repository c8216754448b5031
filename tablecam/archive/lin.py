"""Read BBO LIN files (Bridge Base Online hand records and vugraph) as tablecam events.

LIN is a flat list of ``key|value|`` pairs. A board is the run of pairs from
one ``qx`` (board id, ``o1`` = open room board 1, ``c1`` closed room) or ``md``
(the deal) to the next. The keys this reader uses:

=======  ==========================================================================
``pn``   player names in the order S, W, N, E (vugraph: 8 names, open room first)
``md``   dealer digit (1 = S, 2 = W, 3 = N, 4 = E), then the hands S, W, N, E as
         ``S<ranks>H<ranks>D<ranks>C<ranks>`` separated by commas; the last hand
         may be left out (it is the remaining cards)
``sv``   vulnerability: ``o`` none, ``n`` NS, ``e`` EW, ``b`` both
``mb``   one call: ``p``, ``d`` (double), ``r`` (redouble), ``1C`` .. ``7N``;
         a trailing ``!`` marks an alert
``an``   the explanation of the call before it
``pc``   one card played, in order of play
``mc``   a claim: declarer's side takes this many tricks in all
``qx``   board id; ``ah`` the board heading (``Board 7``)
``vg``   vugraph header; its first field is the event name
=======  ==========================================================================

Display keys (``pg`` page break, ``rh``, ``st``, ``nt`` chat, ``sa``, ``pf``,
``rs``, ``pw``, ``mp``, ``bn``, ``sk``, ``hc``) carry no table
events and are skipped. A LIN record is checked against its deal exactly as
a PBN one (see :mod:`tablecam.archive.record`).

>>> text = ("pn|Sue,Wim,Nora,Ed|st||md|3S2H5432D5432C5432,ST987HJT9DJT9CJT9,SAKQJHAKQDAKQCAKQ,|"
...         "rh||ah|Board 1|sv|o|mb|7N!|an|grand|mb|p|mb|p|mb|p|pg||pc|S6|pc|S2|pc|ST|pc|SA|pg||mc|13|")
>>> items = list(lin_events(text))
>>> b = items[0]; (b.board, str(b.dealer), b.vulnerable, b.players["N"])
(1, 'N', 'None', 'Nora')
>>> [(str(e.seat), e.call, e.get("note")) for e in items if e.type == "call"][:2]
[('N', '7N', 'grand'), ('E', 'P', None)]
>>> [(str(e.seat), str(e.card)) for e in items if e.type == "play"]
[('E', 'S6'), ('S', 'S2'), ('W', 'ST'), ('N', 'SA')]
>>> items[-2].type, str(items[-2].seat), items[-2].tricks
('claim', 'N', 13)
"""

from __future__ import annotations

from typing import Any, Iterator

from ..cards import Card, Seat, _CANONICAL, parse_card
from ..events import Event
from ..findings import Finding
from .record import BoardRecord, parse_call, record_events

RULE = "BBO LIN format"

LIN_SEATS = (Seat.S, Seat.W, Seat.N, Seat.E)
"""Seat order of LIN's ``pn`` and ``md``; also the dealer digit minus one."""

_VUL = {"o": "None", "0": "None", "-": "None", "z": "None", "": "None",
        "n": "NS", "e": "EW", "b": "All"}
_LIN_CALLS = {"p": "P", "d": "X", "r": "XX"}
SKIPPED = frozenset(("pg", "rh", "st", "nt", "sa", "pf", "rs", "pw", "mp", "bn", "sk", "hc",
                     "at", "cr", "cg", "lb", "mn", "em", "px", "sc", "ht"))
"""Keys that only drive BBO's display (page breaks, chat, headings, scores)."""


def parse_lin_hand(text: str) -> list[Card] | None:
    """Cards from a LIN hand like ``SAK2HQJ9DT8C765``; ``None`` if a character is not understood.

    >>> [str(c) for c in parse_lin_hand("SA10HKC2")], parse_lin_hand("SAX")
    (['SA', 'ST', 'HK', 'C2'], None)
    """
    cards: list[Card] = []
    suit = None
    t = text.strip().upper().replace("10", "T")
    for ch in t:
        if ch in "SHDC":
            suit = ch
            continue
        c = _CANONICAL.get(suit + ch) if suit else None
        if c is None:
            return None
        cards.append(c)
    return cards


def parse_md(value: str) -> tuple[Seat | None, dict[Seat, list[Card]] | None, str | None]:
    """Dealer and hands from an ``md`` value; returns ``(dealer, hands, problem)``.

    >>> d, h, _ = parse_md("3SAKQJHAKQDAKQCAKQ,ST987HJT9DJT9CJT9,S2H5432D5432C5432,")
    >>> str(d), [len(h[s]) for s in (Seat.N, Seat.E, Seat.S, Seat.W)], str(h[Seat.E][0])
    ('N', [13, 13, 13, 13], 'S6')
    """
    v = value.strip()
    dealer = None
    if v[:1].isdigit():
        k = int(v[0])
        dealer = LIN_SEATS[k - 1] if 1 <= k <= 4 else None
        v = v[1:]
    parts = v.split(",")
    while len(parts) < 4:
        parts.append("")
    hands: dict[Seat, list[Card]] = {}
    missing = []
    for seat, part in zip(LIN_SEATS, parts[:4]):
        if not part.strip():
            missing.append(seat)
            continue
        cards = parse_lin_hand(part)
        if cards is None:
            return dealer, None, f"md hand {part!r} not understood"
        hands[seat] = cards
    if len(missing) == 1:
        seen = {id(c) for h in hands.values() for c in h}
        hands[missing[0]] = [c for c in _CANONICAL.values() if id(c) not in seen and not c.is_joker]
    elif missing:
        return dealer, None, f"md gives only {4 - len(missing)} hands"
    return dealer, hands, None


class _Board:
    """What the pairs of one board said so far."""

    def __init__(self, players: list[str], room: str | None = None, board: Any = None) -> None:
        self.rec = BoardRecord(rule=RULE, trick_form="order")
        self.players = players
        self.room = room
        self.board = board
        self.md = False
        self.plays: list[Card] = []
        self.unknown: set[str] = set()

    @property
    def empty(self) -> bool:
        return not (self.md or self.rec.calls or self.plays)


def lin_records(text: str) -> Iterator[BoardRecord]:
    """Every board of a LIN text as a :class:`BoardRecord`."""
    parts = text.split("|")
    players: list[str] = []
    event = ""
    cur = _Board(players)
    for i in range(0, len(parts) - 1, 2):
        key = parts[i].strip().lower()
        value = parts[i + 1]
        if key == "mb":
            v = value.strip()
            alert = v.endswith("!")
            v = v.rstrip("!").strip()
            call = _LIN_CALLS.get(v.lower()) or parse_call(v)
            if call is None:
                if v and v != "-":
                    cur.rec.flaws.append(f"call {value!r} not understood; skipped")
                continue
            cur.rec.calls.append(call)
            if alert:
                cur.rec.notes.setdefault(len(cur.rec.calls) - 1, "alert")
        elif key == "pc":
            v = value.strip()
            c = _CANONICAL.get(v)
            if c is None:
                try:
                    c = parse_card(v)
                except ValueError:
                    cur.rec.flaws.append(f"played card {value!r} not understood; the rest of the play is skipped")
                    cur.plays.append(None)  # type: ignore[arg-type]
                    continue
            cur.plays.append(c)
        elif key == "an":
            if cur.rec.calls:
                cur.rec.notes[len(cur.rec.calls) - 1] = value.strip()
        elif key == "qx":
            if not cur.empty:
                yield _finish(cur, event)
                cur = _Board(players)
            v = value.strip().split(",")[0]
            cur.room = v[:1].lower() if v[:1].isalpha() else None
            num = v[1:] if v[:1].isalpha() else v
            cur.board = int(num) if num.isdigit() else (v or None)
        elif key == "md":
            if cur.md:
                yield _finish(cur, event)
                cur = _Board(players, cur.room)
            cur.md = True
            dealer, hands, problem = parse_md(value)
            cur.rec.dealer, cur.rec.hands = dealer, hands
            if problem:
                cur.rec.flaws.append(problem)
        elif key == "pn":
            if cur.md:  # names after a complete deal belong to the next board
                yield _finish(cur, event)
                cur = _Board(players, cur.room)
            players = [p.strip() for p in value.split(",")]
            cur.players = players
        elif key == "vg":
            event = value.split(",")[0].strip()
        elif key == "sv":
            v = value.strip().lower()
            cur.rec.vulnerable = _VUL.get(v)
            if cur.rec.vulnerable is None:
                cur.rec.flaws.append(f"vulnerability {value!r} not understood; read as None")
        elif key == "ah":
            words = value.split()
            if words and words[-1].isdigit():
                cur.board = int(words[-1])
        elif key == "mc":
            v = value.strip()
            if v.isdigit():
                cur.rec.claim = int(v)
            else:
                cur.rec.flaws.append(f"claim {value!r} not understood; skipped")
        elif key in SKIPPED or not key:
            continue
        else:
            cur.unknown.add(key)
    if not cur.empty:
        yield _finish(cur, event)


def _finish(b: _Board, event: str = "") -> BoardRecord:
    rec = b.rec
    rec.board = b.board
    if rec.dealer is None and isinstance(b.board, int):
        rec.dealer = (Seat.N, Seat.E, Seat.S, Seat.W)[(b.board - 1) % 4]
        rec.flaws.append(f"md has no dealer digit; dealer {rec.dealer} taken from the board number")
    names = b.players
    if len(names) >= 8 and b.room == "c":
        names = names[4:8]
    info: dict[str, Any] = {}
    if event:
        info["event"] = event
    if any(names[:4]):
        info["players"] = {str(s): n for s, n in zip(LIN_SEATS, names[:4]) if n}
    if b.room:
        info["room"] = {"o": "open", "c": "closed"}.get(b.room, b.room)
    rec.info = info
    plays = b.plays
    if None in plays:
        plays = plays[: plays.index(None)]  # type: ignore[arg-type]
    rec.tricks = [plays[i:i + 4] for i in range(0, len(plays), 4)]
    if b.unknown:
        rec.flaws.append(f"keys {', '.join(sorted(b.unknown))} not understood; ignored")
    return rec


def lin_events(text: str, start: int = 0) -> Iterator[Event | Finding]:
    """Events and archive-flaw findings for every board in a LIN text.

    ``start`` is the index of the first event; indices run on across boards.
    """
    index = start
    for rec in lin_records(text):
        items, index = record_events(rec, index)
        yield from items
