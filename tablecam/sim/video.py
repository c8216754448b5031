"""Table video simulator: a deal rendered as a table camera would see it.

``tablecam sim video LOG.jsonl -o table.mp4`` (or ``--random SEED``) turns an
event log (``board``, ``deal``, ``call``, ``play``, ``expose`` events) into a
video of the playing area and writes, beside it, the *exact* ground truth:
the same log with every ``play`` / ``expose`` / ``call`` stamped with the
timestamp of the first frame (index / fps) on which the card lies at rest,
uncovered, and a ``trick_turned`` event at the first frame after the last
card of a trick has reached its player's quitted-trick row (bridge) or the
winner's trick pile (``trick_end="gather"``).  The camera pipeline's tests
and benchmarks compare against that file.

Two looks share one scene planner:

* the **classic** look (the defaults of :class:`SimOptions`): green felt, a
  fixed camera with a slight tilt given as image corners, simple hands, a
  moving light gradient, MPEG-4 - what the camera pipeline's own tests use;
* the **real** look (:meth:`SimOptions.real`, ``tablecam sim video --look
  real``): a table surface from :mod:`~tablecam.sim.surfaces` (cut from real
  photos or generated), chips and other things on it
  (:mod:`~tablecam.sim.props`), a pinhole camera at up to 45 degrees from
  vertical with a wide-angle lens (:mod:`~tablecam.sim.optics`),
  auto-exposure and white-balance drift, sensor noise, lens softness,
  sleeves, hands and players holding their cards in fans
  (:mod:`~tablecam.sim.hands`), a dealer with the pack, cards carried, slid
  and flicked into place, bridge cards turned face down in front of each
  player (Law 65) or Nordic tricks gathered into the winner's pile, bidding
  cards laid and picked up (``auction``), a knocked camera that shakes and
  stays turned, and low-bitrate H.264 (:mod:`~tablecam.sim.encode`) at 480p
  to 4K.

Faces come from :func:`tablecam.training.faces.render_face` (any deck of
``list_decks()``; default a drawn deck that renders in milliseconds), or
from the plain built-in faces (``deck="plain"``) when that module is absent.

Timestamps are ``frame_index / fps``: the same clock the pipeline uses for a
video file, so ground truth and readings compare directly.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from ..cards import SEATS, Seat, full_deck, parse_card
from ..events import Event, make_event, read_events


SIM_VERSION = 3
"""Bumped whenever a change makes the same options render different pixels (cached benchmark videos)."""

SKIN = (120, 160, 215)        # BGR
SKIN_DARK = (95, 130, 185)


# ---------------------------------------------------------------------------
# Scene description

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


def _trick_winner(trick: list[tuple[Seat, "CardTrack"]]) -> Seat:
    """The highest card of the suit led (no trumps: the simulator only needs a plausible winner)."""
    led = trick[0][1].card[0]
    best = max((t for t in trick if t[1].card[0] == led), key=lambda t: -"AKQJT98765432".index(t[1].card[1]))
    return best[0]


def plan_scene(events: Iterable[Event], opt: SimOptions) -> Scene:
    """Lay the deal out in time and space; compute the exact ground truth."""
    rng = random.Random(opt.seed)
    mrng = random.Random(opt.seed * 7919 + 1)     # the real look's own draws: the classic plan stays as it was
    W, H = opt.area_mm
    cx, cy = W / 2, H / 2
    cw, ch = opt.card_mm
    cards: list[CardTrack] = []
    hands: list[HandTrack] = []
    truth: list[Event] = []
    passes: list[tuple[float, float]] = []
    t = 0.8
    trick: list[tuple[Seat, CardTrack]] = []
    quitted = {s: 0 for s in SEATS}
    piles = {s: 0 for s in SEATS}
    exposed: dict[str, CardTrack] = {}
    held: dict[str, list[float]] = {str(s): [] for s in SEATS}
    dealt = {str(s): 0 for s in SEATS}
    bids: list[tuple[Seat, CardTrack]] = []
    tricks_done = 0
    real_people = opt.people == "real"

    def frame_ts(t_: float) -> float:
        """The timestamp of the first frame showing the moment ``t_`` (frame index / fps)."""
        return round(math.ceil(t_ * opt.fps - 1e-6) / opt.fps, 4)

    def rest_point(seat: Seat) -> tuple[float, float]:
        dx, dy = SEAT_DIR[seat]
        off = {"zones": 130.0, "centre": 80.0, "pile": 38.0}[opt.layout]
        jx, jy = rng.uniform(-8, 8), rng.uniform(-8, 8)
        return cx + dx * off + jx, cy + dy * off + jy

    def edge_point(seat: Seat, along: float) -> tuple[float, float]:
        dx, dy = SEAT_DIR[seat]
        far = W / 2 + opt.margin_mm + 60
        if real_people:
            far = W / 2 + 420        # the shoulder, beyond the table's edge
        return cx + dx * far + (along if dx == 0 else 0), cy + dy * far + (along if dy == 0 else 0)

    def bring(seat: Seat, card: str, x: float, y: float, ang: float, kind: str = "card",
              size: tuple[float, float] | None = None) -> tuple[CardTrack, float]:
        """Hand brings ``card`` to (x, y); returns the track and the rest time (hand clear)."""
        nonlocal t
        dx, dy = SEAT_DIR[seat]
        how = "carry"
        if opt.motions == "mixed" and kind == "card":
            how = mrng.choices(("carry", "slide", "flick"), (0.45, 0.3, 0.25))[0]
        h_ = (size or opt.card_mm)[1]
        grip = h_ / 2 - 10                          # fingers overlap the card's near edge by 10 mm
        out = edge_point(seat, (x - cx) if dx == 0 else (y - cy))
        if how == "flick":
            # released at the player's side, the card flies in spinning and slides to a stop
            d0 = mrng.uniform(150, 230)
            sx, sy = x + dx * d0, y + dy * d0
            t0 = t
            t_rel = t0 + 0.3
            t1 = t_rel + mrng.uniform(0.22, 0.34)
            spin = mrng.choice((-1, 1)) * mrng.uniform(15, 45)
            trk = CardTrack(card, [(t0, sx + dx * 40, sy + dy * 40, ang + spin * 1.3, True),
                                   (t_rel, sx, sy, ang + spin, True), (t1, x, y, ang, True)], kind=kind)
            hx, hy = sx + dx * grip, sy + dy * grip
            hands.append(HandTrack(out, [(t0, hx + dx * 40, hy + dy * 40), (t_rel, hx, hy), (t_rel + 0.05, hx, hy),
                                         (t_rel + 0.35, out[0], out[1])], hold=(t0, t_rel), seat=seat))
            rest = max(t1, t_rel + 0.12)
            t = max(t1, t_rel + 0.35) + opt.play_gap_s
            return trk, rest
        start = 180.0 if how == "slide" else 260.0
        sx, sy = x + dx * start, y + dy * start    # start, off the area on the player's side
        t0, t1 = t, t + opt.approach_s * (1.25 if how == "slide" else 1.0)
        a0 = ang + (rng.uniform(-20, 20) if how == "carry" else mrng.uniform(-6, 6))
        trk = CardTrack(card, [(t0, sx, sy, a0, True), (t1, x, y, ang, True)], kind=kind)
        hx0, hy0 = sx + dx * grip, sy + dy * grip
        hx1, hy1 = x + dx * grip, y + dy * grip
        t2 = t1 + opt.withdraw_s
        hands.append(HandTrack(out, [(t0, hx0, hy0), (t1, hx1, hy1), (t1 + 0.04, hx1, hy1),
                                     (t2, out[0], out[1])], hold=(t0, t1), seat=seat))
        # the fingertips (12 mm beyond the grip) clear the card after travelling ~25 mm
        dist = math.hypot(out[0] - hx1, out[1] - hy1)
        rest = t1 + 0.04 + opt.withdraw_s * min(1.0, 25.0 / max(dist, 1.0))
        t = t2 + opt.play_gap_s
        return trk, rest

    def maybe_pass() -> None:
        nonlocal t
        if not opt.hand_passes or rng.random() >= opt.pass_prob:
            return
        seat = rng.choice(SEATS)
        dx, dy = SEAT_DIR[seat]
        along = rng.uniform(-120, 120)
        a = edge_point(seat, along)
        b = (cx - dx * rng.uniform(0, 140) + (rng.uniform(-150, 150) if dx else 0),
             cy - dy * rng.uniform(0, 140) + (rng.uniform(-150, 150) if dy else 0))
        dur = rng.uniform(0.9, 1.4)
        hands.append(HandTrack(a, [(t, a[0], a[1]), (t + dur / 2, b[0], b[1]), (t + dur, a[0], a[1])], seat=seat,
                               spread=1.0))
        passes.append((round(t, 3), round(t + dur, 3)))
        t += dur + 0.3

    def quitted_point(seat: Seat, n: int) -> tuple[float, float]:
        dx, dy = SEAT_DIR[seat]
        qx = cx + dx * 262 + (n - 6) * 18 * (1 if dx == 0 else 0)
        qy = cy + dy * 262 + (n - 6) * 18 * (1 if dy == 0 else 0)
        return qx, qy

    def turn_trick() -> None:
        nonlocal t, tricks_done
        t += opt.turn_pause_s
        winner = _trick_winner(trick)
        if opt.trick_end == "gather":
            last = gather(winner)
        else:
            last = t
            for k, (seat, trk) in enumerate(trick):
                x, y, a, _ = trk.at(trk.keys[-1][0])  # type: ignore[misc]
                n = quitted[seat]
                quitted[seat] += 1
                qx, qy = quitted_point(seat, n)
                if opt.trick_end == "turn":
                    # each player turns his own card face down where it lies, then draws it to his row,
                    # lengthwise towards the side that won it (Law 65B)
                    tf = t + mrng.uniform(0.0, 0.5)
                    trk.flips.append((tf, tf + 0.25))
                    trk.keys += [(tf, x, y, a, True), (tf + 0.125, x, y, a, False), (tf + 0.3, x, y, a, False)]
                    qa = 0.0 if winner in (Seat.N, Seat.S) else 90.0
                    trk.keys += [(tf + 0.65, qx, qy, qa + mrng.uniform(-4, 4), False)]
                    if real_people:
                        dx, dy = SEAT_DIR[seat]
                        out = edge_point(seat, (x - cx) if dx == 0 else (y - cy))
                        hands.append(HandTrack(out, [(tf - 0.25, x + dx * 30, y + dy * 30), (tf + 0.3, x, y),
                                                     (tf + 0.65, qx, qy), (tf + 0.95, out[0], out[1])], seat=seat))
                    last = max(last, tf + 0.65)
                else:
                    tf = t + 0.12 * k
                    trk.keys += [(tf, x, y, a, False), (tf + 0.35, qx, qy, SEAT_ANGLE[seat] + 90, False)]
                    last = max(last, tf + 0.35)
        tricks_done += 1
        truth.append(Event("trick_turned", {"cards": [parse_card(c.card) for _, c in trick],
                                            "seats": [s for s, _ in trick], "trick": tricks_done},
                           ts=frame_ts(last), source="sim"))
        trick.clear()
        t = last + 0.5 + (0.4 if real_people and opt.trick_end != "row" else 0.0)

    def gather(winner: Seat) -> float:
        """The winner sweeps the trick together, turns it over and puts it on his pile; returns when it lands."""
        dx, dy = SEAT_DIR[winner]
        sx, sy = cx + dx * 40, cy + dy * 40                  # where the cards are swept together
        n = piles[winner]
        piles[winner] += 1
        px, py = cx + dx * 245 + dy * 140, cy + dy * 245 - dx * 140   # the pile: at the winner's right
        t0 = t
        t1 = t0 + 0.45                                       # cards drawn together
        t2 = t1 + 0.2                                        # turned face down
        t3 = t2 + 0.5                                        # on the pile
        ang = SEAT_ANGLE[winner] + (90.0 if n % 2 else 0.0) + mrng.uniform(-5, 5)
        for k, (seat, trk) in enumerate(trick):
            x, y, a, _ = trk.at(trk.keys[-1][0])  # type: ignore[misc]
            trk.keys += [(t0, x, y, a, True), (t1, sx + k * 1.5, sy + k * 1.5, ang, True),
                         (t2, sx + k * 1.5, sy + k * 1.5, ang, False),
                         (t3, px + k * 0.8, py + k * 0.8, ang, False)]
            trk.flips.append((t1, t2))
        out = edge_point(winner, 0.0)
        hands.append(HandTrack(out, [(t0 - 0.35, sx + dx * 60, sy + dy * 60), (t0, sx + dx * 40, sy + dy * 40),
                                     (t1, sx + dx * 30, sy + dy * 30), (t3, px + dx * 30, py + dy * 30),
                                     (t3 + 0.4, out[0], out[1])], seat=winner))
        return t3

    def lay_bid(seat: Seat, call: str) -> float:
        """A bidding card from the seat's box laid in the seat's row: each new card nearer the caller,
        covering the lower part of the last so only its top strip (with the call) stays in view."""
        from ..vision.bidcards import STRIP_MM

        dx, dy = SEAT_DIR[seat]
        k = sum(1 for s, _ in bids if s is seat)
        off = 175.0 + STRIP_MM * k                 # the first card 175 mm from the centre, its top inwards
        x, y = cx + dx * off, cy + dy * off
        trk, rest = bring(seat, f"bid:{call}", x, y, BID_ANGLE[seat], kind="bid", size=BID_MM)
        cards.append(trk)
        bids.append((seat, trk))
        return rest

    def clear_bids() -> None:
        """After the auction each player picks his bidding cards up and puts them back in the box."""
        nonlocal t
        t += 1.0
        last = t
        for seat in SEATS:
            mine = [trk for s, trk in bids if s is seat]
            if not mine:
                continue
            dx, dy = SEAT_DIR[seat]
            t0 = t + mrng.uniform(0, 0.6)
            x, y, a, _ = mine[-1].at(mine[-1].keys[-1][0])  # type: ignore[misc]
            out = edge_point(seat, 0.0)
            hands.append(HandTrack(out, [(t0 - 0.35, x + dx * 60, y + dy * 60), (t0, x, y),
                                         (t0 + 0.5, out[0], out[1])], seat=seat))
            for trk in mine:
                x, y, a, _ = trk.at(trk.keys[-1][0])  # type: ignore[misc]
                trk.keys += [(t0, x, y, a, True), (t0 + 0.5, out[0], out[1], a, True)]
                trk.until = t0 + 0.5
            last = max(last, t0 + 0.5)
        bids.clear()
        t = last + 0.6

    if opt.dealer_pack:
        # the dealer squares the pack and carries it across before play (a moving stack of backs)
        seat = Seat.N
        a, b = edge_point(Seat.W, -60.0), edge_point(Seat.E, 40.0)
        hands.append(HandTrack(a, [(0.2, cx - 200, cy - 60), (1.0, cx - 40, cy - 20), (1.3, cx - 40, cy - 20),
                                   (2.2, b[0] - 350, b[1]), (2.5, b[0], b[1])], seat=seat, carry="pack"))
        t = 2.9

    for ev in events:
        if not isinstance(ev, Event):
            continue  # a bad line: the simulator skips what the pipeline would
        if ev.type == "call" and opt.auction and ev.get("seat") is not None:
            seat = ev.seat
            rest = lay_bid(seat, str(ev.get("call")))
            truth.append(Event("call", dict(ev.data), ts=frame_ts(rest), source="sim"))
            continue
        if ev.type in ("board", "deal", "call"):
            e = Event(ev.type, dict(ev.data), ts=0.0, source="sim")
            truth.append(e)
            if ev.type == "board":
                tricks_done = 0
            if ev.type == "deal":
                to = str(ev.get("to"))
                if to in dealt:
                    dealt[to] += 1
            continue
        if bids:
            clear_bids()
        if ev.type == "expose":
            seat, card = ev.seat, str(ev.card)
            dx, dy = SEAT_DIR[seat]
            along = rng.uniform(-150, 150)
            x = cx + dx * 250 + (along if dx == 0 else 0)
            y = cy + dy * 250 + (along if dy == 0 else 0)
            trk, rest = bring(seat, card, x, y, SEAT_ANGLE[seat] + rng.uniform(-10, 10))
            cards.append(trk)
            exposed[card] = trk
            held[str(seat)].append(trk.keys[0][0])
            truth.append(Event("expose", {"seat": seat, "card": ev.card}, ts=frame_ts(rest), source="sim"))
            continue
        if ev.type != "play":
            continue
        seat, card = ev.seat, str(ev.card)
        if any(s == seat for s, _ in trick) or len(trick) == 4:
            turn_trick()
            maybe_pass()
        if opt.max_tricks is not None and tricks_done >= opt.max_tricks:
            break
        if card in exposed:                    # a card shown earlier is played: lift it first
            exposed.pop(card).until = t
        else:
            held[str(seat)].append(t)
        x, y = rest_point(seat)
        spread = 25 if opt.layout == "pile" else 12
        trk, rest = bring(seat, card, x, y, SEAT_ANGLE[seat] + rng.uniform(-spread, spread))
        cards.append(trk)
        trick.append((seat, trk))
        truth.append(Event("play", {"seat": seat, "card": ev.card}, ts=frame_ts(rest), source="sim"))
        if len(trick) == 2:
            maybe_pass()
    if trick and len(trick) == 4:
        turn_trick()
    for trk in exposed.values():
        trk.until = min(trk.until, t)
    if bids:
        clear_bids()
    deck = sum(dealt.values()) or 52
    return Scene(cards, hands, truth, t + 1.0, passes, held=held, deck_size=deck)


# ---------------------------------------------------------------------------
# Rendering

def plain_face(card: str, w: int = 250, h: int = 350) -> np.ndarray:
    """A simple face (rank letters and a suit sign), used when no deck is available."""
    import cv2

    img = np.full((h, w, 3), 250, np.uint8)
    if card == "back":
        img[:] = (120, 50, 30)
        for k in range(-h, w, 14):
            cv2.line(img, (k, 0), (k + h, h), (150, 80, 50), 3)
        return img
    red = card[0] in "HD"
    col = (30, 30, 200) if red else (20, 20, 20)
    rank = "10" if card[1] == "T" else card[1]
    for flip in (False, True):
        layer = np.zeros_like(img)
        cv2.putText(layer, rank, (12, 62), cv2.FONT_HERSHEY_DUPLEX, 1.9, (255, 255, 255), 4, cv2.LINE_AA)
        _suit(layer, card[0], (40, 100), 22)
        if flip:
            layer = cv2.rotate(layer, cv2.ROTATE_180)
        img[layer[..., 0] > 128] = col
    _suit(img, card[0], (w // 2, h // 2), 60, col)
    return img


def _suit(img: np.ndarray, suit: str, c: tuple[int, int], r: int, col: Any = (255, 255, 255)) -> None:
    import cv2

    x, y = c
    if suit == "D":
        pts = np.array([(x, y - r), (x + int(r * .75), y), (x, y + r), (x - int(r * .75), y)], np.int32)
        cv2.fillPoly(img, [pts], col, cv2.LINE_AA)
    elif suit == "H":
        cv2.circle(img, (x - r // 2, y - r // 3), r // 2 + 1, col, -1, cv2.LINE_AA)
        cv2.circle(img, (x + r // 2, y - r // 3), r // 2 + 1, col, -1, cv2.LINE_AA)
        cv2.fillPoly(img, [np.array([(x - r, y - r // 5), (x + r, y - r // 5), (x, y + r)], np.int32)], col, cv2.LINE_AA)
    elif suit == "S":
        cv2.circle(img, (x - r // 2, y + r // 5), r // 2, col, -1, cv2.LINE_AA)
        cv2.circle(img, (x + r // 2, y + r // 5), r // 2, col, -1, cv2.LINE_AA)
        cv2.fillPoly(img, [np.array([(x - r, y + r // 4), (x + r, y + r // 4), (x, y - r)], np.int32)], col, cv2.LINE_AA)
        cv2.fillPoly(img, [np.array([(x, y), (x - r // 3, y + r), (x + r // 3, y + r)], np.int32)], col)
    else:
        for dx, dy in ((0, -r // 2), (-r // 2, r // 6), (r // 2, r // 6)):
            cv2.circle(img, (x + dx, y + dy), r // 2 - 1, col, -1, cv2.LINE_AA)
        cv2.fillPoly(img, [np.array([(x, y), (x - r // 3, y + r), (x + r // 3, y + r)], np.int32)], col)


class FaceBank:
    """Card images at the plane's resolution, rendered once per card (and bidding cards, ``bid:<call>``)."""

    def __init__(self, deck: str, size: tuple[int, int], bid_size: tuple[int, int] | None = None,
                 bid_design: int = 0) -> None:
        self.deck, self.size = deck, size
        self.bid_size = bid_size or (max(8, int(size[0] * 45 / 63)), max(8, int(size[1] * 90 / 88)))
        self.bid_design = bid_design          # which held-out bidding-box design (tablecam.sim.bidding_box)
        self.cache: dict[str, np.ndarray] = {}
        self._render = None
        if deck != "plain":
            try:
                from ..training.faces import render_face
                self._render = render_face
            except ImportError:
                self._render = None

    def get(self, card: str) -> np.ndarray:
        import cv2

        if card not in self.cache:
            if card.startswith("bid:"):
                from .bidding_box import draw_card, held_out_design

                face = draw_card(card[4:], held_out_design(self.bid_design))[..., ::-1]   # RGB -> BGR
                self.cache[card] = cv2.resize(np.ascontiguousarray(face), self.bid_size, interpolation=cv2.INTER_AREA)
                return self.cache[card]
            img = None
            if self._render is not None:
                try:
                    img = self._render(card, self.deck)
                except Exception:  # an unknown deck or a card it lacks: draw one instead
                    img = None
            if img is None:
                img = plain_face(card)
            self.cache[card] = cv2.resize(img, self.size, interpolation=cv2.INTER_AREA)
        return self.cache[card]


def _rounded_mask(w: int, h: int, r: int) -> np.ndarray:
    import cv2

    mask = np.zeros((h, w), np.uint8)
    cv2.rectangle(mask, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cxy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(mask, cxy, r, 255, -1, cv2.LINE_AA)
    return mask


FLOOR = (40, 48, 62)


class Renderer:
    """Draws frames of a :class:`Scene`.

    The table plane (surface, props, markers) is painted once; cards lying
    still are composited into a resting layer that is redrawn only when one
    of them starts or stops moving; each frame restores the regions the last
    frame's moving cards and hands covered, draws this frame's, and maps the
    plane into the image (a fixed homography in the classic look, one remap
    through the camera model otherwise).
    """

    def __init__(self, scene: Scene, opt: SimOptions) -> None:
        import cv2

        from ..vision.calibrate import TableGeometry, marker_image
        from .hands import looks

        self.scene, self.opt = scene, opt
        self.rng = np.random.default_rng(opt.seed)
        W, H = opt.area_mm
        self.cam = None
        if opt.tilt_deg is not None:
            from .optics import CameraModel

            self.cam = CameraModel(size=opt.size, tilt_deg=opt.tilt_deg, yaw_deg=opt.yaw_deg, hfov_deg=opt.hfov_deg,
                                   k1=opt.k1, k2=opt.k2, fill=opt.fill, area_mm=opt.area_mm)
            p = opt.plane_ppm or float(np.clip(self.cam.finest_px_per_mm() * 0.9, 0.8, 3.4))
            x0, y0, x1, y1 = self.cam.view_bounds_mm(limit_mm=max(opt.margin_mm, 450.0))
            self.origin = (-x0 + 10, -y0 + 10)
            ext = (x1 - x0 + 20, y1 - y0 + 20)
        else:
            p = opt.ppm
            m = opt.margin_mm
            self.origin = (m, m)
            ext = (W + 2 * m, H + 2 * m)
        self.p = p
        self.pw, self.ph = int(ext[0] * p), int(ext[1] * p)
        self.table = self._paint_table()
        geo = TableGeometry(W, H, opt.marker_mm)
        side = int(round(opt.marker_mm * p))
        q = int(round(6 * p))
        for i in range(4):
            x0_, y0_ = geo.marker_corners_mm(i)[0]
            X, Y = (int(round(v)) for v in self._mm(x0_, y0_))
            self.table[Y - q:Y + side + q, X - q:X + side + q] = 245
            mk = marker_image(geo, i, side)
            self.table[Y:Y + side, X:X + side] = mk[..., None]
        cw, ch = opt.card_mm
        self.card_px = (int(round(cw * p)), int(round(ch * p)))
        bid_px = (int(round(BID_MM[0] * p)), int(round(BID_MM[1] * p)))
        self.faces = FaceBank(opt.deck, self.card_px, bid_px, bid_design=opt.seed)
        self.card_mask = _rounded_mask(*self.card_px, int(3.5 * p))
        self.bid_mask = _rounded_mask(*bid_px, int(3 * p))
        w, h = opt.size
        if self.cam is None:
            m = opt.margin_mm
            src = np.array([[m * p, m * p], [(W + m) * p, m * p], [(W + m) * p, (H + m) * p], [m * p, (H + m) * p]],
                           np.float32)
            self.Hcam = cv2.getPerspectiveTransform(src, np.array(opt.corners_px, np.float32))
            bumped = np.array(opt.corners_px, np.float32) + np.array(opt.bump_px, np.float32)
            bumped[:2, 0] += 4.0   # the far edge moves a little more: a small turn, not only a shift
            self.Hcam_bumped = cv2.getPerspectiveTransform(src, bumped)
        else:
            self.maps = self.cam.maps(p, self.origin)
            self.cam_bumped = None
            if opt.bump_at is not None:
                from dataclasses import replace

                self.cam_bumped = replace(self.cam, turn_deg=(0.9, -1.3, 1.6), shift_mm=(12.0, -8.0, 0.0))
                self.maps_bumped = self.cam_bumped.maps(p, self.origin)
        yy, xx = np.mgrid[0:h // 16, 0:w // 16].astype(np.float32)
        self.gx, self.gy = (xx / (w // 16) - 0.5), (yy / (h // 16) - 0.5)
        self.noise = []
        for _ in range((2 if w * h > 4_000_000 else 4) if opt.noise else 0):
            n = self.rng.normal(0, opt.noise, (h, w, 3))
            self.noise.append((np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8)))
        self.expo = None
        if opt.exposure:
            from .optics import Exposure, vignette

            self.expo = Exposure(seed=opt.seed)
            self.vig = cv2.resize(vignette(opt.size, 0.32), (w // 16, h // 16))
        prng = np.random.default_rng(opt.seed + 101)
        self.looks = looks(prng)
        self._fan_phase = prng.uniform(0, 2 * math.pi, 4)
        self._fans: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, tuple[int, int]]] = {}
        self._layer_key: Any = None
        self._layer = self._work = self.table
        self._dirty: list[tuple[int, int, int, int]] = []
        self._last_t = 0.0

    # -- the static table ----------------------------------------------------
    def _paint_table(self) -> np.ndarray:
        import cv2

        opt, p = self.opt, self.p
        W, H = opt.area_mm
        if self.cam is None and opt.surface == "felt":
            # the classic felt, drawn exactly as it always was (the pipeline's tests were tuned on it)
            base = np.array([58, 112, 40], np.float32)
            noise = self.rng.normal(0, 6, (self.ph, self.pw, 1)).astype(np.float32)
            blotch = cv2.resize(self.rng.normal(0, 5, (8, 8, 1)).astype(np.float32), (self.pw, self.ph))[..., None]
            return np.clip(base + noise + blotch, 0, 255).astype(np.uint8)
        from .props import place_props
        from .surfaces import paint_surface

        img = paint_surface(opt.surface, (self.pw, self.ph), p, self.origin, opt.area_mm, seed=opt.seed)
        if self.cam is not None:
            # the table ends 230 mm beyond the marked area: an edge, then the floor below
            ox, oy = self.origin
            rim = 230.0
            x0, y0 = int((ox - rim) * p), int((oy - rim) * p)
            x1, y1 = int((ox + W + rim) * p), int((oy + H + rim) * p)
            floor = np.clip(np.array(FLOOR, np.float32) + self.rng.normal(0, 4, (self.ph, self.pw, 1)), 0, 255)
            inside = np.zeros((self.ph, self.pw), np.uint8)
            cv2.rectangle(inside, (max(0, x0), max(0, y0)), (min(self.pw - 1, x1), min(self.ph - 1, y1)), 255, -1)
            edge = np.zeros_like(inside)
            cv2.rectangle(edge, (x0, y0), (x1, y1), 255, max(1, int(14 * p)))
            img = np.where(inside[..., None] > 0, img, floor.astype(np.uint8))
            img[edge > 0] = (img[edge > 0] * 0.55).astype(np.uint8)
        place_props(img, opt.props, p, self.origin, opt.area_mm, np.random.default_rng(opt.seed + 7))
        return img

    def _mm(self, x: float, y: float) -> tuple[float, float]:
        return (x + self.origin[0]) * self.p, (y + self.origin[1]) * self.p

    # -- drawing on the plane --------------------------------------------------
    def _paste(self, plane: np.ndarray, img: np.ndarray, x: float, y: float, ang: float, shadow: bool,
               mask: np.ndarray | None = None, sx: float = 1.0,
               blur: list[tuple[float, float, float]] | None = None) -> tuple[int, int, int, int] | None:
        """Draw a card image at (x, y) mm turned ``ang``; ``sx`` narrows it (being turned over);
        ``blur``: extra positions within the frame's exposure (a fast card smears)."""
        import cv2

        mask = self.card_mask if mask is None else mask
        h, w = img.shape[:2]
        poses = [(x, y, ang)] + list(blur or [])
        pts = [self._mm(px, py) for px, py, _ in poses]
        R = int(math.hypot(w, h) / 2) + 8
        x0 = max(0, int(min(X for X, _ in pts)) - R)
        y0 = max(0, int(min(Y for _, Y in pts)) - R)
        x1 = min(self.pw, int(max(X for X, _ in pts)) + R)
        y1 = min(self.ph, int(max(Y for _, Y in pts)) + R)
        if x1 <= x0 or y1 <= y0:
            return None
        size = (x1 - x0, y1 - y0)
        roi = plane[y0:y1, x0:x1]
        orig = roi.copy() if len(poses) > 1 else None
        acc = np.zeros(roi.shape, np.float32) if len(poses) > 1 else None
        for (X, Y), (_, _, a) in zip(pts, poses):
            M = cv2.getRotationMatrix2D((w / 2, h / 2), a, 1.0)
            if sx != 1.0:                  # narrowed across its width about its centre
                c = np.array([w / 2, h / 2])
                M[:, :2] = M[:, :2] @ np.diag([sx, 1.0])
                M[:, 2] = c - M[:, :2] @ c
            M[0, 2] += X - w / 2 - x0
            M[1, 2] += Y - h / 2 - y0
            r = roi if orig is None else orig.copy()
            alpha = cv2.warpAffine(mask, M, size).astype(np.float32)[..., None] / 255.0
            if shadow:
                sh = cv2.GaussianBlur(alpha, (0, 0), 3)
                sh = np.roll(np.roll(sh, 3, 0), 3, 1)
                if sh.ndim == 2:
                    sh = sh[..., None]
                r[:] = (r * (1 - 0.35 * sh)).astype(np.uint8)
            face = cv2.warpAffine(img, M, size, flags=cv2.INTER_LINEAR)
            r[:] = (r * (1 - alpha) + face * alpha).astype(np.uint8)
            if acc is not None:
                acc += r
        if acc is not None:
            roi[:] = (acc / len(poses)).astype(np.uint8)
        return x0, y0, x1, y1

    def _card_image(self, trk: CardTrack, up: bool) -> tuple[np.ndarray, np.ndarray]:
        if trk.kind == "bid":
            return self.faces.get(trk.card), self.bid_mask
        return self.faces.get(trk.card if up else "back"), self.card_mask

    def _draw_card(self, plane: np.ndarray, trk: CardTrack, t: float, st: tuple[float, float, float, bool],
                   moving: bool) -> tuple[int, int, int, int] | None:
        x, y, a, up = st
        img, mask = self._card_image(trk, up)
        blur = None
        if moving and self.opt.motions == "mixed":
            dt = 0.5 / self.opt.fps
            a0, b0 = trk.at(max(trk.keys[0][0], t - dt)), trk.at(t + dt)
            if a0 and b0 and math.hypot(b0[0] - a0[0], b0[1] - a0[1]) > 8:
                blur = [(a0[0], a0[1], a0[2]), (b0[0], b0[1], b0[2])]
        return self._paste(plane, img, x, y, a, shadow=True, mask=mask, sx=trk.flip_scale(t), blur=blur)

    def _hand_box(self, hand: HandTrack, pos: tuple[float, float]) -> tuple[int, int, int, int]:
        bx, by = self._mm(*hand.base)
        hx, hy = self._mm(*pos)
        pad = int(130 * self.p)
        return (max(0, int(min(bx, hx)) - pad), max(0, int(min(by, hy)) - pad),
                min(self.pw, int(max(bx, hx)) + pad), min(self.ph, int(max(by, hy)) + pad))

    def _draw_hand(self, plane: np.ndarray, hand: HandTrack, pos: tuple[float, float], t: float) -> None:
        if self.opt.people != "real":
            self._hand(plane, hand, pos)
            return
        from .hands import draw_arm, draw_pack

        seat = hand.seat if hand.seat is not None else Seat.S
        look = self.looks["NESW".index(str(seat))]
        if hand.carry == "pack":
            bx, by = self._mm(*hand.base)
            hx, hy = self._mm(*pos)
            ang = math.degrees(math.atan2(hy - by, hx - bx))
            # the pack lies in the palm and sticks out beyond the fingers
            cx_, cy_ = hx + math.cos(math.radians(ang)) * 25 * self.p, hy + math.sin(math.radians(ang)) * 25 * self.p
            draw_pack(plane, (cx_, cy_), -ang - 90 + 180, self.faces.get("back"), self.card_mask, 30)
        draw_arm(plane, self._mm(*hand.base), self._mm(*pos), self.p, look, spread=hand.spread)

    def _hand(self, plane: np.ndarray, hand: HandTrack, pos: tuple[float, float]) -> None:
        """The classic hand: an arm, a palm and four fingers in one skin colour."""
        import cv2

        p = self.p
        bx, by = self._mm(*hand.base)
        hx, hy = self._mm(*pos)
        ang = math.atan2(hy - by, hx - bx)
        ux, uy = math.cos(ang), math.sin(ang)
        # shadow first, offset, then arm, palm, fingers
        for off, col in ((int(9 * p), None), (0, SKIN)):
            layer_col = (0, 0, 0) if col is None else col
            pts_arm = (int(bx + off), int(by + off)), (int(hx - ux * 40 * p + off), int(hy - uy * 40 * p + off))
            if col is None:
                # a soft shadow, computed at quarter resolution over the arm's bounding box only
                xs = [pts_arm[0][0], pts_arm[1][0], int(hx + off)]
                ys = [pts_arm[0][1], pts_arm[1][1], int(hy + off)]
                pad = int(90 * p)
                x0, x1 = max(0, min(xs) - pad), min(self.pw, max(xs) + pad)
                y0, y1 = max(0, min(ys) - pad), min(self.ph, max(ys) + pad)
                if x1 - x0 < 8 or y1 - y0 < 8:
                    continue
                sw, sh_ = (x1 - x0) // 4 + 1, (y1 - y0) // 4 + 1
                shadow = np.zeros((sh_, sw), np.uint8)
                q = lambda pt: ((pt[0] - x0) // 4, (pt[1] - y0) // 4)  # noqa: E731
                cv2.line(shadow, q(pts_arm[0]), q(pts_arm[1]), 90, max(1, int(70 * p) // 4))
                cv2.ellipse(shadow, q((int(hx - ux * 20 * p + off), int(hy - uy * 20 * p + off))),
                            (int(48 * p) // 4, int(40 * p) // 4), math.degrees(ang), 0, 360, 90, -1)
                shadow = cv2.GaussianBlur(shadow, (0, 0), 2)
                shadow = cv2.resize(shadow, (sw * 4, sh_ * 4))[: y1 - y0, : x1 - x0]
                roi = plane[y0:y1, x0:x1]
                inv = cv2.merge([255 - shadow] * 3)
                roi[:] = cv2.multiply(roi, inv, scale=1 / 255.0)
                continue
            cv2.line(plane, *pts_arm, SKIN_DARK, int(70 * p), cv2.LINE_AA)
            cv2.ellipse(plane, (int(hx - ux * 20 * p), int(hy - uy * 20 * p)), (int(48 * p), int(40 * p)),
                        math.degrees(ang), 0, 360, layer_col, -1, cv2.LINE_AA)
            for k in (-1.5, -0.5, 0.5, 1.5):
                fx = hx + ux * 8 * p - uy * k * 17 * p
                fy = hy + uy * 8 * p + ux * k * 17 * p
                cv2.line(plane, (int(hx - ux * 10 * p - uy * k * 15 * p), int(hy - uy * 10 * p + ux * k * 15 * p)),
                         (int(fx), int(fy)), layer_col, int(13 * p), cv2.LINE_AA)

    def _fan_sprite(self, k: int, n: int) -> tuple[np.ndarray, np.ndarray, tuple[int, int]]:
        """Seat ``k``'s fan of ``n`` held cards with its hands, as (colour, alpha, anchor) - drawn once."""
        from .hands import draw_fan

        key = (k, n)
        if key not in self._fans:
            p = self.p
            S = int(520 * p)
            canv = []
            for bg in (0, 255):
                c = np.full((S, S, 3), bg, np.uint8)
                seat = SEATS[k]
                dx, dy = SEAT_DIR[seat]
                facing = math.degrees(math.atan2(-dy, -dx))   # the player looks at the centre
                centre = (S / 2, S / 2)
                draw_fan(c, centre, facing, n, self.faces.get("back"), self.card_mask, p, self.looks[k])
                canv.append(c.astype(np.float32))
            a = 1 - (canv[1] - canv[0]).mean(-1, keepdims=True) / 255.0
            col = np.where(a > 1e-3, canv[0] / np.maximum(a, 1e-3), 0)
            ys, xs = np.nonzero(a[..., 0] > 0.01)
            y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1   # keep only what is drawn
            self._fans[key] = (np.clip(col[y0:y1, x0:x1], 0, 255).astype(np.uint8),
                               np.ascontiguousarray(a[y0:y1, x0:x1, 0]).astype(np.float32),
                               (S // 2 - int(x0), S // 2 - int(y0)))
        return self._fans[key]

    def _draw_fans(self, plane: np.ndarray, t: float) -> None:
        import cv2

        W, H = self.opt.area_mm
        for k, seat in enumerate(SEATS):
            times = self.scene.held.get(str(seat), [])
            n = max(0, self.scene.deck_size // 4 - sum(1 for x in times if x <= t))
            if n == 0:
                continue
            col, a, (ax, ay) = self._fan_sprite(k, n)
            dx, dy = SEAT_DIR[seat]
            wob = math.sin(t * 0.9 + self._fan_phase[k])
            fx = W / 2 + dx * (W / 2 + 150) + wob * 6 * (1 - abs(dx))
            fy = H / 2 + dy * (H / 2 + 150) + wob * 6 * (1 - abs(dy))
            X, Y = self._mm(fx, fy)
            x0, y0 = int(X) - ax, int(Y) - ay
            sh, sw = col.shape[:2]
            cx0, cy0 = max(0, x0), max(0, y0)
            cx1, cy1 = min(self.pw, x0 + sw), min(self.ph, y0 + sh)
            if cx1 <= cx0 or cy1 <= cy0:
                continue
            sl = (slice(cy0 - y0, cy1 - y0), slice(cx0 - x0, cx1 - x0))
            roi = plane[cy0:cy1, cx0:cx1]
            aa = a[sl]
            roi[:] = cv2.blendLinear(col[sl], roi, aa, 1 - aa)
            self._dirty.append((cx0, cy0, cx1, cy1))

    def plane(self, t: float) -> np.ndarray:
        """The table plane at time ``t`` (a buffer reused between frames: copy it to keep it)."""
        still, moving = [], []
        for idx, trk in enumerate(self.scene.cards):
            st = trk.at(t)
            if st is None:
                continue
            (still if trk.still(t) else moving).append((idx, trk, st))
        key = tuple((i, st) for i, _, st in still)
        if key != self._layer_key:
            layer = self.table.copy()
            for _, trk, st in still:
                self._draw_card(layer, trk, t, st, moving=False)
            self._layer, self._layer_key = layer, key
            self._work = layer.copy()
            self._dirty = []
        else:
            for x0, y0, x1, y1 in self._dirty:
                self._work[y0:y1, x0:x1] = self._layer[y0:y1, x0:x1]
            self._dirty = []
        plane = self._work
        for _, trk, st in moving:
            box = self._draw_card(plane, trk, t, st, moving=True)
            if box:
                self._dirty.append(box)
        if self.opt.held_hands:
            self._draw_fans(plane, t)
        for hand in self.scene.hands:
            pos = hand.at(t)
            if pos is not None:
                self._draw_hand(plane, hand, pos, t)
                self._dirty.append(self._hand_box(hand, pos))
        return plane

    # -- the camera ----------------------------------------------------------------
    def frame(self, i: int) -> np.ndarray:
        import cv2

        t = i / self.opt.fps
        plane = self.plane(t)
        w, h = self.opt.size
        bumped = self.opt.bump_at is not None and t >= self.opt.bump_at
        if self.cam is None:
            img = cv2.warpPerspective(plane, self.Hcam_bumped if bumped else self.Hcam, (w, h),
                                      flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=FLOOR)
        else:
            m1, m2 = self.maps_bumped if bumped else self.maps
            img = cv2.remap(plane, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=FLOOR)
            if bumped and t - self.opt.bump_at < 0.4:    # the knock: the view shakes, then settles turned
                u = t - self.opt.bump_at
                amp = 0.012 * w * math.exp(-u * 9)
                M = np.float32([[1, 0, amp * math.sin(u * 55)], [0, 1, amp * 0.6 * math.cos(u * 47)]])
                img = cv2.warpAffine(img, M, (w, h), borderMode=cv2.BORDER_REFLECT)
                img = cv2.blur(img, (max(1, int(amp / 2)) | 1, 1))
            if self.opt.blur > 0:
                img = cv2.GaussianBlur(img, (0, 0), self.opt.blur)
        if self.opt.lighting or self.expo is not None:
            small = np.ones_like(self.gx)
            if self.opt.lighting:
                g = 0.95 + 0.17 * math.sin(2 * math.pi * t / 9.0)
                d = 0.18 * math.sin(2 * math.pi * t / 17.0)
                small = g * (1.0 + d * self.gx + 0.08 * self.gy)
            warm = 0.05 * math.sin(2 * math.pi * t / 13.0) if self.opt.lighting else 0.0
            gains = np.array([1 - warm, 1.0, 1 + warm], np.float32)
            if self.expo is not None:
                dt = max(1e-3, t - self._last_t) if i else 1.0 / self.opt.fps
                sub = cv2.resize(img, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_NEAREST)
                lit = sub.astype(np.float32) * small[..., None]
                gain, wb = self.expo.step(np.clip(lit, 0, 255).astype(np.uint8), t, dt)
                fld = small[..., None] * self.vig * (gains * wb.astype(np.float32) * gain)
                scale = 64.0
            else:
                fld = small[..., None] * gains
                scale = 128.0
            fld = np.clip(fld * scale, 0, 255).astype(np.uint8)
            fld = cv2.resize(fld, (w, h), interpolation=cv2.INTER_LINEAR)
            img = cv2.multiply(img, fld, scale=1 / scale)
        self._last_t = t
        if self.noise:
            pos, neg = self.noise[i % len(self.noise)]
            img = cv2.subtract(cv2.add(img, pos), neg)
        return img

    def frames(self) -> Iterator[np.ndarray]:
        n = int(math.ceil(self.scene.duration * self.opt.fps))
        for i in range(n):
            yield self.frame(i)

    def corners_px(self, bumped: bool = False) -> list[list[float]]:
        """Image points of the area's corners NW NE SE SW (lens distortion included)."""
        if self.cam is None:
            H = self.Hcam_bumped if bumped else self.Hcam
            import cv2

            m, p = self.opt.margin_mm, self.p
            W_, H_ = self.opt.area_mm
            src = np.array([[[m * p, m * p], [(W_ + m) * p, m * p], [(W_ + m) * p, (H_ + m) * p], [m * p, (H_ + m) * p]]],
                           np.float32)
            return [[round(float(v), 1) for v in q] for q in cv2.perspectiveTransform(src, H)[0]]
        cam = self.cam_bumped if bumped and self.cam_bumped is not None else self.cam
        W_, H_ = self.opt.area_mm
        return [[round(float(v), 1) for v in q] for q in cam.project(np.array([[0, 0], [W_, 0], [W_, H_], [0, H_]]))]


# ---------------------------------------------------------------------------
# Logs and the command

def random_deal_log(seed: int = 1, tricks: int = 13, game: str = "bridge", board: int = 1,
                    exposes: int = 0, auction: bool = False) -> list[Event]:
    """A bridge-like deal for demos and tests: 13 cards each, plays following suit where possible.

    ``auction``: the calls of a plausible bridge auction (:mod:`tablecam.sim.bridge`) come
    between the deal and the play (a passed-out auction is replaced by ``1N`` and three passes,
    so there is always play to show).

    >>> log = random_deal_log(3, tricks=2)
    >>> [e.type for e in log].count("deal"), [e.type for e in log].count("play")
    (52, 8)
    >>> [e.type for e in random_deal_log(3, tricks=1, auction=True)].count("call") >= 4
    True
    """
    rng = random.Random(seed)
    deck = full_deck()
    rng.shuffle(deck)
    dealer = Seat.N
    evs = [make_event("board", game=game, board=board, dealer="N", **({"vulnerable": "None"} if game == "bridge" else {}))]
    hands: dict[Seat, list] = {s: [] for s in SEATS}
    for k, c in enumerate(deck):
        s = dealer.next(k + 1)
        hands[s].append(c)
        evs.append(make_event("deal", to=s, card=c))
    leader = dealer.next(1)
    if auction:
        from .bridge import _auction

        calls, declarer, _ = _auction({s: list(h) for s, h in hands.items()}, dealer, random.Random(seed + 17))
        if declarer is None:
            calls, declarer = [(dealer, "1N"), (dealer.next(1), "P"), (dealer.next(2), "P"), (dealer.next(3), "P")], dealer
        evs += [make_event("call", seat=s, call=c) for s, c in calls]
        leader = declarer.next(1)
    shown = 0
    for _ in range(tricks):
        suit = None
        for k in range(4):
            s = leader.next(k)
            h = hands[s]
            if exposes > shown and k == 1 and len(h) > 2:
                ex = rng.choice(h)
                evs.append(make_event("expose", seat=s, card=ex))
                shown += 1
            follow = [c for c in h if suit and c.suit == suit]
            c = rng.choice(follow or h)
            h.remove(c)
            if k == 0:
                suit = c.suit
            evs.append(make_event("play", seat=s, card=c))
        leader = rng.choice(SEATS)
    return evs


def render_video(events: Iterable[Event], out: str | Path, opt: SimOptions,
                 progress: Callable[[int, int], None] | None = None) -> tuple[Path, Path, Scene]:
    """Write the video, ``<out>.truth.jsonl`` and ``<out>.meta.json``; return their paths and the scene.

    ``progress(frames written, frames in all)`` is called after each frame."""
    from .encode import VideoSink

    out = Path(out)
    scene = plan_scene(events, opt)
    r = Renderer(scene, opt)
    sink = VideoSink(out, opt.size, opt.fps, codec=opt.codec, bitrate_kbps=opt.bitrate_kbps)
    n = 0
    total = int(math.ceil(scene.duration * opt.fps))
    try:
        for img in r.frames():
            sink.write(img)
            n += 1
            if progress is not None:
                progress(n, total)
    finally:
        sink.close()
    truth = out.with_suffix(".truth.jsonl")
    with open(truth, "w") as fp:
        for e in scene.truth:
            fp.write(json.dumps(e.to_dict()) + "\n")
    meta = out.with_suffix(".meta.json")
    info: dict[str, Any] = {
        "fps": opt.fps, "frames": n, "size": list(opt.size), "deck": opt.deck, "seed": opt.seed,
        "area_mm": list(opt.area_mm), "marker_mm": opt.marker_mm, "card_mm": list(opt.card_mm),
        "corners_px": r.corners_px(), "layout": opt.layout,
        "hand_passes": scene.hand_passes, "bump_at": opt.bump_at,
        "surface": opt.surface, "props": opt.props, "codec": sink.codec,
        "bitrate_kbps": sink.bitrate_kbps if sink.codec == "h264" else None,
        "plane_px_per_mm": round(r.p, 3), "people": opt.people, "motions": opt.motions,
        "trick_end": opt.trick_end, "held_hands": opt.held_hands, "auction": opt.auction,
    }
    if opt.bump_at is not None:
        info["corners_px_after_knock"] = r.corners_px(bumped=True)
    if r.cam is not None:
        cam = r.cam
        info["camera"] = {"tilt_deg": cam.tilt_deg, "yaw_deg": cam.yaw_deg, "hfov_deg": cam.hfov_deg,
                          "K": [[round(v, 3) for v in row] for row in cam.K().tolist()],
                          "dist": cam.opencv_dist(), "lens_k": [cam.k1, cam.k2], "distance_mm": round(cam.distance, 1),
                          "blur": opt.blur, "exposure": opt.exposure, "noise": opt.noise}
    meta.write_text(json.dumps(info, indent=1) + "\n")
    return truth, meta, scene


def load_log(path: str | Path) -> list[Event]:
    """Events of a JSONL log (bad lines skipped) or of any archive ``load`` reads."""
    p = Path(path)
    if p.suffix.lower() == ".jsonl":
        with open(p, encoding="utf-8", errors="replace") as fp:
            return [e for e in read_events(fp) if isinstance(e, Event)]
    from ..archive import load

    return [e for e in load(str(p)) if isinstance(e, Event)]
