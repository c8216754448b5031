"""How often each kind of call is made, counted from real championship auctions.

The camera's bid-card reader sometimes reads the level of a small card
unsurely (a ``3S`` whose digit is a few pixels high, read as ``7S`` at
0.5). A person reading the same card knows that a bid of seven after
nothing, or a triple jump, is rare, and reads it again before believing
it. :mod:`tablecam.vision.call_prior` gives the camera that knowledge from
the table this module writes: for each situation at the table (has anyone
bid yet, may the player double, may he redouble) how many calls were a
pass, a double, a redouble, or a bid at the lowest level its strain allows
(jump 0), one level above it (jump 1), and so on.

Counted from the real auctions in ``../shared/data/bridge/`` (championship
deals; the bidding benchmark's simulated auctions are not used), so the
table reflects how people bid, not how the simulator does::

    python -m tablecam.training.call_prior            # writes tablecam/vision/models/call_prior.json
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from ..archive.pbn import read_pbn
from ..sim.real_deals import boards
from ..vision.bidcards import BIDS
from ..vision.call_prior import MODEL, category, situation

ARCHIVES = [Path("../shared/data/bridge/realbridge-2021.pbn"), Path("../shared/data/bridge/wc2012-vugraph.pbn")]


def auctions(paths: list[Path]) -> list[list[str]]:
    """Every auction in the archives, as its calls in order (boards without one are left out)."""
    found = ([e.call for e in board if e.type == "call"] for path in paths for board in boards(read_pbn(str(path))))
    return [calls for calls in found if calls]


def count(all_calls: list[list[str]]) -> dict[str, Counter[str]]:
    """Calls counted by the situation they were made in.

    >>> c = count([["1C", "P", "1N", "P", "P", "P"]])
    >>> dict(c["open"]), dict(c["bid, X"]), dict(c["bid"])
    ({'jump0': 1}, {'P': 3}, {'jump0': 1, 'P': 1})
    """
    out: dict[str, Counter[str]] = {}
    for calls in all_calls:
        for i, call in enumerate(calls):
            if call not in BIDS and call not in ("P", "X", "XX"):
                continue
            out.setdefault(situation(calls[:i]), Counter())[category(calls[:i], call)] += 1
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("archives", nargs="*", type=Path, default=ARCHIVES)
    ap.add_argument("--out", type=Path, default=MODEL)
    a = ap.parse_args()
    found = auctions(a.archives)
    counts = count(found)
    table = {
        "what": "calls of real auctions counted by situation (tablecam.vision.call_prior)",
        "recipe": "python -m tablecam.training.call_prior " + " ".join(str(p) for p in a.archives),
        "auctions": len(found),
        "calls": sum(sum(c.values()) for c in counts.values()),
        "counts": {s: dict(sorted(c.items())) for s, c in sorted(counts.items())},
    }
    a.out.write_text(json.dumps(table, indent=1) + "\n")
    print(f"{len(found)} auctions, {table['calls']} calls -> {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
