"""Read PBN 2.1 (Portable Bridge Notation) archives as tablecam events.

A PBN file is a list of games separated by blank lines; each game is a set of
``[Tag "value"]`` pairs, some followed by a section (Auction, Play, tables).
This reader keeps only what the engine needs, quickly: one pass over the
lines, tags by one precompiled regex, sections split on whitespace, deals
cached (the two tables of a team match share one Deal tag).

What it copes with, because real archives do it:

- tags omitted when they repeat from the previous game (Board, Deal, Dealer,
  Vulnerable, Event ...) are inherited, and a value of ``#`` copies the
  previous game's value (PBN 2.1 section 4.8);
- ``{comments}`` (also over several lines), ``;`` comments, ``%`` escape
  lines, ``\\"`` escapes in tag values;
- Auction: ``Pass X XX 1NT`` ..., ``AP`` (all pass), note references
  ``=1=`` (joined to the Note tags), ``*`` (auction not finished), ``$n``
  glyphs and ``!`` / ``?`` suffixes;
- Play: one trick per four tokens in fixed seat columns starting from the
  Play tag's seat; ``-`` a card not played; ``*`` the end of the record (the
  rest was claimed; the Result tag gives declarer's tricks).

Archive mistakes are checked against the deal by
:func:`tablecam.archive.record.record_events` and reported as
``archive_flaw`` findings, never passed to the engine as irregularities.

>>> text = '''[Board "1"]
... [Dealer "N"]
... [Vulnerable "None"]
... [Deal "N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432"]
... [Declarer "N"]
... [Contract "7NT"]
... [Result "13"]
... [Auction "N"]
... 7NT AP
... [Play "E"]
... ST S6 S2 SA
... *
... '''
>>> items = list(pbn_events(text))
>>> [e.type for e in items][:2], len(items)
(['board', 'deal'], 63)
>>> [(str(e.seat), e.call) for e in items if e.type == "call"]
[('N', '7N'), ('E', 'P'), ('S', 'P'), ('W', 'P')]
>>> [(str(e.seat), str(e.card)) for e in items if e.type == "play"]
[('E', 'ST'), ('S', 'S6'), ('W', 'S2'), ('N', 'SA')]
>>> items[-2].type, items[-2].tricks, items[-1].type
('claim', 13, 'end')
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from ..cards import Card, Seat, _CANONICAL, parse_card
from ..events import Event
from ..findings import Finding
from .record import SEAT_INDEX, BoardRecord, parse_call, parse_contract, record_events

_TAG = re.compile(r'\[\s*([A-Za-z0-9_]+)\s*"([^"\\]*(?:\\.[^"\\]*)*)"\s*\]')
"""A tag pair. The value is matched as runs of plain characters between escapes
("unrolled"), not one alternation per character: ``re`` keeps backtracking
state for each repetition of a group, about 170 bytes per byte of the value,
so a 10 MB tag took 1.6 GB; a run of a character class costs nothing per byte."""
_ESCAPE = re.compile(r"\\(.)")
_NOTE = re.compile(r"^=(\d+)=$")
_NOTE_TAG = re.compile(r"^\s*(\d+)\s*:\s*(.*)$", re.S)
_SEATS = {"N": Seat.N, "E": Seat.E, "S": Seat.S, "W": Seat.W}

INHERITED = ("Event", "Site", "Date", "Board", "Dealer", "Vulnerable", "Deal", "Scoring",
             "Stage", "HomeTeam", "VisitTeam", "Competition", "Room")
"""Tags a game takes from the previous one when it omits them. Player names
are *not* inherited: in vugraph files the two rooms alternate, so the
previous game's names usually belong to the other table."""

SECTIONS = ("Auction", "Play")
"""Sections this reader interprets; other tables (OptimumResultTable ...) are skipped."""

_VUL = {"NONE": "None", "LOVE": "None", "-": "None", "": "None", "NS": "NS", "EW": "EW",
        "ALL": "All", "BOTH": "All"}


class Game:
    """The raw tags and section tokens of one PBN game, with its first line number."""

    __slots__ = ("tags", "sections", "notes", "line")

    def __init__(self, line: int) -> None:
        self.tags: dict[str, str] = {}
        self.sections: dict[str, list[str]] = {}
        self.notes: list[str] = []
        self.line = line


_BLANK1 = re.compile(r"\n[ \t\r]*\n")
_ESCAPE_LINE = re.compile(r"^%[^\n]*", re.M)


def _has_comments(text: str) -> bool:
    """True if the text has ``{...}`` or ``;`` comments (a ``;`` inside a tag value is not one)."""
    if "{" in text:
        return True
    i = text.find(";")
    while i >= 0:
        start = text.rfind("\n", 0, i) + 1
        before = text[start:i]
        if not before.lstrip().startswith("[") or before.count('"') % 2 == 0:
            return True
        i = text.find(";", i + 1)
    return False


def pbn_games(text: str) -> Iterator[Game]:
    """Split PBN text into games (tags not yet inherited).

    Files without comments (the common case) take a fast path: one ``re.split``
    of the whole text on tag pairs, so the text after a tag is its section and
    a blank line in it ends the game. Files with ``{}`` or ``;`` comments go
    through a careful line-by-line scanner.
    """
    pos = 0
    while text.startswith("%", pos):  # the usual "% PBN 2.1" header lines: cheap to drop
        nl = text.find("\n", pos)
        pos = len(text) if nl < 0 else nl + 1
    if pos:
        text = "\n" * text.count("\n", 0, pos) + text[pos:]  # keep the line numbers
    if "\n%" in text:
        text = _ESCAPE_LINE.sub("", text)
    if _has_comments(text):
        yield from _scan_games(text)
        return
    parts = _TAG.split(text)  # [before, name, value, section, name, value, section, ...]
    line = 1 + parts[0].count("\n")
    game: Game | None = None
    stray = parts[0].strip()
    blank = _BLANK1.search
    for i in range(1, len(parts), 3):
        name, value, section = parts[i], parts[i + 1], parts[i + 2]
        if game is None:
            game = Game(line)
            if stray:
                game.tags["_Unreadable"] = stray[:80]
                stray = ""
        tags = game.tags
        if "\\" in value:
            value = _ESCAPE.sub(r"\1", value)
        if name == "Note":
            game.notes.append(value)
        elif name in tags and name in ("Event", "Board"):
            # A repeated identification tag without a blank line between: a new game.
            yield game
            game = Game(line)
            tags = game.tags
            tags[name] = value
        else:
            tags.setdefault(name, value)
        nl = section.count("\n")
        end = blank(section) if nl >= 2 else None  # a blank line ends the game
        body = section if end is None else section[: end.start()]
        if name in SECTIONS:
            game.sections[name] = body.split()
        elif "[" in body and body.strip():
            tags.setdefault("_Unreadable", body.strip()[:80])
        line += nl
        if end is not None:
            stray = section[end.end():].strip()
            yield game
            game = None
    if game is not None:
        yield game


def _scan_games(text: str) -> Iterator[Game]:
    """Line-by-line game splitter that understands comments (the slow, careful path)."""
    game: Game | None = None
    cur: str | None = None
    in_comment = False
    for no, line in enumerate(text.splitlines(), 1):
        s = line
        if in_comment:
            j = s.find("}")
            if j < 0:
                continue
            s = s[j + 1:].strip()
            in_comment = False
            if not s:
                continue  # the end of a comment is not a blank line
        s = s.strip()
        if not s:
            if game is not None and not in_comment:
                yield game
                game, cur = None, None
            continue
        if s[0] == "%":
            continue
        while s:
            c0 = s[0]
            if c0 == "[":
                m = _TAG.match(s)
                if m is None:
                    # Not a tag pair: keep it as section text so nothing is lost silently.
                    if game is None:
                        game = Game(no)
                    game.tags.setdefault("_Unreadable", s[:80])
                    break
                name, value = m.group(1), m.group(2)
                if "\\" in value:
                    value = _ESCAPE.sub(r"\1", value)
                if game is not None and name in game.tags and name != "Note" and name in ("Event", "Board"):
                    # A repeated identification tag without a blank line: a new game.
                    yield game
                    game = None
                if game is None:
                    game = Game(no)
                if name == "Note":
                    game.notes.append(value)
                else:
                    game.tags.setdefault(name, value)
                cur = name
                s = s[m.end():].lstrip()
            elif c0 == "{":
                j = s.find("}")
                if j < 0:
                    in_comment = True
                    break
                s = s[j + 1:].lstrip()
            elif c0 == ";":
                break
            else:
                j = len(s)
                for ch in "[{;":
                    k = s.find(ch)
                    if 0 <= k < j:
                        j = k
                if cur in SECTIONS and game is not None:
                    game.sections.setdefault(cur, []).extend(s[:j].split())
                s = s[j:]
    if game is not None:
        yield game


_deal_cache: dict[str, tuple[dict[Seat, list[Card]] | None, str | None]] = {}


def parse_deal(text: str) -> tuple[dict[Seat, list[Card]] | None, str | None]:
    """Hands from a Deal tag (``N:AKQ.xx.. ...``, suits S.H.D.C); a missing hand is the
    remaining cards when the other three are known. Returns ``(hands, problem)``.

    >>> hands, _ = parse_deal("W:.AQJ85.986.JT973 A8643.97642.Q.Q8 KT9.K3.K75.AK652 QJ752.T.AJT432.4")
    >>> [str(c) for c in hands[Seat.N][:3]], len(hands[Seat.S])
    (['SA', 'S8', 'S6'], 13)
    """
    hit = _deal_cache.get(text)
    if hit is None:
        hit = _parse_deal(text)
        if len(_deal_cache) > 4096:
            _deal_cache.clear()
        _deal_cache[text] = hit
    hands, problem = hit
    # fresh lists: a record's hands are its own, whoever changes them later
    return ({s: list(h) for s, h in hands.items()} if hands is not None else None), problem


def _parse_deal(text: str) -> tuple[dict[Seat, list[Card]] | None, str | None]:
    t = text.strip()
    if len(t) < 2 or t[1] != ":" or t[0].upper() not in _SEATS:
        return None, f"Deal tag {text!r} does not start with a seat and ':'"
    seat = _SEATS[t[0].upper()]
    parts = t[2:].split()
    if len(parts) != 4:
        return None, f"Deal tag {text!r} does not have four hands"
    hands: dict[Seat, list[Card]] = {}
    unknown: list[Seat] = []
    for part in parts:
        if part == "-":
            unknown.append(seat)
        else:
            suits = part.upper().replace("10", "T").split(".")
            if len(suits) != 4:
                return None, f"hand {part!r} in the Deal tag does not have four suits"
            cards: list[Card] = []
            for suit, ranks in zip("SHDC", suits):
                for r in ranks:
                    c = _CANONICAL.get(suit + r)
                    if c is None:
                        return None, f"hand {part!r} in the Deal tag has an unknown card {suit}{r}"
                    cards.append(c)
            hands[seat] = cards
        seat = seat.next()
    if len(unknown) == 1:
        seen = {c for h in hands.values() for c in h}
        hands[unknown[0]] = [c for c in _CANONICAL.values() if c not in seen and not c.is_joker]
    elif unknown:
        return None, f"the Deal tag gives only {4 - len(unknown)} hands"
    all_cards = [c for h in hands.values() for c in h]
    if len(all_cards) != 52 or len(set(all_cards)) != 52:
        return None, f"the Deal tag does not hold 52 different cards"
    return hands, None


def _card(tok: str) -> Card | None:
    c = _CANONICAL.get(tok)
    if c is not None:
        return c
    try:
        return parse_card(tok.rstrip("!?"))
    except ValueError:
        return None


def game_record(game: Game, tags: dict[str, str]) -> BoardRecord:
    """A :class:`BoardRecord` from one game's (inherited) tags and sections."""
    rec = BoardRecord(line=game.line)
    flaws = rec.flaws
    if "_Unreadable" in tags:
        flaws.append(f"text {tags['_Unreadable']!r} is not a PBN tag pair and was ignored")
    b = tags.get("Board", "").strip()
    rec.board = int(b) if b.isdigit() else (b or None)
    rec.dealer = _SEATS.get(tags.get("Dealer", "").strip().upper()[:1])
    if rec.dealer is None and isinstance(rec.board, int) and rec.board > 0:
        rec.dealer = (Seat.N, Seat.E, Seat.S, Seat.W)[(rec.board - 1) % 4]
        flaws.append(f"no Dealer tag; dealer {rec.dealer} taken from the board number")
    rec.vulnerable = _VUL.get(tags.get("Vulnerable", "None").strip().upper(), None)
    if rec.vulnerable is None:
        flaws.append(f"Vulnerable tag {tags.get('Vulnerable')!r} not understood; read as None")
        rec.vulnerable = "None"
    deal = tags.get("Deal")
    if deal:
        rec.hands, problem = parse_deal(deal)
        if problem:
            flaws.append(problem)
    info: dict[str, Any] = {}
    for tag, key in (("Event", "event"), ("Site", "site"), ("Date", "date"), ("Scoring", "scoring")):
        v = tags.get(tag)
        if v and v != "?":
            info[key] = v
    players = {s: tags[name] for s, name in (("N", "North"), ("E", "East"), ("S", "South"), ("W", "West"))
               if tags.get(name, "?") not in ("?", "")}
    if players:
        info["players"] = players
    rec.info = info
    # Contract, declarer, result.
    d = tags.get("Declarer", "").strip().lstrip("^").upper()
    rec.declarer = _SEATS.get(d[:1]) if d else None
    c = tags.get("Contract")
    if c is not None and c.strip() not in ("", "?"):
        rec.contract = parse_contract(c)
        if rec.contract is None:
            flaws.append(f"Contract tag {c!r} not understood")
    r = tags.get("Result", "").strip()
    if r.isdigit():
        rec.result = int(r)
    elif r and r not in ("?", "-"):
        digits = r.split()[-1]
        if digits.isdigit():
            rec.result = int(digits)
    # Auction.
    start = tags.get("Auction")
    if start is not None:
        rec.auction_start = _SEATS.get(start.strip().upper()[:1])
        notes = _notes(game.notes)
        calls = rec.calls
        toks = game.sections.get("Auction", ())
        for k, tok in enumerate(toks):
            call = parse_call(tok)
            if call is not None:
                calls.append(call)
                continue
            up = tok.upper()
            if up == "AP":
                rec.all_pass = True
                break
            if up in ("*", "-", "+"):
                rest = [t for t in toks[k + 1:] if parse_call(t) or t.upper() == "AP"]
                if rest:
                    flaws.append(f"the auction has {tok!r} (an unknown call) before {len(rest)} more; "
                                 f"it is read up to the {tok!r}")
                break
            m = _NOTE.match(tok)
            if m:
                if calls:
                    rec.notes[len(calls) - 1] = notes.get(m.group(1), f"note {m.group(1)}")
                continue
            if tok[0] in "$^":
                continue
            flaws.append(f"auction token {tok!r} not understood; the auction is read up to it")
            break
    # Play.
    lead = tags.get("Play")
    if lead is not None:
        first = _SEATS.get(lead.strip().upper()[:1])
        rec.leader = first
        if first is not None:
            f0 = SEAT_INDEX[first]
            cols = [(f0 + i) & 3 for i in range(4)]
            row: list[Card | None] = [None, None, None, None]
            k = 0
            tricks = rec.tricks
            get = _CANONICAL.get
            for tok in game.sections.get("Play", ()):
                c = get(tok)
                if c is None:
                    if tok == "*":
                        break
                    if tok == "-" or tok == "+":
                        pass
                    elif tok[0] in "=$^":
                        continue
                    else:
                        c = _card(tok)
                        if c is None:
                            flaws.append(f"play token {tok!r} not understood; play is read up to it")
                            break
                row[cols[k]] = c
                k += 1
                if k == 4:
                    tricks.append(row)
                    row = [None, None, None, None]
                    k = 0
            if k:
                tricks.append(row)
            while tricks and not any(tricks[-1]):
                tricks.pop()
    return rec


def _notes(notes: list[str]) -> dict[str, str]:
    out = {}
    for n in notes:
        m = _NOTE_TAG.match(n)
        if m:
            out[m.group(1)] = m.group(2).strip()
    return out


def pbn_records(text: str) -> Iterator[BoardRecord]:
    """Every game of a PBN text as a :class:`BoardRecord`, tags inherited."""
    prev: dict[str, str] = {}
    for game in pbn_games(text):
        tags = game.tags
        for k, v in list(tags.items()):
            if v == "#" and k in prev:
                tags[k] = prev[k]
        for k in INHERITED:
            if k not in tags and k in prev:
                tags[k] = prev[k]
        prev = tags
        if not any(k in tags for k in ("Deal", "Board", "Contract", "Auction", "Play", "_Unreadable")):
            continue  # file-level tags only (a header), nothing to replay
        yield game_record(game, tags)


def pbn_events(text: str, start: int = 0) -> Iterator[Event | Finding]:
    """Events and archive-flaw findings for every game in a PBN text.

    ``start`` is the index of the first event; indices run on across games,
    so they are the line numbers of the stream exported as JSON Lines.
    """
    index = start
    for rec in pbn_records(text):
        items, index = record_events(rec, index)
        yield from items


def read_pbn(path: str) -> Iterator[Event | Finding]:
    """Events from a PBN file (UTF-8, or Latin-1 if it is not UTF-8)."""
    from . import _read_text

    return pbn_events(_read_text(path))

