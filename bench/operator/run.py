"""Benchmark: an event entered on a table's operator page, to the director's dashboard.

200 tables, each with its own operator token, have their real deals
(``../shared/data/bridge`` PBN archives, a revoke swapped into every board
that takes one, so alerts happen too) entered by hand: every table's
operator posts one event at a time (``POST /api/tables/{t}/events`` with
that table's token, what the operator page sends) at table speed
(``--interval`` seconds between a table's events, tables starting at random
offsets and mid-session) into a real ``tablecam serve`` app (uvicorn,
separate process). Director WebSockets (``/api/ws``) are connected: one
follows every table (``all_events``, as the table view follows its table),
the others are ordinary dashboards. Measured: from the moment the operator's
request is sent (its ``ts``) to the arrival of that event on the director's
socket, for every event and for the calls alone; plus the operator's HTTP
round trip.

Baseline, measured in the same run: a bare Starlette app on uvicorn (no
token check, no hub, no rules engine) whose POST endpoint pushes the posted
event to the same WebSocket clients in the same message shape, driven by the
same operators at the same rate.

``BENCH_DEBUG=1`` prints what held the server's event loop (garbage
collections, the dashboard's coalesced pushes and the broadcast's advance
over 50 ms) and the operators' requests over 500 ms.

Usage::

    python bench/operator/run.py                       # 200 tables, 20 dashboards, 60 s per measurement
    python bench/operator/run.py --tables 50 --duration 20   # quick
    python bench/operator/run.py --json
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

TOKEN = "bench-operator-director-token"
DEBUG_T0 = time.monotonic()


def _dashboard_bench() -> Any:
    """bench/dashboard/run.py: the real sessions, percentiles and ports are shared with it."""
    spec = importlib.util.spec_from_file_location("dashboard_bench", REPO / "bench" / "dashboard" / "run.py")
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


DB = _dashboard_bench()


def table_ids(n: int) -> list[str]:
    return [f"T{i + 1:03d}" for i in range(n)]


def operator_token(table: str) -> str:
    return f"operator-token-of-{table}"


# -- servers (child processes) ------------------------------------------------------------------
def serve_tablecam(port: int, args: argparse.Namespace, prefixes: list[int]) -> None:
    import uvicorn

    from tablecam.server.app import create_app
    from tablecam.server.config import websocket_impl
    from tablecam.server.hub import TableHub

    sessions = DB.load_sessions(args.tables, args.boards, args.seed)
    hub = TableHub(silent_after=3600)
    for tid, evs, start in zip(table_ids(args.tables), sessions, prefixes):
        for e in evs[:min(start, len(evs) // 2)]:   # every table mid-session (not measured)
            hub.ingest(tid, e)
    app = create_app(hub, token=TOKEN, public_burst=10_000,
                     operator_tokens={t: operator_token(t) for t in table_ids(args.tables)})
    import gc

    pauses: list[tuple[float, float, int]] = []
    t_gc = [0.0]

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start":
            t_gc[0] = time.perf_counter()
        else:
            pauses.append((time.monotonic(), time.perf_counter() - t_gc[0], info.get("generation", -1)))
            if os.environ.get("BENCH_DEBUG") and pauses[-1][1] > 0.05:
                print(f"GC gen{pauses[-1][2]} {pauses[-1][1] * 1000:.0f} ms", file=sys.stderr, flush=True)

    gc.callbacks.append(on_gc)
    if os.environ.get("BENCH_DEBUG"):   # what holds the event loop: the periodic pushes, timed
        fan = app.state.fanout
        for name in ("_push_dirty",):
            orig = getattr(fan, name)

            def timed(*a: Any, _orig: Any = orig, _name: str = name) -> Any:
                t0 = time.perf_counter()
                try:
                    return _orig(*a)
                finally:
                    dt = time.perf_counter() - t0
                    if dt > 0.05:
                        print(f"SLOWPUSH {_name} {dt * 1000:.0f} ms", file=sys.stderr, flush=True)
            setattr(fan, name, timed)
        view = app.state.view
        orig_adv = view.advance

        def adv(*a: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return orig_adv(*a)
            finally:
                if time.perf_counter() - t0 > 0.05:
                    print(f"SLOWADV {(time.perf_counter() - t0) * 1000:.0f} ms", file=sys.stderr, flush=True)
        view.advance = adv
    print("READY", flush=True)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", ws=websocket_impl())


def serve_bare(port: int, args: argparse.Namespace) -> None:
    """Baseline: POST an event, pushed as is to every WebSocket client (no auth, no hub, no engine)."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route, WebSocketRoute

    from tablecam.server.config import websocket_impl

    clients: set[asyncio.Queue] = set()
    ws_endpoint = DB.queue_socket(clients)

    async def post(request: Request) -> JSONResponse:
        body = await request.json()
        table = request.path_params["table"]
        for ev in body if isinstance(body, list) else [body]:
            text = json.dumps({"type": "event", "table": table, "entry": ev})
            for q in clients:
                q.put_nowait(text)
        return JSONResponse({"table": table, "received": 1})

    app = Starlette(routes=[WebSocketRoute("/api/ws", ws_endpoint),
                            Route("/api/tables/{table}/events", post, methods=["POST"])])
    print("READY", flush=True)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", ws=websocket_impl())


# -- the operators and the directors (this process) ------------------------------------------
async def director(url: str, lat: dict[str, list[float]], stop: asyncio.Event, follow_all: bool) -> None:
    import websockets

    async with websockets.connect(url, max_size=2**24, compression=None) as ws:
        if follow_all:
            await ws.send(json.dumps({"op": "all_events", "on": True}))
        while not stop.is_set():
            try:
                text = await asyncio.wait_for(ws.recv(), 0.5)
            except asyncio.TimeoutError:
                continue
            if not follow_all or '"operator"' not in text:
                continue
            now = time.time()
            msg = json.loads(text)
            e = msg.get("entry") or {}
            if msg.get("type") == "event" and e.get("source") == "operator" and isinstance(e.get("ts"), float):
                lat["event"].append(now - e["ts"])
                if e.get("type") == "call":
                    lat["call"].append(now - e["ts"])


async def operator(host: str, port: int, table: str, events: list[dict[str, Any]], start: int,
                   args: argparse.Namespace, http: list[float], errors: list[int], end: float,
                   rng: random.Random) -> None:
    """One table's operator: a kept-alive HTTP/1.1 connection posting one event at a time (plain
    asyncio streams: a client library would cost the bench more CPU than the server spends)."""
    await asyncio.sleep(rng.uniform(0, args.interval))
    reader, writer = await asyncio.open_connection(host, port)
    head = (f"POST /api/tables/{table}/events HTTP/1.1\r\nHost: {host}\r\n"
            f"Authorization: Bearer {operator_token(table)}\r\nContent-Type: application/json\r\n")
    i = start
    try:
        while i < len(events) and time.monotonic() < end:
            t0 = time.monotonic()
            body = json.dumps([dict(events[i], ts=time.time(), source="operator")]).encode()
            writer.write((head + f"Content-Length: {len(body)}\r\n\r\n").encode() + body)
            await writer.drain()
            status = await reader.readline()
            length = 0
            while True:
                line = await reader.readline()
                if line in (b"\r\n", b""):
                    break
                k, _, v = line.decode("latin-1").partition(":")
                if k.strip().lower() == "content-length":
                    length = int(v)
            await reader.readexactly(length)
            http.append(time.monotonic() - t0)
            if os.environ.get("BENCH_DEBUG") and http[-1] > 0.5:
                print(f"SLOW {table} i={i - start} at={t0 - DEBUG_T0:.2f} took={http[-1]:.2f}", file=sys.stderr)
            if b" 200 " not in status:
                errors.append(int(status.split()[1]) if len(status.split()) > 1 else 0)
            i += 1
            await asyncio.sleep(max(0.0, args.interval - (time.monotonic() - t0)))
    finally:
        writer.close()


def run_operators(port: int, args: argparse.Namespace, prefixes: list[int]) -> None:
    """Child process: every table's operator, entering its real session from where it stands."""
    sessions = [[e.to_dict() for e in evs] for evs in DB.load_sessions(args.tables, args.boards, args.seed)]
    http: list[float] = []
    errors: list[int] = []

    async def go() -> None:
        rng = random.Random(args.seed + 2)
        end = time.monotonic() + args.duration
        await asyncio.gather(*[operator("127.0.0.1", port, t, evs, min(p, len(evs) // 2), args, http, errors,
                                        end, rng)
                               for t, evs, p in zip(table_ids(args.tables), sessions, prefixes)])

    print("READY", flush=True)
    asyncio.run(go())
    print("DONE " + json.dumps({"http": http, "errors": errors}), flush=True)


def child(role: str, port: int, args: argparse.Namespace) -> subprocess.Popen:
    cmd = [sys.executable, __file__, "--role", role, "--port", str(port), "--tables", str(args.tables),
           "--boards", str(args.boards), "--seed", str(args.seed), "--interval", str(args.interval),
           "--duration", str(args.duration)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, cwd=str(REPO))
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("READY"):
            break
    return proc


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux ``/proc``; 0 elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat") as fp:
            fields = fp.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def measure(mode: str, args: argparse.Namespace) -> dict[str, list[float]]:
    """One run: the server (``mode``), the director sockets here, the operators in a third process."""
    port = DB.free_port()
    server = child(mode, port, args)
    threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()  # type: ignore[union-attr]

    async def run() -> dict[str, list[float]]:
        lat: dict[str, list[float]] = {"event": [], "call": []}
        stop = asyncio.Event()
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                await asyncio.sleep(0.1)
        url = f"ws://127.0.0.1:{port}/api/ws?token={TOKEN}"
        dirs = [asyncio.create_task(director(url, lat, stop, i == 0)) for i in range(args.clients)]
        await asyncio.sleep(1.0)
        cpu0, wall0 = cpu_seconds(server.pid), time.monotonic()
        ops = await asyncio.to_thread(child, "operators", port, args)
        done: dict[str, Any] = {}

        def wait_ops() -> None:
            for line in ops.stdout:  # type: ignore[union-attr]
                if line.startswith("DONE"):
                    done.update(json.loads(line[5:]))
            ops.wait()

        await asyncio.to_thread(wait_ops)
        lat["server_cpu"] = [(cpu_seconds(server.pid) - cpu0) / (time.monotonic() - wall0)]
        await asyncio.sleep(1.0)   # the last events arrive
        stop.set()
        await asyncio.gather(*dirs, return_exceptions=True)
        lat["http"] = done.get("http", [])
        lat["errors"] = done.get("errors", [])
        return lat

    lat = asyncio.run(run())
    server.terminate()
    server.wait(10)
    return lat


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--role", choices=("bench", "tablecam", "bare", "operators"), default="bench",
                    help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--boards", type=int, default=3, help="real boards per table")
    ap.add_argument("--clients", type=int, default=20, help="director WebSockets (one follows every table)")
    ap.add_argument("--interval", type=float, default=3.0, help="seconds between one table's entered events")
    ap.add_argument("--duration", type=float, default=60.0, help="seconds of entry per measurement")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    os.chdir(REPO)
    prefixes = [random.Random(args.seed + i).randrange(0, 200) for i in range(args.tables)]
    if args.role == "tablecam":
        serve_tablecam(args.port, args, prefixes)
        return 0
    if args.role == "bare":
        serve_bare(args.port, args)
        return 0
    if args.role == "operators":
        run_operators(args.port, args, prefixes)
        return 0
    real = measure("tablecam", args)
    base = measure("bare", args)
    out = {
        "config": {"tables": args.tables, "directors": args.clients, "interval_s": args.interval,
                   "duration_s": args.duration},
        "tablecam": {k: DB.summary(real[k]) for k in ("call", "event", "http")},
        "baseline_bare": {k: DB.summary(base[k]) for k in ("call", "event", "http")},
        "errors": {"tablecam": len(real.get("errors", [])), "baseline": len(base.get("errors", []))},
        "server_cpu_per_s": {"tablecam": round(real["server_cpu"][0], 3), "baseline": round(base["server_cpu"][0], 3)},
        "load_average": [round(x, 1) for x in os.getloadavg()],
    }
    t, b = out["tablecam"]["call"], out["baseline_bare"]["call"]
    out["ratio_call_p50"] = round(t["p50_ms"] / b["p50_ms"], 2) if b["p50_ms"] else None
    out["ratio_call_p99"] = round(t["p99_ms"] / b["p99_ms"], 2) if b["p99_ms"] else None
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"operator entry: {args.tables} tables, each operator posting an event every {args.interval:g} s, "
          f"{args.clients} director WebSockets, {args.duration:g} s per run")
    for name, part in (("tablecam", out["tablecam"]), ("bare baseline", out["baseline_bare"])):
        for k in ("call", "event", "http"):
            v = part[k]
            label = {"call": "call -> dashboard", "event": "any event -> dashboard", "http": "operator POST"}[k]
            print(f"  {name:13s} {label:23s} n={v['n']:6d}  p50 {v['p50_ms']:7.2f} ms  p99 {v['p99_ms']:7.2f} ms  "
                  f"max {v['max_ms']:7.2f} ms")
    print(f"  errors: tablecam {out['errors']['tablecam']}, baseline {out['errors']['baseline']}; "
          f"server CPU seconds per second: tablecam {out['server_cpu_per_s']['tablecam']}, "
          f"baseline {out['server_cpu_per_s']['baseline']}; machine load average {out['load_average']}")
    print(f"  ratio tablecam / bare (call to dashboard): p50 x{out['ratio_call_p50']}  p99 x{out['ratio_call_p99']}")
    print(f"  target: call p99 < 200 ms -> {'met' if t['p99_ms'] < 200 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
