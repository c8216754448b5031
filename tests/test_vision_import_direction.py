"""The vision runtime never imports the training lab.

A table runs ``tablecam.vision`` (capture, calibration, tracker, pipeline,
fusion, the detector and its models); ``tablecam.training`` (renders, deck
designs, recipes, evaluation, tuning) may import the runtime, not the
other way round.  Checked by parsing every runtime module's imports, so a
lazy import inside a function counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VISION = ROOT / "tablecam" / "vision"


def _imported(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in one module of tablecam.vision."""
    package = ["tablecam", "vision"]
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


def test_vision_runtime_imports_no_training_module():
    modules = sorted(VISION.rglob("*.py"))
    assert len(modules) > 10
    bad = [f"{p.relative_to(ROOT)}:{line} imports {name}" for p in modules for line, name in _imported(p)
           if name == "tablecam.training" or name.startswith("tablecam.training.")]
    assert not bad, "\n".join(bad)


def test_the_check_sees_relative_and_lazy_imports(tmp_path):
    """The parser resolves ``from ..training.synth import x`` inside a function."""
    fake = tmp_path / "mod.py"
    fake.write_text("def f():\n    from ..training.synth import render_scene\n    from . import detector\n")
    names = [n for _, n in _imported(fake)]
    assert "tablecam.training.synth" in names and "tablecam.vision.detector" in names
