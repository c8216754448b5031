"""One way to make a finding in the Nordic engines: every kind they raise is named in
``tablecam.kinds``, and no finding maker in whist, Pidro or Vira is handed a bare kind string."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from tablecam import kinds
from tablecam.engine import replay
from tablecam.events import read_events
from tablecam.sim.session import session_events

ROOT = Path(__file__).resolve().parents[1]
GAMES = ("whist", "pidro", "vira")


def _logs() -> list[Path]:
    return sorted(p for g in GAMES for p in (ROOT / "tests" / "data" / g).glob("*.jsonl"))


@pytest.mark.parametrize("path", _logs(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_kind_a_nordic_log_raises_is_named(path: Path) -> None:
    with open(path, encoding="utf-8") as fp:
        raised = {f.kind for f in replay(read_events(fp))}
    assert raised <= kinds.ALL, raised - kinds.ALL


@pytest.mark.parametrize("game", GAMES)
def test_every_kind_a_simulated_session_raises_is_named(game: str) -> None:
    lines = [json.dumps(e) for e in session_events(game, 6, 3, 0.3)]
    raised = {f.kind for f in replay(read_events(lines))}
    assert raised <= kinds.ALL, raised - kinds.ALL


MAKERS = {"flag", "finding", "_offence"}


@pytest.mark.parametrize("game", GAMES)
def test_finding_makers_take_named_kinds_not_strings(game: str) -> None:
    bare = []
    for path in sorted((ROOT / "tablecam" / "rules" / game).glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MAKERS \
                    and node.args:
                bare += [f"{path.name}:{node.lineno} {c.value!r}" for c in ast.walk(node.args[0])
                         if isinstance(c, ast.Constant) and isinstance(c.value, str)]
    assert not bare
