"""``tablecam serve``: the director station (dashboard, alerts, broadcast, archive).

FastAPI and uvicorn are imported inside the command so ``tablecam --help``
stays fast.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser(
        "serve", help="serve the director dashboard, alert queue, broadcast and archive",
        description="Serve the director station. The director token comes from TABLECAM_DIRECTOR_TOKEN "
                    "(or [server] director_token in --config); without one the server refuses to start "
                    "unless --insecure-demo is given.")
    p.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default 8000)")
    p.add_argument("--config", help="TOML config file (see config/server.example.toml)")
    p.add_argument("--insecure-demo", action="store_true",
                   help="no director token (demo on a private machine only; never at a tournament)")
    p.add_argument("--broadcast-delay-boards", type=int, default=None, metavar="N",
                   help="a board is public once its table has started N later boards (default 1)")
    p.add_argument("--broadcast-delay-minutes", type=float, default=None, metavar="M",
                   help="and every event is at least M minutes old (default 0)")
    p.add_argument("--broadcast-table", action="append", dest="broadcast_tables", metavar="ID",
                   help="broadcast only these tables (repeatable; default all)")
    p.add_argument("--replay", nargs="+", metavar="FILE", default=[],
                   help="replay event logs / PBN / LIN / table stores into the server: one table per log, "
                        "each table of a multi-table archive on its own table")
    p.add_argument("--speed", type=float, default=1.0,
                   help="replay speed factor (1 = a real table; 0 = as fast as possible)")
    p.add_argument("--interval", type=float, default=None,
                   help="seconds between replayed events that carry no ts, at speed 1 (default: what a real "
                        "table takes: a card dealt 0.4 s, a call 4 s, a card played 6 s)")
    p.add_argument("--mqtt", metavar="HOST:PORT",
                   help="director station mode: subscribe to every table on this MQTT broker")
    p.add_argument("--mqtt-user", default="director",
                   help="MQTT user name (default director); the password comes from TABLECAM_MQTT_PASSWORD")
    p.add_argument("--access-log", action="store_true",
                   help="log one line per HTTP request on stdout, uvicorn's access log (default: none; "
                        "errors and warnings go to stderr)")
    p.add_argument("--station-store", metavar="PATH",
                   help="the station's own event store (SQLite): rebuilds the dashboard after a restart")
    p.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    from .config import TOKEN_ENV, ServerConfig, websocket_impl
    from .security import token_problem, token_warning

    try:
        cfg = ServerConfig.load(args.config)
    except (OSError, ValueError) as e:
        print(f"tablecam serve: cannot read config {args.config}: {e}", file=sys.stderr)
        return 2
    host = args.host or cfg.host
    port = args.port if args.port is not None else cfg.port
    token = cfg.token()
    if not args.insecure_demo:
        problem = token_problem(token)
        if problem:
            print(f"tablecam serve: refusing to start: {problem}.\n"
                  f"  Set {TOKEN_ENV} (e.g. export {TOKEN_ENV}=$(python3 -c 'import secrets; "
                  f"print(secrets.token_urlsafe(24))')),\n"
                  f"  or put director_token in the [server] section of --config,\n"
                  f"  or pass --insecure-demo for a demo on a private machine.", file=sys.stderr)
            return 2
        warning = token_warning(token)
        if warning:
            print(f"tablecam serve: WARNING: {warning}.", file=sys.stderr)
    else:
        token = None
        print("tablecam serve: INSECURE DEMO MODE - no director token; anyone who can reach "
              f"{host}:{port} sees every hand.", file=sys.stderr)

    import threading

    from .listen import PortInUse, open_port, serve

    try:
        sock = open_port(host, port)   # before anything starts or says where to look
    except PortInUse as e:
        print(f"tablecam serve: {e}", file=sys.stderr)
        return 2
    port = sock.getsockname()[1]       # --port 0: the port the system chose

    from .app import create_app
    from .broadcast import BroadcastDelay
    from .hub import TableHub
    from .replayer import start_replays

    delay = BroadcastDelay(
        args.broadcast_delay_boards if args.broadcast_delay_boards is not None else cfg.broadcast_delay_boards,
        args.broadcast_delay_minutes if args.broadcast_delay_minutes is not None else cfg.broadcast_delay_minutes)
    hub = TableHub(silent_after=cfg.silent_after_seconds)
    try:
        app = create_app(hub, token=token, broadcast_delay=delay, insecure_demo=args.insecure_demo,
                         broadcast_tables=args.broadcast_tables or cfg.broadcast_tables,
                         public_rate_per_minute=cfg.public_rate_per_minute, public_burst=cfg.public_burst,
                         operator_tokens=cfg.operators())
    except ValueError as e:
        print(f"tablecam serve: refusing to start: {e}.", file=sys.stderr)
        return 2
    stop = threading.Event()
    if args.replay:
        try:
            start_replays(hub, args.replay, args.speed, args.interval, stop)
        except (OSError, ValueError) as e:
            print(f"tablecam serve: cannot replay: {e}", file=sys.stderr)
            return 2
    station = None
    if args.mqtt:
        import os

        from ..bus.stationlink import attach_station

        try:
            station = attach_station(hub, args.mqtt, username=args.mqtt_user,
                                     password=os.environ.get("TABLECAM_MQTT_PASSWORD"),
                                     store_path=args.station_store)
        except ValueError as e:
            print(f"tablecam serve: --mqtt: {e}", file=sys.stderr)
            return 2
        print(f"tablecam serve: subscribed to all tables on MQTT {args.mqtt}", file=sys.stderr)
        app.state.station.forward = station.send_events   # hand-entered events go through the table's node
        if getattr(station, "store", None) is not None:
            from .persist import keep_rulings

            keep_rulings(hub, station.store)  # rulings survive a restart with the events
    print(f"tablecam serve: dashboard http://{host}:{port}/  broadcast http://{host}:{port}/broadcast "
          f"(delayed by {delay.describe()})", file=sys.stderr)
    try:
        serve(app, sock, access_log=args.access_log, ws=websocket_impl())
    finally:
        stop.set()
        sock.close()
        if station is not None:
            station.stop()
    return 0
