"""Findings: what the engines tell the director.

A finding is one line of ``tablecam replay --json`` output. Irregularities
have a lifecycle (``pending`` -> ``corrected`` / ``established`` ->
``rectified``); each step is emitted as its own finding with the same ``id``
so a dashboard can update one alert instead of stacking new ones, while a
plain JSON Lines consumer still sees every step in order.

>>> f = Finding("revoke", rule="Law 61", message="S revoked.", board=1, event=7,
...             seat="S", trick=3, extra={"established": False})
>>> f.to_dict()["established"], f.to_dict()["seat"], f.status
(False, 'S', 'pending')

A finding is a frozen record: a later step is a new finding (:func:`next_step`,
:func:`dataclasses.replace`), never an edit of one already reported, so the
dashboard, the archive and the log all keep what was said at the time.

>>> f.status = "established"
Traceback (most recent call last):
...
dataclasses.FrozenInstanceError: cannot assign to field 'status'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

LIFECYCLE = ("pending", "corrected", "established", "rectified", "info", "withdrawn")
"""Statuses an irregularity passes through. ``info`` is for non-irregular
findings such as ``result``; ``withdrawn``: the read that raised it was
corrected by the operator, so there was no irregularity."""

SEVERITY = {
    "bad_event": "warning",
    "archive_flaw": "info",
    "result": "info",
    "score": "info",
    "director_ruling": "info",
}
"""Default alert severity by kind; anything unlisted is an ``alert``."""


class ReadOnlyDict(dict):  # type: ignore[type-arg]
    """A dict that cannot be changed once made: a frozen record's mapping field.

    A dict, not a ``types.MappingProxyType``, so a finding still copies,
    pickles and serialises as before (``json.dumps``, ``copy.deepcopy``).

    >>> m = ReadOnlyDict({"a": 1})
    >>> m["a"], m == {"a": 1}, {**m, "b": 2}
    (1, True, {'a': 1, 'b': 2})
    >>> m["a"] = 2
    Traceback (most recent call last):
    ...
    TypeError: a ReadOnlyDict cannot be changed; make a new one
    """

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("a ReadOnlyDict cannot be changed; make a new one")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self) -> tuple[Any, ...]:
        return (ReadOnlyDict, (dict(self),))


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the director (or archivist) should know about.

    ``extra`` carries kind-specific fields (``established``, ``tricks``,
    ``card`` ...) and is flattened into the JSON object, so the contract's
    field names appear at top level.

    Frozen: ``options`` is kept as a tuple and ``extra`` as a
    :class:`ReadOnlyDict` (both copied from what the constructor is given,
    which may be a list and a dict); the values inside ``extra`` are the
    caller's and are not to be changed either.
    """

    kind: str
    rule: str = ""
    message: str = ""
    board: Any = None
    event: int | None = None
    seat: str | None = None
    trick: int | None = None
    status: str = "pending"
    options: Sequence[str] = ()
    remedy: str | None = None
    id: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # The one place a finding's fields are set after __init__: normalising what it was given.
        if self.seat is not None and type(self.seat) is not str:
            object.__setattr__(self, "seat", str(self.seat))
        if type(self.options) is not tuple:
            object.__setattr__(self, "options", tuple(self.options))
        object.__setattr__(self, "extra", ReadOnlyDict(self.extra))

    @property
    def severity(self) -> str:
        return SEVERITY.get(self.kind, "alert")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict in the field order of the contract."""
        d: dict[str, Any] = {
            "kind": self.kind,
            "board": self.board,
            "rule": self.rule,
            "message": self.message,
            "event": self.event,
        }
        if self.seat is not None:
            d["seat"] = self.seat
        if self.trick is not None:
            d["trick"] = self.trick
        for k, v in self.extra.items():
            d[k] = _jsonable(v)
        d["status"] = self.status
        if self.options:
            d["options"] = list(self.options)
        if self.remedy:
            d["remedy"] = self.remedy
        if self.id:
            d["id"] = self.id
        return d


def _jsonable(v: Any) -> Any:
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return str(v)


def next_step(f: Finding, status: str, event: int | None, message: str | None = None, *, rule: str | None = None,
              remedy: str | None = None, options: list[str] | None = None, **extra: Any) -> Finding:
    """The same irregularity one lifecycle step on: same ``id``, ``kind``, ``seat`` and ``trick``.

    ``message``, ``rule``, ``remedy`` and ``options`` replace the old ones when
    given (``options=[]``: no choice is left); ``extra`` fields are added to
    the old ones. A new :class:`Finding`, so the earlier step stays as it was
    reported.

    >>> f = Finding("revoke", rule="Law 61", message="S revoked.", board=1, event=7, seat="S",
    ...             options=["correct it"], id="b1-revoke-S-3", extra={"established": False})
    >>> g = next_step(f, "established", 12, established=True, options=[])
    >>> g.id, g.status, g.event, g.message, g.options, dict(g.extra)
    ('b1-revoke-S-3', 'established', 12, 'S revoked.', (), {'established': True})
    """
    return Finding(f.kind, rule=rule or f.rule, message=message or f.message, board=f.board, event=event,
                   seat=f.seat, trick=f.trick, status=status,
                   options=f.options if options is None else options, remedy=remedy or f.remedy, id=f.id,
                   extra={**f.extra, **extra})


def bad_event(message: str, event: int | None, board: Any = None, line: str | None = None) -> Finding:
    """The finding for an unreadable or impossible input line."""
    extra = {"line": line[:200]} if line is not None else {}
    return Finding(
        "bad_event",
        rule="tablecam event log",
        message=message,
        board=board,
        event=event,
        status="info",
        extra=extra,
    )
