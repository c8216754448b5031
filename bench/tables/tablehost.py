"""Run many simulated table nodes in one process (one MQTT client per table).

Used by bench/tables/run.py; each table has its own store, client id,
credentials and outbox, exactly as one edge computer per table would.
Prints one JSON line at the end: events emitted per table, CPU and memory.
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import resource
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

from tablecam.bus import make_bus  # noqa: E402
from tablecam.node import TableNode  # noqa: E402
from tablecam.sim.bridge import pace  # noqa: E402
from tablecam.sim.session import session_events  # noqa: E402
from tablecam.store import EventStore  # noqa: E402


def serve_inproc(bus, port: int) -> None:
    """The baseline's station: same hub and dashboard, in this process, no broker."""
    import threading

    import uvicorn

    from tablecam.bus.station import Station
    from tablecam.server.app import create_app
    from tablecam.server.config import websocket_impl
    from tablecam.server.hub import TableHub

    hub = TableHub()
    Station(bus, sink=lambda t, s, ev: hub.ingest(t, ev)).start()
    app = create_app(hub, token=os.environ.get("TABLECAM_DIRECTOR_TOKEN"))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                           ws=websocket_impl()))
    threading.Thread(target=server.run, daemon=True).start()
    deadline = time.time() + 30
    while not server.started and time.time() < deadline:
        time.sleep(0.05)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--broker", help="host:port of the MQTT broker")
    ap.add_argument("--serve-inproc", type=int, metavar="PORT",
                    help="baseline: no broker; an in-process bus into a station + dashboard on PORT")
    ap.add_argument("--ids", required=True, help="comma-separated table ids")
    ap.add_argument("--passwords", help="JSON file user -> password")
    ap.add_argument("--speed", type=float, default=1.0)
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--data-dir", default=None)
    args = ap.parse_args()
    data = args.data_dir or tempfile.mkdtemp(prefix="tablehost-")
    ids = args.ids.split(",")
    nodes, streams = {}, {}
    shared = None
    if args.serve_inproc:
        shared = make_bus("inproc")
        serve_inproc(shared, args.serve_inproc)
    else:
        host, port = args.broker.rsplit(":", 1)
        pw = json.load(open(args.passwords))
    for i, tid in enumerate(ids):
        bus = shared or make_bus("mqtt", host=host, port=int(port), username=tid, password=pw[tid],
                                 client_id=f"table-{tid}")
        nodes[tid] = TableNode(tid, EventStore(os.path.join(data, f"{tid}.sqlite")), bus)
        if shared is None:
            nodes[tid].bus._user_on_connect = nodes[tid].announce
        nodes[tid].start()
        streams[tid] = session_events("bridge", 0, args.seed + i, 0.25)
    if args.serve_inproc:
        print("ready", flush=True)
    start = time.time()
    # Tables start at random moments of their first board, like a real session.
    heap = [(start + (i * 7.919) % (20.0 / args.speed), tid) for i, tid in enumerate(ids)]
    heapq.heapify(heap)
    pending = {tid: next(streams[tid]) for tid in ids}
    emitted = {tid: 0 for tid in ids}
    end = start + args.duration
    while heap:
        at, tid = heapq.heappop(heap)
        if at >= end:
            continue
        delay = at - time.time()
        if delay > 0:
            time.sleep(delay)
        ev = dict(pending[tid], ts=round(time.time(), 4), source="sim")
        nodes[tid].emit(ev)
        emitted[tid] += 1
        pending[tid] = next(streams[tid])
        heapq.heappush(heap, (at + pace(pending[tid]) / args.speed, tid))
    deadline = time.time() + 30
    while time.time() < deadline and any(n.store.unpublished(t) for t, n in nodes.items()):
        time.sleep(0.2)
    unacked = sum(len(n.store.unpublished(t)) for t, n in nodes.items())
    for n in nodes.values():
        n.stop(offline=True)
    if args.serve_inproc:
        print("done", flush=True)
        sys.stdin.readline()  # the bench reads the station's counts, then lets us go
    ru = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"emitted": emitted, "unacked": unacked, "cpu_s": ru.ru_utime + ru.ru_stime,
                      "max_rss_mb": ru.ru_maxrss / 1024, "wall_s": time.time() - start}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
