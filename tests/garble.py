"""Shared robustness check (not a test module): garbled real logs never crash an engine.

Each round takes a recorded deal, drops, doubles, swaps or corrupts a few of
its lines, folds what is still readable through the game's engine and checks
the engine neither raises nor produces a finding without rule, message, event
index and lifecycle status.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from tablecam.engine import engine_class
from tablecam.events import read_events
from tablecam.findings import LIFECYCLE, Finding

JUNK = ["N", "E", "S", "W", "SA", "JK", "kitty", "7 vip", "gå med", "14", "P", "H", "D5", "C5"]


def garble(lines: list[str], rnd: random.Random) -> list[str]:
    lines = list(lines)
    for _ in range(rnd.randint(1, 6)):
        op, i = rnd.random(), rnd.randrange(1, len(lines))
        if op < 0.3:
            del lines[i]
        elif op < 0.5:
            lines.insert(rnd.randrange(1, len(lines)), lines[i])
        elif op < 0.7:
            j = rnd.randrange(1, len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        else:
            e = json.loads(lines[i])
            for k in ("seat", "card", "to", "call", "suit"):
                if k in e and rnd.random() < 0.5:
                    e[k] = rnd.choice(JUNK)
            lines[i] = json.dumps(e)
    return lines


def check_garbled_logs(game: str, files: list[Path], rounds: int = 150) -> None:
    for n in range(rounds):
        rnd = random.Random(n)
        lines = garble(rnd.choice(files).read_text().splitlines(), rnd)
        items = [x for x in read_events(lines) if not isinstance(x, Finding)]
        board, rest = items[0], [x for x in items[1:] if x.type != "board"]
        eng = engine_class(game)(board)
        out = []
        for ev in rest:
            out += eng.apply(ev)
        out += eng.finish(rest[-1] if rest else None)
        json.dumps(eng.snapshot())
        eng.legal_plays()
        for f in out:
            d = f.to_dict()
            assert d["rule"] and d["message"] and d["event"] is not None and d["status"] in LIFECYCLE, (n, d)
