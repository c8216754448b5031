"""Where a table node's events come from: the shoe, the camera, the simulator.

Shared by ``tablecam run`` (one table, from its config) and ``tablecam demo``
(simulated tables on one machine):

- :class:`LiveShoe`: a virtual shoe speaking the real wire protocol on a
  pseudo-terminal (the simulator's stand-in for the hardware);
- :class:`ShoeReader`: the real :class:`~tablecam.shoe.driver.ShoeDriver` and
  :class:`~tablecam.shoe.tracker.DealTracker` on any pyserial URL - a real
  shoe on ``/dev/ttyUSB0`` or a :class:`LiveShoe`'s pty - turning cards into
  ``deal`` events for the node;
- :class:`SimulatedTable`: a whole simulated table (deals through a
  :class:`LiveShoe`, calls as an operator would enter them, plays from the
  simulator or from the camera path of :mod:`tablecam.node.democamera`);
- :class:`CameraReader`: a real camera (device, file, RTSP/HTTP URL) through
  the camera pipeline, fused with the hands the shoe dealt.
"""

from __future__ import annotations

import argparse
import queue
import sys
import threading
import time
from typing import Any, Callable

from ..store import to_item
from .tablenode import TableNode


def log(msg: str) -> None:
    print(f"tablecam: {msg}", file=sys.stderr, flush=True)


# Findings only the shoe can make; the engine recomputes the rest from events.
SHOE_ONLY = ("shoe_misread", "foreign_card", "extra_card", "shoe_link", "low_confidence",
             "shoe_jam", "shoe_double_feed", "cards_left_in_shoe")


# The shoe driver's link states (``shoe.driver.Health``) in the dashboard's words:
# heartbeats late is degraded (cards may still come), a port that cannot be
# opened or read is down.
SHOE_HEALTH = {"ok": "ok", "stale": "degraded", "starting": "unknown", "disconnected": "down"}


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

    def empty(self) -> None:
        """The last card has left: the shoe reports itself empty (SHOE_EMPTY)."""
        self.q.put(("emptied", None))

    def _run(self) -> None:
        last_hb = 0.0
        while not self.stop.is_set():
            try:
                kind, arg = self.q.get(timeout=0.05)
                if kind == "card":
                    self.shoe.card(arg)
                elif kind == "loaded":
                    self.shoe.loaded()
                elif kind == "emptied":
                    self.shoe.emptied()
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


def _last_shoe_card(events: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The last ``deal`` the shoe made (with its frame number) among ``events``."""
    return next((e for e in reversed(events) if e.get("type") == "deal" and e.get("source") == "shoe"
                 and isinstance(e.get("shoe_seq"), int)), None)


class ShoeReader:
    """The real driver and deal tracker on the shoe's pty; deals go to the node."""

    def __init__(self, path: str, node: TableNode, game: str, stop: threading.Event,
                 health: Callable[[str, str, str | None], None] | None = None, own_boards: bool = False,
                 dealer: str = "N", board: int = 1) -> None:
        from ..shoe.driver import Health, ShoeDriver
        from ..shoe.tracker import DealTracker

        self._Health = Health
        self._Tracker = DealTracker
        self.driver = ShoeDriver(path)
        self.node, self.game, self.stop, self.health = node, game, stop, health
        # own_boards: a real shoe at a table with no operator - the tracker's
        # ``board`` events (a new board each time the shoe is loaded) go to the node.
        self.own_boards = own_boards
        self.tracker: Any = DealTracker(game, dealer, board) if own_boards else None
        self._resume(node)
        self.dealt = 0
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self._run, name="shoe-driver", daemon=True)
        self.thread.start()

    def _resume(self, node: TableNode) -> None:
        """A restarted table node takes up the shoe where its log stops: the
        link from the last stored card's shoe number (what the shoe replays
        up to it is not dealt twice), and with ``own_boards`` the board under
        way (its number, dealer and where the dealing order stands)."""
        board = node.board_so_far()
        # the last card is almost always in the board under way: the whole log
        # is read only when that board has none yet
        last = _last_shoe_card(board) or _last_shoe_card([se.event for se in node.store.events(node.id)])
        if last is not None:
            boot = last.get("shoe_boot")
            self.driver.link.resume(last["shoe_seq"], boot if isinstance(boot, int) else None)
        if self.tracker is not None:
            self.tracker.resume(board)

    @staticmethod
    def _deal_dict(item: Any, msg: Any) -> dict[str, Any]:
        """The deal event the card message ``msg`` gave, with the shoe boot
        the link handed that message on in (``ShoeMessage.boot``): where a
        restarted node takes the shoe up (:meth:`_resume`)."""
        d = item.to_dict()
        boot = getattr(msg, "boot", None)
        if "shoe_seq" in d and isinstance(boot, int):
            d["shoe_boot"] = boot
        return d

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
                status = SHOE_HEALTH.get(msg.state, "down")
                self.node.set_health("shoe", status, msg.reason or None)
                if self.health:
                    self.health("shoe", status, msg.reason or None)
                continue
            with self.cond:
                tracker = self.tracker
            if tracker is None:
                continue
            for item in tracker.feed(msg):
                if isinstance(item, Event) and item.type == "board" and self.own_boards:
                    self.node.emit(item.to_dict())
                elif isinstance(item, Event) and item.type == "deal":
                    self.node.emit(self._deal_dict(item, msg))
                    with self.cond:
                        self.dealt += 1
                        self.cond.notify_all()
                elif isinstance(item, Finding) and item.kind in SHOE_ONLY:
                    self.node.report(item, "shoe")


# -- one table ------------------------------------------------------------------------

class SimulatedTable(threading.Thread):
    def __init__(self, table_id: str, node: TableNode, args: argparse.Namespace, seed: int,
                 stop: threading.Event, health: Callable[[str, str, str | None], None] | None = None) -> None:
        super().__init__(name=f"table-{table_id}", daemon=True)
        self.id, self.node, self.args, self.seed, self.stop = table_id, node, args, seed, stop
        self.shoe: LiveShoe | None = None
        self.reader: ShoeReader | None = None
        if not args.no_shoe and args.game == "bridge":
            self.shoe = LiveShoe(stop)
            self.reader = ShoeReader(self.shoe.path, node, args.game, stop, health)
        self.camera: Any = None
        if getattr(args, "camera", False) and args.game == "bridge":
            from .democamera import DemoCamera

            self.camera = DemoCamera(args.game, node.emit, lambda f: node.report(f, "camera"), log, seed)

    def wait(self, seconds: float) -> bool:
        """Sleep for ``seconds`` of table time; True when the table is being stopped."""
        return self.stop.wait(seconds / self.args.speed)

    def run(self) -> None:
        from ..sim.session import boards_of

        if self.args.game == "bridge":
            from ..sim.bridge import pace
        else:
            from ..sim.nordic import pace

        try:
            for board_events in boards_of(self.args.game, self.args.boards, self.seed,
                                          self.args.irregularities, getattr(self.args, "first_board", 1)):
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
                    if deal_i % 52 == 0:
                        self.shoe.empty()
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



class CameraReader:
    """A real camera through the camera pipeline; readings fused with the dealt hands."""

    def __init__(self, source: str, node: TableNode, game: str, stop: threading.Event,
                 config: str | None = None) -> None:
        from ..vision.fusion import HandBook
        from ..vision.pipeline import CameraPipeline, default_classifier
        from ..vision.zones import CameraConfig

        self.source, self.node, self.stop = source, node, stop
        self.hands = HandBook()
        self.pipe = CameraPipeline(CameraConfig.load(config), game, classify=default_classifier(),
                                   hands=self.hands)
        self.pipe.recover(self._board_so_far(node))   # a restart mid-trick repeats no play
        node.listeners.append(self._on_node_event)
        self.thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self.thread.start()

    @staticmethod
    def _board_so_far(node: TableNode) -> list[Any]:
        """The board under way, parsed (a bad stored event is the engine's
        finding, not the camera's: passed over)."""
        from ..events import Event

        return [it for i, e in enumerate(node.board_so_far()) if isinstance(it := to_item(e, i), Event)]

    def _on_node_event(self, event: dict[str, Any]) -> None:
        if event.get("type") in ("board", "deal") and event.get("source") != "camera":
            from ..events import parse_event

            try:
                self.hands.feed(parse_event(event))
            except ValueError:
                pass

    def _run(self) -> None:
        from ..events import Event
        from ..findings import Finding
        from ..vision.camera import FrameSource

        seen = False
        try:
            for frame in FrameSource(self.source):
                if self.stop.is_set():
                    return
                if not seen:
                    seen = True
                    self.node.set_health("camera", "ok", None)
                for item in self.pipe.process(frame):
                    if isinstance(item, Event):
                        d = item.to_dict()
                        d["ts"] = round(time.time(), 3)  # wall clock, like every other source
                        self.node.emit(d)
                    elif isinstance(item, Finding):
                        self.node.report(item, "camera")
        except Exception as e:  # a broken camera must not take the table node down
            log(f"camera {self.source} stopped: {type(e).__name__}: {e}")
            self.node.set_health("camera", "down", f"camera stopped: {type(e).__name__}: {e}"[:200])
            return
        if not self.stop.is_set():
            self.node.set_health("camera", "down", "no more frames from the camera")


def options(game: str, speed: float, boards: int, irregularities: float, shoe: bool = True,
            camera: bool = False, first_board: int = 1) -> argparse.Namespace:
    """The options a :class:`SimulatedTable` reads (as ``tablecam demo`` parses them)."""
    return argparse.Namespace(game=game, speed=speed, boards=boards, irregularities=irregularities,
                              no_shoe=not shoe, camera=camera, first_board=first_board)
