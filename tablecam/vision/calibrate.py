"""Table calibration: where the table lies in the camera image.

Everything downstream (zones, stability, which seat played) is reasoned in
*table millimetres*, not in pixels, so that moving the camera or changing its
resolution only means calibrating again, never editing zones.  A calibration
is a homography from image pixels to the table plane, found either

* from four ArUco markers (``DICT_4X4_50`` ids 0-3) taped at the corners of
  the playing area - the sheet to print comes from :func:`marker_sheet`
  (``tablecam calibrate --print-markers sheet.png``) - or
* from four points given by hand (the corners NW, NE, SE, SW of the playing
  area in image pixels), for a table without markers.

Table coordinates: ``x`` grows from West to East, ``y`` from North to South;
North sits at the top of the top-down view, as in a bridge diagram.

A marker is placed upright (its top edge towards North) with its outer
corner exactly on the corner of the playing area, so its four corners have
known table coordinates and one frame with three or four markers visible is
enough (a hand covering one marker does not stop calibration).

>>> g = TableGeometry(width_mm=600, height_mm=600, marker_mm=50)
>>> g.marker_corners_mm(2)[0].tolist()   # SE marker, its top-left corner
[550.0, 550.0]
>>> cal = Calibration.from_points([(100, 50), (700, 50), (800, 650), (0, 650)], g)
>>> [abs(round(float(v), 1)) for v in cal.image_to_table([(100, 50), (400, 350)])[0]]
[0.0, 0.0]
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

CORNERS = ("NW", "NE", "SE", "SW")
"""Marker ids 0..3 go to these corners of the playing area, in this order."""


@dataclass(frozen=True)
class TableGeometry:
    """Size of the calibrated playing area and of its corner markers."""

    width_mm: float = 600.0
    height_mm: float = 600.0
    marker_mm: float = 50.0
    marker_ids: tuple[int, int, int, int] = (0, 1, 2, 3)
    dictionary: str = "DICT_4X4_50"

    def corner_mm(self, i: int) -> tuple[float, float]:
        """Table coordinates of corner ``i`` (0=NW, 1=NE, 2=SE, 3=SW)."""
        return [(0.0, 0.0), (self.width_mm, 0.0), (self.width_mm, self.height_mm), (0.0, self.height_mm)][i]

    def marker_corners_mm(self, i: int) -> np.ndarray:
        """The 4 corners (TL, TR, BR, BL, ArUco order) of the marker at corner ``i``."""
        s = self.marker_mm
        x0 = 0.0 if i in (0, 3) else self.width_mm - s
        y0 = 0.0 if i in (0, 1) else self.height_mm - s
        return np.array([[x0, y0], [x0 + s, y0], [x0 + s, y0 + s], [x0, y0 + s]], np.float64)


def _dictionary(name: str) -> Any:
    import cv2

    try:
        return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))
    except AttributeError:
        raise ValueError(f"unknown ArUco dictionary {name!r}") from None

@dataclass
class Lens:
    """A camera's intrinsics: a wide-angle lens bends the table's straight edges.

    ``K`` (3x3) and ``dist`` (OpenCV's k1 k2 p1 p2 k3 ...) for frames of
    ``image_size`` (width, height); from a checkerboard
    (:meth:`from_checkerboard`, ``tablecam calibrate --checkerboard``).
    Every point the pipeline maps between the image and the table goes
    through it, so zones, the top-down view and card crops are straight.

    >>> lens = Lens(np.array([[800., 0, 640], [0, 800, 360], [0, 0, 1]]), np.array([-0.3, 0.1, 0, 0, 0]))
    >>> p = np.array([[100.0, 50.0], [640.0, 360.0]])
    >>> bool(np.allclose(lens.undistort_points(lens.distort_points(p)), p, atol=0.05))
    True
    """

    K: np.ndarray
    dist: np.ndarray
    image_size: tuple[int, int] | None = None

    def undistort_points(self, pts: np.ndarray) -> np.ndarray:
        """Image pixels as seen -> where a perfect (pinhole) lens would have put them."""
        import cv2

        a = np.asarray(pts, np.float64).reshape(-1, 1, 2)
        # iterated to convergence: the default 5 rounds leave pixels of error at a wide lens's corners
        crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-9)
        return cv2.undistortPoints(a, self.K, self.dist, R=None, P=self.K, criteria=crit).reshape(-1, 2)

    def distort_points(self, pts: np.ndarray) -> np.ndarray:
        """Pinhole pixels -> where this lens shows them."""
        import cv2

        a = np.asarray(pts, np.float64).reshape(-1, 2)
        norm = np.c_[(a - self.K[:2, 2]) / np.diag(self.K)[:2], np.ones(len(a))]
        out, _ = cv2.projectPoints(norm.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), self.K, self.dist)
        return out.reshape(-1, 2)

    def to_dict(self) -> dict[str, Any]:
        return {"camera_matrix": self.K.tolist(), "distortion": self.dist.ravel().tolist(),
                "image_size": list(self.image_size) if self.image_size else None}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Lens":
        K = np.asarray(d["camera_matrix"], np.float64)
        dist = np.asarray(d.get("distortion") or [], np.float64).ravel()
        if K.shape != (3, 3) or len(dist) not in (4, 5, 8, 12, 14):
            raise ValueError("a lens needs camera_matrix 3x3 and distortion of 4, 5, 8, 12 or 14 numbers")
        size = d.get("image_size")
        return cls(K, dist, (int(size[0]), int(size[1])) if size else None)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> "Lens":
        return cls.from_dict(json.loads(Path(path).read_text()))

    @classmethod
    def from_checkerboard(cls, images: Iterable[np.ndarray], pattern: tuple[int, int] = (9, 6),
                          square_mm: float = 25.0) -> "Lens":
        """Intrinsics from views of a printed checkerboard (``pattern``: inner corners across, down).

        Why a checkerboard: dozens of corners spread over the whole frame pin
        the lens down; the four table markers alone sit in the corners only.
        At least three views with the board found are needed, better ten,
        tilted and moved about, the board reaching the frame's corners."""
        import cv2

        obj = np.zeros((pattern[0] * pattern[1], 3), np.float32)
        obj[:, :2] = np.mgrid[0:pattern[0], 0:pattern[1]].T.reshape(-1, 2) * square_mm
        objs, imgs, size = [], [], None
        for img in images:
            grey = img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
            size = grey.shape[::-1]
            ok, corners = cv2.findChessboardCorners(grey, pattern, None)
            if not ok:
                continue
            corners = cv2.cornerSubPix(grey, corners, (5, 5), (-1, -1),
                                       (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.01))
            objs.append(obj)
            imgs.append(corners)
        if len(objs) < 3 or size is None:
            raise ValueError(f"the checkerboard ({pattern[0]}x{pattern[1]} inner corners) was found in "
                             f"{len(objs)} views; need at least 3")
        _, K, dist, _, _ = cv2.calibrateCamera(objs, imgs, size, None, None)
        return cls(K, dist.ravel(), (int(size[0]), int(size[1])))

    @classmethod
    def from_markers(cls, image_bgr: np.ndarray, geometry: "TableGeometry") -> tuple["Lens", float, float]:
        """A wide-angle lens's barrel from the four table corner markers in one frame.

        Why it can be done without a checkerboard: a straight homography puts
        the four markers where they are but then predicts each marker's size
        and slant from its neighbours; through a barrel lens the markers near
        the corners of the view come out squeezed and bent, and that misfit
        is what the lens term takes out.  One unknown is fitted: the
        one-parameter *division* model (Fitzgibbon's; a pixel at radius
        ``r`` looks along ``r / (1 + lam r^2)``), good over the whole view
        of a wide lens where OpenCV's polynomial needs several terms.  The
        principal point is taken at the image centre and the focal length at
        a 90-degree view (with one radial term any focal gives the same
        pixel map with a rescaled ``lam``).  The result is handed on as
        OpenCV coefficients (k1, k2, k3) fitted to that model over the frame.

        Returns the lens and the markers' fit (mean mm) without and with it;
        raises ``ValueError`` when not all four markers are seen."""
        found = detect_markers(image_bgr, geometry)
        if len(found) < 4:
            raise ValueError(f"saw {len(found)} of the 4 corner markers ({sorted(found)}); a lens fit needs all four")
        src = np.concatenate([found[i] for i in sorted(found)])
        dst = np.concatenate([geometry.marker_corners_mm(i) for i in sorted(found)])
        h, w = image_bgr.shape[:2]
        f = w / 2.0
        c = np.array([w / 2.0, h / 2.0])

        def misfit(lam: float) -> float:
            n = (src - c) / f
            return _homography_fit(n / (1 + lam * (n * n).sum(1, keepdims=True)) * f + c, dst)[1]

        grid = np.linspace(-0.6, 0.2, 33)
        errs = [misfit(v) for v in grid]
        i = int(np.argmin(errs))
        lo, hi = grid[max(0, i - 1)], grid[min(len(grid) - 1, i + 1)]
        g = (np.sqrt(5) - 1) / 2
        for _ in range(30):                      # golden section on the bracket
            a, b = hi - g * (hi - lo), lo + g * (hi - lo)
            if misfit(a) < misfit(b):
                hi = b
            else:
                lo = a
        lam = float((lo + hi) / 2)
        # OpenCV's r_d = r_u (1 + k1 r_u^2 + k2 r_u^4 + k3 r_u^6), fitted to the division model
        rd = np.linspace(1e-3, float(np.hypot(*c)) / f, 200)
        ru = rd / (1 + lam * rd ** 2)
        k1, k2, k3 = np.linalg.lstsq(np.stack([ru ** 3, ru ** 5, ru ** 7], 1), rd - ru, rcond=None)[0]
        K = np.array([[f, 0, c[0]], [0, f, c[1]], [0, 0, 1]], np.float64)
        return cls(K, np.array([k1, k2, 0, 0, k3], np.float64), (w, h)), misfit(0.0), misfit(lam)

@dataclass
class Calibration:
    """Image -> table homography plus how it was found (kept for the log)."""

    H: np.ndarray                      # 3x3, image pixels -> table mm
    geometry: TableGeometry
    method: str = "points"             # "aruco" or "points"
    image_points: list[list[float]] = field(default_factory=list)  # NW, NE, SE, SW in pixels
    markers_seen: list[int] = field(default_factory=list)
    reprojection_mm: float = 0.0
    lens: Lens | None = None           # a wide-angle lens: points are undistorted before H

    # -- construction ------------------------------------------------------
    @classmethod
    def from_points(cls, points: Sequence[Sequence[float]], geometry: TableGeometry,
                    lens: Lens | None = None) -> "Calibration":
        """Four image points of the corners NW, NE, SE, SW of the playing area."""
        import cv2

        pts = np.asarray(points, np.float64).reshape(-1, 2)
        if pts.shape != (4, 2):
            raise ValueError(f"need 4 corner points (NW NE SE SW), got {len(pts)}")
        dst = np.array([geometry.corner_mm(i) for i in range(4)], np.float64)
        src = lens.undistort_points(pts) if lens is not None else pts
        H = cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32))
        if not np.isfinite(H).all() or abs(np.linalg.det(H)) < 1e-12:
            raise ValueError("the four points do not span a quadrilateral")
        return cls(H.astype(np.float64), geometry, "points", pts.tolist(), lens=lens)

    @classmethod
    def from_aruco(cls, image_bgr: np.ndarray, geometry: TableGeometry, min_markers: int = 3,
                   lens: Lens | None = None) -> "Calibration":
        """Find the corner markers in one frame; raise ``ValueError`` when too few are seen."""
        import cv2

        found = detect_markers(image_bgr, geometry)
        if len(found) < min_markers:
            raise ValueError(f"saw {len(found)} of the 4 corner markers ({sorted(found)}); need {min_markers}")
        src = np.concatenate([found[i] for i in sorted(found)])
        if lens is not None:
            src = lens.undistort_points(src)
        dst = np.concatenate([geometry.marker_corners_mm(i) for i in sorted(found)])
        H, _ = cv2.findHomography(src, dst, 0)
        if H is None:
            raise ValueError("markers found but no homography fits them")
        proj = cv2.perspectiveTransform(src.reshape(-1, 1, 2), H).reshape(-1, 2)
        err = float(np.sqrt(((proj - dst) ** 2).sum(1)).mean())
        cal = cls(H, geometry, "aruco", [], sorted(found), err, lens)
        cal.image_points = cal.table_to_image([geometry.corner_mm(i) for i in range(4)]).tolist()
        return cal

    # -- use ---------------------------------------------------------------
    def image_to_table(self, pts: Iterable[Sequence[float]]) -> np.ndarray:
        import cv2

        a = np.asarray(list(pts), np.float64).reshape(-1, 2)
        if self.lens is not None:
            a = self.lens.undistort_points(a)
        return cv2.perspectiveTransform(a.reshape(-1, 1, 2), self.H).reshape(-1, 2)

    def table_to_image(self, pts: Iterable[Sequence[float]]) -> np.ndarray:
        import cv2

        a = np.asarray(list(pts), np.float64).reshape(-1, 1, 2)
        out = cv2.perspectiveTransform(a, np.linalg.inv(self.H)).reshape(-1, 2)
        return self.lens.distort_points(out) if self.lens is not None else out

    def table_map(self, to_mm: np.ndarray, size: tuple[int, int], scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
        """``cv2.remap`` maps for an output image of ``size`` (w, h) whose pixel
        (u, v) shows the table point ``to_mm @ (u, v, 1)`` (a 3x3 projective
        map to millimetres), read from an image ``scale`` times the frame.

        Why maps rather than a homography: through a wide-angle lens the
        table is not a projective image of the frame; the maps follow the lens."""
        import cv2

        w, h = size
        u, v = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
        pts = np.stack([u.ravel(), v.ravel(), np.ones(u.size)], axis=1) @ np.asarray(to_mm, np.float64).T
        mm = pts[:, :2] / pts[:, 2:3]
        img = cv2.perspectiveTransform(mm.reshape(-1, 1, 2), np.linalg.inv(self.H)).reshape(-1, 2)
        if self.lens is not None:
            img = self.lens.distort_points(img)
        img = img * scale
        return (img[:, 0].reshape(h, w).astype(np.float32), img[:, 1].reshape(h, w).astype(np.float32))

    def view_matrix(self, px_per_mm: float) -> np.ndarray:
        """Homography image -> top-down view at ``px_per_mm`` pixels per millimetre."""
        S = np.diag([px_per_mm, px_per_mm, 1.0])
        return S @ self.H

    def top_down(self, image_bgr: np.ndarray, px_per_mm: float, interpolation: int | None = None) -> np.ndarray:
        """The playing area seen from straight above."""
        import cv2

        g = self.geometry
        size = (int(round(g.width_mm * px_per_mm)), int(round(g.height_mm * px_per_mm)))
        flags = cv2.INTER_LINEAR if interpolation is None else interpolation
        if self.lens is not None:
            mx, my = self.table_map(np.diag([1 / px_per_mm, 1 / px_per_mm, 1.0]), size)
            return cv2.remap(image_bgr, mx, my, flags)
        return cv2.warpPerspective(image_bgr, self.view_matrix(px_per_mm), size, flags=flags)

    # -- persistence -------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        g = self.geometry
        return {
            "method": self.method,
            "homography": self.H.tolist(),
            "image_points": self.image_points,
            "markers_seen": self.markers_seen,
            "reprojection_mm": round(self.reprojection_mm, 3),
            "geometry": {"width_mm": g.width_mm, "height_mm": g.height_mm, "marker_mm": g.marker_mm,
                         "marker_ids": list(g.marker_ids), "dictionary": g.dictionary},
            "lens": self.lens.to_dict() if self.lens is not None else None,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Calibration":
        gd = d.get("geometry", {})
        g = TableGeometry(float(gd.get("width_mm", 600)), float(gd.get("height_mm", 600)),
                          float(gd.get("marker_mm", 50)), tuple(gd.get("marker_ids", (0, 1, 2, 3))),
                          gd.get("dictionary", "DICT_4X4_50"))
        H = np.asarray(d["homography"], np.float64)
        if H.shape != (3, 3):
            raise ValueError("homography must be 3x3")
        lens = Lens.from_dict(d["lens"]) if d.get("lens") else None
        return cls(H, g, d.get("method", "file"), d.get("image_points", []), d.get("markers_seen", []),
                   float(d.get("reprojection_mm", 0.0)), lens)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> "Calibration":
        return cls.from_dict(json.loads(Path(path).read_text()))


BENT_MM = 1.5
"""The markers' straight fit (mean mm) above which a view is taken to be seen through a bent lens."""


def lens_if_bent(image_bgr: np.ndarray, geometry: TableGeometry, bent_mm: float = BENT_MM) -> Lens | None:
    """The lens fitted to the corner markers (:meth:`Lens.from_markers`) when the view needs one.

    A camera set up without a ``[lens]`` may still look through a wide-angle
    lens: the table's inside is then 10-25 mm off where a straight homography
    puts it, enough to cut cards askew.  The fitted lens is taken when the
    straight fit is worse than ``bent_mm`` and the lens at least halves it;
    otherwise (a normal lens, a frame with a marker covered) None.

    >>> lens_if_bent(np.full((480, 640, 3), 90, np.uint8), TableGeometry()) is None
    True
    """
    try:
        lens, plain, fitted = Lens.from_markers(image_bgr, geometry)
    except ValueError:
        return None
    return lens if plain > bent_mm and fitted < 0.5 * plain else None


def _homography_fit(src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, float]:
    """The least-squares homography ``src`` -> ``dst`` and its mean error (``dst`` units)."""
    import cv2

    H, _ = cv2.findHomography(np.asarray(src, np.float64), np.asarray(dst, np.float64), 0)
    if H is None:
        raise ValueError("markers found but no homography fits them")
    proj = cv2.perspectiveTransform(np.asarray(src, np.float64).reshape(-1, 1, 2), H).reshape(-1, 2)
    return H, float(np.sqrt(((proj - dst) ** 2).sum(1)).mean())


def detect_markers(image_bgr: np.ndarray, geometry: TableGeometry) -> dict[int, np.ndarray]:
    """Corner index (0..3) -> the marker's 4 image corners, for each corner marker seen."""
    import cv2

    gray = image_bgr if image_bgr.ndim == 2 else cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    det = cv2.aruco.ArucoDetector(_dictionary(geometry.dictionary), cv2.aruco.DetectorParameters())
    corners, ids, _ = det.detectMarkers(gray)
    out: dict[int, np.ndarray] = {}
    if ids is None:
        return out
    for c, mid in zip(corners, ids.ravel().tolist()):
        if mid in geometry.marker_ids:
            out[geometry.marker_ids.index(mid)] = c.reshape(4, 2).astype(np.float64)
    return out


def marker_image(geometry: TableGeometry, corner: int, side_px: int) -> np.ndarray:
    """One corner marker as a grey image ``side_px`` square (no quiet zone)."""
    import cv2

    return cv2.aruco.generateImageMarker(_dictionary(geometry.dictionary), geometry.marker_ids[corner], side_px)


def marker_sheet(geometry: TableGeometry, dpi: int = 300) -> np.ndarray:
    """A printable A4 sheet with the four corner markers at true size.

    Each marker is labelled with its corner and an arrow telling which edge
    points North; printing at 100 % scale (no "fit to page") keeps the
    stated size, which the homography relies on.
    """
    import cv2

    mm = dpi / 25.4
    W, Hh = int(210 * mm), int(297 * mm)
    sheet = np.full((Hh, W), 255, np.uint8)
    side = int(round(geometry.marker_mm * mm))
    cells = [(0, 0), (1, 0), (1, 1), (0, 1)]  # NW NE SE SW laid out like the table
    cw, ch = W // 2, (Hh - int(30 * mm)) // 2
    font = cv2.FONT_HERSHEY_SIMPLEX
    fs = max(0.6, dpi / 150)
    cv2.putText(sheet, f"tablecam corner markers - {geometry.dictionary}, {geometry.marker_mm:g} mm, print at 100%",
                (int(10 * mm), int(15 * mm)), font, fs * 0.8, 0, max(1, dpi // 150), cv2.LINE_AA)
    for i, (cx, cy) in enumerate(cells):
        x0 = cx * cw + (cw - side) // 2
        y0 = int(30 * mm) + cy * ch + (ch - side) // 2
        sheet[y0:y0 + side, x0:x0 + side] = marker_image(geometry, i, side)
        # dashed cut line one quiet-zone width outside the marker
        q = max(4, side // 8)
        for k in range(0, side + 2 * q, 20):
            for (a, b) in (((x0 - q + k, y0 - q), (x0 - q + k + 10, y0 - q)),
                           ((x0 - q + k, y0 + side + q), (x0 - q + k + 10, y0 + side + q)),
                           ((x0 - q, y0 - q + k), (x0 - q, y0 - q + k + 10)),
                           ((x0 + side + q, y0 - q + k), (x0 + side + q, y0 - q + k + 10))):
                cv2.line(sheet, a, b, 128, 1)
        label = f"id {geometry.marker_ids[i]}: {CORNERS[i]} corner, this edge North"
        cv2.putText(sheet, label, (x0 - q, y0 - q - int(3 * mm)), font, fs * 0.6, 0, max(1, dpi // 200), cv2.LINE_AA)
    return cv2.cvtColor(sheet, cv2.COLOR_GRAY2BGR)
