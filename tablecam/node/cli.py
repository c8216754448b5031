"""``tablecam run`` (a table node) and ``tablecam demo`` (a whole simulated table)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(sub: Any) -> None:
    r = sub.add_parser("run", help="run one table node (sources -> store -> engine -> bus)",
                       description="Run one table: its shoe and camera (or their simulators), the game's "
                                   "engine, the durable event store and the bus to the director station.")
    r.add_argument("--config", required=True, help="table config (TOML), e.g. config/table.toml")
    r.add_argument("--mqtt", metavar="HOST:PORT", help="override the config's bus with this MQTT broker")
    r.add_argument("--boards", type=int, help="override [sim].boards")
    r.add_argument("--speed", type=float, help="override [sim].speed")
    r.set_defaults(func=cmd_run)

    d = sub.add_parser("demo", help="a simulated table end to end with the dashboard on localhost",
                       description="Run simulated tables end to end (shoe simulator -> shoe driver, "
                                   "rules engine, store) with the director dashboard on 127.0.0.1, in demo "
                                   "mode (no token), until interrupted.")
    d.add_argument("--port", type=int, default=8000)
    d.add_argument("--host", default="127.0.0.1")
    d.add_argument("--game", default="bridge", choices=("bridge", "vira", "pidro", "whist"))
    d.add_argument("--tables", type=int, default=1)
    d.add_argument("--speed", type=float, default=8.0, help="1 = real table speed (default 8)")
    d.add_argument("--boards", type=int, default=0, help="boards per table (0: forever)")
    d.add_argument("--seed", type=int, default=1)
    d.add_argument("--irregularities", type=float, default=0.35,
                   help="chance of an irregularity per board (default 0.35)")
    d.add_argument("--mqtt", action="store_true", help="run through a local Mosquitto instead of in-process")
    d.add_argument("--access-log", action="store_true", help="log one line per HTTP request on stdout")
    d.add_argument("--data-dir", default=None, help="where the event stores go (default: a temp dir)")
    d.add_argument("--no-shoe", action="store_true", help="feed deals from the simulator, not the shoe path")
    d.add_argument("--camera", action="store_true",
                   help="also run the rendered-video camera path for plays (CPU heavy)")
    d.set_defaults(func=cmd_demo)


def cmd_run(args: argparse.Namespace) -> int:
    from ..config import ConfigError, load_table_config
    from ..rules.tables import check_tables
    from .runner import run_table

    try:
        cfg = load_table_config(args.config)
        check_tables()
    except ConfigError as e:
        print(f"tablecam run: {e}", file=sys.stderr)
        return 2
    if args.mqtt:
        host, _, port = args.mqtt.rpartition(":")
        cfg.bus.kind = "mqtt"
        cfg.bus.host = host or "127.0.0.1"
        cfg.bus.port = int(port)
    if args.boards is not None:
        cfg.sim.boards = args.boards
    if args.speed is not None:
        cfg.sim.speed = args.speed
    return run_table(cfg)


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(args)
