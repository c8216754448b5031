"""The ``tablecam`` command.

Each area registers its own subcommands from a small module (keeping heavy
imports such as OpenCV or FastAPI inside the command functions), so
``tablecam --help`` stays fast and one broken area never hides the others.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

COMMAND_MODULES = (
    "tablecam.commands",      # replay, export
    "tablecam.shoe.cli",      # shoe listen, shoe-sim
    "tablecam.vision.cli",    # detect, camera, calibrate
    "tablecam.training.cli",  # synth, train, locdata, train-localiser ...
    "tablecam.sim.cli",       # sim video
    "tablecam.server.cli",    # serve
    "tablecam.node.cli",      # run (table node), demo
)


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    p = argparse.ArgumentParser(
        prog="tablecam",
        description="Card-table recognition and rules engine: replay, detect, serve, demo.",
    )
    p.add_argument("--version", action="version", version=f"tablecam {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name == name:
                continue  # area not built yet
            raise
        mod.register(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        rc = args.func(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        try:
            sys.stdout.close()
        except Exception:
            pass
        return 0
    return int(rc or 0)
