"""The table plane, seen from straight above: surface, markers, cards, hands.

The surface (with its props and the four corner markers) is painted once;
cards lying still are composited into a resting layer that is redrawn only
when one of them starts or stops moving; each frame restores the regions the
last frame's moving cards and hands covered and draws this frame's.  The
camera (:mod:`tablecam.sim.view`) then maps the plane into the image.
Plane pixels are ``p`` per mm, the marked area's NW corner at ``origin`` mm.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..cards import SEATS, Seat
from .cardfaces import FaceBank, rounded_mask
from .hands import draw_arm, draw_classic_hand, draw_fan, draw_pack, looks
from .scene import BID_MM, SEAT_DIR, CardTrack, HandTrack, Scene, SimOptions

FLOOR = (40, 48, 62)
"""BGR of the floor around a table the camera sees past (and of the image outside the view)."""


def plane_extent(opt: SimOptions, cam: Any) -> tuple[float, tuple[float, float], tuple[float, float]]:
    """The plane's resolution (px per mm), the area's NW corner on it and its size, both mm.

    The classic fixed view renders the area and a margin at ``opt.ppm``; a
    camera model renders all it sees (up to 450 mm beyond the area) at about
    the finest resolution the camera resolves."""
    W, H = opt.area_mm
    if cam is not None:
        p = opt.plane_ppm or float(np.clip(cam.finest_px_per_mm() * 0.9, 0.8, 3.4))
        x0, y0, x1, y1 = cam.view_bounds_mm(limit_mm=max(opt.margin_mm, 450.0))
        return p, (-x0 + 10, -y0 + 10), (x1 - x0 + 20, y1 - y0 + 20)
    m = opt.margin_mm
    return opt.ppm, (m, m), (W + 2 * m, H + 2 * m)


class TablePlane:
    """The table plane at any moment of a :class:`~tablecam.sim.scene.Scene`.

    ``rng`` draws the classic felt's and the floor's texture (the renderer's
    stream, shared with the sensor noise drawn after it)."""

    def __init__(self, scene: Scene, opt: SimOptions, cam: Any, rng: np.random.Generator) -> None:
        from ..vision.calibrate import TableGeometry, marker_image

        self.scene, self.opt, self.cam = scene, opt, cam
        p, self.origin, ext = plane_extent(opt, cam)
        self.p = p
        self.pw, self.ph = int(ext[0] * p), int(ext[1] * p)
        self.table = self._paint_table(rng)
        W, H = opt.area_mm
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
        self.faces = FaceBank(opt.deck, self.card_px, bid_px, bid_design=opt.seed,
                              bid_tuning=opt.bid_designs == "tuning")
        self.card_mask = rounded_mask(*self.card_px, int(3.5 * p))
        self.bid_mask = rounded_mask(*bid_px, int(3 * p))
        prng = np.random.default_rng(opt.seed + 101)
        self.looks = looks(prng)
        self._fan_phase = prng.uniform(0, 2 * math.pi, 4)
        self._fans: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, tuple[int, int]]] = {}
        self._layer_key: Any = None
        self._layer = self._work = self.table
        self._dirty: list[tuple[int, int, int, int]] = []

    # -- the static table ----------------------------------------------------
    def _paint_table(self, rng: np.random.Generator) -> np.ndarray:
        import cv2

        opt, p = self.opt, self.p
        W, H = opt.area_mm
        if self.cam is None and opt.surface == "felt":
            # the classic felt, drawn exactly as it always was (the pipeline's tests were tuned on it)
            base = np.array([58, 112, 40], np.float32)
            noise = rng.normal(0, 6, (self.ph, self.pw, 1)).astype(np.float32)
            blotch = cv2.resize(rng.normal(0, 5, (8, 8, 1)).astype(np.float32), (self.pw, self.ph))[..., None]
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
            floor = np.clip(np.array(FLOOR, np.float32) + rng.normal(0, 4, (self.ph, self.pw, 1)), 0, 255)
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
            draw_classic_hand(plane, self._mm(*hand.base), self._mm(*pos), self.p)
            return

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


    def _fan_sprite(self, k: int, n: int) -> tuple[np.ndarray, np.ndarray, tuple[int, int]]:
        """Seat ``k``'s fan of ``n`` held cards with its hands, as (colour, alpha, anchor) - drawn once."""
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

    def at(self, t: float) -> np.ndarray:
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

