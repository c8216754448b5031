"""Archives of real deals: PBN 2.1 and BBO LIN in, PBN / LIN / JSON Lines out.

:func:`load` turns any supported file into the same event stream the live
sources produce, so one engine judges live tables and archives alike.
"""

from __future__ import annotations

import os
from typing import Iterator

from ..events import Event, read_event_file
from ..findings import Finding

FORMATS = (".jsonl", ".pbn", ".lin")


def load(path: str) -> Iterator[Event | Finding]:
    """Events (and reader findings) from a ``.jsonl``, ``.pbn`` or ``.lin`` file.

    Raises ``OSError`` if the file cannot be opened and ``ValueError`` for an
    unsupported extension; problems *inside* a file become findings.
    """
    ext = os.path.splitext(path)[1].lower()
    if ext in (".jsonl", ".json", ".ndjson"):
        return read_event_file(path)
    if ext == ".pbn":
        from .pbn import pbn_events

        return pbn_events(_read_text(path))
    if ext == ".lin":
        from .lin import lin_events

        return lin_events(_read_text(path))
    raise ValueError(f"{path}: unsupported file type {ext!r} (expected {', '.join(FORMATS)})")


def _read_text(path: str) -> str:
    with open(path, "rb") as fp:
        raw = fp.read()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("latin-1")
