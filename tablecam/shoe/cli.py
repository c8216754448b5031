"""``tablecam shoe listen`` and ``tablecam shoe-sim``.

Imports stay inside the command functions so ``tablecam --help`` does not load
pyserial.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

GAMES = ("bridge", "vira", "pidro", "whist")


def register(sub: Any) -> None:
    shoe = sub.add_parser("shoe", help="card shoe tools (listen)",
                          description="Card shoe tools. See docs/shoe.md and firmware/PROTOCOL.md.")
    ssub = shoe.add_subparsers(dest="shoe_command", metavar="SUBCOMMAND")
    listen = ssub.add_parser(
        "listen", help="print the shoe's cards as deal events (JSON Lines)",
        description="Read a card shoe on any pyserial URL and print the boards it deals as an event "
                    "log (JSON Lines) on stdout; shoe health, link notices and findings go to stderr. "
                    "It stops when the shoe is done (run empty, then off line for --gone-after "
                    "seconds), or at --duration, --cards or --boards.")
    listen.add_argument("--port", required=True,
                        help="pyserial URL: /dev/ttyACM0, /dev/pts/N, socket://HOST:PORT, rfc2217://..., loop://")
    listen.add_argument("--game", required=True, choices=GAMES)
    listen.add_argument("--dealer", required=True, help="dealer of the first board (N E S W)")
    listen.add_argument("--board", type=int, default=1, help="number of the first board (default 1)")
    listen.add_argument("--sit-out", help="Vira at a 4-table: who sits out the first board (default: the dealer's right-hand player)")
    listen.add_argument("--packs", help="pack ids in use, alternating per board (Vira: 1,2)")
    listen.add_argument("--baud", type=int, default=115200)
    listen.add_argument("--heartbeat-timeout", type=float, default=1.5,
                        help="seconds without a frame before health is 'stale' (default 1.5)")
    listen.add_argument("--duration", type=float, help="stop after this many seconds")
    listen.add_argument("--cards", type=int, help="stop after this many cards")
    listen.add_argument("--boards", type=int, metavar="N", help="stop when the shoe has run empty N times")
    listen.add_argument("--gone-after", type=float, default=3.0, metavar="S",
                        help="the shoe is done when it has run empty and its line stays closed this many "
                             "seconds (its simulator exited, its cable was unplugged): stop then (default 3)")
    listen.add_argument("--stay", action="store_true",
                        help="never stop because the shoe is done; wait for it to come back")
    listen.add_argument("--findings", action="store_true",
                        help="print findings as JSON Lines on stdout too (default: stderr)")
    listen.set_defaults(func=cmd_listen)
    shoe.set_defaults(func=lambda a: (shoe.print_help(), 2)[1])

    sim = sub.add_parser(
        "shoe-sim", help="run a virtual card shoe on a pseudo-terminal or TCP port",
        description="A virtual shoe speaking the firmware protocol. It prints the device path (or TCP "
                    "address) to connect `tablecam shoe listen --port` to, then deals.")
    where = sim.add_mutually_exclusive_group()
    where.add_argument("--pty", action="store_true", help="serve on a new pseudo-terminal (default)")
    where.add_argument("--tcp", metavar="[HOST:]PORT", help="serve on a TCP port (connect with socket://HOST:PORT)")
    sim.add_argument("--game", choices=GAMES, default="bridge")
    sim.add_argument("--boards", type=int, help="boards to deal (default: 1 shuffled board, or every board of --deal)")
    sim.add_argument("--seed", type=int, help="random seed (deals and faults)")
    sim.add_argument("--deal", metavar="FILE", help="deal the boards recorded in this event log (.jsonl) or "
                                                     "archive (.pbn, .lin) instead")
    sim.add_argument("--interval", type=float, default=0.3, help="seconds between cards (default 0.3)")
    sim.add_argument("--heartbeat", type=float, default=0.5, help="heartbeat period in seconds (default 0.5)")
    sim.add_argument("--faults", default="", metavar="SPEC",
                     help="fault probabilities per frame, e.g. bit_flip=0.02,drop_byte=0.01,duplicate=0.02,"
                          "garbage=0.01,delay=0.05,max_delay=0.2 (or all=P)")
    sim.add_argument("--unreadable", type=float, default=0.0, help="probability a card is not read")
    sim.add_argument("--reboot-after", type=int, metavar="N", help="reboot the shoe after card N")
    sim.add_argument("--cable-pull-after", type=int, metavar="N", help="cut the line after card N ...")
    sim.add_argument("--cable-pull-for", type=float, default=2.0, metavar="S", help="... for S seconds")
    sim.add_argument("--wait", type=float, default=1.0,
                     help="seconds to wait before dealing, so a listener can connect (default 1)")
    sim.add_argument("--loop", action="store_true", help="deal again and again until interrupted")
    sim.set_defaults(func=cmd_sim)


def _err(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def cmd_listen(args: argparse.Namespace) -> int:
    import time

    from ..findings import Finding
    from .driver import Health, ShoeDriver, ShoeMessage
    from .link import Notice
    from .tracker import DealTracker

    try:
        packs = [int(p) for p in args.packs.split(",")] if args.packs else None
        tracker = DealTracker(args.game, args.dealer, board=args.board, sit_out=args.sit_out, packs=packs)
    except ValueError as e:
        _err(f"tablecam shoe listen: {e}")
        return 2
    driver = ShoeDriver(args.port, baudrate=args.baud, heartbeat_timeout=args.heartbeat_timeout)
    start = time.monotonic()
    cards = 0
    emptied = 0
    pack_out = False                  # the shoe ran empty and nothing was loaded or dealt since
    off_line_since: float | None = None

    def done() -> bool:
        """The shoe is done: it ran empty, then its line closed and stayed closed.

        Why both: a line that closes mid-pack is a pulled cable to wait out
        (the shoe's ring buffer and RESEND cover it); after the last card of
        the pack it is the shoe (or its simulator) going away."""
        return (not args.stay and pack_out and off_line_since is not None
                and time.monotonic() - off_line_since >= args.gone_after)

    def stop() -> bool:
        if args.duration is not None and time.monotonic() - start >= args.duration:
            return True
        if args.boards is not None and emptied >= args.boards:
            return True
        if done():
            return True
        return args.cards is not None and cards >= args.cards

    out = sys.stdout
    for item in driver.messages(stop):
        if isinstance(item, Health):
            _err(f"shoe health: {item.state} ({item.reason})")
            if item.state == "disconnected":
                off_line_since = off_line_since or time.monotonic()
            else:
                off_line_since = None
            continue
        if isinstance(item, Notice):
            _err(f"shoe link: {item.kind}: {item.message}")
        elif isinstance(item, ShoeMessage) and item.kind in ("HELLO", "ERROR", "SHOE_EMPTY", "SHOE_LOADED"):
            _err(f"shoe: {item.kind} {json.dumps(item.fields)}")
            emptied += item.kind == "SHOE_EMPTY"
            pack_out = item.kind == "SHOE_EMPTY" or (pack_out and item.kind not in ("SHOE_LOADED", "HELLO"))
        elif isinstance(item, ShoeMessage) and item.kind in ("CARD", "CARD_UNREADABLE"):
            pack_out = False
        for res in tracker.feed(item):
            if isinstance(res, Finding):
                line = json.dumps(res.to_dict(), ensure_ascii=False)
                if args.findings:
                    print(line, file=out, flush=True)
                else:
                    _err(f"finding: {line}")
            else:
                print(json.dumps(res.to_dict(), ensure_ascii=False), file=out, flush=True)
                if res.type == "deal":
                    cards += 1
    if done():
        _err(f"shoe listen: the shoe ran empty and has been off line for {args.gone_after:g} s: done")
    s = driver.link.stats
    _err(f"shoe link: {s.delivered} frames delivered, {s.corrupt} corrupt, {s.duplicates} duplicates, "
         f"{s.resend_requests} resend requests, {s.lost} lost, {s.reboots} restarts")
    return 0


def cmd_sim(args: argparse.Namespace) -> int:
    import os
    import random
    import socket
    import time

    from .sim import FdLink, Faults, SimPlan, deals_from_items, open_pty, run_plan, shuffled_deal

    try:
        faults = Faults.parse(args.faults)
    except ValueError as e:
        _err(f"tablecam shoe-sim: {e}")
        return 2
    if args.deal:
        from ..archive import load

        try:
            boards = deals_from_items(load(args.deal))
        except (OSError, ValueError) as e:
            _err(f"tablecam shoe-sim: cannot read {args.deal}: {e}")
            return 2
        if not boards:
            _err(f"tablecam shoe-sim: no deal events in {args.deal}")
            return 2
        if args.boards:
            boards = boards[:args.boards]
    else:
        rng = random.Random(args.seed)
        boards = [shuffled_deal(args.game, rng.randrange(1 << 30)) for _ in range(args.boards or 1)]
    if args.unreadable:
        rng = random.Random(args.seed)
        for b in boards:
            for c in b:
                if rng.random() < args.unreadable:
                    c.card = None
    plan = SimPlan(boards, card_interval=args.interval, heartbeat=args.heartbeat, faults=faults,
                   seed=args.seed, reboot_after=args.reboot_after, cable_pull_after=args.cable_pull_after,
                   cable_pull_for=args.cable_pull_for, loop=args.loop)

    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        srv = socket.create_server((host or "127.0.0.1", int(port)))
        addr = srv.getsockname()
        print(f"socket://{addr[0]}:{addr[1]}", flush=True)
        _err("shoe-sim: waiting for a connection")
        conn, _ = srv.accept()
        link = FdLink(conn.fileno())
        keep: Any = conn
    else:
        master, path = open_pty()
        print(path, flush=True)
        link = FdLink(master)
        keep = master
    _err(f"shoe-sim: dealing {len(boards)} board(s) of {args.game} in {args.wait:.1f}s")
    time.sleep(args.wait)
    counts = run_plan(plan, link, log=_err)
    _err(f"shoe-sim: done; {counts.frames} frames, {counts.corrupted} corrupted, "
         f"{counts.duplicates} duplicated, {counts.garbage} garbage bursts, {counts.delays} delays")
    if isinstance(keep, int):
        os.close(keep)
    else:
        keep.close()
    return 0
