"""The event-sourced core shared by every game.

A :class:`Table` is a fold over an event stream: ``board`` events start a new
:class:`BoardEngine` for the named game, every other event goes to the board
in progress, and the findings each step produces come back to the caller.
Engines *accept* illegal events and record the irregularity; legal-move
generation (``legal_plays``) is an oracle the director and the camera fusion
may consult, never a gate.

Snapshot schema (``BoardEngine.snapshot()``), shared by every game so the
dashboard and broadcast need no per-game code beyond rendering::

    {"game": "bridge", "board": 1, "dealer": "N", "phase": "play",
     "hands": {"N": ["SA", ...], ...},       # cards still held
     "dealt": {"N": [...], "talong": [...]}, # as dealt
     "auction": [{"seat": "N", "call": "1S"}, ...],
     "contract": "4S", "declarer": "N", "trump": "S",
     "trick": {"leader": "E", "cards": [{"seat": "E", "card": "HK"}]},
     "tricks": [{"leader": "E", "cards": [...], "winner": "S"}, ...],
     "tricks_won": {"NS": 3, "EW": 1},
     "turn": "S",          # whose turn, if known
     "open_findings": 1, "extra": {...}}  # game-specific
"""

from __future__ import annotations

import collections
import dataclasses
import importlib
import json
from typing import Any, Iterable, Iterator

from .cards import Seat
from .events import EVENT_TYPES, Event
from .findings import Finding, bad_event, next_step

ENGINES: dict[str, str] = {
    "bridge": "tablecam.rules.bridge:BridgeBoard",
    "vira": "tablecam.rules.vira:ViraBoard",
    "pidro": "tablecam.rules.pidro:PidroBoard",
    "whist": "tablecam.rules.whist:WhistBoard",
}
"""Game name -> ``module:Class`` of its board engine (imported on first use)."""


class BoardEngine:
    """One deal of one game. Subclasses implement ``apply`` and ``finish``.

    ``ruleset`` is the tournament's rule-table choice (bid table, ladder,
    variant switches), loaded from data, never hard-coded.
    """

    game: str = ""
    keeps_match_state: bool = False
    """True for a game whose deals add up to a match (Pidro's game to 62): the
    :class:`Table` then hands each board of that game the same ``session``
    dict in its ruleset, so scores, offenders and the dealer carry over from
    deal to deal within one log (unless the caller passes its own session)."""

    def __init__(self, board_event: Event, ruleset: dict[str, Any] | None = None) -> None:
        self.board_event = board_event
        self.board = board_event.get("board")
        self.ruleset = ruleset or {}
        self.findings: list[Finding] = []
        self.events: list[Event] = [board_event]
        self.finished = False
        self.rulings: list[Event] = []   # the director's rulings applied to this board, in order
        self.corrected: dict[int, Event] = {}  # log index of a read -> the read as the operator corrected it

    # -- the fold -----------------------------------------------------------
    def apply(self, event: Event) -> list[Finding]:
        """Take one event (legal or not) and return the findings it causes."""
        raise NotImplementedError

    def finish(self, event: Event | None = None) -> list[Finding]:
        """The board is over (``end`` event, a new ``board``, or end of input).

        Returns end-of-board findings (trick transfers, result, score).
        ``event`` is the event that ended it, if any. Called at most once.
        """
        return []

    def may_be_redealt(self) -> bool:
        """Whether this finished board was misdealt and never played, so the
        same board dealt again next replaces it (and its ``result``)."""
        return False

    def rule(self, event: Event) -> list[Finding]:
        """A director's ``director_ruling`` applied to this board (in play or over).

        The default records it and reports it as a ``director_ruling`` finding with the
        director's own numbers (``score``, ``tricks``); games that can compute
        an adjusted result override it (bridge: Laws 64, 12C, 50D2).
        """
        self.rulings.append(event)
        return [self.ruling_finding(event)]

    def ruling_finding(self, event: Event, message: str | None = None, **fields: Any) -> Finding:
        """The ``director_ruling`` finding (status ``info``: the director has already ruled) for ``event``."""
        d = event.data
        law = str(d["law"]).strip()
        rule = self.cite_ruling(law)
        by = f" by {d['by']}" if d.get("by") else ""
        text = f": {d['text']}" if d.get("text") else ""
        extra = {"law": law, "by": d.get("by"), "text": d.get("text"), "applies_to": d.get("finding"),
                 **{k: d[k] for k in ("tricks", "score") if d.get(k) is not None}, **fields}
        return self.emit(self.finding("director_ruling", None,
                                      message or f"Director's ruling ({rule}){by}{text}.",
                                      event, status="info", rule=rule, id=self.finding_id("ruling", event.index),
                                      **{k: v for k, v in extra.items() if v is not None}))

    def cite_ruling(self, law: str) -> str:
        """The ``rule`` a ruling cites, from the law the director named (games override)."""
        return law

    # -- views --------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        return {"game": self.game, "board": self.board}

    def legal_plays(self) -> list[Any]:
        """Oracle: the cards the player on turn may legally play now."""
        return []

    # -- helpers for subclasses --------------------------------------------
    def dealer_or_north(self, early: list[Finding]) -> Seat:
        """The board event's dealer; North when it names none.

        The deal still replays, but the guess is put on record rather than
        made in silence: a ``bad_event`` finding goes to ``early``, the
        findings the engine raises before its first event.
        """
        dealer = self.board_event.get("dealer")
        if dealer is None:
            early.append(bad_event("The board event names no dealer; assuming North deals.",
                                   self.board_event.index, self.board))
            return Seat.N
        return dealer

    def emit(self, finding: Finding) -> Finding:
        """Record ``finding`` as this board's (numbered with this board when it names none); return what was
        recorded, which is the finding to keep (a new record when the board number was added)."""
        if finding.board is None and self.board is not None:
            finding = dataclasses.replace(finding, board=self.board)
        self.findings.append(finding)
        return finding

    # -- making findings: one way for every game ------------------------------
    def cite(self, section: Any) -> str:
        """The ``rule`` text for a section of this game's rule text (games override)."""
        return str(section)

    def finding_id(self, *parts: Any) -> str:
        """An id for a finding's lifecycle: ``<game>-<board>-<parts...>``.

        Every step of one irregularity carries the same id, so the dashboard
        updates one alert instead of stacking new ones.
        """
        return "-".join([f"{self.game}-{self.board}"] + [str(p) for p in parts])

    def default_finding_id(self, kind: str, event: int | None) -> str | None:
        """The id a finding gets when its maker names none (None: a one-off finding)."""
        return None

    def finding(self, kind: str, section: Any, message: str, event: Event | int | None, *, seat: Any = None,
                trick: int | None = None, status: str = "pending", options: list[str] | None = None,
                remedy: str | None = None, id: str | None = None, rule: str | None = None,
                **extra: Any) -> Finding:
        """A finding of ``kind`` citing ``section`` (``rule``: a citation verbatim), not yet emitted.

        ``event`` is the event (or its index) that gave rise to it; the
        remaining keyword arguments are the kind's own fields (``card``,
        ``expected_seat`` ...), flattened into the JSON line.
        """
        index = event.index if isinstance(event, Event) else event
        return Finding(kind, rule=rule or self.cite(section), message=message, board=self.board, event=index,
                       seat=str(seat) if seat is not None else None, trick=trick, status=status,
                       options=list(options or []), remedy=remedy,
                       id=id if id is not None else self.default_finding_id(kind, index), extra=extra)

    def flag(self, kind: str, section: Any, message: str, event: Event | int | None, **kw: Any) -> Finding:
        """Make a finding (arguments as :meth:`finding`) and emit it."""
        return self.emit(self.finding(kind, section, message, event, **kw))

    def restep(self, finding: Finding, status: str, event: Event | int | None = None, message: str | None = None, *,
               section: Any = None, remedy: str | None = None, options: list[str] | None = None,
               **extra: Any) -> Finding:
        """Emit the next lifecycle step of ``finding`` (see :func:`tablecam.findings.next_step`).

        ``event`` None keeps the event of the step before; ``section`` cites
        another section of the rules for this step.
        """
        index = event.index if isinstance(event, Event) else finding.event if event is None else event
        return self.emit(next_step(finding, status, index, message,
                                   rule=self.cite(section) if section is not None else None,
                                   remedy=remedy, options=options, **extra))


RECENT_BOARDS = 16
"""Boards a table keeps for rulings that arrive after they ended (even without ``keep_history``)."""

CORRECTABLE = {"play": ("seat", "card"), "call": ("seat", "call"), "expose": ("seat", "card"),
               "deal": ("card",), "retract": ("seat", "card")}
"""The reads an operator may correct, and the fields a correction may change."""


def _finding_key(f: Finding) -> str:
    return json.dumps(f.to_dict(), sort_keys=True, default=str)


def engine_class(game: str) -> type[BoardEngine]:
    """Import the engine for ``game`` (raises KeyError / ImportError)."""
    mod, _, cls = ENGINES[game].partition(":")
    return getattr(importlib.import_module(mod), cls)


class Table:
    """A table's whole event log folded into state and findings.

    >>> from tablecam.events import read_events
    >>> t = Table()
    >>> out = t.feed(read_events(['{"type": "play", "seat": "N", "card": "SA"}']))
    >>> out[0].kind
    'bad_event'
    """

    def __init__(self, rulesets: dict[str, dict[str, Any]] | None = None, name: str | None = None,
                 keep_history: bool = True) -> None:
        self.name = name
        self.keep_history = keep_history
        self.rulesets = rulesets or {}
        self.board: BoardEngine | None = None
        self.boards: list[BoardEngine] = []
        self.recent: collections.deque[BoardEngine] = collections.deque(maxlen=RECENT_BOARDS)
        self.findings: list[Finding] = []
        self.count = 0
        self._held: list[Finding] = []   # a misdealt board's result, until the next board says if it was redealt
        self.sessions: dict[str, dict[str, Any]] = {}
        """Match state by game, for the engines that keep one (``keeps_match_state``)."""

    def apply(self, item: Event | Finding) -> list[Finding]:
        """Fold one event (or pass through a finding from a reader)."""
        self.count += 1
        if isinstance(item, Finding):
            return self._record([item])
        ev = item
        out: list[Finding] = []
        if ev.type == "board":
            out += self._close(None)
            out += self._release(ev)
            try:
                cls = engine_class(ev.get("game"))
            except (KeyError, ImportError, AttributeError) as e:
                out.append(bad_event(f"No engine for game {ev.get('game')!r} ({e}); board ignored.",
                                     ev.index, ev.get("board")))
                return self._record(out)
            ruleset = self.rulesets.get(ev.get("game"))
            if cls.keeps_match_state:
                ruleset = {**(ruleset or {})}
                ruleset.setdefault("session", self.sessions.setdefault(ev.get("game"), {}))
            self.board = cls(ev, ruleset)
            if self.keep_history:
                self.boards.append(self.board)
            self.recent.append(self.board)
            return self._record(out)
        if ev.type == "director_ruling":
            return self._record(self._ruling(ev))
        if ev.type == "correct" and self.board is not None and self.board.finished:
            return self._record([bad_event(f"Correction of event {ev.get('event')} after board {self.board.board} "
                                           "ended: its result stands; the director can rule on it.", ev.index,
                                           self.board.board)])
        if self.board is None or self.board.finished:
            out.append(bad_event(f"'{ev.type}' event before any 'board' event; skipped.", ev.index,
                                 self.board.board if self.board else None))
            return self._record(out)
        if ev.type == "correct":
            return self._record(self._correct(ev))
        self.board.events.append(ev)
        et = EVENT_TYPES.get(ev.type)
        if et is not None and et.observation:
            return self._record(out)  # kept in the board's log; nothing for the rules to judge
        try:
            out += self.board.apply(ev)
            if ev.type == "end":
                out += self._close(ev)
        except Exception as e:  # an engine bug must not lose the rest of the log
            out.append(bad_event(f"Engine could not process this event ({type(e).__name__}: {e}).",
                                 ev.index, self.board.board))
        return self._record(out)

    def _ruling(self, ev: Event) -> list[Finding]:
        """A director's ruling: applied to the board it names (in play or one of the last
        :data:`RECENT_BOARDS`), else to the board in progress.  A ruling usually comes after its
        board has ended, often while the next one is played."""
        number = ev.get("board")
        b = self.board if number is None else next(
            (x for x in reversed(self.recent) if str(x.board) == str(number)), None)
        if b is None:
            return [bad_event(f"Ruling for board {number}, which this table has not played (or not lately); "
                              "skipped.", ev.index, number)]
        b.events.append(ev)
        try:
            return b.rule(ev)
        except Exception as e:  # an engine bug must not lose the rest of the log
            return [bad_event(f"Engine could not apply the ruling ({type(e).__name__}: {e}).", ev.index, b.board)]

    def _correct(self, ev: Event) -> list[Finding]:
        """An operator's correction of an earlier read of the board in progress.

        The board is folded again from its ``board`` event with the read
        replaced (engines are pure folds, so this is the state the table
        would have had with the right read).  The original read stays in the
        log.  Returned: the findings the corrected fold raises that the old
        one had not, and a ``withdrawn`` step of every irregularity still
        pending that exists only because of the wrong read.
        """
        b = self.board
        assert b is not None
        target = ev.data["event"]
        pos = next((i for i, e in enumerate(b.events) if e.index == target and i), None)
        if pos is None:
            return [bad_event(f"Correction of event {target}, which is not a read of the board in progress; "
                              "skipped.", ev.index, b.board)]
        old = b.corrected.get(target, b.events[pos])
        fields = CORRECTABLE.get(old.type, ())
        change = {k: ev.data[k] for k in fields if k in ev.data}
        if not change or any(k in ev.data for k in ("seat", "card", "call") if k not in fields):
            return [bad_event(f"A correction of a '{old.type}' event may change {', '.join(fields) or 'nothing'}; "
                              "skipped.", ev.index, b.board)]
        fixed = Event(old.type, {**old.data, **change}, old.index, old.ts, ev.source or old.source,
                      {**(old.raw or {}), **{k: str(v) for k, v in change.items()}, "corrects": old.index})
        before = {_finding_key(f) for f in b.findings}
        nb = type(b)(b.board_event, b.ruleset)
        nb.corrected = {**b.corrected, target: fixed}
        fresh: list[Finding] = []
        for e in b.events[1:]:
            nb.events.append(e)
            et = EVENT_TYPES.get(e.type)
            if e.type == "correct" or (et is not None and et.observation):
                continue
            e = nb.corrected.get(e.index, e) if e.index is not None else e
            try:
                fresh += nb.rule(e) if e.type == "director_ruling" else nb.apply(e)
            except Exception as x:
                fresh.append(bad_event(f"Engine could not process this event ({type(x).__name__}: {x}).",
                                       e.index, b.board))
        nb.events.append(ev)
        out = [f for f in fresh if _finding_key(f) not in before]
        now_ids = {f.id for f in nb.findings if f.id}
        last: dict[str, Finding] = {}
        for f in b.findings:
            if f.id:
                last[f.id] = f
        for fid, f in last.items():
            if fid not in now_ids and f.status == "pending":
                out.append(next_step(f, "withdrawn", ev.index, f"Withdrawn: event {target} was corrected "
                                     f"({', '.join(f'{k} {v}' for k, v in change.items())}); " + f.message))
        self.board = nb
        if self.keep_history and self.boards and self.boards[-1] is b:
            self.boards[-1] = nb
        if self.recent and self.recent[-1] is b:
            self.recent[-1] = nb
        return out

    def _close(self, ev: Event | None) -> list[Finding]:
        b = self.board
        if b is None or b.finished:
            return []
        b.finished = True
        try:
            out = b.finish(ev)
            if b.may_be_redealt():
                self._held = [f for f in out if f.kind == "result"]
                out = [f for f in out if f.kind != "result"]
            return out
        except Exception as e:
            return [bad_event(f"Engine could not finish the board ({type(e).__name__}: {e}).",
                              ev.index if ev else None, b.board)]

    def _release(self, next_board: Event | None) -> list[Finding]:
        """A held result goes out unless the next board is the same board dealt again.

        Why: a misdealt board is dealt again under the same number; its empty
        result ("no contract and no play") would otherwise stand beside the
        redeal's real one, two contradicting results for one board."""
        held, self._held = self._held, []
        if held and next_board is not None and str(next_board.get("board")) == str(held[0].board):
            return []
        return held

    def close(self) -> list[Finding]:
        """End of input: finish the board in progress."""
        out = self._close(None)
        return self._record(out + self._release(None))

    def _record(self, out: list[Finding]) -> list[Finding]:
        """What the table reports: each finding that names no board gets the number of the board in
        progress (a new record; the engine keeps the one it made)."""
        if out and self.board is not None and self.board.board is not None:
            number = self.board.board
            out = [dataclasses.replace(f, board=number) if f.board is None else f for f in out]
        if self.keep_history:
            self.findings += out
        return out

    def feed(self, items: Iterable[Event | Finding]) -> list[Finding]:
        """Fold a whole stream and close it; return every finding in order."""
        out: list[Finding] = []
        for it in items:
            out += self.apply(it)
        out += self.close()
        return out


def replay(items: Iterable[Event | Finding], rulesets: dict[str, dict[str, Any]] | None = None) -> Iterator[Finding]:
    """Stream findings from an event stream (lazily: suits very large archives)."""
    t = Table(rulesets, keep_history=False)
    for it in items:
        yield from t.apply(it)
    yield from t.close()
