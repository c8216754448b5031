"""Load benchmark: many simulated tables through Mosquitto into the director station.

    python bench/tables/run.py                      # 200 tables, 1x and 10x, + station kill, + baseline
    python bench/tables/run.py --tables 50 --duration 30 --modes inproc,mqtt

Each mode runs for a bounded time and reports: events per second arriving at
the director's WebSocket, end-to-end latency (p50/p99) from the moment a
table node emitted an event (its ``ts``) to the moment the director's
WebSocket client received it, losses and duplicates (emitted vs. the
station's count per table at the end), and CPU seconds and peak memory of
each part (broker, station, table hosts). The baseline is the embedded
in-process bus (``tablecam demo --no-shoe``: tables and station in one
process, no broker), at the same table count and speed.

Modes: ``inproc`` (baseline), ``mqtt`` (1x), ``mqtt10`` (10x),
``kill`` (1x, the station is SIGKILLed mid-run and restarted).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, REPO)

PY = sys.executable
TOKEN = "bench-" + "x" * 32


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(port: int, timeout: float = 60) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2).read()
            return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f"station on {port} did not come up")


def proc_usage(pid: int) -> tuple[float, float]:
    """CPU seconds (user+system) and peak RSS in MB of a live process."""
    try:
        with open(f"/proc/{pid}/stat") as fp:
            parts = fp.read().rsplit(")", 1)[1].split()
        cpu = (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")
        hwm = 0.0
        with open(f"/proc/{pid}/status") as fp:
            for line in fp:
                if line.startswith("VmHWM:"):
                    hwm = int(line.split()[1]) / 1024
        return cpu, hwm
    except OSError:
        return 0.0, 0.0


def api_tables(port: int, token: str | None) -> dict[str, int]:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/tables")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    data = json.loads(urllib.request.urlopen(req, timeout=30).read())
    return {t["id"]: t.get("events", 0) for t in data["tables"]}


class WsStats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.seen: set[tuple[str, int]] = set()
        self.duplicates = 0
        self.reconnects = 0
        self.first = self.last = None


async def ws_listen(port: int, token: str | None, stop_at: float, st: WsStats) -> None:
    import websockets

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    while time.time() < stop_at:
        try:
            async with websockets.connect(f"ws://127.0.0.1:{port}/api/ws", additional_headers=headers,
                                          max_size=None, open_timeout=10) as ws:
                await ws.send(json.dumps({"op": "all_events", "on": True}))
                while True:
                    left = stop_at - time.time()
                    if left <= 0:
                        return
                    msg = await asyncio.wait_for(ws.recv(), timeout=left)
                    now = time.time()
                    d = json.loads(msg)
                    if d.get("type") != "event":
                        continue
                    e = d.get("entry", {})
                    key = (d.get("table"), e.get("index"))
                    if key in st.seen:
                        st.duplicates += 1
                        continue
                    st.seen.add(key)
                    if isinstance(e.get("ts"), (int, float)):
                        st.latencies.append(now - e["ts"])
                    st.first = st.first or now
                    st.last = now
        except asyncio.TimeoutError:
            return
        except Exception:
            st.reconnects += 1
            await asyncio.sleep(0.3)


def pct(xs: list[float], p: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def run_inproc(tables: int, speed: float, duration: float) -> dict:
    """Baseline: the same tables and scheduler, station and dashboard in one process, in-process bus."""
    port = free_port()
    ids = [f"t{i:03d}" for i in range(1, tables + 1)]
    env = dict(os.environ, TABLECAM_DIRECTOR_TOKEN=TOKEN)
    proc = subprocess.Popen([PY, os.path.join(REPO, "bench/tables/tablehost.py"), "--serve-inproc", str(port),
                             "--ids", ",".join(ids), "--speed", str(speed), "--duration", str(duration),
                             "--seed", "1", "--data-dir", tempfile.mkdtemp(prefix="bench-inproc-")],
                            cwd=REPO, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdout.readline().strip() == b"ready"
    st = WsStats()
    t0 = time.time()
    asyncio.run(ws_listen(port, TOKEN, t0 + duration + 2, st))
    assert proc.stdout.readline().strip() == b"done"
    counts = api_tables(port, TOKEN)
    proc.stdin.write(b"\n")
    proc.stdin.flush()
    r = json.loads(proc.stdout.readline())
    proc.wait(30)
    total = sum(r["emitted"].values())
    lost = sum(max(0, n - counts.get(t, 0)) for t, n in r["emitted"].items())
    return {"mode": "inproc", "tables": tables, "speed": speed, "duration": duration,
            "events_received": len(st.seen), "emitted": total, "events_per_s": total / duration,
            "p50_ms": pct(st.latencies, 50) * 1000, "p99_ms": pct(st.latencies, 99) * 1000,
            "lost": lost, "duplicates": st.duplicates,
            "parts": {"one process (tables+station)": {"cpu_s": r["cpu_s"], "peak_rss_mb": r["max_rss_mb"]}}}


def run_mqtt(tables: int, speed: float, duration: float, kill_station: bool, hosts: int = 4) -> dict:
    from tablecam.node.demo import LocalBroker

    work = tempfile.mkdtemp(prefix="bench-tables-")
    ids = [f"t{i:03d}" for i in range(1, tables + 1)]
    broker = LocalBroker(work, ["director", *ids])
    pwfile = os.path.join(work, "passwords.json")
    json.dump(broker.passwords, open(pwfile, "w"))
    port = free_port()
    env = dict(os.environ, TABLECAM_DIRECTOR_TOKEN=TOKEN, TABLECAM_MQTT_PASSWORD=broker.passwords["director"])
    station_cmd = [PY, "-m", "tablecam", "serve", "--port", str(port), "--mqtt", f"127.0.0.1:{broker.port}",
                   "--station-store", os.path.join(work, "station.sqlite")]
    station = subprocess.Popen(station_cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                               stderr=open(os.path.join(work, "station.log"), "ab"))
    wait_http(port)
    chunks = [ids[i::hosts] for i in range(hosts)]
    hostprocs = [subprocess.Popen([PY, os.path.join(REPO, "bench/tables/tablehost.py"), "--broker",
                                   f"127.0.0.1:{broker.port}", "--ids", ",".join(c), "--passwords", pwfile,
                                   "--speed", str(speed), "--duration", str(duration), "--seed", str(k * 1000 + 1),
                                   "--data-dir", os.path.join(work, f"host{k}")],
                                  cwd=REPO, stdout=subprocess.PIPE, stderr=open(os.path.join(work, f"host{k}.log"), "ab"))
                 for k, c in enumerate(chunks)]
    for k in range(hosts):
        os.makedirs(os.path.join(work, f"host{k}"), exist_ok=True)
    st = WsStats()
    t0 = time.time()
    station_cpu = 0.0
    station_rss = 0.0
    killed_at = None
    if kill_station:
        asyncio.run(ws_listen(port, TOKEN, t0 + duration / 2, st))
        c, r = proc_usage(station.pid)
        station_cpu += c
        station_rss = max(station_rss, r)
        station.kill()
        station.wait()
        killed_at = time.time() - t0
        time.sleep(3)
        station = subprocess.Popen(station_cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                                   stderr=open(os.path.join(work, "station.log"), "ab"))
        wait_http(port)
    asyncio.run(ws_listen(port, TOKEN, t0 + duration + 5, st))
    results = []
    for p in hostprocs:
        out, _ = p.communicate(timeout=120)
        results.append(json.loads(out.decode().strip().splitlines()[-1]))
    emitted: dict[str, int] = {}
    for r in results:
        emitted.update(r["emitted"])
    # Let the station drain, then compare its count per table with what was emitted.
    deadline = time.time() + 60
    counts = api_tables(port, TOKEN)
    while time.time() < deadline and any(counts.get(t, 0) < n for t, n in emitted.items()):
        time.sleep(1)
        counts = api_tables(port, TOKEN)
    lost = sum(max(0, n - counts.get(t, 0)) for t, n in emitted.items())
    extra = sum(max(0, counts.get(t, 0) - n) for t, n in emitted.items())
    c, r = proc_usage(station.pid)
    station_cpu += c
    station_rss = max(station_rss, r)
    bcpu, brss = proc_usage(broker.proc.pid)
    station.send_signal(signal.SIGINT)
    try:
        station.wait(10)
    except subprocess.TimeoutExpired:
        station.kill()
    broker.stop()
    n = len(st.seen)
    total = sum(emitted.values())
    return {"mode": "kill" if kill_station else ("mqtt10" if speed >= 10 else "mqtt"), "tables": tables,
            "speed": speed, "duration": duration, "events_received": n, "emitted": total,
            "events_per_s": total / duration, "p50_ms": pct(st.latencies, 50) * 1000,
            "p99_ms": pct(st.latencies, 99) * 1000, "lost": lost, "duplicates_in_station": extra,
            "ws_duplicates": st.duplicates, "unacked_at_end": sum(r["unacked"] for r in results),
            "station_killed_at_s": killed_at, "ws_reconnects": st.reconnects,
            "parts": {"broker": {"cpu_s": bcpu, "peak_rss_mb": brss},
                      "station": {"cpu_s": station_cpu, "peak_rss_mb": station_rss},
                      "table hosts": {"cpu_s": sum(r["cpu_s"] for r in results),
                                      "peak_rss_mb": max(r["max_rss_mb"] for r in results),
                                      "processes": hosts}}}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--modes", default="inproc,mqtt,mqtt10,kill")
    ap.add_argument("--json", help="write all results to this file")
    args = ap.parse_args()
    results = []
    for mode in args.modes.split(","):
        t = time.time()
        if mode == "inproc":
            r = run_inproc(args.tables, 1.0, args.duration)
        elif mode == "mqtt":
            r = run_mqtt(args.tables, 1.0, args.duration, False)
        elif mode == "mqtt10":
            r = run_mqtt(args.tables, 10.0, args.duration, False)
        elif mode == "kill":
            r = run_mqtt(args.tables, 1.0, args.duration, True)
        else:
            raise SystemExit(f"unknown mode {mode}")
        r["bench_wall_s"] = round(time.time() - t, 1)
        results.append(r)
        print(json.dumps(r), flush=True)
    base = next((r for r in results if r["mode"] == "inproc"), None)
    print()
    print(f"{'mode':8} {'tables':>6} {'speed':>5} {'ev/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'lost':>5} "
          f"{'dup':>4} {'p50 vs inproc':>14}")
    for r in results:
        ratio = (r["p50_ms"] / base["p50_ms"]) if base and base["p50_ms"] else float("nan")
        dup = r.get("duplicates_in_station", r.get("duplicates", 0))
        print(f"{r['mode']:8} {r['tables']:6d} {r['speed']:5g} {r['events_per_s']:8.1f} {r['p50_ms']:8.1f} "
              f"{r['p99_ms']:8.1f} {r['lost']:5d} {dup:4d} {ratio:13.2f}x")
    for r in results:
        parts = ", ".join(f"{k}: {v['cpu_s']:.1f} CPU-s, {v['peak_rss_mb']:.0f} MB" for k, v in r["parts"].items())
        print(f"  {r['mode']}: {parts}")
    if args.json:
        json.dump(results, open(args.json, "w"), indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
