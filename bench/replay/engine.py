"""Benchmark: the bridge engine alone, on complete simulated boards already parsed.

``bench/replay/run.py`` times the whole replay of the real archives (reading
included); this one leaves the reader out, to show what the engine's fast
path costs: 200 different complete boards (a contract bid and made or
set, 13 tricks played) from the tests' ``Game`` builder, reused ``--boards``
times, events parsed before the clock starts.  CPU time (process time), so
the figure moves less with the load of a shared machine than wall time.

    .venv/bin/python bench/replay/engine.py [--boards 10000]

Prints events and boards per second for the engine alone
(``BridgeBoard.apply`` + ``finish``) and for ``tablecam.engine.replay``
(the table fold around it).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from tablecam.engine import replay  # noqa: E402
from tablecam.events import Event, parse_event  # noqa: E402
from tablecam.rules.bridge import BridgeBoard  # noqa: E402


def boards(n: int = 200) -> list[list[Event]]:
    """``n`` different complete boards, each its parsed events."""
    from test_bridge_util import Game

    out = []
    for seed in range(n):
        g = Game(seed=seed, dealer="NESW"[seed % 4], board=seed)
        g.bid_and_set(["4S", "3N", "2H", "5D"][seed % 4], "NESW"[(seed * 7) % 4])
        g.play_tricks(13, high=seed % 2 == 0)
        g.add(type="end")
        out.append([parse_event(e, i) for i, e in enumerate(g.events)])
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=10_000, help="boards folded (200 different ones, reused)")
    args = ap.parse_args()
    pool = boards()
    evs = [e for k in range(args.boards) for e in pool[k % len(pool)]]

    t = time.process_time()
    sum(1 for _ in replay(evs))
    t_replay = time.process_time() - t

    t = time.process_time()
    for k in range(args.boards):
        b = pool[k % len(pool)]
        engine = BridgeBoard(b[0])
        for ev in b[1:]:
            engine.apply(ev)
        engine.finish(None)
    t_engine = time.process_time() - t

    print(f"{args.boards:,} boards, {len(evs):,} events ({len(evs) / args.boards:.0f} a board), CPU time:")
    print(f"  engine alone (BridgeBoard.apply + finish): {len(evs) / t_engine:,.0f} events/s, "
          f"{args.boards / t_engine:,.0f} boards/s")
    print(f"  tablecam.engine.replay (table + engine):   {len(evs) / t_replay:,.0f} events/s, "
          f"{args.boards / t_replay:,.0f} boards/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
