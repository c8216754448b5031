"""Which part of tablecam may import which: the layout, checked.

- the core (``cards``, ``events``, ``findings``, ``engine``, ``kinds``, and
  ``config``, the strict base every file a user edits is read with, rule
  tables included) is what everything builds on; ``rules/`` imports only the core, and
  ``archive/`` only the core and the event store (a ``.sqlite`` store is a
  file it reads), which imports only the core;
- ``rules/`` holds rules only: every module in it belongs to a game's
  engine (reached by imports from :data:`tablecam.engine.ENGINES`), so a
  generator of test deals cannot sit there unnoticed (they are ``sim/``'s);
- the director station (``server/``) never imports what runs at a table:
  ``shoe/``, ``vision/``, ``node/`` (nor the training lab);
- ``bus/`` is transport: it imports no source of events (``node/``,
  ``shoe/``, ``vision/``, ``sim/``) and no station's web code;
- the vision runtime (``vision/``) never imports the training lab:
  ``tablecam.training`` (renders, deck designs, recipes, evaluation, tuning)
  may import the runtime, not the other way round.

Checked by parsing every module's imports, so a lazy import inside a
function counts too.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "tablecam"
CORE = ("tablecam", "tablecam.cards", "tablecam.events", "tablecam.findings", "tablecam.engine", "tablecam.kinds",
        "tablecam.config")


def _module(path: Path) -> str:
    parts = ["tablecam", *path.relative_to(PKG).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(path: Path, package: list[str] | None = None) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in one module of tablecam."""
    if package is None:
        package = _module(path).split(".")
        if path.name != "__init__.py":
            package = package[:-1]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            name = ".".join(base + ([node.module] if node.module else []))
            out.append((node.lineno, name))
            out += [(node.lineno, f"{name}.{a.name}") for a in node.names]  # "from .. import training"
    return out


def _area(name: str) -> str:
    """``tablecam.rules.vira.board`` -> ``tablecam.rules``; ``tablecam.kinds`` stays."""
    return ".".join(name.split(".")[:2])


def _breaches(area: str, allowed: tuple[str, ...] = (), forbidden: tuple[str, ...] = ()) -> list[str]:
    """Imports of tablecam modules from ``tablecam/<area>/`` outside ``allowed`` (when given) or inside ``forbidden``."""
    modules = sorted((PKG / area).rglob("*.py"))
    assert modules, area
    bad = []
    for p in modules:
        for line, name in _imported(p):
            if not name.startswith("tablecam"):
                continue
            top = _area(name)
            if (allowed and top not in allowed + (f"tablecam.{area}",)) or top in forbidden:
                bad.append(f"{p.relative_to(ROOT)}:{line} imports {name}")
    return bad


def test_rules_import_only_the_core():
    bad = _breaches("rules", allowed=CORE)
    assert not bad, "\n".join(bad)


def test_archive_imports_only_the_core_and_the_event_store():
    bad = _breaches("archive", allowed=CORE + ("tablecam.store",))
    assert not bad, "\n".join(bad)


def test_the_event_store_imports_only_the_core():
    """A store is read back by archive readers and replays, so it needs nothing that runs a table."""
    bad = [f"tablecam/store.py:{line} imports {name}" for line, name in _imported(PKG / "store.py")
           if name.startswith("tablecam") and _area(name) not in CORE]
    assert not bad, "\n".join(bad)


def test_rules_hold_only_what_an_engine_uses():
    """Every module under rules/ is reached from a game's engine: no generators, no test helpers."""
    modules = {_module(p): p for p in (PKG / "rules").rglob("*.py")}
    todo = re.findall(r'"(tablecam\.rules\.\w+):', (PKG / "engine.py").read_text())
    assert len(todo) == 4
    seen: set[str] = set()
    while todo:
        m = todo.pop()
        if m in seen or m not in modules:
            continue
        seen.add(m)
        parts = m.split(".")
        todo += [".".join(parts[:i]) for i in range(2, len(parts))]  # its packages are imported too
        todo += [n for _, n in _imported(modules[m]) if n in modules]
    assert sorted(set(modules) - seen) == []


def test_the_director_station_never_imports_what_runs_at_a_table():
    bad = _breaches("server", forbidden=("tablecam.shoe", "tablecam.vision", "tablecam.node", "tablecam.training"))
    assert not bad, "\n".join(bad)


def test_the_bus_is_transport_only():
    """bus/ carries events and keeps the station's order; it builds no source of them."""
    bad = _breaches("bus", allowed=CORE + ("tablecam.store", "tablecam.config"))
    assert not bad, "\n".join(bad)
    names = sorted(p.stem for p in (PKG / "bus").glob("*.py"))
    assert names == ["__init__", "base", "inproc", "mqtt", "station", "stationlink"]


def test_vision_runtime_imports_no_training_module():
    bad = _breaches("vision", forbidden=("tablecam.training",))
    assert len(list((PKG / "vision").rglob("*.py"))) > 10
    assert not bad, "\n".join(bad)


def test_the_check_sees_relative_and_lazy_imports(tmp_path):
    """The parser resolves ``from ..training.synth import x`` inside a function."""
    fake = tmp_path / "mod.py"
    fake.write_text("def f():\n    from ..training.synth import render_scene\n    from . import detector\n")
    names = [n for _, n in _imported(fake, ["tablecam", "vision"])]
    assert "tablecam.training.synth" in names and "tablecam.vision.detector" in names


def test_module_names():
    assert _module(PKG / "rules" / "vira" / "board.py") == "tablecam.rules.vira.board"
    assert _module(PKG / "rules" / "vira" / "__init__.py") == "tablecam.rules.vira"
    assert _module(PKG / "engine.py") == "tablecam.engine"
