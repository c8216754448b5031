"""``tablecam replay`` and ``tablecam export``: judge and convert event logs and archives."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import IO, Any, Iterable, Iterator

from .engine import replay
from .events import Event
from .findings import Finding
from .store import STORE_SUFFIXES


def register(sub: Any) -> None:
    p = sub.add_parser("replay", help="replay event logs / PBN / LIN / table stores and report findings",
                       description="Replay event logs (.jsonl), archives (.pbn, .lin) and table nodes' "
                                   "stores (.sqlite, what `tablecam run` writes) through the rules "
                                   "engines; print every finding and one result per bridge board. A "
                                   "file with nothing readable in it is named on stderr and the exit "
                                   "status is 1; the other files are still read. A bad rule table in "
                                   "$TABLECAM_CONFIG is named on stderr and the exit status is 2.")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--json", action="store_true", help="JSON Lines output (the contract format)")
    p.add_argument("--kinds", help="comma-separated finding kinds to print (default: all)")
    p.set_defaults(func=cmd_replay)

    e = sub.add_parser("export", help="convert event logs / archives to PBN, LIN or JSON Lines",
                       description="Convert any readable input (.jsonl, .pbn, .lin, a table store "
                                   ".sqlite) to PBN, LIN or JSON Lines.")
    e.add_argument("files", nargs="+", metavar="FILE")
    e.add_argument("--format", "-f", choices=("pbn", "lin", "jsonl"), default="jsonl")
    e.add_argument("--output", "-o", help="output file (default: stdout)")
    e.set_defaults(func=cmd_export)


def _human(f: Finding, lines: bool) -> str:
    """One finding for a person: ``lines`` counts a JSON Lines file's lines from 1, as an editor does.

    (The JSON ``event`` field stays the contract's 0-based index.)"""
    where = []
    if f.seat:
        where.append(f.seat)
    if f.trick:
        where.append(f"trick {f.trick}")
    loc = f" ({', '.join(where)})" if where else ""
    at = ""
    if f.event is not None:
        at = f" [line {f.event + 1}]" if lines else f" [event {f.event}]"
    return f"  {f.kind}{loc}: {f.message} [{f.rule}]{at}"


class _Counted:
    """Passes a file's items on and counts its events: a file with none had nothing readable."""

    def __init__(self, items: Iterable[Event | Finding]) -> None:
        self.items = items
        self.events = 0

    def __iter__(self) -> Iterator[Event | Finding]:
        for it in self.items:
            if isinstance(it, Event):
                self.events += 1
            yield it


def _why_unreadable(path: str) -> str:
    """Why nothing could be read from ``path``, in the words of the contract (empty, binary, garbage)."""
    try:
        with open(path, "rb") as fp:
            head = fp.read(4096)
    except OSError as e:
        return e.strerror or str(e)
    if not head:
        return "the file is empty"
    if b"\0" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff", b"SQLite format 3")):
        return "a binary file, not an event log or archive"
    ext = os.path.splitext(path)[1].lower()
    if ext in STORE_SUFFIXES:
        return "the store holds no events"
    if ext == ".pbn":
        return "no PBN game in it (no [Board] or [Deal] tag)"
    if ext == ".lin":
        return "no LIN board in it (no md| deal or pc| play)"
    return "no line of it is an event"


def _open_sources(command: str, path: str) -> list[tuple[str | None, Iterator[Event | Finding]]] | None:
    from .archive import sources

    try:
        return sources(path)
    except (OSError, ValueError) as e:
        print(f"tablecam {command}: cannot read {path}: {_reason(e)}", file=sys.stderr)
        return None


def _reason(e: Exception) -> str:
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    return str(e)


def _unreadable(command: str, path: str) -> None:
    print(f"tablecam {command}: nothing could be read from {path}: {_why_unreadable(path)}", file=sys.stderr)


def cmd_replay(args: argparse.Namespace) -> int:
    from .config import ConfigError
    from .rules.tables import check_tables

    try:
        check_tables()  # a club's own rule tables ($TABLECAM_CONFIG): a bad one stops here, named
    except ConfigError as e:
        print(f"tablecam replay: {e}", file=sys.stderr)
        return 2
    kinds = set(args.kinds.split(",")) if args.kinds else None
    rc = 0
    out = sys.stdout
    for path in args.files:
        srcs = _open_sources("replay", path)
        if srcs is None:
            rc = 1
            continue
        if not args.json:
            print(f"== {path}", file=out)
        lines = os.path.splitext(path)[1].lower() in (".jsonl", ".json", ".ndjson")
        read = 0
        for table, items in srcs:
            counted = _Counted(items)
            if table is not None and not args.json:
                print(f"-- table {table}", file=out)
            board: Any = object()
            for f in replay(counted):
                if kinds and f.kind not in kinds:
                    continue
                if args.json:
                    d = f.to_dict()
                    if len(args.files) > 1:
                        d["file"] = path
                    if table is not None:
                        d["table"] = table
                    out.write(json.dumps(d, ensure_ascii=False) + "\n")
                else:
                    if f.board != board:
                        board = f.board
                        print("Before the first board:" if board is None else f"Board {board}:", file=out)
                    print(_human(f, lines), file=out)
            read += counted.events
        if not read:
            _unreadable("replay", path)
            rc = 1
    return rc


def cmd_export(args: argparse.Namespace) -> int:
    from .archive.export import export

    fp: IO[str] = sys.stdout
    if args.output:
        folder = os.path.dirname(os.path.abspath(args.output))
        if not os.path.isdir(folder):
            print(f"tablecam export: cannot write {args.output}: the folder {folder} does not exist",
                  file=sys.stderr)
            return 1
        try:
            fp = open(args.output, "w", encoding="utf-8")
        except OSError as e:
            print(f"tablecam export: cannot write {args.output}: {_reason(e)}", file=sys.stderr)
            return 1
    rc = 0
    items: list[Event | Finding] = []
    for path in args.files:
        srcs = _open_sources("export", path)
        if srcs is None:
            rc = 1
            continue
        read = 0
        for _, its in srcs:
            counted = _Counted(its)
            items.extend(counted)
            read += counted.events
        if not read:
            _unreadable("export", path)
            rc = 1
    try:
        export(items, args.format, fp)
    finally:
        if args.output:
            fp.close()
    return rc
