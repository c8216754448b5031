"""Which cards lie still on the table, frame after frame.

The camera sees hands, sleeves and shadows sweep over the table all the
time; an event must come only from a card that has come to rest.  The
tracker works on a small top-down view (``px_per_mm``, 2 mm per pixel by
default) where it is cheap to look at every frame:

* a *card-like* pixel is much brighter than the table's median and pale
  (white card stock; skin and felt are saturated) - relative to the table's
  own brightness, so a cloud over the window or a dimmer changes nothing;
* a *blob* is a connected patch of card-like pixels at least
  ``min_card_fraction`` of a card in area;
* a blob is *at rest* once it has been in the same place, with the same
  area and no motion over it, for ``stable_frames`` frames in a row.  A hand
  passing over the table never stays put that long, so it makes no event;
* a card already known is *gone* once its footprint has shown bare table
  for ``stable_frames`` frames.  A hand resting on a card is not bare table
  (its colour is not the table's), so covering a card does not remove it.

The tracker only says "something card-sized came to rest here" or "the card
that was here is gone"; reading the card and deciding what it means is the
pipeline's job (:mod:`tablecam.vision.pipeline`), which runs the classifier
only on those few occasions - that is what makes 20+ frames per second on
a 2-core CPU possible.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .zones import CameraConfig


@dataclass
class Blob:
    """A card-sized patch of card-like pixels in the top-down view."""

    cx: float                 # centroid, view pixels
    cy: float
    area: float               # view pixels
    bbox: tuple[int, int, int, int]
    label: int = 0

    def near(self, other: "Blob", tol_px: float) -> bool:
        return abs(self.cx - other.cx) <= tol_px and abs(self.cy - other.cy) <= tol_px and \
            abs(self.area - other.area) <= 0.12 * max(self.area, other.area)


@dataclass
class Candidate:
    blob: Blob
    count: int
    first_ts: float
    first_frame: int
    done: bool = False


@dataclass
class Placed:
    """A card the pipeline has accepted as lying on the table."""

    id: int
    quad_view: np.ndarray                 # 4x2 corners in view pixels
    blob: Blob
    info: dict[str, Any] = field(default_factory=dict)   # card, seat, zone ... (pipeline's)
    empty_count: int = 0
    empty_since: float | None = None


@dataclass
class Rest:
    """A blob has come to rest and matches no placed card: read it."""

    blob: Blob
    quad_view: np.ndarray
    rest_ts: float
    rest_frame: int


@dataclass
class Gone:
    placed: Placed
    gone_ts: float


class StabilityTracker:
    """Feed it top-down views; it reports :class:`Rest` and :class:`Gone` changes."""

    def __init__(self, cfg: CameraConfig) -> None:
        self.cfg = cfg
        self.ppm = cfg.px_per_mm
        cw, ch = cfg.card_mm
        self.card_area = cw * ch * self.ppm * self.ppm
        self.tol = max(1.5, 3.0 * self.ppm)           # 3 mm
        self.prev_v: np.ndarray | None = None
        self.candidates: list[Candidate] = []
        self.placed: list[Placed] = []
        self._next_id = 1
        self.last_white: np.ndarray | None = None
        self.last_table: np.ndarray | None = None
        self.rest_scene: np.ndarray | None = None     # the view where nothing moved lately
        self.still: np.ndarray | None = None          # frames each pixel has been still

    # -- masks -------------------------------------------------------------
    def _masks(self, view: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        import cv2

        hsv = cv2.cvtColor(view, cv2.COLOR_BGR2HSV)
        h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
        sub = hsv[::4, ::4].reshape(-1, 3)
        th, ts_, tv = (float(np.median(sub[:, i])) for i in range(3))
        tv = max(tv, 8.0)
        white = ((v > self.cfg.white_ratio * tv) & (s < self.cfg.max_saturation)).astype(np.uint8)
        k = np.ones((3, 3), np.uint8)
        white = cv2.morphologyEx(white, cv2.MORPH_CLOSE, k)
        white = cv2.morphologyEx(white, cv2.MORPH_OPEN, k)
        # bare table: the table's own hue, saturation and brightness
        dh = np.abs(h.astype(np.int16) - int(th))
        dh = np.minimum(dh, 180 - dh)
        table = (dh < 12) & (np.abs(s.astype(np.int16) - int(ts_)) < 60) & \
                (v > 0.6 * tv) & (v < 1.35 * tv)
        if self.prev_v is None:
            moving = np.zeros_like(white, bool)
        else:
            moving = cv2.absdiff(v, self.prev_v) > self.cfg.motion
        self.prev_v = v
        return white, table, moving, v

    # -- main step ---------------------------------------------------------
    def update(self, view: np.ndarray, ts: float, frame: int) -> list[Rest | Gone]:
        import cv2

        white, table, moving, _ = self._masks(view)
        self.last_white, self.last_table = white, table
        # Things on the table: whatever is not bare table. A card is such a patch that is
        # partly card stock (pale): a court card whose picture covers most of its face
        # still has its pale border and corners, a hand or a shadow has none.
        k = np.ones((3, 3), np.uint8)
        fg = cv2.morphologyEx((~table).astype(np.uint8), cv2.MORPH_OPEN, k)
        fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, k)
        n, labels, stats, cents = cv2.connectedComponentsWithStats(fg, connectivity=8)
        min_area = self.cfg.min_card_fraction * self.card_area
        blobs = []
        for i in np.nonzero(stats[1:, cv2.CC_STAT_AREA] >= min_area)[0] + 1:
            x, y, w, h = (int(a) for a in stats[i, :4])
            pale = int(np.count_nonzero(white[y:y + h, x:x + w][labels[y:y + h, x:x + w] == i]))
            if pale < 0.12 * self.card_area:
                continue
            area = float(stats[i, cv2.CC_STAT_AREA])
            blobs.append(Blob(float(cents[i, 0]), float(cents[i, 1]), area, (x, y, w, h), int(i)))
        out: list[Rest | Gone] = []
        N = self.cfg.stable_frames

        # 1. stability of every blob
        new_cands: list[Candidate] = []
        for b in blobs:
            x, y, w, h = b.bbox
            still = moving[y:y + h, x:x + w].mean() <= self.cfg.moving_fraction if w and h else True
            prev = next((c for c in self.candidates if c.blob.near(b, self.tol)), None)
            if prev is not None and still:
                c = Candidate(b, prev.count + 1, prev.first_ts, prev.first_frame, prev.done)
            else:
                c = Candidate(b, 1, ts, frame)
            new_cands.append(c)
            if c.count >= N and not c.done:
                c.done = True
                quad = self._quad(labels, b)
                if quad is None:
                    continue
                if self._card_shaped(quad, b):
                    if not any(self._same_place(p, b) for p in self.placed) and not self._covers_placed(labels, b):
                        out.append(Rest(b, quad, c.first_ts, c.first_frame))
                elif self.rest_scene is not None:
                    # cards overlapping (a trick pile): look for a card-shaped change on the pile
                    top = self._changed_card(view, labels, b)
                    if top is not None:
                        out.append(Rest(b, top, c.first_ts, c.first_frame))
        self.candidates = new_cands

        # the scene at rest: pixels still for 4N frames (so a card coming to rest now is not in it yet)
        if self.rest_scene is None or self.rest_scene.shape != view.shape:
            self.rest_scene = view.copy()
            self.still = np.zeros(view.shape[:2], np.uint16)
        else:
            self.still = cv2.add(self.still, 1)          # saturates at 65535
            self.still[moving] = 0
            upd = self.still >= 4 * N
            np.copyto(self.rest_scene, view, where=upd[..., None])

        # 2. placed cards that left
        for p in list(self.placed):
            mask = np.zeros(white.shape, np.uint8)
            cv2.fillConvexPoly(mask, p.quad_view.astype(np.int32), 1)
            m = mask.astype(bool)
            if not m.any():
                continue
            bare = table[m].mean()
            still = moving[m].mean() <= self.cfg.moving_fraction
            if bare >= 0.8 and still:
                if p.empty_count == 0:
                    p.empty_since = ts
                p.empty_count += 1
                if p.empty_count >= N:
                    self.placed.remove(p)
                    out.append(Gone(p, p.empty_since if p.empty_since is not None else ts))
            else:
                p.empty_count = 0
                p.empty_since = None
        return out

    def _same_place(self, p: Placed, b: Blob) -> bool:
        tol = max(2.0, 6.0 * self.ppm)   # 6 mm
        return abs(p.blob.cx - b.cx) <= tol and abs(p.blob.cy - b.cy) <= tol

    def _card_shaped(self, quad: np.ndarray, b: Blob) -> bool:
        """A whole card: the size of a card and filling its rectangle.

        A card partly under a hand or an arm is not read (its blob is too
        small or not rectangular); it will be read once uncovered.
        """
        e1 = float(np.linalg.norm(quad[1] - quad[0]))
        e2 = float(np.linalg.norm(quad[2] - quad[1]))
        short, long_ = sorted((e1, e2))
        cw, ch = (v * self.ppm for v in self.cfg.card_mm)
        fill = b.area / max(e1 * e2, 1e-6)
        return 0.8 * cw <= short <= 1.25 * cw and 0.8 * ch <= long_ <= 1.25 * ch and fill >= 0.8

    def _changed_card(self, view: np.ndarray, labels: np.ndarray, b: Blob) -> np.ndarray | None:
        """A card laid on a pile: the card-shaped part of the blob that differs from the scene at rest.

        The new card hides what was there (table, or the faces of the cards
        below it), so where it lies the view changed; a hand that passed over
        the pile and left changes nothing.
        """
        import cv2

        assert self.rest_scene is not None
        x, y, w, h = b.bbox
        blob = labels[y:y + h, x:x + w] == b.label
        diff = cv2.absdiff(view[y:y + h, x:x + w], self.rest_scene[y:y + h, x:x + w]).max(axis=2)
        changed = ((diff > 45) & blob).astype(np.uint8)
        if changed.sum() < 0.35 * self.card_area:
            return None
        changed = cv2.morphologyEx(changed, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        n, lab, st, _ = cv2.connectedComponentsWithStats(changed, connectivity=8)
        if n < 2:
            return None
        k = 1 + int(np.argmax(st[1:, cv2.CC_STAT_AREA]))
        pts = cv2.findNonZero((lab == k).astype(np.uint8))
        hull = cv2.convexHull(pts)
        box = cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64)
        e1 = float(np.linalg.norm(box[1] - box[0]))
        e2 = float(np.linalg.norm(box[2] - box[1]))
        short, long_ = sorted((e1, e2))
        cw, ch = (v * self.ppm for v in self.cfg.card_mm)
        if not (0.8 * cw <= short <= 1.25 * cw and 0.8 * ch <= long_ <= 1.25 * ch):
            return None
        if cv2.contourArea(hull) < 0.75 * e1 * e2:
            return None
        return box + np.array([x, y], np.float64)

    def _covers_placed(self, labels: np.ndarray, b: Blob) -> bool:
        """Most of this blob lies on a card already placed (seen again after a hand moved)."""
        import cv2

        x, y, w, h = b.bbox
        sub = labels[y:y + h, x:x + w] == b.label
        for p in self.placed:
            m = np.zeros(labels.shape, np.uint8)
            cv2.fillConvexPoly(m, p.quad_view.astype(np.int32), 1)
            if (m[y:y + h, x:x + w].astype(bool) & sub).sum() >= 0.5 * b.area:
                return True
        return False

    def _quad(self, labels: np.ndarray, b: Blob) -> np.ndarray | None:
        """The card's corners (view px) from its blob: the minimum-area rectangle."""
        import cv2

        x, y, w, h = b.bbox
        sub = (labels[y:y + h, x:x + w] == b.label).astype(np.uint8)
        cnts, _ = cv2.findContours(sub, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if not cnts:
            return None
        c = max(cnts, key=cv2.contourArea)
        box = cv2.boxPoints(cv2.minAreaRect(c))
        return box.astype(np.float64) + np.array([x, y], np.float64)

    def moved(self, M: np.ndarray) -> None:
        """The view moved by homography ``M`` (old view px -> new view px): carry the cards over."""
        import cv2

        for p in self.placed:
            p.quad_view = cv2.perspectiveTransform(p.quad_view.reshape(-1, 1, 2), M).reshape(4, 2)
            c = cv2.perspectiveTransform(np.array([[[p.blob.cx, p.blob.cy]]], np.float64), M)[0, 0]
            p.blob = Blob(float(c[0]), float(c[1]), p.blob.area, p.blob.bbox, p.blob.label)
            p.empty_count, p.empty_since = 0, None
        self.candidates = []
        self.prev_v = None
        self.rest_scene = None

    def place(self, rest: Rest, info: dict[str, Any]) -> Placed:
        """The pipeline accepted this resting blob as a card (or a back): track it."""
        p = Placed(self._next_id, rest.quad_view, rest.blob, dict(info))
        self._next_id += 1
        self.placed.append(p)
        return p


def order_quad(quad: np.ndarray) -> np.ndarray:
    """Corners as TL, TR, BR, BL of an upright (portrait) card.

    Which of the two long sides is "left" is arbitrary: the classifier reads
    the index in both corners, so a card upside down is still read.

    >>> order_quad(np.array([[0, 0], [10, 0], [10, 20], [0, 20]], float)).tolist()
    [[0.0, 0.0], [10.0, 0.0], [10.0, 20.0], [0.0, 20.0]]
    >>> order_quad(np.array([[0, 0], [20, 0], [20, 10], [0, 10]], float)).tolist()
    [[20.0, 0.0], [20.0, 10.0], [0.0, 10.0], [0.0, 0.0]]
    """
    q = np.asarray(quad, np.float64).reshape(4, 2)
    # clockwise order starting from the top-left-most point
    c = q.mean(0)
    ang = np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0])
    q = q[np.argsort(ang)]
    start = int(np.argmin(q.sum(1)))
    q = np.roll(q, -start, axis=0)
    top = np.linalg.norm(q[1] - q[0])
    side = np.linalg.norm(q[3] - q[0])
    if top > side:  # landscape: rotate so a long side runs top to bottom
        q = np.roll(q, -1, axis=0)
    return q
