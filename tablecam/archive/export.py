"""Write event streams as PBN 2.1, BBO LIN or JSON Lines.

The writers fold the same events the engines see (``board``, ``deal``,
``call``, ``play``, ``retract``, ``claim``, ``end``) into one table result per
board, so anything tablecam can read - a live table's log, a PBN or a LIN
archive - can be written in any of the three formats:

- **PBN**: the export tag set (Event, Site, Date, Board, the four players,
  Dealer, Vulnerable, Deal, Scoring, Declarer, Contract, Result), an Auction section
  (with ``=n=`` note references and Note tags) and a Play section in PBN 2.1
  form: one row per trick, cards in fixed seat columns starting from the
  opening leader, ``-`` for a card not played and ``*`` when the record stops
  early (a claim; Result holds declarer's tricks).
- **LIN**: one line per board with ``qx pn md sv mb an pc mc``.
- **JSON Lines**: :func:`tablecam.events.write_events`.

Findings in the stream (archive flaws, bad events) are not events: PBN gets
them as ``{comments}``, LIN and JSON Lines skip them. A retracted card is
removed from the play, so the record shows the play that stood. Boards of
other games than bridge are written to JSON Lines only (PBN and LIN cannot
hold them; a PBN comment says so).

>>> from tablecam.archive.pbn import pbn_events
>>> text = '''[Board "1"]
... [Dealer "N"]
... [Vulnerable "None"]
... [Deal "N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432"]
... [Auction "N"]
... 7NT AP
... [Play "E"]
... ST S6 S2 SA
... *
... [Result "13"]
... '''
>>> import io; out = io.StringIO(); _ = export(pbn_events(text), "pbn", out)
>>> print(out.getvalue().split("[Board")[1].strip())  # doctest: +NORMALIZE_WHITESPACE
"1"]
[West "?"]
[North "?"]
[East "?"]
[South "?"]
[Dealer "N"]
[Vulnerable "None"]
[Deal "N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432"]
[Scoring ""]
[Declarer "N"]
[Contract "7NT"]
[Result "13"]
[Auction "N"]
7NT Pass Pass Pass
[Play "E"]
ST S6 S2 SA
*
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import IO, Any, Iterable

from ..cards import Card, Seat, hand_str
from ..events import Event, write_events
from ..findings import Finding
from .record import SEAT_INDEX, SEATS, _auction, parse_call, parse_contract, trick_winner

FORMATS = ("pbn", "lin", "jsonl")


@dataclass
class TableResult:
    """One board folded from its events: what a PBN game or a LIN line holds."""

    board_event: Event
    hands: dict[Any, list[Card]] = field(default_factory=dict)
    calls: list[tuple[Seat, str, str | None]] = field(default_factory=list)
    plays: list[tuple[Seat, Card]] = field(default_factory=list)
    claim: tuple[Seat, int] | None = None
    contract: tuple[str, Seat | None] | None = None
    comments: list[str] = field(default_factory=list)
    adjusted: dict[str, Any] | None = None   # a director's ruling's adjusted result (director_rulings)

    def get(self, name: str, default: Any = None) -> Any:
        """A board field, from the validated data or (for JSON Lines input) the raw object."""
        v = self.board_event.data.get(name)
        if v is None and self.board_event.raw:
            v = self.board_event.raw.get(name)
        return default if v is None else v

    @property
    def game(self) -> str:
        return self.get("game", "bridge")

    @property
    def dealer(self) -> Seat | None:
        d = self.get("dealer")
        if isinstance(d, Seat):
            return d
        return {"N": Seat.N, "E": Seat.E, "S": Seat.S, "W": Seat.W}.get(str(d).upper()) if d else None

    def outcome(self) -> tuple[str | None, Seat | None]:
        """``(contract, declarer)`` the auction (or a ``contract`` event) reached; ``("Pass", None)`` if passed out."""
        if not self.calls and self.contract is not None:
            return self.contract
        if not self.calls or self.dealer is None:
            return None, None
        calls = [parse_call(c) for _, c, _ in self.calls]
        if None in calls:  # a log may hold any text as a call; no contract can be read from it
            return None, None
        start = SEAT_INDEX[self.calls[0][0]]
        ended, contract, decl, _, _ = _auction(calls, start)  # type: ignore[arg-type]
        if not ended:
            return None, None
        return contract, SEATS[decl] if decl >= 0 else None

    def tricks(self) -> list[list[tuple[Seat, Card]]]:
        """The play in tricks of four, in order of play."""
        p = self.plays
        return [p[i:i + 4] for i in range(0, len(p), 4)]

    def declarer_tricks(self, contract: str | None, declarer: Seat | None) -> int | None:
        """Declarer's tricks: from the claim, or counted when all 13 tricks were played."""
        if declarer is None or not contract or contract == "Pass":
            return None
        if self.claim is not None:
            seat, n = self.claim
            return n if seat.side == declarer.side else 13 - n
        tricks = self.tricks()
        if len(tricks) < 13 or len(tricks[-1]) < 4:
            return None
        trump = contract[1] if contract[1] != "N" else None
        won = 0
        for t in tricks:
            w = t[trick_winner([c for _, c in t], trump)][0]
            won += w.side == declarer.side
        return won


def table_results(items: Iterable[Event | Finding]) -> Iterable[TableResult | str]:
    """Fold a stream into :class:`TableResult` objects (and stray comment strings).

    Findings become comments of the board they belong to; findings before any
    board (e.g. a game the reader had to skip) are yielded as plain strings.
    """
    cur: TableResult | None = None
    for it in items:
        if isinstance(it, Finding):
            text = f"{it.kind}: {it.message}"
            if cur is not None and (it.board is None or it.board == cur.get("board")):
                cur.comments.append(text)
            else:
                if cur is not None:
                    yield cur
                    cur = None
                yield text
            continue
        t = it.type
        if t == "board":
            if cur is not None:
                yield cur
            cur = TableResult(it)
        elif t in ("director_ruling", "confirm", "correct"):
            continue  # applied before the fold (director_rulings, corrected); kept in JSON Lines
        elif cur is None:
            yield f"'{t}' event before any board (event {it.index}) not written"
        elif t == "deal":
            cur.hands.setdefault(it.data["to"], []).append(it.data["card"])
        elif t == "call":
            call = it.data["call"]
            cur.calls.append((it.data["seat"], parse_call(call) or call, it.get("note") or (it.raw or {}).get("note")))
        elif t == "play":
            cur.plays.append((it.data["seat"], it.data["card"]))
        elif t == "retract":
            key = (it.data["seat"], it.data["card"])
            for i in range(len(cur.plays) - 1, -1, -1):
                if cur.plays[i] == key:
                    del cur.plays[i]
                    break
        elif t == "claim":
            cur.claim = (it.data["seat"], it.data["tricks"])
        elif t == "contract":
            c = parse_contract(it.data["contract"])
            cur.contract = (c, it.data.get("declarer")) if c else None
        elif t == "end":
            yield cur
            cur = None
    if cur is not None:
        yield cur


def _esc(v: Any) -> str:
    return str(v).replace("\\", "\\\\").replace('"', '\\"')


def _comment(text: str) -> str:
    return "{" + text.replace("{", "(").replace("}", ")") + "}"


PBN_CALL = {"P": "Pass", "X": "X", "XX": "XX"}


def write_pbn_game(r: TableResult, fp: IO[str]) -> None:
    """One PBN game (export format tag order) followed by a blank line."""
    players = r.get("players") or {}
    lines = [f'[Event "{_esc(r.get("event", "?"))}"]', f'[Site "{_esc(r.get("site", "?"))}"]',
             f'[Date "{_esc(r.get("date", "?"))}"]', f'[Board "{_esc(r.get("board", "?"))}"]']
    for name, s in (("West", "W"), ("North", "N"), ("East", "E"), ("South", "S")):
        lines.append(f'[{name} "{_esc(players.get(s, "?")) if isinstance(players, dict) else "?"}"]')
    dealer = r.dealer
    lines.append(f'[Dealer "{dealer or "?"}"]')
    lines.append(f'[Vulnerable "{r.get("vulnerable", "None")}"]')
    hands = [r.hands.get(s) for s in SEATS]
    deal = " ".join(hand_str(h) if h else "-" for h in hands)
    lines.append(f'[Deal "N:{deal}"]')
    lines.append(f'[Scoring "{_esc(r.get("scoring", ""))}"]')
    contract, declarer = r.outcome()
    result = r.declarer_tricks(contract, declarer)
    if r.adjusted is not None:   # the director's ruling: the result the board is scored with
        contract, declarer, result = _adjusted(r.adjusted, contract, declarer, result)
    lines.append(f'[Declarer "{declarer or ""}"]')
    lines.append(f'[Contract "{_pbn_contract(contract)}"]')
    lines.append(f'[Result "{"" if result is None else result}"]')
    for c in r.comments:
        lines.append(_comment(c))
    if r.calls:
        lines.append(f'[Auction "{r.calls[0][0]}"]')
        toks: list[str] = []
        notes: list[str] = []
        for _, call, note in r.calls:
            toks.append(PBN_CALL.get(call) or (call[0] + "NT" if call[1:] == "N" else call))
            if note:
                notes.append(note)
                toks.append(f"={len(notes)}=")
        row: list[str] = []
        n = 0
        for tok in toks:
            row.append(tok)
            if tok[0] != "=":
                n += 1
            if n == 4 and tok[0] != "=":
                lines.append(" ".join(row))
                row, n = [], 0
        if row:
            lines.append(" ".join(row))
        for i, note in enumerate(notes, 1):
            lines.append(f'[Note "{i}:{_esc(note)}"]')
    tricks = r.tricks()
    if tricks and declarer is not None:
        first = tricks[0][0][0]
        cols = [first.next(k) for k in range(4)]
        lines.append(f'[Play "{first}"]')
        for t in tricks:
            by = {s: c for s, c in t}
            lines.append(" ".join(str(by[s]) if s in by else "-" for s in cols))
        if len(tricks) < 13 or len(tricks[-1]) < 4:
            lines.append("*")
    fp.write("\n".join(lines) + "\n\n")


def _adjusted(adj: dict[str, Any], contract: str | None, declarer: Seat | None,
              tricks: int | None) -> tuple[str | None, Seat | None, int | None]:
    """Contract, declarer and declarer's tricks after a director's ruling."""
    c = adj.get("contract") or contract
    d = adj.get("declarer")
    seat = {"N": Seat.N, "E": Seat.E, "S": Seat.S, "W": Seat.W}.get(str(d)) if d else declarer
    t = adj.get("tricks")
    return c, seat, t if isinstance(t, int) else tricks


def _pbn_contract(contract: str | None) -> str:
    if not contract:
        return ""
    if contract == "Pass":
        return "Pass"
    return contract[0] + ("NT" if contract[1] == "N" else contract[1]) + contract[2:]


_LIN_DIGIT = {Seat.S: "1", Seat.W: "2", Seat.N: "3", Seat.E: "4"}
_LIN_ORDER = (Seat.S, Seat.W, Seat.N, Seat.E)
_LIN_VUL = {"None": "o", "NS": "n", "EW": "e", "All": "b"}
_LIN_CALL = {"P": "p", "X": "d", "XX": "r"}


def _lin_hand(cards: list[Card] | None) -> str:
    if not cards:
        return ""
    parts = hand_str(cards).split(".")
    return "".join(s + r for s, r in zip("SHDC", parts))


def lin_line(r: TableResult) -> str:
    """One board as a LIN line."""
    out: list[str] = []
    room = r.get("room")
    board = r.get("board")
    if room in ("open", "closed") and board is not None:
        out.append(f"qx|{room[0]}{board}")
    players = r.get("players") or {}
    if not isinstance(players, dict):
        players = {}
    # Always written: in LIN the names carry over to later boards until the next pn.
    out.append("pn|" + ",".join(str(players.get(str(s), "")).replace("|", "/").replace(",", " ")
                                for s in _LIN_ORDER))
    dealer = r.dealer
    out.append("st|")
    out.append("md|" + (_LIN_DIGIT[dealer] if dealer else "") + ",".join(_lin_hand(r.hands.get(s)) for s in _LIN_ORDER))
    out.append("rh|")
    if board is not None:
        out.append(f"ah|Board {board}")
    out.append("sv|" + _LIN_VUL.get(str(r.get("vulnerable", "None")), "o"))
    for _, call, note in r.calls:
        out.append("mb|" + _LIN_CALL.get(call, call) + ("!" if note else ""))
        if note and note != "alert":
            out.append("an|" + note.replace("|", "/"))
    out.append("pg|")
    for i, (_, card) in enumerate(r.plays, 1):
        out.append(f"pc|{card}")
        if i % 4 == 0:
            out.append("pg|")
    contract, declarer = r.outcome()
    if r.adjusted is not None:
        # the director's ruling: mc carries the adjusted tricks, a comment (nt) the ruling and the table result
        _, _, tricks = _adjusted(r.adjusted, contract, declarer, r.declarer_tricks(contract, declarer))
        out.append("nt|" + ruling_note(r.adjusted).replace("|", "/"))
        if tricks is not None:
            out.append(f"mc|{tricks}")
            out.append("pg|")
    elif r.claim is not None and declarer is not None:
        out.append(f"mc|{r.declarer_tricks(contract, declarer)}")
        out.append("pg|")
    return "|".join(out) + "|"


_NOT_DATA = ("type", "ts", "source")


def _with_raw_fields(ev: Event) -> Event:
    """The event with the fields only its raw JSON object kept (read from JSON Lines) put back,
    so a log read and written again loses nothing the schema does not know."""
    raw = ev.raw
    if not raw or all(k in ev.data or k in _NOT_DATA for k in raw):
        return ev
    data = {k: ev.data.get(k, v) for k, v in raw.items() if k not in _NOT_DATA}  # the line's field order
    data.update((k, v) for k, v in ev.data.items() if k not in data)
    return Event(ev.type, data, ev.index, ev.ts, ev.source, raw)


def director_rulings(items: list[Event | Finding]) -> dict[str, dict[str, Any]]:
    """The latest adjusted result of each board a ``director_ruling`` event applied to, by board number.

    The engine computes it (a Law 64A transfer depends on the play), so the
    stream is folded once, and only when it holds such an event.
    """
    if not any(isinstance(it, Event) and it.type == "director_ruling" for it in items):
        return {}
    from ..engine import Table

    out: dict[str, dict[str, Any]] = {}
    for f in Table(keep_history=False).feed(it for it in items if isinstance(it, Event)):
        if f.kind == "director_ruling" and f.extra.get("adjusted"):
            out[str(f.board)] = {**f.extra, "rule": f.rule, "message": f.message}
    return out


def ruling_note(adj: dict[str, Any]) -> str:
    """The comment an archive keeps beside an adjusted result: the ruling and the table result.

    >>> ruling_note({"rule": "Law 64A", "message": "Director's ruling (Law 64A): 1 trick transferred.",
    ...              "original": {"contract": "4S", "declarer": "S", "tricks": 7}})
    "Director's ruling (Law 64A): 1 trick transferred. Table result: 4S by S, 7 tricks."
    """
    o = adj.get("original") or {}
    table = (f"{o.get('contract')} by {o.get('declarer')}, {o.get('tricks')} tricks" if o.get("declarer")
             else str(o.get("contract") or "none"))
    message = str(adj.get("message") or adj.get("rule") or "Director's ruling.")
    return message if "table result" in message.lower() else f"{message} Table result: {table}."


def corrected(items: list[Event | Finding]) -> list[Event | Finding]:
    """The stream with each read an operator corrected (``correct`` events) replaced by the correction,
    board by board (a correction names an event of its own board), so the archive holds the play that
    stood; the JSON Lines log keeps both."""
    if not any(isinstance(it, Event) and it.type == "correct" for it in items):
        return items
    out: list[Event | Finding] = []
    start = 0
    for i in range(len(items) + 1):
        if i == len(items) or (isinstance(items[i], Event) and items[i].type == "board" and i > start):
            seg = items[start:i]
            fixes: dict[int, dict[str, Any]] = {}
            for it in seg:
                if isinstance(it, Event) and it.type == "correct":
                    fixes.setdefault(it.data["event"], {}).update(
                        {k: it.data[k] for k in ("seat", "card", "call") if k in it.data})
            for it in seg:
                if isinstance(it, Event) and it.index in fixes and it.type in ("play", "call", "expose", "deal",
                                                                               "retract"):
                    keep = {k: v for k, v in fixes[it.index].items() if k in it.data}
                    it = Event(it.type, {**it.data, **keep}, it.index, it.ts, it.source, None)
                out.append(it)
            start = i
    return out


def _apply_ruling(r: TableResult, adj: dict[str, Any] | None) -> TableResult:
    """``r`` with the adjusted result (an assigned contract and declarer, declarer's tricks) in place."""
    if adj is None:
        return r
    r.adjusted = adj
    r.comments.append(ruling_note(adj))
    return r


def export(items: Iterable[Event | Finding], fmt: str, fp: IO[str]) -> int:
    """Write ``items`` to ``fp`` as ``pbn``, ``lin`` or ``jsonl``; return boards (jsonl: events) written.

    Raises ``ValueError`` for an unknown format.
    """
    if fmt == "jsonl":
        return write_events((_with_raw_fields(it) for it in items if isinstance(it, Event)), fp)
    if fmt not in ("pbn", "lin"):
        raise ValueError(f"unknown export format {fmt!r} (expected one of {', '.join(FORMATS)})")
    n = 0
    items = list(items)
    adjusted = director_rulings(items)
    items = corrected(items)
    if fmt == "pbn":
        fp.write("% PBN 2.1\n% EXPORT\n%Creator: tablecam\n")
    for r in table_results(items):
        if not isinstance(r, str):
            r = _apply_ruling(r, adjusted.get(str(r.get("board"))))
        if isinstance(r, str):
            if fmt == "pbn":
                fp.write(_comment(r) + "\n\n")
            continue
        if r.game != "bridge":
            if fmt == "pbn":
                fp.write(_comment(f"board {r.get('board')}: {r.game} is not bridge; not written") + "\n\n")
            continue
        if fmt == "pbn":
            write_pbn_game(r, fp)
        else:
            fp.write(lin_line(r) + "\n")
        n += 1
    return n
