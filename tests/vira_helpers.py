"""Shared helpers for the Vira tests (not a test module): replay a recorded deal, fold events."""

from __future__ import annotations

import json
from pathlib import Path

import tablecam.rules.vira  # noqa: F401  (registers the Vira event types)
from tablecam.engine import Table
from tablecam.events import parse_event, read_event_file

DATA = Path(__file__).parent / "data" / "vira"


def replay(name: str):
    """Findings and the board engine after replaying ``tests/data/vira/<name>.jsonl``."""
    t = Table()
    out = t.feed(read_event_file(str(DATA / f"{name}.jsonl")))
    return out, t.boards[-1]


def raw(name: str) -> list[dict]:
    return [json.loads(x) for x in (DATA / f"{name}.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]


def fold(events):
    """Findings and the board engine after folding event dicts."""
    t = Table()
    out = t.feed(parse_event(e, i) for i, e in enumerate(events))
    return out, t.boards[-1]


def of(out, kind):
    return [f for f in out if f.kind == kind]


def score(out):
    return [f for f in out if f.kind == "score"][-1].to_dict()
