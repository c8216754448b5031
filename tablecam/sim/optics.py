"""The simulated camera: pose over the table, lens, exposure, white balance, sensor.

A real table camera is clipped to a lamp arm or a tripod at the side of the
table, looks down at up to 45 degrees from vertical, often through a
wide-angle lens (barrel distortion), and runs auto-exposure and auto white
balance that react to whatever enters the view (a dark sleeve, a white
sheet).  Each of these breaks a pipeline tuned on straight-down renders, so
the simulator models them:

* :class:`CameraModel`: a pinhole camera at ``tilt_deg`` from vertical,
  looking at the centre of the playing area from the side ``yaw_deg``
  (0: from the South edge), placed so the area with its markers fills
  ``fill`` of the image, with radial distortion ``k1``, ``k2`` (negative:
  barrel).  :meth:`CameraModel.maps` gives the ``cv2.remap`` maps from image
  pixels to table-plane pixels, computed once per pose, so one remap per
  frame does perspective and distortion together.
* :class:`Exposure`: auto-exposure with a lag (gain follows the scene's mean
  brightness), white-balance gains drifting and reacting to the scene's
  colour, vignetting, and signal-dependent sensor noise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class CameraModel:
    """Where the camera is and what lens it has; all angles in degrees."""

    size: tuple[int, int] = (1280, 720)
    tilt_deg: float = 0.0
    yaw_deg: float = 0.0
    roll_deg: float = 0.0
    hfov_deg: float = 70.0
    k1: float = 0.0
    k2: float = 0.0
    fill: float = 0.92           # the marked area's bounding box: this share of the image height
    area_mm: tuple[float, float] = (600.0, 600.0)
    shift_mm: tuple[float, float, float] = (0.0, 0.0, 0.0)   # the camera moved (a knock)
    turn_deg: tuple[float, float, float] = (0.0, 0.0, 0.0)   # ... and turned (pitch, yaw, roll)

    @property
    def focal(self) -> float:
        return (self.size[0] / 2) / math.tan(math.radians(self.hfov_deg) / 2)

    def K(self) -> np.ndarray:
        f = self.focal
        return np.array([[f, 0, self.size[0] / 2], [0, f, self.size[1] / 2], [0, 0, 1]], np.float64)

    def _rotation_and_centre(self, dist: float, aim: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """World->camera rotation R and camera centre C (world: x east, y south, z up; mm).

        The camera looks at a point ``aim`` mm from the area's centre towards
        itself, chosen (see :func:`_distance`) so the area sits in the middle
        of the picture, as a person aiming a camera would put it."""
        W, H = self.area_mm
        t, yw = math.radians(self.tilt_deg), math.radians(self.yaw_deg)
        # horizontal direction from the target to the camera: yaw 0 = the South side (+y)
        d = np.array([math.sin(yw), math.cos(yw), 0.0])
        if aim is None:
            dist, aim = _distance(self)
        target = np.array([W / 2, H / 2, 0.0]) + d * aim
        C = target + dist * (math.sin(t) * d + np.array([0, 0, math.cos(t)]))
        z = target - C
        z /= np.linalg.norm(z)                               # optical axis
        up_world = -d if self.tilt_deg > 1e-6 else np.array([-math.sin(yw), -math.cos(yw), 0.0])
        # image "up" (-y) points to the far side of the table
        y = -(up_world - z * (up_world @ z))
        y /= np.linalg.norm(y)
        x = np.cross(z, y)       # the table's axes (x east, y south, z up) are left-handed
        R = np.stack([x, y, z])
        r = math.radians(self.roll_deg)
        Rr = np.array([[math.cos(r), -math.sin(r), 0], [math.sin(r), math.cos(r), 0], [0, 0, 1]])
        R = Rr @ R
        if any(self.turn_deg) or any(self.shift_mm):
            a, b, c = (math.radians(v) for v in self.turn_deg)
            Rx = np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])
            Ry = np.array([[math.cos(b), 0, math.sin(b)], [0, 1, 0], [-math.sin(b), 0, math.cos(b)]])
            Rz = np.array([[math.cos(c), -math.sin(c), 0], [math.sin(c), math.cos(c), 0], [0, 0, 1]])
            R = Rz @ Ry @ Rx @ R
            C = C + np.array(self.shift_mm)
        return R, C

    # The lens is defined image -> ray (a division-like model): a pixel at distorted radius r_d looks
    # along the undistorted radius r_u = r_d (1 - k1 r_d^2 - k2 r_d^4).  For barrel distortion (k1 < 0)
    # that is monotonic however wide the lens, so no pixel folds back (the forward polynomial of
    # OpenCV does at large radii); :meth:`opencv_dist` gives OpenCV's coefficients fitted to it.
    def _undistort(self, xd: np.ndarray, yd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r2 = xd * xd + yd * yd
        f = 1 - self.k1 * r2 - self.k2 * r2 * r2
        return xd * f, yd * f

    def _distort(self, xn: np.ndarray, yn: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        xd, yd = xn.copy(), yn.copy()
        for _ in range(30):
            r2 = xd * xd + yd * yd
            f = 1 - self.k1 * r2 - self.k2 * r2 * r2
            xd, yd = xn / f, yn / f
        return xd, yd

    def opencv_dist(self) -> list[float]:
        """OpenCV's (k1, k2, p1, p2, k3) fitted to this lens over the image (for cv2.undistort)."""
        if not (self.k1 or self.k2):
            return [0.0] * 5
        w, h = self.size
        rmax = math.hypot(w / 2, h / 2) / self.focal
        rd = np.linspace(1e-3, rmax, 200)
        ru = rd * (1 - self.k1 * rd ** 2 - self.k2 * rd ** 4)
        # r_d = r_u (1 + a r_u^2 + b r_u^4 + c r_u^6)
        A = np.stack([ru ** 3, ru ** 5, ru ** 7], 1)
        a, b, c = np.linalg.lstsq(A, rd - ru, rcond=None)[0]
        return [round(float(a), 5), round(float(b), 5), 0.0, 0.0, round(float(c), 5)]

    def _project(self, pts_mm: np.ndarray, dist: float, aim: float | None = None) -> np.ndarray:
        R, C = self._rotation_and_centre(dist, aim)
        P = (np.c_[pts_mm, np.zeros(len(pts_mm))] - C) @ R.T
        xn, yn = P[:, 0] / P[:, 2], P[:, 1] / P[:, 2]
        xd, yd = self._distort(xn, yn)
        f = self.focal
        return np.c_[xd * f + self.size[0] / 2, yd * f + self.size[1] / 2]

    @property
    def distance(self) -> float:
        """Camera distance (mm) from the point it looks at, so that the area fills ``fill`` of the view."""
        return _distance(self)[0]

    def project(self, pts_mm: np.ndarray) -> np.ndarray:
        """Image pixels of table points (mm from the area's NW corner), distortion included."""
        return self._project(np.asarray(pts_mm, np.float64).reshape(-1, 2), *_distance(self))

    def maps(self, ppm: float, origin_mm: tuple[float, float], supersample: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """``cv2.remap`` maps: for every image pixel, the table-plane pixel it sees.

        The plane has ``ppm`` pixels per mm and the area's NW corner at
        ``origin_mm``; rays that miss the table (above the horizon) map to -1
        and take the border colour.  ``supersample`` ``n``: maps for an image
        ``n`` times as wide and high, an ``n`` by ``n`` grid of points spread
        over each pixel, to be averaged back to one as a sensor's pixel
        gathers the light over its whole area.
        """
        import cv2

        w, h = self.size
        n = max(1, int(supersample))
        R, C = self._rotation_and_centre(*_distance(self))
        f = self.focal
        xs = ((np.arange(w * n, dtype=np.float64) + 0.5) / n - 0.5 - w / 2) / f
        ys = ((np.arange(h * n, dtype=np.float64) + 0.5) / n - 0.5 - h / 2) / f
        w, h = w * n, h * n
        mx = np.empty((h, w), np.float32)
        my = np.empty((h, w), np.float32)
        step = max(1, 2_000_000 // w)
        for y0 in range(0, h, step):
            xd, yd = np.meshgrid(xs, ys[y0:y0 + step])
            xn, yn = self._undistort(xd, yd) if (self.k1 or self.k2) else (xd, yd)
            ray = np.stack([xn, yn, np.ones_like(xn)], -1) @ R      # camera -> world direction
            s = -C[2] / np.where(np.abs(ray[..., 2]) < 1e-9, -1e-9, ray[..., 2])
            X = C[0] + s * ray[..., 0]
            Y = C[1] + s * ray[..., 1]
            bad = s <= 0
            mx[y0:y0 + step] = np.where(bad, -1, (X + origin_mm[0]) * ppm)
            my[y0:y0 + step] = np.where(bad, -1, (Y + origin_mm[1]) * ppm)
        m1, m2 = cv2.convertMaps(mx, my, cv2.CV_16SC2)
        return m1, m2

    def view_bounds_mm(self, limit_mm: float = 450.0) -> tuple[float, float, float, float]:
        """The table region the image sees (x0, y0, x1, y1 in mm), at most ``limit_mm`` beyond the area."""
        w, h = self.size
        R, C = self._rotation_and_centre(*_distance(self))
        f = self.focal
        n = 64
        u = np.concatenate([np.linspace(0, w, n), np.full(n, w), np.linspace(w, 0, n), np.zeros(n)])
        v = np.concatenate([np.zeros(n), np.linspace(0, h, n), np.full(n, h), np.linspace(h, 0, n)])
        xn, yn = self._undistort((u - w / 2) / f, (v - h / 2) / f) if (self.k1 or self.k2) else ((u - w / 2) / f, (v - h / 2) / f)
        ray = np.stack([xn, yn, np.ones_like(xn)], -1) @ R
        s = -C[2] / np.where(np.abs(ray[:, 2]) < 1e-9, -1e-9, ray[:, 2])
        X = np.where(s > 0, C[0] + s * ray[:, 0], np.nan)
        Y = np.where(s > 0, C[1] + s * ray[:, 1], np.nan)
        W, H = self.area_mm
        far = np.isnan(X)
        x0 = -limit_mm if far.any() else max(-limit_mm, float(np.nanmin(X)))
        x1 = W + limit_mm if far.any() else min(W + limit_mm, float(np.nanmax(X)))
        y0 = -limit_mm if far.any() else max(-limit_mm, float(np.nanmin(Y)))
        y1 = H + limit_mm if far.any() else min(H + limit_mm, float(np.nanmax(Y)))
        return min(x0, -60.0), min(y0, -60.0), max(x1, W + 60.0), max(y1, H + 60.0)

    def mm_per_px_at_centre(self) -> float:
        """Table millimetres per image pixel at the area's centre (for choosing the plane's resolution)."""
        W, H = self.area_mm
        p = self.project(np.array([[W / 2, H / 2], [W / 2 + 10, H / 2], [W / 2, H / 2 + 10]]))
        return 10 / max(1e-6, min(np.linalg.norm(p[1] - p[0]), np.linalg.norm(p[2] - p[0])))

    def _px_per_mm_across_area(self) -> list[float]:
        """Image pixels a table millimetre gets, along x and along y, at the area's centre, corners
        and edge midpoints (lens and foreshortening included)."""
        W, H = self.area_mm
        out: list[float] = []
        for x, y in ((W / 2, H / 2), (0, 0), (W, 0), (W, H), (0, H), (W / 2, H), (W / 2, 0), (0, H / 2), (W, H / 2)):
            p = self.project(np.array([[x, y], [x + 5, y], [x, y + 5]]))
            out += [float(np.linalg.norm(p[1] - p[0])) / 5, float(np.linalg.norm(p[2] - p[0])) / 5]
        return out

    def coarsest_px_per_mm(self) -> float:
        """The fewest image pixels a table millimetre gets anywhere in the area, along its foreshortened way."""
        return min(self._px_per_mm_across_area())

    def finest_px_per_mm(self) -> float:
        """The most image pixels a table millimetre gets anywhere in the area (the near edge)."""
        return max(self._px_per_mm_across_area())


_DIST_CACHE: dict[CameraModel, tuple[float, float]] = {}


def _distance(cam: CameraModel) -> tuple[float, float]:
    """(distance, aim) placing the area, with its markers' white border, centred and ``fill`` high."""
    base = CameraModel(cam.size, cam.tilt_deg, cam.yaw_deg, cam.roll_deg, cam.hfov_deg, cam.k1, cam.k2,
                       cam.fill, cam.area_mm)
    if base in _DIST_CACHE:
        return _DIST_CACHE[base]
    W, H = cam.area_mm
    m = 12.0
    corners = np.array([[-m, -m], [W + m, -m], [W + m, H + m], [-m, H + m], [W / 2, -m], [W / 2, H + m],
                        [-m, H / 2], [W + m, H / 2]], np.float64)
    w, h = cam.size

    def centred_aim(dist: float) -> float:
        aim = 0.0
        for _ in range(12):                  # move the aim point until the area's middle is the picture's
            p = base._project(corners, dist, aim)
            off = (p[:, 1].max() + p[:, 1].min()) / 2 - h / 2
            if abs(off) < 0.5:
                break
            p2 = base._project(corners, dist, aim + 5.0)
            off2 = (p2[:, 1].max() + p2[:, 1].min()) / 2 - h / 2
            slope = (off2 - off) / 5.0
            if abs(slope) < 1e-9:
                break
            aim -= off / slope
        return aim

    lo, hi = 50.0, 20000.0
    aim = 0.0
    for _ in range(40):
        mid = math.sqrt(lo * hi)
        a = centred_aim(mid)
        p = base._project(corners, mid, a)
        fits = (p[:, 1].max() - p[:, 1].min() <= cam.fill * h and p[:, 0].max() - p[:, 0].min() <= 0.97 * w
                and p[:, 1].min() > 0 and p[:, 1].max() < h and p[:, 0].min() > 0 and p[:, 0].max() < w)
        if fits:
            hi, aim = mid, a
        else:
            lo = mid
    _DIST_CACHE[base] = (hi, aim)
    return hi, aim


@dataclass
class Exposure:
    """Auto-exposure, auto white balance and the sensor, frame by frame.

    ``ae_speed``: share of the way to the target gain taken per second; the
    lag makes a dark arm entering the view brighten the whole table for a
    moment, as webcams do.  ``drift``: slow white-balance wander.
    """

    target: float = 100.0
    ae_speed: float = 1.6
    awb_speed: float = 0.5
    awb_strength: float = 0.35
    drift: float = 0.04
    gain_range: tuple[float, float] = (0.55, 2.2)
    seed: int = 1

    def __post_init__(self) -> None:
        self.gain = 1.0
        self.wb = np.ones(3)
        self.rng = np.random.default_rng(self.seed)
        self.phase = self.rng.uniform(0, 2 * math.pi, 3)
        self._started = False

    def step(self, img: np.ndarray, t: float, dt: float) -> tuple[float, np.ndarray]:
        """Update from the scene (``img`` before exposure) and give (gain, per-channel gains BGR)."""
        import cv2

        small = cv2.resize(img, (32, 18), interpolation=cv2.INTER_AREA).reshape(-1, 3).astype(np.float64)
        # centre-weighted metering
        wts = np.outer(np.hanning(18) + 0.3, np.hanning(32) + 0.3).ravel()
        mean = (small * wts[:, None]).sum(0) / wts.sum()
        lum = float(mean @ np.array([0.114, 0.587, 0.299]))
        want = float(np.clip(self.target / max(lum, 1.0), *self.gain_range))
        grey = mean.mean() / np.maximum(mean, 1.0)
        awb = 1 + self.awb_strength * (grey - 1)
        if not self._started:
            self.gain, self.wb, self._started = want, awb, True
        a = 1 - math.exp(-self.ae_speed * dt)
        b = 1 - math.exp(-self.awb_speed * dt)
        self.gain += (want - self.gain) * a
        self.wb = self.wb + (awb - self.wb) * b
        wander = 1 + self.drift * np.sin(2 * math.pi * t / np.array([23.0, 31.0, 19.0]) + self.phase)
        return self.gain, self.wb * wander


def vignette(size: tuple[int, int], strength: float) -> np.ndarray:
    """A smooth fall-off to the corners (multiplier field at 1/8 size, BGR, float32)."""
    w, h = size
    sw, sh = max(2, w // 8), max(2, h // 8)
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    r2 = ((xx / (sw - 1) - 0.5) ** 2 + (yy / (sh - 1) - 0.5) ** 2) / 0.5
    return (1 - strength * r2)[..., None].repeat(3, -1)
