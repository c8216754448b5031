"""What the simulated camera will film: the options of a video and the paths of cards and hands.

:class:`SimOptions` holds every knob of ``tablecam sim video``; a
:class:`Scene` is a deal laid out in time and space (by
:func:`tablecam.sim.choreography.plan_scene`): each physical card's path
(:class:`CardTrack`), each arm's path (:class:`HandTrack`) and the exact
ground truth.  Distances are mm on the table, the marked area's NW corner at
(0, 0); times are seconds from the first frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..cards import Seat
from ..events import Event

RESOLUTIONS = {"480p": (854, 480), "720p": (1280, 720), "1080p": (1920, 1080), "4k": (3840, 2160)}
"""Frame sizes by name (16:9)."""


@dataclass
class SimOptions:
    fps: float = 25.0
    size: tuple[int, int] = (1280, 720)
    deck: str = "drawn-sans"
    seed: int = 1
    area_mm: tuple[float, float] = (600.0, 600.0)
    marker_mm: float = 50.0
    card_mm: tuple[float, float] = (63.0, 88.0)
    margin_mm: float = 110.0          # table rendered around the marked area
    plane_ppm: float | None = None    # render resolution of the table plane (None: 1.6, or from the camera)
    # camera: image points of the area corners NW NE SE SW (slight tilt); used while tilt_deg is None
    corners_px: tuple[tuple[float, float], ...] = ((378, 36), (902, 36), (968, 684), (312, 684))
    lighting: bool = True
    noise: float = 3.0
    hand_passes: bool = True
    pass_prob: float = 0.45           # chance of a hand sweeping over the table, twice per trick
    play_gap_s: float = 0.5           # pause after a card rests
    approach_s: float = 0.55
    withdraw_s: float = 0.3
    turn_pause_s: float = 0.9
    layout: str = "zones"             # "zones" (bridge), "centre" (apart, mid-table) or "pile" (overlapping)
    max_tricks: int | None = None
    codec: str = "mp4v"               # an OpenCV FourCC, or "h264" (libx264 through imageio-ffmpeg)
    bump_at: float | None = None      # the camera is knocked at this time ...
    bump_px: tuple[float, float] = (14.0, -9.0)   # ... and the image shifts this much (and turns slightly)
    # -- the real look (SimOptions.real() switches these on) ------------------
    surface: str = "felt"             # tablecam.sim.surfaces.SURFACES
    props: str = "none"               # "none", "chips" or "mixed" (chips, a glass, a phone, a score pad)
    tilt_deg: float | None = None     # camera angle from vertical; None: the fixed corners_px view above
    yaw_deg: float = 0.0              # the side the camera looks from (0: South, 90: East)
    hfov_deg: float = 70.0            # horizontal field of view
    k1: float = 0.0                   # radial distortion (negative: barrel, a wide-angle lens)
    k2: float = 0.0
    fill: float = 0.9                 # the marked area: this share of the image height
    exposure: bool = False            # auto-exposure, white-balance drift and vignetting
    blur: float = 0.0                 # lens softness, Gaussian sigma in image px
    bitrate_kbps: int | None = None   # H.264 bitrate (None: by resolution, tablecam.sim.encode.BITRATE_KBPS)
    people: str = "simple"            # "simple" hand blobs or "real" sleeves, hands and fingers
    motions: str = "carry"            # "carry", or "mixed": carried, slid and flicked into place
    trick_end: str = "row"            # "row": flipped and slid to the quitted row; "turn": turned face down
                                      # in place first (bridge, Law 65); "gather": into the winner's pile
    held_hands: bool = False          # players hold their remaining cards in a fan at the table's edge
    dealer_pack: bool = False         # the dealer's hand with the pack crosses the table at the start
    auction: bool = False             # calls are shown with bidding cards (the log's call events)
    bid_designs: str = "held-out"     # their design: "held-out" (a typeface family the reader never
                                      # trained on, to judge) or "tuning" (bidding_box.tuning_design)

    @classmethod
    def real(cls, **kw: Any) -> "SimOptions":
        """The real look: every condition switched on, defaults a real table camera would have."""
        base: dict[str, Any] = dict(surface="felt-real", props="mixed", tilt_deg=20.0, hfov_deg=78.0, k1=-0.12,
                                    exposure=True, blur=0.6, people="real", motions="mixed", held_hands=True,
                                    dealer_pack=True, codec="h264", noise=4.0, lighting=True)
        base.update(kw)
        if "trick_end" not in kw:
            base["trick_end"] = "turn" if base.get("layout", "zones") == "zones" else "gather"
        return cls(**base)

    @property
    def ppm(self) -> float:
        return self.plane_ppm if self.plane_ppm is not None else 1.6


@dataclass
class CardTrack:
    """One physical card's path: (t, x, y, angle_deg, face_up) keyframes, eased between.

    ``flips``: time spans in which the card is turned over (drawn narrowing
    to its edge and widening again); ``kind``: ``"card"`` or ``"bid"`` (a
    bidding-box card, whose face is ``bid:<call>``).
    """

    card: str
    keys: list[tuple[float, float, float, float, bool]] = field(default_factory=list)
    until: float = math.inf
    flips: list[tuple[float, float]] = field(default_factory=list)
    kind: str = "card"

    def at(self, t: float) -> tuple[float, float, float, bool] | None:
        if not self.keys or t < self.keys[0][0] or t >= self.until:
            return None
        for (t0, x0, y0, a0, f0), (t1, x1, y1, a1, f1) in zip(self.keys, self.keys[1:]):
            if t0 <= t < t1:
                u = (t - t0) / (t1 - t0) if t1 > t0 else 1.0
                u = 1 - (1 - u) ** 2  # ease out
                return x0 + (x1 - x0) * u, y0 + (y1 - y0) * u, a0 + (a1 - a0) * u, f0
        _, x, y, a, f = self.keys[-1]
        return x, y, a, f

    def still(self, t: float) -> bool:
        """Not moving and not being turned at ``t`` (so it may be drawn once into the resting layer)."""
        if any(a <= t < b for a, b in self.flips):
            return False
        for (t0, x0, y0, a0, _), (t1, x1, y1, a1, _) in zip(self.keys, self.keys[1:]):
            if t0 <= t < t1:
                return (x0, y0, a0) == (x1, y1, a1)
        return True

    def flip_scale(self, t: float) -> float:
        """Width factor while being turned over (1: flat)."""
        for a, b in self.flips:
            if a <= t < b:
                return max(0.04, abs(math.cos(math.pi * (t - a) / (b - a))))
        return 1.0


@dataclass
class HandTrack:
    """An arm from ``base`` (off the table) to a moving hand position (the fingertips)."""

    base: tuple[float, float]
    keys: list[tuple[float, float, float]]      # (t, x, y) of the hand
    hold: tuple[float, float] | None = None     # time span the hand holds a card
    seat: Seat | None = None
    carry: str | None = None                    # "pack": the dealer's hand holds the pack
    spread: float = 0.0                         # fingers: 0 together, 1 open

    def at(self, t: float) -> tuple[float, float] | None:
        if t < self.keys[0][0] or t > self.keys[-1][0]:
            return None
        for (t0, x0, y0), (t1, x1, y1) in zip(self.keys, self.keys[1:]):
            if t0 <= t <= t1:
                u = (t - t0) / (t1 - t0) if t1 > t0 else 1.0
                return x0 + (x1 - x0) * u, y0 + (y1 - y0) * u
        return None


SEAT_DIR = {Seat.N: (0, -1), Seat.S: (0, 1), Seat.W: (-1, 0), Seat.E: (1, 0)}
SEAT_ANGLE = {Seat.S: 0.0, Seat.N: 180.0, Seat.W: 90.0, Seat.E: -90.0}
BID_ANGLE = {Seat.S: 0.0, Seat.N: 180.0, Seat.W: -90.0, Seat.E: 90.0}
"""A bid card's top (the strip with the call) points at the table's centre, as its caller lays it."""
def _bid_mm() -> tuple[float, float]:
    from ..vision.bidcards import CARD_MM

    return CARD_MM


BID_MM = _bid_mm()
"""A bidding-box card's size (width, height), mm (the reader's own figure)."""


@dataclass
class Scene:
    cards: list[CardTrack]
    hands: list[HandTrack]
    truth: list[Event]
    duration: float
    hand_passes: list[tuple[float, float]]
    held: dict[str, list[float]] = field(default_factory=dict)   # seat -> times its held cards leave the fan
    deck_size: int = 52
