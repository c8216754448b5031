"""Benchmark: replay every real bridge archive in ../shared/data/bridge/ in one process.

Measures, for the whole set (read + parse + engine, as ``tablecam replay``
does it):

- total seconds (best of ``--repeat`` runs; wall clock and CPU time),
- boards per second and events per second,
- the reader alone (PBN text -> events, no engine), so the engine's share shows,
- peak memory: the process's peak RSS (``resource.getrusage``) and the peak of
  Python allocations during one replay (``tracemalloc``, measured in a
  separate run because tracing slows everything down),

and, as the baseline measured in the same run, endplay's PBN parser
(``endplay.parsers.pbn.load``) on the same files: it only parses (no rules),
so the ratio is conservative for tablecam.

Usage::

    python bench/replay/run.py                 # figures
    python bench/replay/run.py --profile       # plus a cProfile summary by module and function
    python bench/replay/run.py --json          # one JSON object instead of text
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import resource
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tablecam.archive import load  # noqa: E402
from tablecam.engine import replay  # noqa: E402
from tablecam.events import Event  # noqa: E402

DATA = REPO.parent / "shared" / "data" / "bridge"
TARGET_S = 3.0


def run_tablecam(files: list[Path]) -> dict[str, Any]:
    """What `tablecam replay FILE...` does, minus printing: read, parse, judge every board."""
    findings = 0
    results = 0
    t0, c0 = time.perf_counter(), time.process_time()
    for p in files:
        for f in replay(load(str(p))):
            findings += 1
            results += f.kind == "result"
    return {"wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0,
            "findings": findings, "results": results}


def run_reader(files: list[Path]) -> dict[str, Any]:
    """The archive readers alone (text -> events), counting boards and events."""
    boards = events = 0
    t0, c0 = time.perf_counter(), time.process_time()
    for p in files:
        for it in load(str(p)):
            if type(it) is Event:
                events += 1
                if it.type == "board":
                    boards += 1
    return {"wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0,
            "boards": boards, "events": events}


def run_endplay(files: list[Path]) -> dict[str, Any] | None:
    try:
        from endplay.parsers import pbn as endplay_pbn
    except ImportError:
        return None
    boards = 0
    t0, c0 = time.perf_counter(), time.process_time()
    for p in files:
        with open(p, encoding="utf-8", errors="replace") as fp:
            boards += len(endplay_pbn.load(fp))
    return {"wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0, "boards": boards}


def best(fn, files: list[Path], repeat: int) -> dict[str, Any]:
    runs = [fn(files) for _ in range(repeat)]
    return min(runs, key=lambda r: r["cpu_s"])


def traced_peak(files: list[Path]) -> int:
    tracemalloc.start()
    for p in files:
        for _ in replay(load(str(p))):
            pass
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def profile(files: list[Path], top: int = 25) -> str:
    prof = cProfile.Profile()
    prof.enable()
    for p in files:
        for _ in replay(load(str(p))):
            pass
    prof.disable()
    st = pstats.Stats(prof)
    total = sum(v[2] for v in st.stats.values())  # tottime
    by_area: dict[str, float] = {}
    for (fname, _, _), v in st.stats.items():
        area = "other"
        for key in ("tablecam/archive", "tablecam/rules", "tablecam/engine.py", "tablecam/events.py",
                    "tablecam/cards.py", "tablecam/findings.py", "enum.py", "dataclasses"):
            if key in fname:
                area = key
                break
        if fname.startswith("<string>"):
            area = "dataclass __init__ (Event, Finding)"
        by_area[area] = by_area.get(area, 0.0) + v[2]
    out = io.StringIO()
    out.write(f"profile (cProfile, own time, total {total:.2f} s under the profiler):\n")
    for area, t in sorted(by_area.items(), key=lambda kv: -kv[1]):
        out.write(f"  {t / total:6.1%}  {t:6.2f} s  {area}\n")
    out.write("\n")
    st.stream = out  # type: ignore[attr-defined]
    st.sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DATA, help="folder of .pbn/.lin files (default: %(default)s)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is kept")
    ap.add_argument("--profile", action="store_true", help="print a cProfile summary")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    files = sorted(p for p in args.data.iterdir() if p.suffix.lower() in (".pbn", ".lin"))
    if not files:
        print(f"no .pbn/.lin files in {args.data}", file=sys.stderr)
        return 2
    size = sum(p.stat().st_size for p in files)

    tc = best(run_tablecam, files, args.repeat)
    rd = best(run_reader, files, args.repeat)
    tc["boards"], tc["events"] = rd["boards"], rd["events"]
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # before endplay runs
    ep = best(run_endplay, files, args.repeat) if run_endplay(files[:1]) is not None else None
    peak = traced_peak(files)

    report: dict[str, Any] = {
        "files": [p.name for p in files], "bytes": size,
        "tablecam": {**tc, "boards_per_s": tc["boards"] / tc["cpu_s"], "events_per_s": tc["events"] / tc["cpu_s"]},
        "reader_only": rd,
        "engine_share": max(0.0, (tc["cpu_s"] - rd["cpu_s"]) / tc["cpu_s"]),
        "peak_rss_mib": round(rss_mib, 1),
        "peak_traced_mib": round(peak / 2**20, 1),
        "target_s": TARGET_S,
        "meets_target": tc["cpu_s"] < TARGET_S,
    }
    if ep:
        report["endplay"] = {**ep, "boards_per_s": ep["boards"] / ep["cpu_s"]}
        report["speedup_vs_endplay"] = ep["cpu_s"] / tc["cpu_s"]
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        t = report["tablecam"]
        print(f"replay of {len(files)} files ({size / 1e6:.1f} MB) in one process, best of {args.repeat}:")
        print(f"  tablecam (read + parse + bridge engine): {t['cpu_s']:.2f} s CPU ({t['wall_s']:.2f} s wall), "
              f"{t['boards']} boards, {t['events']} events, {t['findings']} findings")
        print(f"    {t['boards_per_s']:,.0f} boards/s, {t['events_per_s']:,.0f} events/s; "
              f"target < {TARGET_S:.0f} s: {'met' if report['meets_target'] else 'NOT met'}")
        print(f"  reader alone: {rd['cpu_s']:.2f} s CPU; engine share of the replay: {report['engine_share']:.0%}")
        print(f"  peak memory: {report['peak_rss_mib']} MiB RSS (process), "
              f"{report['peak_traced_mib']} MiB traced Python allocations during one replay")
        if ep:
            e = report["endplay"]
            print(f"  baseline endplay.parsers.pbn.load (parse only, no rules): {e['cpu_s']:.2f} s CPU "
                  f"({e['wall_s']:.2f} s wall), {e['boards']} boards, {e['boards_per_s']:,.0f} boards/s")
            print(f"  ratio: tablecam replays {report['speedup_vs_endplay']:.2f}x as fast as endplay parses")
        else:
            print("  baseline: endplay not installed (pip install endplay)")
    if args.profile:
        print()
        print(profile(files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
