"""Table video simulator: a deal rendered as the overhead camera would see it.

``tablecam sim video LOG.jsonl -o table.mp4`` turns an event log (``board``,
``deal``, ``play``, ``expose`` events) into a 1280x720 top-down video of the
playing area and writes, beside it, the *exact* ground truth: the same log
with every ``play`` / ``expose`` stamped with the timestamp of the first
frame (index / fps) on which the card lies at rest, uncovered, and a
``trick_turned`` event at the first frame after the last card of a trick has
reached its player's quitted-trick row.  The camera pipeline's
tests and benchmark compare against that file.

What the video holds, because each is something the pipeline must survive:

* the ArUco corner markers of :mod:`tablecam.vision.calibrate`, seen by a
  fixed camera with a slight tilt (the far edge is narrower);
* a hand and arm bringing each card in from the player's side, releasing it
  and withdrawing; a card at rest in front of each player (bridge) or on the
  player's side of the centre (other games);
* the trick turned: each card flipped face down and slid to its player's
  quitted-trick row;
* extra hands sweeping across the table over resting cards (no event must
  come of them);
* lighting that drifts in brightness and colour temperature, a moving light
  gradient, card shadows and sensor noise, then the codec's own artefacts.

Faces come from :func:`tablecam.vision.faces.render_face` (any deck of
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
from typing import Any, Iterable, Iterator

import numpy as np

from ..cards import SEATS, Seat, full_deck, parse_card
from ..events import Event, make_event, read_events


SKIN = (120, 160, 215)        # BGR
SKIN_DARK = (95, 130, 185)


# ---------------------------------------------------------------------------
# Scene description

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
    plane_ppm: float = 1.6            # render resolution of the table plane
    # camera: image points of the area corners NW NE SE SW (slight tilt)
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
    codec: str = "mp4v"
    bump_at: float | None = None      # the camera is knocked at this time ...
    bump_px: tuple[float, float] = (14.0, -9.0)   # ... and the image shifts this much (and turns slightly)


@dataclass
class CardTrack:
    """One physical card's path: (t, x, y, angle_deg, face_up) keyframes, linear between."""

    card: str
    keys: list[tuple[float, float, float, float, bool]] = field(default_factory=list)
    until: float = math.inf

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


@dataclass
class HandTrack:
    """An arm from ``base`` (off the table) to a moving hand position."""

    base: tuple[float, float]
    keys: list[tuple[float, float, float]]      # (t, x, y) of the hand
    hold: tuple[float, float] | None = None     # time span the hand holds a card

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


@dataclass
class Scene:
    cards: list[CardTrack]
    hands: list[HandTrack]
    truth: list[Event]
    duration: float
    hand_passes: list[tuple[float, float]]


def plan_scene(events: Iterable[Event], opt: SimOptions) -> Scene:
    """Lay the deal out in time and space; compute the exact ground truth."""
    rng = random.Random(opt.seed)
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
    exposed: dict[str, CardTrack] = {}
    tricks_done = 0

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
        return cx + dx * far + (along if dx == 0 else 0), cy + dy * far + (along if dy == 0 else 0)

    def bring(seat: Seat, card: str, x: float, y: float, ang: float) -> tuple[CardTrack, float]:
        """Hand brings ``card`` to (x, y); returns the track and the rest time (hand clear)."""
        nonlocal t
        dx, dy = SEAT_DIR[seat]
        sx, sy = x + dx * 260, y + dy * 260        # start, off the area on the player's side
        t0, t1 = t, t + opt.approach_s
        trk = CardTrack(card, [(t0, sx, sy, ang + rng.uniform(-20, 20), True), (t1, x, y, ang, True)])
        grip = ch / 2 - 10                          # fingers overlap the card's near edge by 10 mm
        hx0, hy0 = sx + dx * grip, sy + dy * grip
        hx1, hy1 = x + dx * grip, y + dy * grip
        out = edge_point(seat, (x - cx) if dx == 0 else (y - cy))
        t2 = t1 + opt.withdraw_s
        hands.append(HandTrack(out, [(t0, hx0, hy0), (t1, hx1, hy1), (t1 + 0.04, hx1, hy1),
                                     (t2, out[0], out[1])], hold=(t0, t1)))
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
        hands.append(HandTrack(a, [(t, a[0], a[1]), (t + dur / 2, b[0], b[1]), (t + dur, a[0], a[1])]))
        passes.append((round(t, 3), round(t + dur, 3)))
        t += dur + 0.3

    def turn_trick() -> None:
        nonlocal t, tricks_done
        t += opt.turn_pause_s
        for k, (seat, trk) in enumerate(trick):
            x, y, a, _ = trk.at(trk.keys[-1][0])  # type: ignore[misc]
            tf = t + 0.12 * k
            dx, dy = SEAT_DIR[seat]
            n = quitted[seat]
            quitted[seat] += 1
            qx = cx + dx * 262 + (n - 6) * 18 * (1 if dx == 0 else 0)
            qy = cy + dy * 262 + (n - 6) * 18 * (1 if dy == 0 else 0)
            trk.keys += [(tf, x, y, a, False), (tf + 0.35, qx, qy, SEAT_ANGLE[seat] + 90, False)]
        last = t + 0.12 * (len(trick) - 1) + 0.35
        tricks_done += 1
        truth.append(Event("trick_turned", {"cards": [parse_card(c.card) for _, c in trick],
                                            "seats": [s for s, _ in trick], "trick": tricks_done},
                           ts=frame_ts(last), source="sim"))
        trick.clear()
        t = last + 0.5

    for ev in events:
        if not isinstance(ev, Event):
            continue  # a bad line: the simulator skips what the pipeline would
        if ev.type in ("board", "deal", "call"):
            e = Event(ev.type, dict(ev.data), ts=0.0, source="sim")
            truth.append(e)
            if ev.type == "board":
                tricks_done = 0
            continue
        if ev.type == "expose":
            seat, card = ev.seat, str(ev.card)
            dx, dy = SEAT_DIR[seat]
            along = rng.uniform(-150, 150)
            x = cx + dx * 250 + (along if dx == 0 else 0)
            y = cy + dy * 250 + (along if dy == 0 else 0)
            trk, rest = bring(seat, card, x, y, SEAT_ANGLE[seat] + rng.uniform(-10, 10))
            cards.append(trk)
            exposed[card] = trk
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
    return Scene(cards, hands, truth, t + 1.0, passes)


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
    """Card images at the plane's resolution, rendered once per card."""

    def __init__(self, deck: str, size: tuple[int, int]) -> None:
        self.deck, self.size = deck, size
        self.cache: dict[str, np.ndarray] = {}
        self._render = None
        if deck != "plain":
            try:
                from ..vision.faces import render_face
                self._render = render_face
            except ImportError:
                self._render = None

    def get(self, card: str) -> np.ndarray:
        import cv2

        if card not in self.cache:
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


class Renderer:
    """Draws frames of a :class:`Scene`."""

    def __init__(self, scene: Scene, opt: SimOptions) -> None:
        import cv2

        from ..vision.calibrate import TableGeometry, marker_image

        self.scene, self.opt = scene, opt
        self.rng = np.random.default_rng(opt.seed)
        p, m = opt.plane_ppm, opt.margin_mm
        W, H = opt.area_mm
        self.pw, self.ph = int((W + 2 * m) * p), int((H + 2 * m) * p)
        # felt with a fine texture and a little unevenness
        base = np.array([58, 112, 40], np.float32)
        noise = self.rng.normal(0, 6, (self.ph, self.pw, 1)).astype(np.float32)
        blotch = cv2.resize(self.rng.normal(0, 5, (8, 8, 1)).astype(np.float32), (self.pw, self.ph))[..., None]
        self.table = np.clip(base + noise + blotch, 0, 255).astype(np.uint8)
        geo = TableGeometry(W, H, opt.marker_mm)
        side = int(round(opt.marker_mm * p))
        q = int(round(6 * p))
        for i in range(4):
            x0, y0 = geo.marker_corners_mm(i)[0]
            X, Y = int(round((x0 + m) * p)), int(round((y0 + m) * p))
            self.table[Y - q:Y + side + q, X - q:X + side + q] = 245
            mk = marker_image(geo, i, side)
            self.table[Y:Y + side, X:X + side] = mk[..., None]
        cw, ch = opt.card_mm
        self.card_px = (int(round(cw * p)), int(round(ch * p)))
        self.faces = FaceBank(opt.deck, self.card_px)
        r = int(3.5 * p)
        mask = np.zeros((self.card_px[1], self.card_px[0]), np.uint8)
        cv2.rectangle(mask, (r, 0), (self.card_px[0] - 1 - r, self.card_px[1] - 1), 255, -1)
        cv2.rectangle(mask, (0, r), (self.card_px[0] - 1, self.card_px[1] - 1 - r), 255, -1)
        for cxy in ((r, r), (self.card_px[0] - 1 - r, r), (r, self.card_px[1] - 1 - r),
                    (self.card_px[0] - 1 - r, self.card_px[1] - 1 - r)):
            cv2.circle(mask, cxy, r, 255, -1, cv2.LINE_AA)
        self.card_mask = mask
        # camera: plane px -> image px
        src = np.array([[(m) * p, (m) * p], [(W + m) * p, m * p], [(W + m) * p, (H + m) * p], [m * p, (H + m) * p]],
                       np.float32)
        self.Hcam = cv2.getPerspectiveTransform(src, np.array(opt.corners_px, np.float32))
        bumped = np.array(opt.corners_px, np.float32) + np.array(opt.bump_px, np.float32)
        bumped[:2, 0] += 4.0   # the far edge moves a little more: a small turn, not only a shift
        self.Hcam_bumped = cv2.getPerspectiveTransform(src, bumped)
        w, h = opt.size
        yy, xx = np.mgrid[0:h // 16, 0:w // 16].astype(np.float32)
        self.gx, self.gy = (xx / (w // 16) - 0.5), (yy / (h // 16) - 0.5)
        self.noise = []
        for _ in range(4 if opt.noise else 0):
            n = self.rng.normal(0, opt.noise, (h, w, 3))
            self.noise.append((np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8)))

    def _mm(self, x: float, y: float) -> tuple[float, float]:
        p, m = self.opt.plane_ppm, self.opt.margin_mm
        return (x + m) * p, (y + m) * p

    def _paste(self, plane: np.ndarray, img: np.ndarray, x: float, y: float, ang: float, shadow: bool) -> None:
        import cv2

        X, Y = self._mm(x, y)
        w, h = self.card_px
        M = cv2.getRotationMatrix2D((w / 2, h / 2), ang, 1.0)
        M[0, 2] += X - w / 2
        M[1, 2] += Y - h / 2
        R = int(math.hypot(w, h) / 2) + 8
        x0, y0 = max(0, int(X) - R), max(0, int(Y) - R)
        x1, y1 = min(self.pw, int(X) + R), min(self.ph, int(Y) + R)
        if x1 <= x0 or y1 <= y0:
            return
        M[0, 2] -= x0
        M[1, 2] -= y0
        size = (x1 - x0, y1 - y0)
        roi = plane[y0:y1, x0:x1]
        alpha = cv2.warpAffine(self.card_mask, M, size).astype(np.float32)[..., None] / 255.0
        if shadow:
            sh = cv2.GaussianBlur(alpha, (0, 0), 3)
            sh = np.roll(np.roll(sh, 3, 0), 3, 1)
            if sh.ndim == 2:
                sh = sh[..., None]
            roi[:] = (roi * (1 - 0.35 * sh)).astype(np.uint8)
        face = cv2.warpAffine(img, M, size, flags=cv2.INTER_LINEAR)
        roi[:] = (roi * (1 - alpha) + face * alpha).astype(np.uint8)

    def _hand(self, plane: np.ndarray, hand: HandTrack, pos: tuple[float, float]) -> None:
        import cv2

        p = self.opt.plane_ppm
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

    def frame(self, i: int) -> np.ndarray:
        import cv2

        t = i / self.opt.fps
        plane = self.table.copy()
        for trk in self.scene.cards:
            st = trk.at(t)
            if st is None:
                continue
            x, y, a, up = st
            self._paste(plane, self.faces.get(trk.card if up else "back"), x, y, a, shadow=True)
        for hand in self.scene.hands:
            pos = hand.at(t)
            if pos is not None:
                self._hand(plane, hand, pos)
        w, h = self.opt.size
        bumped = self.opt.bump_at is not None and t >= self.opt.bump_at
        img = cv2.warpPerspective(plane, self.Hcam_bumped if bumped else self.Hcam, (w, h), flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_CONSTANT, borderValue=(40, 48, 62))
        if self.opt.lighting:
            g = 0.95 + 0.17 * math.sin(2 * math.pi * t / 9.0)
            warm = 0.05 * math.sin(2 * math.pi * t / 13.0)
            d = 0.18 * math.sin(2 * math.pi * t / 17.0)
            # the light field is smooth: compute it small, scale it up, multiply in uint8
            small = g * (1.0 + d * self.gx + 0.08 * self.gy)
            gains = np.array([1 - warm, 1.0, 1 + warm], np.float32)
            fld = np.clip(small[..., None] * gains * 128.0, 0, 255).astype(np.uint8)
            fld = cv2.resize(fld, (w, h), interpolation=cv2.INTER_LINEAR)
            img = cv2.multiply(img, fld, scale=1 / 128.0)
        if self.noise:
            pos, neg = self.noise[i % len(self.noise)]
            img = cv2.subtract(cv2.add(img, pos), neg)
        return img

    def frames(self) -> Iterator[np.ndarray]:
        n = int(math.ceil(self.scene.duration * self.opt.fps))
        for i in range(n):
            yield self.frame(i)


# ---------------------------------------------------------------------------
# Logs and the command

def random_deal_log(seed: int = 1, tricks: int = 13, game: str = "bridge", board: int = 1,
                    exposes: int = 0) -> list[Event]:
    """A bridge-like deal for demos and tests: 13 cards each, plays following suit where possible.

    >>> log = random_deal_log(3, tricks=2)
    >>> [e.type for e in log].count("deal"), [e.type for e in log].count("play")
    (52, 8)
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


def render_video(events: Iterable[Event], out: str | Path, opt: SimOptions) -> tuple[Path, Path, Scene]:
    """Write the video, ``<out>.truth.jsonl`` and ``<out>.meta.json``; return their paths and the scene."""
    import cv2

    out = Path(out)
    scene = plan_scene(events, opt)
    r = Renderer(scene, opt)
    fourcc = cv2.VideoWriter_fourcc(*("MJPG" if out.suffix.lower() == ".avi" and opt.codec == "mp4v" else opt.codec))
    vw = cv2.VideoWriter(str(out), fourcc, opt.fps, opt.size)
    if not vw.isOpened():
        raise OSError(f"cannot write video {out} (codec {opt.codec})")
    n = 0
    try:
        for img in r.frames():
            vw.write(img)
            n += 1
    finally:
        vw.release()
    truth = out.with_suffix(".truth.jsonl")
    with open(truth, "w") as fp:
        for e in scene.truth:
            fp.write(json.dumps(e.to_dict()) + "\n")
    meta = out.with_suffix(".meta.json")
    meta.write_text(json.dumps({
        "fps": opt.fps, "frames": n, "size": list(opt.size), "deck": opt.deck, "seed": opt.seed,
        "area_mm": list(opt.area_mm), "marker_mm": opt.marker_mm, "card_mm": list(opt.card_mm),
        "corners_px": [list(c) for c in opt.corners_px], "layout": opt.layout,
        "hand_passes": scene.hand_passes, "bump_at": opt.bump_at,
    }, indent=1) + "\n")
    return truth, meta, scene


def load_log(path: str | Path) -> list[Event]:
    """Events of a JSONL log (bad lines skipped) or of any archive ``load`` reads."""
    p = Path(path)
    if p.suffix.lower() == ".jsonl":
        with open(p, encoding="utf-8", errors="replace") as fp:
            return [e for e in read_events(fp) if isinstance(e, Event)]
    from ..archive import load

    return [e for e in load(str(p)) if isinstance(e, Event)]
