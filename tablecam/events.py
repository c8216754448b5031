"""The event log: JSON Lines in the vocabulary of ``shared/contracts.md``.

Every source (shoe, camera, operator, simulator, archive reader) produces
:class:`Event` objects; engines fold over them. Reading never raises on bad
input: a line that cannot be understood becomes a ``bad_event``
:class:`~tablecam.findings.Finding` in the same stream, at the same index, so
nothing is silently dropped and the caller keeps going.

Games register their own event types with :func:`register_event_type`; the
field kinds (``card``, ``seat``, ``to`` ...) are validated and normalised here
so engines see :class:`~tablecam.cards.Card` and :class:`~tablecam.cards.Seat`
objects, never raw strings.

>>> items = list(read_events(['{"type":"play","seat":"n","card":"10s"}', 'nonsense']))
>>> items[0].type, str(items[0].card), items[0].seat
('play', 'ST', Seat.N)
>>> items[1].kind, items[1].event
('bad_event', 1)
>>> event_to_json(items[0])
'{"type": "play", "seat": "N", "card": "ST"}'
"""

from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass, field
from typing import IO, Any, Callable, Iterable, Iterator

from .cards import Card, Seat, parse_card, parse_seat
from .findings import Finding, bad_event

PILES = ("talong", "kitty")
"""Non-seat destinations for a dealt card."""

GAMES = ("bridge", "vira", "pidro", "whist")


def _seat(v: Any) -> Seat:
    return parse_seat(v)


def _card(v: Any) -> Card:
    return parse_card(v)


def _to(v: Any) -> Seat | str:
    if isinstance(v, str) and v.strip().lower() in PILES:
        return v.strip().lower()
    try:
        return parse_seat(v)
    except ValueError:
        raise ValueError(f"unknown seat or pile {v!r}") from None


def _cards(v: Any) -> list[Card]:
    if isinstance(v, str):
        v = v.replace(",", " ").split()
    if not isinstance(v, list):
        raise ValueError(f"expected a list of cards, got {v!r}")
    return [parse_card(c) for c in v]


def _seats(v: Any) -> list[Seat]:
    if isinstance(v, str):
        v = list(v.replace(",", "").replace(" ", ""))
    if not isinstance(v, list):
        raise ValueError(f"expected a list of seats, got {v!r}")
    return [parse_seat(s) for s in v]


def _int(v: Any) -> int:
    if isinstance(v, bool):
        raise ValueError(f"expected a whole number, got {v!r}")
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, str) and v.strip().lstrip("-").isdigit():
        return int(v)
    raise ValueError(f"expected a whole number, got {v!r}")


def _bool(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    raise ValueError(f"expected true or false, got {v!r}")


def _str(v: Any) -> str:
    if isinstance(v, (str, int)) and not isinstance(v, bool):
        return str(v)
    raise ValueError(f"expected text, got {v!r}")


def _any(v: Any) -> Any:
    return v


FIELD_KINDS: dict[str, Callable[[Any], Any]] = {
    "seat": _seat,
    "card": _card,
    "to": _to,
    "cards": _cards,
    "seats": _seats,
    "int": _int,
    "bool": _bool,
    "str": _str,
    "any": _any,
}
"""Validators by field kind: each normalises a JSON value or raises ValueError."""


@dataclass(frozen=True)
class EventType:
    """Schema of one event type: required and optional fields by kind."""

    name: str
    required: dict[str, str] = field(default_factory=dict)
    optional: dict[str, str] = field(default_factory=dict)
    games: tuple[str, ...] = GAMES
    doc: str = ""
    observation: bool = False
    """An observation no engine acts on (kept in the log, never judged)."""


EVENT_TYPES: dict[str, EventType] = {}


def register_event_type(
    name: str,
    required: dict[str, str] | None = None,
    optional: dict[str, str] | None = None,
    games: Iterable[str] = GAMES,
    doc: str = "",
    observation: bool = False,
) -> EventType:
    """Add (or replace) an event type; games call this for their own vocabulary."""
    et = EventType(name, dict(required or {}), dict(optional or {}), tuple(games), doc, observation)
    EVENT_TYPES[name] = et
    return et


# The contract's core vocabulary.
register_event_type(
    "board",
    required={"game": "str"},
    # event/site/date/scoring/room: archive context (PBN/LIN tags), kept so a
    # JSONL round trip loses nothing.
    optional={"board": "any", "dealer": "seat", "vulnerable": "str", "event": "str", "site": "str",
              "date": "str", "scoring": "str", "room": "str", "players": "any", "pack": "str"},
    doc="a new deal starts (ends the previous one)",
)
# shoe_seq / shoe_boot: where the card stands in the shoe's own numbering (a
# restarted table node takes up the shoe's link from the last one stored).
register_event_type("deal", {"to": "to", "card": "card"}, {"face_up": "bool", "shoe_seq": "any", "shoe_boot": "any"},
                    doc="one card dealt")
# conf / uncertain: how sure the camera was of a read (``uncertain: true`` asks the table's operator to
# confirm or correct it); kept with the event so the log shows it, never judged.
READ = {"conf": "any", "uncertain": "any"}
register_event_type("call", {"seat": "seat", "call": "str"}, {"note": "str", "alert": "any", **READ},
                    doc="a call in the auction (``note``: an alert or explanation from the archive)")
register_event_type("play", {"seat": "seat", "card": "card"}, {"simultaneous": "bool", **READ},
                    doc="a card played to the trick (``simultaneous``: at the same moment as the previous play, "
                        "bridge Law 58)")
register_event_type("retract", {"seat": "seat", "card": "card"}, READ, doc="a played card taken back")
register_event_type("expose", {"seat": "seat", "card": "card"}, {"deliberate": "bool", **READ},
                    doc="a card seen face up, not played")
register_event_type("claim", {"seat": "seat", "tricks": "int"}, {"final": "bool"},
                    doc="a claim, accepted (``final``: the table's scored result as an archive records it, past "
                        "the correction period)")
register_event_type("end", doc="the board is over")
# Table input by hand (the operator page) and the director's rulings: see docs/contracts.md.
register_event_type(
    "correct", {"event": "int"}, {"seat": "seat", "card": "card", "call": "str", "was": "any", "by": "str"},
    doc="an operator's correction of an earlier read (``event``: its index in the log): the read is "
        "judged as if it had been ``seat``/``card``/``call``; the original stays in the log")
register_event_type(
    "confirm", {"event": "int"}, {"by": "str"},
    doc="an operator confirms a read marked uncertain (``event``: its index in the log)", observation=True)
register_event_type(
    "director_ruling", {"law": "str"},
    {"board": "any", "finding": "str", "seat": "seat", "tricks": "int", "contract": "str", "declarer": "seat",
     "score": "any", "demand": "str", "suit": "str", "by": "str", "text": "str", "alert": "any"},
    doc="a director's ruling applied to a board (a trick transfer, a lead restriction, an adjusted score); "
        "the board's own result stays as the engine computed it")
register_event_type(
    "trick_turned", optional={"cards": "cards", "seats": "seats", "trick": "int", "conf": "any"},
    doc="camera/simulator observation: the cards of the current trick were turned over or gathered",
    observation=True,
)


@dataclass(frozen=True, slots=True, init=False)
class Event:
    """One normalised event.

    ``index`` is the 0-based position in the input (the contract's ``event``
    field of findings). ``data`` holds the validated fields; the original
    JSON object is kept in ``raw`` so unknown fields survive a round trip.

    Frozen: an event is what the table did, and the log, the engine and the
    dashboard all hold the same object.  A corrected read or a renumbered
    event is a new one (:func:`dataclasses.replace`), and so is a changed
    payload (``replace(ev, data={**ev.data, ...})``): ``data`` and ``raw``
    are not to be changed in place, nor the values inside them.

    ``data`` and ``raw`` stay plain dicts, not read-only views: every event
    is read through them on the engine's hot path, and a
    ``types.MappingProxyType`` around each (one more object per event for
    the garbage collector, no specialised lookups) made replaying the real
    archives (683,565 events) 10-20 % slower.  ``data`` is a
    mapping by field name, not a fixed record, because each game registers
    its own event types and fields.  The constructor is written out (it
    fills the slots directly) because the frozen dataclass's own, one
    ``object.__setattr__`` per field, is slower still.

    >>> ev = make_event("play", seat="N", card="SA")
    >>> ev.seat, ev.data["card"], ev.note
    (Seat.N, Card('SA'), None)
    >>> ev.index = 3
    Traceback (most recent call last):
    ...
    dataclasses.FrozenInstanceError: cannot assign to field 'index'
    >>> import dataclasses
    >>> dataclasses.replace(ev, index=3).index, ev.index
    (3, None)
    """

    type: str
    data: dict[str, Any] = field(default_factory=dict)
    index: int | None = None
    ts: float | None = None
    source: str | None = None
    raw: dict[str, Any] | None = None

    def __init__(self, type: str, data: dict[str, Any] | None = None, index: int | None = None,
                 ts: float | None = None, source: str | None = None, raw: dict[str, Any] | None = None) -> None:
        set_ = _SET_FIELDS   # each slot's own setter: a frozen record has no other way in
        set_[0](self, type)
        set_[1](self, {} if data is None else data)
        set_[2](self, index)
        set_[3](self, ts)
        set_[4](self, source)
        set_[5](self, raw)

    def __getattr__(self, name: str) -> Any:
        # Convenience: event.seat, event.card ... (None when absent).  Only
        # reached for a name that is not a field, or a field not yet filled.
        if name.startswith("__") or name in _FIELDS:
            raise AttributeError(name)
        return self.data.get(name)

    def get(self, name: str, default: Any = None) -> Any:
        return self.data.get(name, default)

    def to_dict(self) -> dict[str, Any]:
        """Canonical JSON-ready dict (cards and seats as letters)."""
        d: dict[str, Any] = {"type": self.type}
        for k, v in self.data.items():
            d[k] = _plain(v)
        if self.ts is not None:
            d["ts"] = self.ts
        if self.source is not None:
            d["source"] = self.source
        return d


_FIELDS = ("type", "data", "index", "ts", "source", "raw")
_SET_FIELDS = tuple(getattr(Event, name).__set__ for name in _FIELDS)


def _plain(v: Any) -> Any:
    if isinstance(v, (Card, Seat)):
        return str(v)
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v


def make_event(type: str, index: int | None = None, **fields: Any) -> Event:
    """Build and validate an event in code (sources and tests use this).

    Raises ``ValueError`` for a bad field: a source constructing events should
    know what it is doing, unlike a log reader.
    """
    obj = {"type": type, **{k: _plain(v) for k, v in fields.items()}}
    return parse_event(obj, index)


def parse_event(obj: Any, index: int | None = None) -> Event:
    """Validate one decoded JSON object; raise ``ValueError`` with a clear reason."""
    if not isinstance(obj, dict):
        raise ValueError("an event must be a JSON object")
    t = obj.get("type")
    if not isinstance(t, str) or not t:
        raise ValueError("missing 'type'")
    et = EVENT_TYPES.get(t)
    if et is None and _load_game_vocabularies():
        et = EVENT_TYPES.get(t)
    if et is None:
        raise ValueError(f"unknown event type {t!r}")
    data: dict[str, Any] = {}
    for name, kind in et.required.items():
        if name not in obj or obj[name] is None:
            raise ValueError(f"'{t}' event needs '{name}'")
        data[name] = _check(t, name, kind, obj[name])
    for name, kind in et.optional.items():
        if name in obj and obj[name] is not None:
            data[name] = _check(t, name, kind, obj[name])
    if t == "board" and data["game"] not in GAMES:
        raise ValueError(f"unknown game {data['game']!r}")
    ts = obj.get("ts")
    if ts is not None and (isinstance(ts, bool) or not isinstance(ts, (int, float))):
        raise ValueError(f"'ts' must be a number of seconds, got {ts!r}")
    source = obj.get("source")
    return Event(t, data, index, float(ts) if ts is not None else None,
                 str(source) if source is not None else None, obj)


_GAMES_LOADED = False


def _load_game_vocabularies() -> bool:
    """Import every game engine once so its own event types are registered.

    Games register their events when their engine module is imported; a reader
    that meets such an event before any engine ran (``tablecam export``, the
    store) would otherwise call it unknown. Returns True the first time.
    """
    global _GAMES_LOADED
    if _GAMES_LOADED:
        return False
    _GAMES_LOADED = True
    import importlib

    from .engine import ENGINES

    for target in ENGINES.values():
        try:
            importlib.import_module(target.partition(":")[0])
        except Exception:  # a broken engine must not break reading the others' logs
            pass
    return True


def _check(t: str, name: str, kind: str, value: Any) -> Any:
    try:
        return FIELD_KINDS[kind](value)
    except ValueError as e:
        raise ValueError(f"'{t}' event: field '{name}': {e}") from None


def read_events(lines: Iterable[str], start: int = 0) -> Iterator[Event | Finding]:
    """Parse JSON Lines; yield an Event per good line, a ``bad_event`` per bad one.

    Blank lines are skipped but still counted, so ``event`` indices always
    match line numbers (0-based) in the file a director opens; the message
    names the line as an editor counts it, from 1.
    """
    for i, line in enumerate(lines, start):
        text = line.strip()
        if not text:
            continue
        try:
            obj = loads_strict(text)
        except (ValueError, RecursionError) as e:
            msg = getattr(e, "msg", None) or (str(e) if isinstance(e, ValueError) else "too deeply nested")
            yield bad_event(f"Line {i + 1} is not valid JSON ({msg}); skipped.", i, line=text)
            continue
        try:
            yield parse_event(obj, i)
        except ValueError as e:
            yield bad_event(f"Line {i + 1} was not understood: {e}; skipped.", i, line=text)


def _not_a_number(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    v = float(text)
    if math.isinf(v):
        raise ValueError(f"{text} is too large a number")
    return v


def loads_strict(text: str) -> Any:
    """``json.loads`` for JSON as RFC 8259 has it: no ``NaN``, ``Infinity``
    or number that overflows to it.  Python's reader takes them, and a log
    line carrying one would come out of ``--json`` as invalid JSON.

    >>> loads_strict('{"board": 3}')
    {'board': 3}
    >>> loads_strict('{"board": NaN}')
    Traceback (most recent call last):
    ...
    ValueError: NaN is not a JSON number
    """
    return json.loads(text, parse_constant=_not_a_number, parse_float=_finite)


def read_event_file(path: str) -> Iterator[Event | Finding]:
    """Read a ``.jsonl`` file; undecodable bytes become replacement characters.

    The file is opened at once, so a missing file or a directory raises
    ``OSError`` to the caller (not halfway through a replay).  A byte-order
    mark is honoured: UTF-8 with one (Windows editors write it) and UTF-16
    read as text, not as a first line of garbage that would lose the
    ``board`` event."""
    fp = open(path, "rb")
    head = fp.read(2)
    fp.seek(0)
    encoding = "utf-16" if head in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig"
    text = io.TextIOWrapper(fp, encoding=encoding, errors="replace")

    def lines() -> Iterator[Event | Finding]:
        with text:
            yield from read_events(text)

    return lines()


def event_to_json(event: Event) -> str:
    return json.dumps(event.to_dict(), ensure_ascii=False)


def write_events(events: Iterable[Event], fp: IO[str]) -> int:
    """Write events as JSON Lines; return how many were written."""
    n = 0
    for ev in events:
        fp.write(event_to_json(ev) + "\n")
        n += 1
    return n
