"""What the simulated camera makes of the table plane: the view, a knock, the light, the sensor.

The classic look maps the plane into the image through a fixed homography
(the area's corners at ``SimOptions.corners_px``); the real look remaps it
through the :class:`~tablecam.sim.optics.CameraModel` (pose and lens), each
pixel the mean over its area where a pixel covers more than the plane's own
(:func:`sensor_supersample`), then softens it.  A knock (``bump_at``) shakes
the view for 0.4 s and leaves it turned.  The light drifts in brightness, direction and colour, an
auto-exposure follows it, and sensor noise (a few fixed patterns, cycled)
goes on top.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np

from .plane import FLOOR
from .scene import SimOptions


def sensor_supersample(cam: Any, p: float) -> int:
    """Points per pixel side so that each image pixel averages the plane over its area, as a sensor does.

    Sampling the plane once per pixel where a pixel covers more than a plane
    pixel (the far side of an oblique view) drops strokes thinner than a
    pixel that a camera would show faint; about one point per plane pixel
    keeps them.  Where a pixel covers no more than about a plane pixel
    (views from above) one point is what an area average gives anyway.

    >>> from tablecam.sim.optics import CameraModel
    >>> cam = CameraModel(size=(1280, 720), tilt_deg=45.0, area_mm=(600.0, 600.0))
    >>> sensor_supersample(cam, 0.9 * cam.finest_px_per_mm())
    3
    >>> sensor_supersample(CameraModel(size=(1280, 720), tilt_deg=0.0, area_mm=(600.0, 600.0)), 1.0)
    1
    """
    return int(min(3, max(1, round(p / cam.coarsest_px_per_mm()))))


class CameraView:
    """Frames of the plane as the camera films them (``p`` plane px per mm, the area's NW corner at ``origin``).

    ``rng`` draws the sensor's noise patterns (the renderer's stream, after the plane's texture)."""

    def __init__(self, opt: SimOptions, cam: Any, p: float, origin: tuple[float, float],
                 rng: np.random.Generator) -> None:
        import cv2

        self.opt, self.cam, self.p = opt, cam, p
        W, H = opt.area_mm
        w, h = opt.size
        if cam is None:
            m = opt.margin_mm
            src = np.array([[m * p, m * p], [(W + m) * p, m * p], [(W + m) * p, (H + m) * p], [m * p, (H + m) * p]],
                           np.float32)
            self.Hcam = cv2.getPerspectiveTransform(src, np.array(opt.corners_px, np.float32))
            bumped = np.array(opt.corners_px, np.float32) + np.array(opt.bump_px, np.float32)
            bumped[:2, 0] += 4.0   # the far edge moves a little more: a small turn, not only a shift
            self.Hcam_bumped = cv2.getPerspectiveTransform(src, bumped)
        else:
            self.ss = sensor_supersample(cam, p)
            self.maps = cam.maps(p, origin, self.ss)
            self.cam_bumped = None
            if opt.bump_at is not None:
                self.cam_bumped = replace(cam, turn_deg=(0.9, -1.3, 1.6), shift_mm=(12.0, -8.0, 0.0))
                self.maps_bumped = self.cam_bumped.maps(p, origin, self.ss)
        yy, xx = np.mgrid[0:h // 16, 0:w // 16].astype(np.float32)
        self.gx, self.gy = (xx / (w // 16) - 0.5), (yy / (h // 16) - 0.5)
        self.noise = []
        for _ in range((2 if w * h > 4_000_000 else 4) if opt.noise else 0):
            n = rng.normal(0, opt.noise, (h, w, 3))
            self.noise.append((np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8)))
        self.expo = None
        if opt.exposure:
            from .optics import Exposure, vignette

            self.expo = Exposure(seed=opt.seed)
            self.vig = cv2.resize(vignette(opt.size, 0.32), (w // 16, h // 16))
        self._last_t = 0.0

    def shoot(self, i: int, plane: np.ndarray) -> np.ndarray:
        """Frame ``i``: the plane as it is at ``i / fps``, through the lens, in this moment's light."""
        import cv2

        t = i / self.opt.fps
        w, h = self.opt.size
        bumped = self.opt.bump_at is not None and t >= self.opt.bump_at
        if self.cam is None:
            img = cv2.warpPerspective(plane, self.Hcam_bumped if bumped else self.Hcam, (w, h),
                                      flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=FLOOR)
        else:
            m1, m2 = self.maps_bumped if bumped else self.maps
            img = cv2.remap(plane, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=FLOOR)
            if self.ss > 1:     # each pixel the mean of its grid of points: the light over its area
                img = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)
            if bumped and t - self.opt.bump_at < 0.4:    # the knock: the view shakes, then settles turned
                u = t - self.opt.bump_at
                amp = 0.012 * w * math.exp(-u * 9)
                M = np.float32([[1, 0, amp * math.sin(u * 55)], [0, 1, amp * 0.6 * math.cos(u * 47)]])
                img = cv2.warpAffine(img, M, (w, h), borderMode=cv2.BORDER_REFLECT)
                img = cv2.blur(img, (max(1, int(amp / 2)) | 1, 1))
            if self.opt.blur > 0:
                img = cv2.GaussianBlur(img, (0, 0), self.opt.blur)
        if self.opt.lighting or self.expo is not None:
            img = self._light(img, i, t)
        self._last_t = t
        if self.noise:
            pos, neg = self.noise[i % len(self.noise)]
            img = cv2.subtract(cv2.add(img, pos), neg)
        return img

    def _light(self, img: np.ndarray, i: int, t: float) -> np.ndarray:
        """The lamp's drift (brightness, direction, warmth) and the auto-exposure's answer to it."""
        import cv2

        w, h = self.opt.size
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
        return cv2.multiply(img, fld, scale=1 / scale)

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
