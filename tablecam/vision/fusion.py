"""Fusion: check what the camera read against what the shoe dealt.

When the card shoe has told which cards each seat holds, a camera reading
is not taken at face value.  A classifier that is unsure between ``H6`` and
``H8`` is usually right about *which of those the player has*; so the pipeline
picks the most likely card among those the seat still holds, using the
classifier's whole probability vector.

But a camera that is *sure* of a card the seat cannot hold is telling the
director something: a card from another pack, a card taken from the wrong
hand (partner's, dummy's) or a card already played.  That is reported as a
finding (``camera_unexpected_card``, pending until the director looks) and
the reading is not silently bent into a legal one.

>>> book = HandBook()
>>> for c in ("SA", "SK", "H6", "H8"): book.deal("N", c)
>>> probs = {"H6": 0.40, "H5": 0.45, "H8": 0.15}
>>> r = book.resolve("N", "H5", 0.45, probs)
>>> str(r.card), round(r.conf, 2), r.finding is None
('H6', 0.73, True)
>>> r = book.resolve("N", "DQ", 0.99, {"DQ": 0.99, "SA": 0.005})
>>> str(r.card), r.finding.kind
('DQ', 'camera_unexpected_card')

Players follow suit far more often than a camera confuses two cards, so when
the reading would be a revoke (``led`` is the suit led, the seat holds that
suit) and the classifier is not sure, a card of the led suit that the
classifier finds plausible is preferred. The event then carries the
camera's own reading as ``camera_card``; a real revoke read this way is
not lost: when the player later plays the card the camera gave him, it is
a card already played and becomes a ``camera_unexpected_card`` finding.

>>> r = book.resolve("N", "H6", 0.62, {"H6": 0.62, "SK": 0.30}, led="S")
>>> str(r.card), r.fused
('SK', True)
>>> str(book.resolve("N", "H6", 0.95, {"H6": 0.95, "SK": 0.04}, led="S").card)  # sure: a revoke stands
'H6'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..cards import Card, Seat, parse_card, parse_seat
from ..findings import Finding

SURE = 0.90
"""A reading this confident of a card the seat cannot hold is not overridden."""

PLAUSIBLE = 0.02
"""Minimum share a holdable card needs (relative to the top reading) to be chosen instead."""


@dataclass
class Resolution:
    card: Card | None
    conf: float
    camera_card: Card | None          # what the classifier alone said
    finding: Finding | None = None
    fused: bool = False               # True when the hand changed the reading


def probs_dict(probs: Any, classes: Sequence[str] | None) -> dict[str, float]:
    """Normalise a probability vector (array + class names) or a mapping to ``{card: p}``."""
    if probs is None:
        return {}
    if isinstance(probs, Mapping):
        return {str(k): float(v) for k, v in probs.items()}
    arr = np.asarray(probs, np.float64).ravel()
    if classes is None or len(classes) != len(arr):
        return {}
    return {str(c): float(p) for c, p in zip(classes, arr)}


def weigh_cards(probs: Mapping[str, float], favoured: Callable[[str], bool], weight: float) -> dict[str, float]:
    """``probs`` with the classes ``favoured`` says yes to ``weight`` times likelier, renormalised:
    how a witness of a card's rank (its pips) or suit (its print's colour) weighs a read.

    >>> p = weigh_cards({"S4": 0.6, "S6": 0.2, "none": 0.2}, lambda c: c == "S6", 20.0)
    >>> max(p, key=p.get), round(p["S6"], 2)
    ('S6', 0.83)
    """
    out = {c: float(v) * (weight if favoured(c) else 1.0) for c, v in probs.items()}
    total = sum(out.values())
    return {c: v / total for c, v in out.items()} if total > 0 else dict(probs)


def without(faces: dict[str, float], cards: set[str]) -> dict[str, float]:
    """``faces`` less ``cards`` (cards the table shows cannot be this one), unless that leaves none.

    >>> without({"H6": 0.5, "D6": 0.3}, {"H6"}), without({"H6": 0.5}, {"H6"})
    ({'D6': 0.3}, {'H6': 0.5})
    """
    rest = {c: v for c, v in faces.items() if c not in cards}
    return rest or faces


class HandBook:
    """Each seat's cards as dealt by the shoe, less those already played."""

    def __init__(self) -> None:
        self.hands: dict[Seat, set[Card]] = {}
        self.played: dict[Card, Seat] = {}

    @property
    def known(self) -> bool:
        return any(self.hands.values())

    def reset(self) -> None:
        self.hands.clear()
        self.played.clear()

    def deal(self, seat: Any, card: Any) -> None:
        try:
            s, c = parse_seat(seat), parse_card(card)
        except ValueError:
            return  # talong / kitty or an unreadable card: not a seat's hand
        self.hands.setdefault(s, set()).add(c)

    def feed(self, event: Any) -> None:
        """Take shoe/log events: ``board`` resets, ``deal`` adds, ``play`` removes."""
        t = getattr(event, "type", None)
        if t == "board":
            self.reset()
        elif t == "deal":
            self.deal(event.get("to"), event.get("card"))
        elif t == "play":
            self.mark_played(event.get("seat"), event.get("card"))
        elif t == "retract":
            s, c = event.get("seat"), event.get("card")
            if c in self.played:
                del self.played[c]
                self.deal(s, c)

    def mark_played(self, seat: Any, card: Any) -> None:
        try:
            s, c = parse_seat(seat), parse_card(card)
        except ValueError:
            return
        self.hands.get(s, set()).discard(c)
        self.played[c] = s

    def can_hold(self, seat: Seat, card: Card) -> bool:
        return card in self.hands.get(seat, set())

    def resolve(self, seat: Any, card: Any, conf: float, probs: Any = None,
                classes: Sequence[str] | None = None, event: int | None = None,
                led: str | None = None) -> Resolution:
        """The card to report for ``seat``, given the classifier's reading
        (``led``: the suit led to the trick, when the seat must follow it)."""
        seat = parse_seat(seat)
        try:
            cam = parse_card(card)
        except (ValueError, TypeError):
            cam = None
        hand = self.hands.get(seat)
        if not hand:
            return Resolution(cam, conf, cam)          # no shoe data: trust the camera
        if cam is not None and cam in hand:
            if led and cam.suit != led and not cam.is_joker and conf < SURE:
                p = probs_dict(probs, classes)
                follow = {c: p.get(str(c), 0.0) for c in hand if c.suit == led and not c.is_joker}
                if follow:
                    best, best_p = max(follow.items(), key=lambda kv: (kv[1], str(kv[0])))
                    if best_p > 0 and best_p >= PLAUSIBLE * max(conf, 1e-9):
                        return Resolution(best, best_p / (best_p + conf), cam, fused=True)
            return Resolution(cam, conf, cam)
        p = probs_dict(probs, classes)
        held = {c: p.get(str(c), 0.0) for c in hand}
        best, best_p = max(held.items(), key=lambda kv: (kv[1], str(kv[0]))) if held else (None, 0.0)
        top_p = max(p.values()) if p else conf
        if best is not None and conf < SURE and best_p >= PLAUSIBLE * max(top_p, 1e-9) and best_p > 0:
            # renormalise over what the seat can hold
            total = sum(held.values()) or 1.0
            return Resolution(best, best_p / total, cam, fused=True)
        where = "was already played" if cam in self.played else "is not in that hand"
        if cam is not None and cam in self.played:
            why = f"played earlier by {self.played[cam]}"
        else:
            holder = next((s for s, h in self.hands.items() if cam in h), None)
            why = f"dealt to {holder}" if holder else "not dealt at this table (another pack?)"
        f = Finding(
            "camera_unexpected_card", rule="Law 7B", seat=str(seat), event=event,
            message=(f"The camera saw {seat} play {cam} ({conf:.0%} sure), but the shoe says {cam} {where} "
                     f"({why}); check the card and the pack."),
            extra={"card": str(cam) if cam else None, "conf": round(float(conf), 3), "dealt_to": why},
        )
        return Resolution(cam, conf, cam, finding=f)
