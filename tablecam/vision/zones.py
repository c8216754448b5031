"""Zones of the table and the camera configuration (``camera.toml``).

A card lying still means different things in different places: in front of
a bridge player it is that player's card to the trick; in the centre of a
Vira table it is a card to the trick by whoever sits on that side; at the
table's edge it is a card shown by accident (an ``expose``); in a bidding
area it is a bid; on the talong or kitty it is part of the deal and makes no
event.  Zones are rectangles in table millimetres, so they survive a change
of camera or resolution.

The file is read strictly (pydantic, unknown keys refused and named), as the
table config is: a typo such as ``fames = 3`` must not leave a table
running on a default nobody chose.

>>> cfg = CameraConfig.load(DEFAULT_CONFIG)
>>> [z.name for z in cfg.zones_for("bridge") if z.kind == "play"]
['play-N', 'play-E', 'play-S', 'play-W']
>>> cfg.zone_at(300, 160, "bridge").name, cfg.zone_at(550, 300, "vira").name, cfg.zone_at(550, 300, "bridge").name
('play-N', 'talong', 'expose-E')
>>> trick_seat(300, 220, Zone("trick", "trick", (150, 150, 300, 300)))
Seat.N
>>> CameraConfig.from_dict({"stability": {"fames": 3}}, "club.toml")
Traceback (most recent call last):
...
tablecam.config.ConfigError: club.toml: unknown key 'stability.fames'
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from ..cards import Seat, parse_seat
from ..config import _Strict as _StrictFile, parse_config, read_toml
from .calibrate import TableGeometry

DEFAULT_CONFIG = Path(__file__).resolve().parent / "camera.toml"
"""The shipped camera config (package data): copy it to edit a table's own."""

ZONE_KINDS = ("play", "trick", "talong", "kitty", "expose", "bidding")
"""Also the priority order when zones overlap: a talong inside an edge strip wins. Bidding zones
come last: during the auction the bidding watcher claims their cards itself
(:mod:`tablecam.vision.bidding`), and after it a card there is played or exposed."""

GAMES = ("bridge", "vira", "pidro", "whist")


@dataclass(frozen=True)
class Zone:
    name: str
    kind: str
    rect: tuple[float, float, float, float]   # x, y, w, h in mm
    seat: Seat | None = None
    games: tuple[str, ...] = GAMES

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


def most_corners(zones: Iterable[Zone], quad_mm: Any) -> tuple[int, Zone | None]:
    """Of ``zones``, the one holding most of an outline's corners (table mm; the last on a tie), and
    how many it holds: where a card lies whose centre is in none of them.

    >>> a, b = Zone("a", "trick", (0, 0, 100, 100)), Zone("b", "trick", (100, 0, 100, 100))
    >>> n, z = most_corners([a, b], [(60, 10), (150, 10), (150, 90), (60, 90)]); n, z.name
    (2, 'b')
    """
    best: tuple[int, Zone | None] = (0, None)
    for z in zones:
        n = sum(z.contains(float(x), float(y)) for x, y in quad_mm)
        if n and n >= best[0]:
            best = (n, z)
    return best


# -- the file, section by section ------------------------------------------------------------

class _Strict(_StrictFile):
    """The table config's strict style (unknown keys named), frozen: a config is shared by the pipeline's parts."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class TableSection(_Strict):
    width_mm: float = Field(600.0, gt=0, description="the calibrated playing area, West to East")
    height_mm: float = Field(600.0, gt=0, description="the calibrated playing area, North to South")
    marker_mm: float = Field(50.0, gt=0)
    marker_ids: tuple[int, int, int, int] = (0, 1, 2, 3)
    dictionary: str = "DICT_4X4_50"
    card_mm: tuple[float, float] = (63.0, 88.0)


class CalibrationSection(_Strict):
    method: Literal["aruco", "points", "file"] = "aruco"
    image_points: tuple[tuple[float, float], tuple[float, float], tuple[float, float], tuple[float, float]] | None = None
    file: str | None = None
    search_frames: int = Field(100, ge=1)
    recheck_s: float = 5.0
    recheck_mm: float = Field(4.0, gt=0)
    fit_lens: bool = Field(True, description="with no [lens]: fit a wide-angle lens to the corner markers "
                                             "when the straight fit is off by more than 1.5 mm")

    @model_validator(mode="after")
    def _complete(self) -> "CalibrationSection":
        if self.method == "points" and self.image_points is None:
            raise ValueError("method 'points' needs image_points (NW, NE, SE, SW in pixels)")
        if self.method == "file" and not self.file:
            raise ValueError("method 'file' needs file")
        return self


class LensSection(_Strict):
    """A wide-angle lens: its intrinsics, from ``tablecam calibrate --checkerboard``.

    Either ``file`` (the lens JSON that command writes) or the numbers inline."""

    file: str | None = None
    camera_matrix: tuple[tuple[float, float, float], tuple[float, float, float], tuple[float, float, float]] | None = None
    distortion: tuple[float, ...] | None = None
    image_size: tuple[int, int] | None = None


class ViewSection(_Strict):
    px_per_mm: float = Field(1.0, gt=0, le=4, description="top-down view for motion, change and stability")
    crop_px_per_mm: float = Field(4.0, gt=0)


class StabilitySection(_Strict):
    frames: int = Field(3, ge=1, description="a card counts when found in the same place over this many frames")
    motion: float = Field(18.0, gt=0, description="grey-level change that counts as motion (0-255)")
    moving_fraction: float = Field(0.02, ge=0, le=1)
    changed: float = Field(40.0, gt=0, description="colour change against the scene at rest that marks a new card")
    min_conf: float = Field(0.25, ge=0, le=1)
    uncertain_below: float = Field(0.8, ge=0, le=1)


class DetectionSection(_Strict):
    every: int = Field(3, ge=1, description="run the card localiser every this many frames (and when motion settles)")
    input_px: int = Field(0, ge=0, description="localiser input size; 0: from the table size")
    min_card_px: float = Field(30.0, gt=0, description="with input_px = 0: a card's short side at the input")
    conf: float = Field(0.35, gt=0, lt=1, description="localiser score from which a box is a card")
    second_opinion: bool = Field(True, description="an unsure read is looked at again by the still detector")
    sure_px_per_mm: float = Field(0.65, ge=0, description="below this many frame pixels per mm at a card, no read is sure")


class TricksSection(_Strict):
    cards_per_trick: int = Field(4, ge=1)


class ZoneEntry(_Strict):
    name: str | None = None
    kind: str
    seat: str | None = None
    rect: tuple[float, float, float, float]
    games: tuple[Literal["bridge", "vira", "pidro", "whist"], ...] = GAMES

    @field_validator("kind")
    @classmethod
    def _kind(cls, v: str) -> str:
        if v not in ZONE_KINDS:
            raise ValueError(f"unknown kind {v!r} (one of {', '.join(ZONE_KINDS)})")
        return v

    @field_validator("rect")
    @classmethod
    def _rect(cls, v: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        if v[2] <= 0 or v[3] <= 0:
            raise ValueError("rect must be [x, y, width, height] with a positive size")
        return v

    @model_validator(mode="after")
    def _seat(self) -> "ZoneEntry":
        if self.seat is not None:
            parse_seat(self.seat)
        if self.kind in ("play", "expose", "bidding") and self.seat is None:
            raise ValueError(f"a {self.kind} zone needs a seat")
        return self


class CameraFile(_Strict):
    table: TableSection = TableSection()
    calibration: CalibrationSection = CalibrationSection()
    lens: LensSection | None = None
    view: ViewSection = ViewSection()
    stability: StabilitySection = StabilitySection()
    detection: DetectionSection = DetectionSection()
    tricks: TricksSection = TricksSection()
    zone: list[ZoneEntry] = []


class CameraConfig:
    """The whole ``camera.toml``, validated: geometry, calibration, lens, view, stability, detection, zones.

    The sections stay reachable as read (``cfg.stability.frames``); the
    names the pipeline uses most are shortcuts (``cfg.stable_frames``)."""

    def __init__(self, file: CameraFile | None = None) -> None:
        self.file = file or CameraFile()
        t = self.file.table
        self.geometry = TableGeometry(t.width_mm, t.height_mm, t.marker_mm, t.marker_ids, t.dictionary)
        self.card_mm = t.card_mm
        self.calibration = self.file.calibration
        self.lens = self.file.lens
        self.view = self.file.view
        self.stability = self.file.stability
        self.detection = self.file.detection
        self.px_per_mm = self.view.px_per_mm
        self.crop_px_per_mm = self.view.crop_px_per_mm
        self.stable_frames = self.stability.frames
        self.min_conf = self.stability.min_conf
        self.uncertain_below = self.stability.uncertain_below
        self.cards_per_trick = self.file.tricks.cards_per_trick
        self.zones = [Zone(z.name or f"zone{i}", z.kind, z.rect, parse_seat(z.seat) if z.seat else None, z.games)
                      for i, z in enumerate(self.file.zone)]

    @classmethod
    def load(cls, path: str | Path | None = None) -> "CameraConfig":
        """Read a camera TOML file; a bad or unknown key raises ``tablecam.config.ConfigError`` (a ``ValueError``) naming it."""
        path = Path(path) if path else DEFAULT_CONFIG
        return cls.from_dict(read_toml(path), str(path))

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "camera config") -> "CameraConfig":
        return cls(parse_config(data, CameraFile, where))

    def replace(self, **sections: Any) -> "CameraConfig":
        """A copy with whole sections replaced (``replace(table={...})``), validated again."""
        data = self.file.model_dump()
        for k, v in sections.items():
            data[k] = {**data.get(k, {}), **v} if isinstance(v, dict) and isinstance(data.get(k), dict) else v
        return self.from_dict(data, "camera config")

    def zones_for(self, game: str) -> list[Zone]:
        return [z for z in self.zones if game in z.games]

    def zone_at(self, x: float, y: float, game: str) -> Zone | None:
        """The zone a card centred at (x, y) mm belongs to, by kind priority."""
        hits = [z for z in self.zones_for(game) if z.contains(x, y)]
        if not hits:
            return None
        return min(hits, key=lambda z: ZONE_KINDS.index(z.kind))

    def zone_of(self, quad_mm: Any, game: str) -> Zone | None:
        """The zone of a card whose outline (table mm, four corners) is ``quad_mm``: its centre's zone;
        else the trick or play zone holding two or more of its corners.  A card flicked to the trick
        stops where it stops: half of it past the drawn edge of the trick zone is still played.

        >>> cfg = CameraConfig.load(None)
        >>> past = [(280, 420), (343, 420), (343, 508), (280, 508)]     # centre 464 mm: past the edge
        >>> cfg.zone_at(311, 464, "whist"), cfg.zone_of(past, "whist").name
        (None, 'trick')
        """
        q = [(float(x), float(y)) for x, y in quad_mm]
        here = self.zone_at(sum(x for x, _ in q) / len(q), sum(y for _, y in q) / len(q), game)
        if here is not None:
            return here
        n, zone = most_corners((z for z in self.zones_for(game) if z.kind in ("trick", "play")), q)
        return zone if n >= 2 else None
