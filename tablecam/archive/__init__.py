"""Archives of real deals: PBN 2.1 and BBO LIN in, PBN / LIN / JSON Lines out.

:func:`load` turns any supported file into the same event stream the live
sources produce, so one engine judges live tables and archives alike. A
table node's SQLite store (``tablecam run``) is a source like the others:
:func:`sources` gives each of its tables apart.
"""

from __future__ import annotations

import itertools
import os
from typing import Iterator

from ..events import Event, read_event_file
from ..findings import Finding
from ..store import STORE_SUFFIXES, read_store

FORMATS = (".jsonl", ".pbn", ".lin", ".sqlite")


def load(path: str) -> Iterator[Event | Finding]:
    """Events (and reader findings) from a ``.jsonl``, ``.pbn`` or ``.lin`` file.

    Raises ``OSError`` if the file cannot be opened and ``ValueError`` for an
    unsupported extension; problems *inside* a file become findings. A store
    gives its tables one after the other.
    """
    ext = os.path.splitext(path)[1].lower()
    if ext in STORE_SUFFIXES:
        return itertools.chain.from_iterable(read_store(path).values())
    if ext in (".jsonl", ".json", ".ndjson"):
        return read_event_file(path)
    if ext == ".pbn":
        from .pbn import pbn_events

        return pbn_events(_read_text(path))
    if ext == ".lin":
        from .lin import lin_events

        return lin_events(_read_text(path))
    if not os.path.exists(path):
        raise FileNotFoundError(2, "no such file", path)
    raise ValueError(f"unsupported file type {repr(ext) if ext else 'without an extension'} (expected {', '.join(FORMATS)})")


def sources(path: str) -> list[tuple[str | None, Iterator[Event | Finding]]]:
    """``(table, items)`` for each table a file holds: a store's tables apart, else ``(None, load(path))``.

    Why apart: a store of several tables numbers each table's events from 1,
    so their findings are told apart by table, not by event index.
    """
    if os.path.splitext(path)[1].lower() in STORE_SUFFIXES:
        return list(read_store(path).items())
    return [(None, load(path))]


def _read_text(path: str) -> str:
    with open(path, "rb") as fp:
        raw = fp.read()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("latin-1")
