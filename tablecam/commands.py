"""``tablecam replay`` and ``tablecam export``: judge and convert event logs and archives."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .engine import replay
from .findings import Finding


def register(sub: Any) -> None:
    p = sub.add_parser("replay", help="replay event logs / PBN / LIN and report findings",
                       description="Replay event logs (.jsonl) and archives (.pbn, .lin) through the "
                                   "rules engines; print every finding and one result per bridge board.")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--json", action="store_true", help="JSON Lines output (the contract format)")
    p.add_argument("--kinds", help="comma-separated finding kinds to print (default: all)")
    p.set_defaults(func=cmd_replay)

    e = sub.add_parser("export", help="convert event logs / archives to PBN, LIN or JSON Lines",
                       description="Convert any readable input to PBN, LIN or JSON Lines.")
    e.add_argument("files", nargs="+", metavar="FILE")
    e.add_argument("--format", "-f", choices=("pbn", "lin", "jsonl"), default="jsonl")
    e.add_argument("--output", "-o", help="output file (default: stdout)")
    e.set_defaults(func=cmd_export)


def _human(f: Finding) -> str:
    where = []
    if f.seat:
        where.append(f.seat)
    if f.trick:
        where.append(f"trick {f.trick}")
    loc = f" ({', '.join(where)})" if where else ""
    at = f" [event {f.event}]" if f.event is not None else ""
    return f"  {f.kind}{loc}: {f.message} [{f.rule}]{at}"


def cmd_replay(args: argparse.Namespace) -> int:
    from .archive import load

    kinds = set(args.kinds.split(",")) if args.kinds else None
    rc = 0
    out = sys.stdout
    for path in args.files:
        try:
            items = load(path)
        except (OSError, ValueError) as e:
            print(f"tablecam replay: cannot read {path}: {e}", file=sys.stderr)
            rc = 2
            continue
        if not args.json:
            print(f"== {path}", file=out)
        board = object()
        for f in replay(items):
            if kinds and f.kind not in kinds:
                continue
            if args.json:
                d = f.to_dict()
                if len(args.files) > 1:
                    d["file"] = path
                out.write(json.dumps(d, ensure_ascii=False) + "\n")
            else:
                if f.board != board:
                    board = f.board
                    print(f"Board {board}:", file=out)
                print(_human(f), file=out)
    return rc


def cmd_export(args: argparse.Namespace) -> int:
    from .archive import load
    from .archive.export import export

    rc = 0
    items = []
    for path in args.files:
        try:
            items.extend(load(path))
        except (OSError, ValueError) as e:
            print(f"tablecam export: cannot read {path}: {e}", file=sys.stderr)
            rc = 2
    fp = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    try:
        export(items, args.format, fp)
    finally:
        if args.output:
            fp.close()
    return rc
