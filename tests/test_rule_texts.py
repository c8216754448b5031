"""Every rule citation an engine can put in a finding has its own text for the director.

The citations are found by reading the engines' source and rule data, not
from a hand-kept list, so a new ``rule="Law 45C"`` or a new whist section in
the code fails here until ``tablecam/server/rules_index.json`` explains it:

- bridge: every string constant that is a whole Law citation (``Law 62B1``)
  in the package's code, and every ``rule`` of ``rules/bridge/laws.json`` and
  of the shoe's dealing plans;
- Pidro and es-makker whist: the section argument of every ``_finding`` call
  (a constant, or each constant the variable passed is set to) and every
  f-string that starts with the engine's ``RULE``;
- Vira: every rule key passed to ``flag``, ``restate(key=...)`` or ``cite``
  (it must be a section of the ruleset, else the citation would be the bare
  key), cited with the ruleset's prefix.

A replay of every test and real data file then checks the walk missed no
citation the engines really emit.
"""

from __future__ import annotations

import ast
import glob
import json
import os
import re
from pathlib import Path

import pytest

from tablecam.server.rules_index import _index, rule_reference

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "tablecam"
LAW = re.compile(r"^Law \d+[A-Z]?\d*(\([a-z]\))?$")
GENERIC = {"Law", "Vira", "Pidro", "Es-makker"}
"""Index keys that only say which rule book: a citation resolving to one has no text of its own."""


def _parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text("utf-8"), str(path))


def _functions(tree: ast.AST) -> list[ast.AST]:
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _constants(expr: ast.AST, scope: ast.AST, seen: set[str] | None = None) -> set:
    """Every constant ``expr`` can be, following local names assigned in ``scope``."""
    seen = seen or set()
    if isinstance(expr, ast.Constant):
        return {expr.value}
    if isinstance(expr, ast.IfExp):
        return _constants(expr.body, scope, seen) | _constants(expr.orelse, scope, seen)
    if isinstance(expr, ast.BoolOp):
        return set().union(*(_constants(v, scope, seen) for v in expr.values))
    if isinstance(expr, ast.Name) and expr.id not in seen:
        seen = seen | {expr.id}
        values: set = set()
        for node in ast.walk(scope):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == expr.id
                                                    for t in node.targets):
                values |= _constants(node.value, scope, seen)
        if not values:
            raise AssertionError(f"cannot resolve the rule argument {expr.id!r} at line {expr.lineno}")
        return values
    raise AssertionError(f"cannot resolve the rule argument {ast.unparse(expr)!r} at line {expr.lineno}")


def _call_args(tree: ast.AST, method: str, position: int, keyword: str | None = None,
               callers: set[str] | None = None) -> set:
    """Constants passed as argument ``position`` (or ``keyword``) to ``.method(...)`` calls.

    A call inside a function whose own parameter is passed on (``section``)
    is followed to that function's callers (``callers`` collects them)."""
    found: set = set()
    for fn in _functions(tree):
        params = {a.arg for a in fn.args.args}
        for node in ast.walk(fn):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == method):
                continue
            arg = None
            if keyword:
                arg = next((k.value for k in node.keywords if k.arg == keyword), None)
            if arg is None and len(node.args) > position:
                arg = node.args[position]
            if arg is None:
                continue
            if isinstance(arg, ast.Name) and arg.id in params and fn.name != method:
                if not any(isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == arg.id
                                                              for t in n.targets) for n in ast.walk(fn)):
                    found |= _call_args(tree, fn.name, [a.arg for a in fn.args.args].index(arg.id) - 1)
                    continue
            found |= _constants(arg, fn)
    return found


def _fstring_tails(tree: ast.AST, head: str) -> set[str]:
    """The constant rest of every f-string ``f"{head}..."`` (``{RULE}: Kortgivningen`` -> ``: Kortgivningen``)."""
    out = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.JoinedStr) and len(node.values) == 2
                and isinstance(node.values[0], ast.FormattedValue)
                and isinstance(node.values[0].value, ast.Name) and node.values[0].value.id == head
                and isinstance(node.values[1], ast.Constant)):
            out.add(node.values[1].value)
    return out


def bridge_citations() -> set[str]:
    out = set()
    for path in PKG.rglob("*.py"):
        if "server" in path.parts:
            continue
        for node in ast.walk(_parse(path)):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and LAW.match(node.value):
                out.add(node.value)
    laws = json.loads((PKG / "rules/bridge/laws.json").read_text("utf-8"))
    out |= {v["rule"] for v in laws.values() if isinstance(v, dict) and "rule" in v}
    return out


def shoe_citations() -> set[str]:
    plans = json.loads((PKG / "shoe/dealing.json").read_text("utf-8"))
    return {p[k] for p in plans.values() if isinstance(p, dict) for k in ("rule", "count_rule") if k in p}


def pidro_citations() -> set[str]:
    from tablecam.rules.pidro.board import RULE

    tree = _parse(PKG / "rules/pidro/board.py")
    sections = _call_args(tree, "_finding", 1)
    return {f"{RULE} {s}" for s in sections} | {RULE + t for t in _fstring_tails(tree, "RULE")}


def whist_citations() -> set[str]:
    from tablecam.rules.whist.board import RULE

    tree = _parse(PKG / "rules/whist/board.py")
    sections = _call_args(tree, "_finding", 1)
    return {f"{RULE}: {s}" for s in sections} | {RULE + t for t in _fstring_tails(tree, "RULE")}


def vira_keys() -> set[str]:
    keys: set[str] = set()
    for path in (PKG / "rules/vira").glob("*.py"):
        tree = _parse(path)
        keys |= _call_args(tree, "flag", 1)
        keys |= _call_args(tree, "cite", 0)
        keys |= {k for k in _call_args(tree, "restate", 99, keyword="key") if k is not None}
    return keys


def vira_citations() -> set[str]:
    ruleset = json.loads((ROOT / "config/vira/sm-2025.json").read_text("utf-8"))
    sections = ruleset["sections"]
    prefix = ruleset["cite_prefix"]
    return {f"{prefix} {sections[k]['cite']}" for k in vira_keys() if k in sections} | \
        {f"{prefix} {s['cite']}" for s in sections.values()}


def all_citations() -> set[str]:
    return (bridge_citations() | shoe_citations() | pidro_citations() | whist_citations()
            | vira_citations() | {"tablecam event log", "PBN 2.1 standard", "BBO LIN format"})


def _own_entry(citation: str) -> str | None:
    """The index key a citation resolves to, unless it is only a rule book's name."""
    ref = rule_reference(citation)
    if ref is None:
        return None
    rules = _index()["rules"]
    key = next(k for k, v in rules.items() if v["title"] == ref["title"] and v["text"] == ref["text"])
    return None if key in GENERIC else key


def test_the_walk_finds_the_engines_citations() -> None:
    cites = all_citations()
    # a few from each engine, found in code, data and f-strings
    assert {"Law 62B1", "Law 79A", "Law 13", "Law 1", "Law 14B"} <= cites
    assert {"Pidroregler 1", "Pidroregler 4", "Es-makker whist: Kortgivningen",
            "Es-makker whist: Renons i Makker-es kulør", "Vira SM 2025 J.6", "Vira SM 2025 E"} <= cites
    assert len(cites) > 120


def test_every_vira_rule_key_is_a_section_of_the_ruleset() -> None:
    sections = json.loads((ROOT / "config/vira/sm-2025.json").read_text("utf-8"))["sections"]
    assert sorted(vira_keys() - set(sections)) == []


@pytest.mark.parametrize("citation", sorted(all_citations()))
def test_every_citation_has_its_own_text(citation: str) -> None:
    key = _own_entry(citation)
    assert key, f"{citation!r} has no text of its own in rules_index.json"
    ref = rule_reference(citation)
    assert ref["title"] and len(ref["text"]) > 20 and "See the WBF" not in ref["text"]


def test_no_engine_emits_a_citation_the_walk_missed() -> None:
    from tablecam.archive import load
    from tablecam.engine import replay

    files = sorted(glob.glob(str(ROOT / "tests/data/*/*.jsonl")) + glob.glob(str(ROOT / "tests/data/archive/*")))
    emitted = {f.rule for path in files for f in replay(load(path))}
    assert emitted - all_citations() == set()
    assert len(emitted) > 40
