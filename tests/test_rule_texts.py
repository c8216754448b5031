"""Every rule citation an engine can put in a finding has its own text for the director.

The citations are found by reading the engines' source and rule data, not
from a hand-kept list, so a new ``rule="Law 45C"`` or a new whist section in
the code fails here until ``tablecam/server/rules_index.json`` explains it:

- bridge: every string constant that is a whole Law citation (``Law 62B1``)
  in the package's code, and every ``rule`` of ``rules/bridge/laws.json`` and
  of the shoe's dealing plans;
- Pidro, es-makker whist and Vira: the section passed to the engine's
  ``flag``, ``finding``, ``cite`` or ``restep(section=...)`` (a constant, or
  each constant the name passed is set to), made a citation by the game's
  own ``cite``; a Vira section is a key of the ruleset's sections (else the
  citation would be the bare key), and every section of the ruleset counts,
  for the outcomes that cite one found in a record.

A replay of every test and real data file then checks the walk missed no
citation the engines really emit.
"""

from __future__ import annotations

import ast
import glob
import json
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


def _assigned(name: str, scopes: list[ast.AST]) -> list[ast.AST]:
    """The values ``name`` is set to, in the first scope that sets it (a function, then its modules)."""
    for scope in scopes:
        values = [node.value for node in ast.walk(scope) if isinstance(node, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)]
        if values:
            return values
    return []


def _constants(expr: ast.AST, scopes: list[ast.AST], seen: frozenset = frozenset()) -> set:
    """Every constant ``expr`` can be, following names set in the function, else in the game's modules."""
    if isinstance(expr, ast.Constant):
        return {expr.value}
    if isinstance(expr, ast.IfExp):
        return _constants(expr.body, scopes, seen) | _constants(expr.orelse, scopes, seen)
    if isinstance(expr, ast.BoolOp):
        return set().union(*(_constants(v, scopes, seen) for v in expr.values))
    if isinstance(expr, ast.Name) and expr.id not in seen:
        values = _assigned(expr.id, scopes)
        if values:
            return set().union(*(_constants(v, scopes, seen | {expr.id}) for v in values))
    raise AssertionError(f"cannot resolve the rule argument {ast.unparse(expr)!r} at line {expr.lineno}")


SECTION_ARGS = {"flag": 1, "finding": 1, "cite": 0}
"""The engine helpers that take a section of the game's rules (see BoardEngine.finding), by argument position."""


def _sections(package: Path) -> set:
    """Every section a game's engine passes to ``flag``, ``finding``, ``cite`` or ``restep(section=)``.

    A call whose section is a parameter of the function it sits in (a
    helper that passes its caller's section on) is followed to that
    helper's own calls."""
    trees = [_parse(p) for p in sorted(package.glob("*.py"))]
    found: set = set()
    helpers: dict[str, int] = {}
    todo = dict(SECTION_ARGS)
    while todo:
        method, position = todo.popitem()
        helpers[method] = position
        for tree in trees:
            for fn in _functions(tree):
                params = [a.arg for a in fn.args.args]
                for node in ast.walk(fn):
                    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                            and node.func.attr == method):
                        continue
                    kw = {k.arg: k.value for k in node.keywords}
                    if "rule" in kw and not (isinstance(kw["rule"], ast.Constant) and kw["rule"].value is None):
                        continue  # a verbatim citation: checked where it is made
                    arg = kw.get("section") if method == "restep" else (
                        node.args[position] if len(node.args) > position else kw.get("section"))
                    if arg is None:
                        continue
                    if isinstance(arg, ast.Name) and arg.id in params and not _assigned(arg.id, [fn]):
                        if fn.name not in helpers and fn.name not in todo:
                            todo[fn.name] = params.index(arg.id) - (1 if params[:1] == ["self"] else 0)
                        continue
                    found |= _constants(arg, [fn, *trees])
        if method == "flag":
            todo.setdefault("restep", -1)
    return found


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


def _cite(game: str, section) -> str:
    """What the game's engine makes of a section (its own ``cite``), on the default ruleset."""
    from tablecam.engine import engine_class
    from tablecam.events import parse_event

    board = engine_class(game)(parse_event({"type": "board", "game": game, "board": 1, "dealer": "N"}, 0))
    return board.cite(section)


def pidro_citations() -> set[str]:
    return {_cite("pidro", s) for s in _sections(PKG / "rules/pidro") if s is not None}


def whist_citations() -> set[str]:
    return {_cite("whist", s) for s in _sections(PKG / "rules/whist") if s is not None}


def _vira_ruleset() -> dict:
    return json.loads(next(ROOT.glob("tablecam/rules/vira/tables/sm-2025.json")).read_text("utf-8"))


def vira_keys() -> set[str]:
    return {k for k in _sections(PKG / "rules/vira") if k is not None}


def vira_citations() -> set[str]:
    ruleset = _vira_ruleset()
    prefix = ruleset["cite_prefix"]
    # every section, for the outcomes that cite a section found in a record (a redeal's, a bet's reason)
    return {_cite("vira", k) for k in vira_keys()} | {f"{prefix} {s['cite']}" for s in ruleset["sections"].values()}


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
    """Else ``cite`` would make the bare key the citation (``Vira SM 2025 concede``)."""
    assert sorted(vira_keys() - set(_vira_ruleset()["sections"])) == []


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
