"""Zones of the table and the camera configuration (``camera.toml``).

A card lying still means different things in different places: in front of
a bridge player it is that player's card to the trick; in the centre of a
Vira table it is a card to the trick by whoever sits on that side; at the
table's edge it is a card shown by accident (an ``expose``); on the talong
or kitty it is part of the deal and makes no event.  Zones are rectangles in
table millimetres, so they survive a change of camera or resolution.

>>> cfg = CameraConfig.load(DEFAULT_CONFIG)
>>> [z.name for z in cfg.zones_for("bridge") if z.kind == "play"]
['play-N', 'play-E', 'play-S', 'play-W']
>>> cfg.zone_at(300, 160, "bridge").name, cfg.zone_at(550, 300, "vira").name, cfg.zone_at(550, 300, "bridge").name
('play-N', 'talong', 'expose-E')
>>> trick_seat(300, 220, Zone("trick", "trick", (150, 150, 300, 300)))
Seat.N
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..cards import Seat, parse_seat
from .calibrate import TableGeometry

DEFAULT_CONFIG = Path(__file__).resolve().parent / "camera.toml"
"""The shipped camera config (package data): copy it to edit a table's own."""

ZONE_KINDS = ("play", "trick", "talong", "kitty", "expose")
"""Also the priority order when zones overlap: a talong inside an edge strip wins."""


@dataclass(frozen=True)
class Zone:
    name: str
    kind: str
    rect: tuple[float, float, float, float]   # x, y, w, h in mm
    seat: Seat | None = None
    games: tuple[str, ...] = ("bridge", "vira", "pidro", "whist")

    def contains(self, x: float, y: float) -> bool:
        x0, y0, w, h = self.rect
        return x0 <= x < x0 + w and y0 <= y < y0 + h

    @property
    def centre(self) -> tuple[float, float]:
        x0, y0, w, h = self.rect
        return x0 + w / 2, y0 + h / 2


def trick_seat(x: float, y: float, zone: Zone) -> Seat:
    """In a shared trick area, the seat on whose side of the centre the card lies."""
    cx, cy = zone.centre
    dx, dy = x - cx, y - cy
    if abs(dy) >= abs(dx):
        return Seat.N if dy < 0 else Seat.S
    return Seat.W if dx < 0 else Seat.E


@dataclass
class CameraConfig:
    """The whole ``camera.toml``: geometry, calibration, view, stability, zones."""

    geometry: TableGeometry = field(default_factory=TableGeometry)
    card_mm: tuple[float, float] = (63.0, 88.0)
    calibration: dict[str, Any] = field(default_factory=lambda: {"method": "aruco"})
    px_per_mm: float = 0.5
    crop_px_per_mm: float = 3.0
    stable_frames: int = 3
    motion: float = 18.0
    moving_fraction: float = 0.01
    white_ratio: float = 1.45
    max_saturation: float = 90.0
    min_card_fraction: float = 0.45
    min_conf: float = 0.25
    uncertain_below: float = 0.6
    cards_per_trick: int = 4
    zones: list[Zone] = field(default_factory=list)

    @classmethod
    def load(cls, path: str | Path | None = None) -> "CameraConfig":
        """Read a camera TOML file; a bad value raises ``ValueError`` naming it."""
        path = Path(path) if path else DEFAULT_CONFIG
        try:
            data = tomllib.loads(path.read_text())
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise ValueError(f"cannot read camera config {path}: {e}") from None
        return cls.from_dict(data, str(path))

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "camera config") -> "CameraConfig":
        try:
            t = data.get("table", {})
            g = TableGeometry(float(t.get("width_mm", 600)), float(t.get("height_mm", 600)),
                              float(t.get("marker_mm", 50)), tuple(int(i) for i in t.get("marker_ids", (0, 1, 2, 3))),
                              str(t.get("dictionary", "DICT_4X4_50")))
            if len(g.marker_ids) != 4:
                raise ValueError("table.marker_ids needs 4 ids (NW NE SE SW)")
            v, s, tr = data.get("view", {}), data.get("stability", {}), data.get("tricks", {})
            zones = []
            for i, z in enumerate(data.get("zone", [])):
                kind = str(z["kind"])
                if kind not in ZONE_KINDS:
                    raise ValueError(f"zone {i}: unknown kind {kind!r} (one of {', '.join(ZONE_KINDS)})")
                rect = tuple(float(a) for a in z["rect"])
                if len(rect) != 4 or rect[2] <= 0 or rect[3] <= 0:
                    raise ValueError(f"zone {i}: rect must be [x, y, width, height] with a positive size")
                seat = parse_seat(z["seat"]) if z.get("seat") else None
                if kind in ("play", "expose") and seat is None:
                    raise ValueError(f"zone {z.get('name', i)}: a {kind} zone needs a seat")
                games = tuple(z.get("games", ("bridge", "vira", "pidro", "whist")))
                zones.append(Zone(str(z.get("name", f"zone{i}")), kind, rect, seat, games))  # type: ignore[arg-type]
            cfg = cls(
                geometry=g,
                card_mm=tuple(float(a) for a in t.get("card_mm", (63, 88))),  # type: ignore[arg-type]
                calibration=dict(data.get("calibration", {"method": "aruco"})),
                px_per_mm=float(v.get("px_per_mm", 0.5)),
                crop_px_per_mm=float(v.get("crop_px_per_mm", 3.0)),
                stable_frames=max(1, int(s.get("frames", 3))),
                motion=float(s.get("motion", 18)),
                moving_fraction=float(s.get("moving_fraction", 0.01)),
                white_ratio=float(s.get("white_ratio", 1.45)),
                max_saturation=float(s.get("max_saturation", 90)),
                min_card_fraction=float(s.get("min_card_fraction", 0.45)),
                min_conf=float(s.get("min_conf", 0.25)),
                uncertain_below=float(s.get("uncertain_below", 0.6)),
                cards_per_trick=int(tr.get("cards_per_trick", 4)),
                zones=zones,
            )
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"{where}: {e}") from None
        return cfg

    def zones_for(self, game: str) -> list[Zone]:
        return [z for z in self.zones if game in z.games]

    def zone_at(self, x: float, y: float, game: str) -> Zone | None:
        """The zone a card centred at (x, y) mm belongs to, by kind priority."""
        hits = [z for z in self.zones_for(game) if z.contains(x, y)]
        if not hits:
            return None
        return min(hits, key=lambda z: ZONE_KINDS.index(z.kind))
