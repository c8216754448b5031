"""Real deals for the dashboard's tests, demo screenshots and benchmark.

Boards come from the real PBN archives (``../shared/data/bridge``) through
:func:`tablecam.archive.load`. :func:`inject_revoke` turns a correctly played
real board into one with a single, clean revoke: a player who followed suit
with card *c* in trick *t*, and later discarded *d* in trick *u*, plays *d*
in trick *t* and *c* in trick *u*. The swap is chosen so that no trick
changes hands (neither card is a trump nor wins its trick), so the rest of
the real play stays in turn and the revoke is the only irregularity.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Iterator

from ..cards import Card, Seat
from ..events import Event, make_event

DATA = os.path.join("..", "shared", "data", "bridge")
REALBRIDGE = os.path.join(DATA, "realbridge-2021.pbn")


def boards(items: Iterable[Any]) -> Iterator[list[Event]]:
    """Split an event stream into boards (each starting with its ``board`` event); drop findings."""
    cur: list[Event] = []
    for it in items:
        if not isinstance(it, Event):
            continue
        if it.type == "board":
            if cur:
                yield cur
            cur = [it]
        elif cur:
            cur.append(it)
    if cur:
        yield cur


def real_boards(path: str = REALBRIDGE, limit: int | None = None, with_play: bool = True) -> list[list[Event]]:
    """Boards of a real archive, optionally only those with at least one full trick played."""
    from ..archive import load

    out = []
    for b in boards(load(path)):
        if with_play and sum(1 for e in b if e.type == "play") < 8:
            continue
        out.append(b)
        if limit is not None and len(out) >= limit:
            break
    return out


def _trump(board: list[Event]) -> str | None:
    strain = None
    for e in board:
        if e.type == "call" and e.call and e.call[0].isdigit():
            strain = e.call[1]
    return None if strain in (None, "N") else strain


def _winner(trick: list[tuple[Seat, Card]], trump: str | None) -> Seat:
    led = trick[0][1].suit
    best = trick[0]
    for seat, card in trick[1:]:
        b = best[1]
        if card.suit == b.suit and "AKQJT98765432".index(card.rank) < "AKQJT98765432".index(b.rank):
            best = (seat, card)
        elif card.suit == trump and b.suit != trump:
            best = (seat, card)
        elif b.suit != led and b.suit != trump and card.suit == led:  # pragma: no cover - led card first
            best = (seat, card)
    return best[0]


def inject_revoke(board: list[Event]) -> tuple[list[Event], dict[str, Any]] | None:
    """A copy of ``board`` with one revoke swapped in, and where it is; None if no clean swap exists.

    The info dict names the ``seat``, the ``trick`` (1-based), the revoke
    ``card`` and the ``held`` card of the led suit, and ``event``: the
    0-based position of the revoking play within the returned list.
    """
    plays = [i for i, e in enumerate(board) if e.type == "play"]
    tricks = [plays[k:k + 4] for k in range(0, len(plays) - len(plays) % 4, 4)]
    trump = _trump(board)
    cards = {i: (board[i].seat, board[i].card) for i in plays}
    for t, trick in enumerate(tricks):
        if t == 0:
            continue  # keep the opening lead untouched: the revoke should happen mid-play
        tt = [cards[i] for i in trick]
        led = tt[0][1].suit
        win_t = _winner(tt, trump)
        for pos in range(1, 4):
            seat, c = tt[pos]
            if c.suit != led or c.suit == trump or seat == win_t:
                continue
            for u in range(t + 1, len(tricks)):
                uu = [cards[i] for i in tricks[u]]
                led_u = uu[0][1].suit
                for qpos in range(1, 4):
                    s2, d = uu[qpos]
                    if s2 != seat or d.suit == led_u or d.suit == led or d.suit == trump or c.suit == led_u:
                        continue
                    out = list(board)
                    i_t, i_u = trick[pos], tricks[u][qpos]
                    out[i_t] = make_event("play", board[i_t].index, seat=seat, card=d)
                    out[i_u] = make_event("play", board[i_u].index, seat=seat, card=c)
                    return out, {"seat": str(seat), "trick": t + 1, "card": str(d), "held": str(c),
                                 "event": i_t, "board": board[0].get("board")}
    return None


def revoke_board(path: str = REALBRIDGE, skip: int = 0) -> tuple[list[Event], dict[str, Any]]:
    """The first real board of ``path`` (after ``skip``) that takes a clean injected revoke."""
    for b in real_boards(path):
        got = inject_revoke(b)
        if got is not None:
            if skip:
                skip -= 1
                continue
            return got
    raise LookupError(f"no board in {path} takes a clean revoke")


def event_dicts(events: Iterable[Event]) -> list[dict[str, Any]]:
    """JSON-ready dicts (what an HTTP replay posts)."""
    return [e.to_dict() for e in events]


PHOTOS = os.path.join("..", "shared", "data", "real-photos", "edje", "test")


def real_photo_frame(name: str | None = None) -> tuple[bytes, list[dict[str, Any]], int, int]:
    """A real card photo and its annotated boxes as ``tablecam detect`` records.

    The photos' labels are ranks only (``ace``, ``nine`` ...), so ``card``
    carries the rank name: evidence for the screenshot and the tests, not a
    recogniser's output.
    """
    import xml.etree.ElementTree as ET

    names = sorted(f for f in os.listdir(PHOTOS) if f.lower().endswith(".jpg"))
    jpg = name or next(f for f in names if len(ET.parse(os.path.join(PHOTOS, f[:-4] + ".xml"))
                                               .getroot().findall("object")) >= 2)
    root = ET.parse(os.path.join(PHOTOS, jpg[:-4] + ".xml")).getroot()
    w = int(root.findtext("size/width") or 0)
    h = int(root.findtext("size/height") or 0)
    cards = []
    for obj in root.findall("object"):
        bb = obj.find("bndbox")
        assert bb is not None
        box = [float(bb.findtext(k) or 0) for k in ("xmin", "ymin", "xmax", "ymax")]
        cards.append({"card": obj.findtext("name") or "?", "conf": 1.0, "box": box})
    with open(os.path.join(PHOTOS, jpg), "rb") as fp:
        return fp.read(), cards, w, h
