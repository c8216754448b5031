"""Rule citations -> the text a director reads in the alert queue.

The table is data (``rules_index.json`` beside this module) so a tournament
can swap in its own wording or language without touching code. Lookup takes
the longest known prefix of the citation, so ``Law 64A`` finds its own entry
and ``Law 99`` still gets a link to the Laws.

>>> ref = rule_reference("Law 64A")
>>> ref["title"], ref["url"].endswith(".pdf")
('Revoke: automatic trick adjustment', True)
>>> rule_reference("Law 62D")["title"]
'Correction of a revoke'
>>> rule_reference("Vira SM 2025 E.7")["file"]
'vira-sm-2025-regler.sv.txt'
>>> rule_reference("") is None
True
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any


@lru_cache(maxsize=1)
def _index() -> dict[str, Any]:
    return json.loads(resources.files(__package__).joinpath("rules_index.json").read_text("utf-8"))


@lru_cache(maxsize=512)
def rule_reference(citation: str) -> dict[str, Any] | None:
    """``{"citation", "title", "text", "url"|"file"}`` for a citation, or None."""
    if not citation:
        return None
    idx = _index()
    rules: dict[str, dict[str, Any]] = idx["rules"]
    best = None
    for key in rules:
        if citation.startswith(key) and (best is None or len(key) > len(best)):
            # "Law 6" must not match "Law 64A": require a boundary after a digit key.
            rest = citation[len(key):]
            if key[-1].isdigit() and rest[:1].isdigit():
                continue
            best = key
    if best is None:
        return None
    ref = {"citation": citation, **rules[best]}
    if best.startswith("Law"):
        ref["url"] = idx["bridge_laws_url"]
    return ref
