"""Benchmark: alert latency from the finding to the director's WebSocket.

200 tables replay real deals (``../shared/data/bridge`` PBN archives through
``tablecam.archive.load``; a revoke is swapped into every board that takes
one cleanly, so alerts happen) at table speed (``--interval`` seconds between
a table's events, every table starting at a random point of its session)
into a real ``tablecam serve`` app (uvicorn, separate process). The events
are fed from a thread through ``TableHub.ingest``, the same path the MQTT
bus uses. 50 WebSocket clients (this process) are connected to ``/api/ws``;
each records, for every ``alert`` and ``finding`` message, the time from
the hub's ``found_at`` (taken before the engine folds the event, so the
figure includes the rules engine) to the message's arrival.

Baseline, measured in the same run: a bare Starlette WebSocket endpoint on
uvicorn (no hub, no engine, no JSON of alerts) fanning out timestamped
messages of the same size, at the same rate, through the same
thread-to-event-loop handoff, to the same 50 clients.

Usage::

    python bench/dashboard/run.py                     # 200 tables, 50 clients, 90 s per measurement
    python bench/dashboard/run.py --duration 30 --tables 50 --clients 10   # quick
    python bench/dashboard/run.py --json
"""

from __future__ import annotations

import argparse
import asyncio
import heapq
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

TOKEN = "bench-dashboard-token-0001"
DATA = REPO.parent / "shared" / "data" / "bridge"


# -- server side (runs in a child process) --------------------------------------------------
def load_sessions(tables: int, boards_per_table: int, seed: int) -> list[list[Any]]:
    """Per table, a list of real boards' events (with injected revokes where clean)."""
    from tablecam.sim.real_deals import boards, inject_revoke
    from tablecam.archive import load

    pool = []
    for name in ("realbridge-2021.pbn", "wc2012-vugraph.pbn"):
        for b in boards(load(str(DATA / name))):
            if sum(1 for e in b if e.type == "play") >= 8:
                pool.append(b)
            if len(pool) >= tables * boards_per_table:
                break
        if len(pool) >= tables * boards_per_table:
            break
    rng = random.Random(seed)
    rng.shuffle(pool)
    sessions = []
    k = 0
    for _ in range(tables):
        evs: list[Any] = []
        for _ in range(boards_per_table):
            b = pool[k % len(pool)]
            k += 1
            got = inject_revoke(b)
            evs += got[0] if got else b
        sessions.append(evs)
    return sessions


def serve_tablecam(port: int, args: argparse.Namespace) -> None:
    import uvicorn

    from tablecam.server.app import create_app
    from tablecam.server.config import websocket_impl
    from tablecam.server.hub import TableHub

    sessions = load_sessions(args.tables, args.boards, args.seed)
    hub = TableHub(silent_after=3600)
    rng = random.Random(args.seed + 1)
    # every table mid-session: pre-feed a random prefix (not measured)
    cursors = []
    for i, evs in enumerate(sessions):
        start = rng.randrange(0, max(1, len(evs) // 2))
        for e in evs[:start]:
            hub.ingest(f"T{i + 1:03d}", e)
        cursors.append(start)
    app = create_app(hub, token=TOKEN, public_burst=10_000)
    fan = app.state.fanout
    counts: dict[str, Any] = {"events": 0, "findings": 0, "alerts": 0}
    gc_pauses: list[float] = []
    gc_t0 = [0.0]

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start":
            gc_t0[0] = time.perf_counter()
        else:
            gc_pauses.append(time.perf_counter() - gc_t0[0])

    import gc

    gc.callbacks.append(on_gc)

    def feeder() -> None:
        while len(fan.directors) < args.clients:
            time.sleep(0.05)
        print("FEEDING", flush=True)
        t0 = time.monotonic()
        heap = [(t0 + rng.uniform(0, args.interval), i) for i in range(len(sessions))]
        heapq.heapify(heap)
        end = t0 + args.duration
        while heap:
            due, i = heapq.heappop(heap)
            if due > end:
                break
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            evs = sessions[i]
            if cursors[i] < len(evs):
                out = hub.ingest(f"T{i + 1:03d}", evs[cursors[i]])
                cursors[i] += 1
                counts["events"] += 1
                counts["findings"] += len(out)
                counts["alerts"] += sum(1 for f in out if f.severity != "info")
                heapq.heappush(heap, (due + args.interval, i))
        counts["gc_pauses"] = len(gc_pauses)
        counts["gc_max_ms"] = round(max(gc_pauses, default=0) * 1000, 1)
        counts["gc_total_ms"] = round(sum(gc_pauses) * 1000, 1)
        print("DONE " + json.dumps(counts), flush=True)

    threading.Thread(target=feeder, daemon=True).start()
    print("READY", flush=True)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", ws=websocket_impl())


def queue_socket(clients: set, state: dict[str, Any] | None = None) -> Any:
    """A bare WebSocket endpoint that sends whatever is put on its queue (one queue per client in
    ``clients``); ``state["loop"]`` is its event loop. The baselines' fan-out."""
    from starlette.websockets import WebSocket, WebSocketDisconnect

    async def ws_endpoint(ws: WebSocket) -> None:
        await ws.accept()
        q: asyncio.Queue = asyncio.Queue()
        clients.add(q)
        if state is not None:
            state["loop"] = asyncio.get_running_loop()

        async def send() -> None:
            while True:
                await ws.send_text(await q.get())

        task = asyncio.create_task(send())
        try:
            while True:
                await ws.receive_text()
        except WebSocketDisconnect:
            pass
        finally:
            clients.discard(q)
            task.cancel()

    return ws_endpoint


def serve_echo(port: int, args: argparse.Namespace) -> None:
    """Baseline: a bare WebSocket fan-out of timestamped messages (no hub, no engine)."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import WebSocketRoute

    from tablecam.server.config import websocket_impl

    clients: set[asyncio.Queue] = set()
    state: dict[str, Any] = {}
    ws_endpoint = queue_socket(clients, state)

    def fan(text: str) -> None:
        for q in clients:
            q.put_nowait(text)

    pad = "x" * max(0, args.msg_bytes - 60)

    def producer() -> None:
        while len(clients) < args.clients:
            time.sleep(0.05)
        print("FEEDING", flush=True)
        rate = max(args.rate, 0.1)
        rng = random.Random(args.seed)
        end = time.monotonic() + args.duration
        n = 0
        while time.monotonic() < end:
            time.sleep(rng.expovariate(rate))
            msg = json.dumps({"type": "alert", "found_at": time.time(), "pad": pad})
            state["loop"].call_soon_threadsafe(fan, msg)
            n += 1
        print("DONE " + json.dumps({"messages": n}), flush=True)

    app = Starlette(routes=[WebSocketRoute("/api/ws", ws_endpoint)])
    threading.Thread(target=producer, daemon=True).start()
    print("READY", flush=True)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", ws=websocket_impl())


# -- client side -----------------------------------------------------------------------------
async def client(url: str, lat: dict[str, list[float]], sizes: list[int], stop: asyncio.Event,
                 watch_all: bool = False) -> None:
    import websockets

    async with websockets.connect(url, max_size=2**24, compression=None) as ws:
        if watch_all:  # a wall display following every table: receives every finding too
            await ws.send(json.dumps({"op": "all_events", "on": True}))
        while not stop.is_set():
            try:
                text = await asyncio.wait_for(ws.recv(), 0.5)
            except asyncio.TimeoutError:
                continue
            now = time.time()
            if '"found_at"' not in text:
                continue
            msg = json.loads(text)
            t = msg.get("type")
            if t in ("alert", "finding") and "found_at" in msg:
                lat.setdefault(t, []).append(now - msg["found_at"])
                if "sent_at" in msg:  # split: hub + handoff to the event loop / loop to browser socket
                    lat.setdefault("handoff", []).append(msg["sent_at"] - msg["found_at"])
                    lat.setdefault("transit", []).append(now - msg["sent_at"])
                if t == "alert":
                    sizes.append(len(text))


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def measure(mode: str, args: argparse.Namespace, extra: list[str]) -> dict[str, Any]:
    port = free_port()
    cmd = [sys.executable, __file__, "--role", mode, "--port", str(port), "--tables", str(args.tables),
           "--boards", str(args.boards), "--clients", str(args.clients), "--interval", str(args.interval),
           "--duration", str(args.duration), "--seed", str(args.seed)] + extra
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, cwd=str(REPO))
    assert proc.stdout is not None
    t_load = time.monotonic()
    for line in proc.stdout:
        if line.startswith("READY"):
            break
    load_s = time.monotonic() - t_load
    done: dict[str, Any] = {}

    def reader() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            if line.startswith("DONE"):
                done.update(json.loads(line[5:]))

    threading.Thread(target=reader, daemon=True).start()

    async def run() -> tuple[dict[str, list[float]], list[int]]:
        lat: dict[str, list[float]] = {}
        sizes: list[int] = []
        stop = asyncio.Event()
        url = f"ws://127.0.0.1:{port}/api/ws?token={TOKEN}"
        for _ in range(200):  # wait for uvicorn to listen
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                await asyncio.sleep(0.1)
        # one client follows every table (events and findings), the others are ordinary dashboards
        tasks = [asyncio.create_task(client(url, lat, sizes, stop, watch_all=(i == 0 and mode == "tablecam")))
                 for i in range(args.clients)]
        deadline = time.monotonic() + args.duration + 60
        while not done and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        await asyncio.sleep(1.0)  # let the last messages arrive
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        return lat, sizes

    lat, sizes = asyncio.run(run())
    proc.terminate()
    proc.wait(10)
    return {"mode": mode, "setup_s": round(load_s, 1), "server": done, "latency": lat, "sizes": sizes}


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    if not xs:
        return float("nan")
    return xs[min(len(xs) - 1, int(round(q / 100 * (len(xs) - 1))))]


def summary(lat: list[float]) -> dict[str, float]:
    return {"n": len(lat), "p50_ms": round(pct(lat, 50) * 1000, 2), "p99_ms": round(pct(lat, 99) * 1000, 2),
            "max_ms": round(max(lat) * 1000, 2) if lat else float("nan"),
            "mean_ms": round(statistics.fmean(lat) * 1000, 2) if lat else float("nan")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--role", choices=("bench", "tablecam", "echo"), default="bench", help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--rate", type=float, default=1.0, help=argparse.SUPPRESS)
    ap.add_argument("--msg-bytes", type=int, default=4000, help=argparse.SUPPRESS)
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--boards", type=int, default=3, help="real boards per table")
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--interval", type=float, default=3.0,
                    help="seconds between one table's events (table speed: ~110 events in ~6 min)")
    ap.add_argument("--duration", type=float, default=90.0, help="seconds of measured replay per run")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    os.chdir(REPO)
    if args.role == "tablecam":
        serve_tablecam(args.port, args)
        return 0
    if args.role == "echo":
        serve_echo(args.port, args)
        return 0

    real = measure("tablecam", args, [])
    alerts = real["latency"].get("alert", [])
    findings = real["latency"].get("finding", [])
    rate = len(alerts) / max(1, args.clients) / args.duration  # alert messages per second, per client
    size = int(statistics.fmean(real["sizes"])) if real["sizes"] else 2000
    base = measure("echo", args, ["--rate", str(rate), "--msg-bytes", str(size)])
    b = base["latency"].get("alert", [])
    hand, transit = real["latency"].get("handoff", []), real["latency"].get("transit", [])
    out = {
        "config": {"tables": args.tables, "clients": args.clients, "interval_s": args.interval,
                   "duration_s": args.duration, "boards_per_table": args.boards},
        "tablecam": {"server": real["server"], "alert": summary(alerts), "finding": summary(findings),
                     "all": summary(alerts + findings), "mean_alert_bytes": size, "setup_s": real["setup_s"],
                     "split_handoff": summary(hand), "split_transit": summary(transit)},
        "baseline_bare_ws": {"server": base["server"], "all": summary(b)},
    }
    t, bb = out["tablecam"]["all"], out["baseline_bare_ws"]["all"]
    t = out["tablecam"]["alert"]
    out["ratio_p50"] = round(t["p50_ms"] / bb["p50_ms"], 2) if bb["p50_ms"] else None
    out["ratio_p99"] = round(t["p99_ms"] / bb["p99_ms"], 2) if bb["p99_ms"] else None
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    s = real["server"]
    print(f"dashboard: {args.tables} tables replaying real deals every {args.interval:g} s per table, "
          f"{args.clients} director WebSockets, {args.duration:g} s")
    print(f"  server fed {s.get('events', '?')} events -> {s.get('findings', '?')} findings "
          f"({s.get('alerts', '?')} alerts); clients received {len(alerts)} alert + {len(findings)} finding messages")
    for name, v in (("alert", out["tablecam"]["alert"]), ("finding (1 client)", out["tablecam"]["finding"]),
                    ("bare WebSocket", bb)):
        print(f"  {name:16s} n={v['n']:6d}  p50 {v['p50_ms']:7.2f} ms  p99 {v['p99_ms']:7.2f} ms  "
              f"max {v['max_ms']:7.2f} ms")
    for name in ("split_handoff", "split_transit"):
        v = out["tablecam"][name]
        print(f"    {name[6:]:14s} p50 {v['p50_ms']:7.2f} ms  p99 {v['p99_ms']:7.2f} ms")
    print(f"  server GC: {s.get('gc_pauses')} collections, longest {s.get('gc_max_ms')} ms")
    print(f"  ratio tablecam alert / bare WebSocket: p50 x{out['ratio_p50']}  p99 x{out['ratio_p99']}")
    print(f"  target: alert p99 < 100 ms -> {'met' if out['tablecam']['alert']['p99_ms'] < 100 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
