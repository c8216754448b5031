"""Frames of a scene: the table plane at each moment, filmed by the simulated camera.

:class:`Renderer` joins the plane (:mod:`tablecam.sim.plane`: surface,
cards, hands) and the camera's view of it (:mod:`tablecam.sim.view`: lens,
knock, light, noise).  The classic look films the plane through a fixed
homography, the real look through a :class:`~tablecam.sim.optics.CameraModel`.
"""

from __future__ import annotations

import math
from typing import Iterator

import numpy as np

from .plane import TablePlane
from .scene import Scene, SimOptions
from .view import CameraView


class Renderer:
    """Draws frames of a :class:`~tablecam.sim.scene.Scene`.

    One random stream (seeded by ``opt.seed``) draws first the plane's
    texture, then the sensor's noise patterns: the same options render the
    same pixels."""

    def __init__(self, scene: Scene, opt: SimOptions) -> None:
        self.scene, self.opt = scene, opt
        rng = np.random.default_rng(opt.seed)
        self.cam = None
        if opt.tilt_deg is not None:
            from .optics import CameraModel

            self.cam = CameraModel(size=opt.size, tilt_deg=opt.tilt_deg, yaw_deg=opt.yaw_deg, hfov_deg=opt.hfov_deg,
                                   k1=opt.k1, k2=opt.k2, fill=opt.fill, area_mm=opt.area_mm)
        self.table = TablePlane(scene, opt, self.cam, rng)
        self.p = self.table.p
        self.view = CameraView(opt, self.cam, self.p, self.table.origin, rng)

    def plane(self, t: float) -> np.ndarray:
        """The table plane at time ``t`` (a buffer reused between frames: copy it to keep it)."""
        return self.table.at(t)

    def frame(self, i: int) -> np.ndarray:
        """Frame ``i`` (at ``i / fps``) as the camera delivers it."""
        return self.view.shoot(i, self.table.at(i / self.opt.fps))

    def frames(self) -> Iterator[np.ndarray]:
        n = int(math.ceil(self.scene.duration * self.opt.fps))
        for i in range(n):
            yield self.frame(i)

    def corners_px(self, bumped: bool = False) -> list[list[float]]:
        """Image points of the area's corners NW NE SE SW (lens distortion included)."""
        return self.view.corners_px(bumped)
