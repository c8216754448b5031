"""``tablecam demo``: simulated tables end to end, dashboard on localhost.

What runs, per table, and which real code path each part exercises:

- the **table simulator** (:mod:`tablecam.sim.bridge`) decides what the
  players do: the deal, the auction, the card play and now and then an
  irregularity (revoke, lead out of turn, dropped card, misdeal);
- the **shoe**: a virtual shoe speaks the real wire protocol on a real
  pseudo-terminal; the real :class:`~tablecam.shoe.driver.ShoeDriver` reads it
  with pyserial and the real :class:`~tablecam.shoe.tracker.DealTracker`
  turns it into ``deal`` events (so deals reach the engine the way they do at
  a real table);
- calls come from the simulator as an operator (bidding box) would send
  them; plays come from the simulator too, or with ``--camera`` from the
  **camera path**: each board is rendered by the table video simulator and
  read by the real camera pipeline with the shipped card model
  (:mod:`tablecam.node.democamera`);
- the **table node**: event store (SQLite WAL) -> engine -> bus (in-process,
  or a local Mosquitto with ``--mqtt``);
- the **director station**: the bus into the dashboard's hub, served by
  uvicorn on 127.0.0.1 in demo mode (no token).
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from ..bus import make_bus
from ..bus.base import Bus
from ..bus.station import Station
from ..bus.stationlink import health_to_hub
from ..store import EventStore
from .sources import SimulatedTable
from .tablenode import TableNode

# The same rules as config/mosquitto/mosquitto.acl (a test keeps them equal), so
# `tablecam demo --mqtt` works with nothing but the package installed.
MOSQUITTO_ACL = """\
# tablecam topic ACL (mosquitto acl_file syntax).
# Table nodes log in with their table id as user name (t001, t002, ...):
# each may write only its own topics, and read only its own control topic.
pattern write tablecam/%u/events
pattern write tablecam/%u/findings
pattern write tablecam/%u/state
pattern write tablecam/%u/availability
pattern write tablecam/%u/health
pattern read tablecam/%u/control

# The director station reads everything and may ask any table to resend.
user director
topic read tablecam/#
topic write tablecam/+/control

# The broadcast server reads events and availability only; it applies the
# broadcast delay itself before anything reaches the public.
user broadcast
topic read tablecam/+/events
topic read tablecam/+/availability
"""

def log(msg: str) -> None:
    print(f"tablecam demo: {msg}", file=sys.stderr, flush=True)


# -- a local broker for --mqtt ---------------------------------------------------

class LocalBroker:
    def __init__(self, workdir: str, users: list[str]) -> None:
        exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        if not os.path.exists(exe) or not shutil.which("mosquitto_passwd"):
            raise SystemExit("tablecam demo --mqtt needs Mosquitto (Debian: apt-get install mosquitto)")
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.passwords = {u: secrets.token_urlsafe(12) for u in users}
        pw = os.path.join(workdir, "mosquitto.passwd")
        open(pw, "w").close()
        for u, p in self.passwords.items():
            subprocess.run(["mosquitto_passwd", "-b", pw, u, p], check=True, capture_output=True)
        acl = os.path.join(workdir, "mosquitto.acl")
        with open(acl, "w") as fp:
            fp.write(MOSQUITTO_ACL)
        conf = os.path.join(workdir, "mosquitto.conf")
        with open(conf, "w") as fp:
            fp.write(f"per_listener_settings false\nallow_anonymous false\npassword_file {pw}\n"
                     f"acl_file {acl}\nlistener {self.port} 127.0.0.1\n"
                     "max_queued_messages 100000\nmax_inflight_messages 200\n"
                     + ("user root\n" if os.geteuid() == 0 else ""))
        self.proc = subprocess.Popen([exe, "-c", conf], stdout=subprocess.DEVNULL,
                                     stderr=open(os.path.join(workdir, "mosquitto.log"), "ab"))
        deadline = time.time() + 10
        while time.time() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        raise SystemExit("tablecam demo: mosquitto did not start (see mosquitto.log)")

    def bus(self, user: str, client_id: str) -> Bus:
        return make_bus("mqtt", host="127.0.0.1", port=self.port, username=user,
                        password=self.passwords[user], client_id=client_id)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


# -- the whole demo ----------------------------------------------------------------------

def run_demo(args: argparse.Namespace) -> int:
    try:
        from ..server.app import create_app
        from ..server.broadcast import BroadcastDelay
        from ..server.config import websocket_impl
        from ..server.hub import TableHub
        from ..server.listen import PortInUse, open_port, serve
    except ImportError as e:  # pragma: no cover
        log(f"the dashboard cannot start: {e}")
        return 2

    try:
        sock = open_port(args.host, args.port)   # before any table, folder or address
    except PortInUse as e:
        log(str(e))
        return 2
    args.port = sock.getsockname()[1]
    data_dir = args.data_dir or tempfile.mkdtemp(prefix="tablecam-demo-")
    os.makedirs(data_dir, exist_ok=True)
    log("DEMO MODE - no director token: anyone who can reach this port sees every hand. "
        "Never run a real session like this (use `tablecam serve` with TABLECAM_DIRECTOR_TOKEN).")
    hub = TableHub()
    stop = threading.Event()
    ids = [f"t{i}" for i in range(1, args.tables + 1)]
    broker = LocalBroker(data_dir, ["director", *ids]) if args.mqtt else None
    shared_bus = make_bus("inproc") if broker is None else None

    def bus_for(user: str) -> Bus:
        return shared_bus if broker is None else broker.bus(user, f"demo-{user}")

    # The tables' sources report their health through their nodes and the bus,
    # as a real table's would (TableNode.set_health -> station -> hub).
    station = Station(bus_for("director"), sink=lambda t, s, ev: hub.ingest(t, ev),
                      store=EventStore(os.path.join(data_dir, "station.sqlite")),
                      on_finding=lambda t, f: hub.ingest(t, f), on_health=health_to_hub(hub))
    station.start()
    if getattr(args, "camera", False):
        from .democamera import camera_available

        why = camera_available()
        if why:
            log(f"--camera: the camera path cannot run ({why}); plays come from the simulator")
            args.camera = False
        elif args.game != "bridge":
            log("--camera: the video simulator lays out bridge tables only; plays come from the simulator")
    tables = []
    for i, tid in enumerate(ids):
        node = TableNode(tid, EventStore(os.path.join(data_dir, f"{tid}.sqlite")), bus_for(tid))
        node.start()
        tables.append(SimulatedTable(tid, node, args, args.seed + i, stop))
    for t in tables:
        t.start()
    delay = BroadcastDelay(1, 0)
    app = create_app(hub, token=None, broadcast_delay=delay, insecure_demo=True, forward=station.send_events)
    log(f"{args.tables} simulated {args.game} table(s) at {args.speed:g}x table speed"
        f"{' through Mosquitto on 127.0.0.1:' + str(broker.port) if broker else ' (in-process bus)'}; "
        f"event stores in {data_dir}")
    log(f"dashboard http://{args.host}:{args.port}/   broadcast http://{args.host}:{args.port}/broadcast   "
        f"operator pad http://{args.host}:{args.port}/operator/{ids[0]}")
    try:
        serve(app, sock, access_log=getattr(args, "access_log", False), ws=websocket_impl())
    finally:
        stop.set()
        sock.close()
        station.stop()
        if broker:
            broker.stop()
    return 0
