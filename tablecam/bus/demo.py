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
  (:mod:`tablecam.bus.democamera`);
- the **table node**: event store (SQLite WAL) -> engine -> bus (in-process,
  or a local Mosquitto with ``--mqtt``);
- the **director station**: the bus into the dashboard's hub, served by
  uvicorn on 127.0.0.1 in demo mode (no token).
"""

from __future__ import annotations

import argparse
import os
import queue
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any, Callable

from ..cards import Seat
from ..node import TableNode
from ..store import EventStore
from . import make_bus
from .base import Bus
from .station import Station

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

# Findings only the shoe can make; the engine recomputes the rest from events.
SHOE_ONLY = ("shoe_misread", "foreign_card", "extra_card", "shoe_link", "low_confidence",
             "shoe_jam", "shoe_double_feed", "cards_left_in_shoe")


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


# -- the shoe path -------------------------------------------------------------------

class LiveShoe:
    """A virtual shoe on a pseudo-terminal, dealing the cards it is handed."""

    def __init__(self, stop: threading.Event) -> None:
        from ..shoe.sim import FdLink, VirtualShoe, open_pty

        self.master, self.path = open_pty()
        self.link = FdLink(self.master)
        self.shoe = VirtualShoe(self.link.write)
        self.q: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.stop = stop
        self.thread = threading.Thread(target=self._run, name="virtual-shoe", daemon=True)
        self.thread.start()

    def deal(self, card: str) -> None:
        self.q.put(("card", card))

    def load(self) -> None:
        self.q.put(("loaded", None))

    def _run(self) -> None:
        last_hb = 0.0
        while not self.stop.is_set():
            try:
                kind, arg = self.q.get(timeout=0.05)
                if kind == "card":
                    self.shoe.card(arg)
                elif kind == "loaded":
                    self.shoe.loaded()
            except queue.Empty:
                pass
            now = time.monotonic()
            if now - last_hb >= 0.5:
                self.shoe.heartbeat()
                last_hb = now
            while self.shoe.pump():
                pass
            data = self.link.read(0)
            if data:
                self.shoe.receive(data)


class ShoeReader:
    """The real driver and deal tracker on the shoe's pty; deals go to the node."""

    def __init__(self, path: str, node: TableNode, game: str, stop: threading.Event,
                 health: Callable[[str, str], None]) -> None:
        from ..shoe.driver import Health, ShoeDriver
        from ..shoe.tracker import DealTracker

        self._Health = Health
        self._Tracker = DealTracker
        self.driver = ShoeDriver(path)
        self.node, self.game, self.stop, self.health = node, game, stop, health
        self.tracker: Any = None
        self.dealt = 0
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self._run, name="shoe-driver", daemon=True)
        self.thread.start()

    def new_board(self, board: int, dealer: str) -> None:
        with self.cond:
            self.tracker = self._Tracker(self.game, dealer, board)
            self.dealt = 0

    def wait_dealt(self, n: int, timeout: float) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: self.dealt >= n, timeout)

    def _run(self) -> None:
        from ..events import Event
        from ..findings import Finding

        for msg in self.driver.messages(stop=self.stop.is_set):
            if isinstance(msg, self._Health):
                self.health("shoe", {"ok": "ok", "stale": "degraded"}.get(msg.state, "down"))
                continue
            with self.cond:
                tracker = self.tracker
            if tracker is None:
                continue
            for item in tracker.feed(msg):
                if isinstance(item, Event) and item.type == "deal":
                    self.node.emit(item.to_dict())
                    with self.cond:
                        self.dealt += 1
                        self.cond.notify_all()
                elif isinstance(item, Finding) and item.kind in SHOE_ONLY:
                    self.node.report(item, "shoe")


# -- one table ------------------------------------------------------------------------

class SimulatedTable(threading.Thread):
    def __init__(self, table_id: str, node: TableNode, args: argparse.Namespace, seed: int,
                 stop: threading.Event, health: Callable[[str, str, str], None]) -> None:
        super().__init__(name=f"table-{table_id}", daemon=True)
        self.id, self.node, self.args, self.seed, self.stop = table_id, node, args, seed, stop
        self.health = health
        self.shoe: LiveShoe | None = None
        self.reader: ShoeReader | None = None
        if not args.no_shoe and args.game == "bridge":
            self.shoe = LiveShoe(stop)
            self.reader = ShoeReader(self.shoe.path, node, args.game, stop,
                                     lambda src, st: health(table_id, src, st))
        self.camera: Any = None
        if getattr(args, "camera", False) and args.game == "bridge":
            from .democamera import DemoCamera

            self.camera = DemoCamera(args.game, node.emit, lambda f: node.report(f, "camera"), log, seed)

    def wait(self, seconds: float) -> bool:
        return self.stop.wait(seconds / self.args.speed)

    def run(self) -> None:
        from ..sim.session import boards_of

        if self.args.game == "bridge":
            from ..sim.bridge import pace
        else:
            from ..sim.nordic import pace

        try:
            for board_events in boards_of(self.args.game, self.args.boards, self.seed,
                                          self.args.irregularities):
                if self.stop.is_set():
                    return
                self.play_board(board_events, pace)
        except Exception as e:  # keep the dashboard up even if a table's simulation breaks
            log(f"table {self.id} stopped: {type(e).__name__}: {e}")

    def play_board(self, events: list[dict[str, Any]], pace: Callable[[dict], float]) -> None:
        deals = [e for e in events if e["type"] == "deal"]
        use_shoe = self.reader is not None and self.shoe is not None
        board_ev = events[0]
        if use_shoe and any(e.get("redeal") for e in events):
            # At a table with a shoe, a misdeal shows as a card from another pack:
            # card 31 of the first deal duplicates card 5 (and one card is missing).
            deals[30] = dict(deals[30], card=deals[4]["card"])
        use_camera = self.camera is not None and self.camera.can_show(events)
        if self.camera is not None and not use_camera:
            log(f"table {self.id}: board {board_ev.get('board')} (a redeal or a card taken back) is beyond "
                "the video simulator; its plays come from the simulator")
        deal_i = 0
        for ev in events:
            if self.stop.is_set():
                return
            if ev["type"] == "board":
                if self.wait(pace(ev)):
                    return
                self.node.emit(dict(ev, ts=round(time.time(), 3), source="operator"))
                if use_shoe:
                    self.reader.new_board(int(ev.get("board", 0)), str(ev.get("dealer", "N")))
                    self.shoe.load()
                continue
            if ev["type"] == "deal":
                card = deals[deal_i]["card"]
                deal_i += 1
                if self.wait(pace(ev)):
                    return
                if use_shoe:
                    self.shoe.deal(card)
                    if deal_i % 52 == 0 and not self.reader.wait_dealt(52, 10):
                        log(f"table {self.id}: the shoe delivered {self.reader.dealt} of 52 cards")
                else:
                    self.node.emit(dict(ev, card=card, ts=round(time.time(), 3), source="sim"))
                continue
            if use_camera and ev["type"] in ("play", "expose"):
                for rest in self.camera.play(events, self.stop, self.args.speed):
                    if self.wait(pace(rest)):
                        return
                    self.node.emit(dict(rest, ts=round(time.time(), 3), source="operator"))
                return
            if self.wait(pace(ev)):
                return
            source = "sim" if ev["type"] in ("play", "retract", "expose") else "operator"
            self.node.emit(dict(ev, ts=round(time.time(), 3), source=source))


# -- the whole demo ----------------------------------------------------------------------

def run_demo(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from ..server.app import create_app
        from ..server.broadcast import BroadcastDelay
        from ..server.hub import TableHub
    except ImportError as e:  # pragma: no cover
        log(f"the dashboard cannot start: {e}")
        return 2

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

    def health(table: str, source: str, status: str) -> None:
        try:
            hub.set_health(table, source, status)
        except ValueError:
            pass

    station = Station(bus_for("director"), sink=lambda t, s, ev: hub.ingest(t, ev),
                      store=EventStore(os.path.join(data_dir, "station.sqlite")),
                      on_finding=lambda t, f: hub.ingest(t, f))
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
        tables.append(SimulatedTable(tid, node, args, args.seed + i, stop, health))
    for t in tables:
        t.start()
    delay = BroadcastDelay(1, 0)
    app = create_app(hub, token=None, broadcast_delay=delay, insecure_demo=True)
    log(f"{args.tables} simulated {args.game} table(s) at {args.speed:g}x table speed"
        f"{' through Mosquitto on 127.0.0.1:' + str(broker.port) if broker else ' (in-process bus)'}; "
        f"event stores in {data_dir}")
    log(f"dashboard http://{args.host}:{args.port}/   broadcast http://{args.host}:{args.port}/broadcast")
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning", ws="websockets-sansio")
    finally:
        stop.set()
        station.stop()
        if broker:
            broker.stop()
    return 0
