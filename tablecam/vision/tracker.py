"""Which cards lie still on the table, frame after frame.

The camera sees hands, sleeves, chips and shadows on the table all the time,
on black cloth, green felt, wood, white tops or a taped layout; an event must
come only from a card that has come to rest.  So *what is a card* is never
decided from the table's colour: the learned card localiser
(:class:`~tablecam.vision.proposals.CardLocaliser`) says where cards are.
The tracker works on a small top-down view (``px_per_mm``, 1 px per mm by
default) where cheap pixel work can be done on every frame:

* **motion** (grey-level change from the last frame) only says *when to
  look*: the localiser runs every ``every``-th frame, at once when a
  card-sized patch of the view has just gone still, and again ``frames``
  frames after a new card was first found;
* a card **comes to rest** when the localiser has found it in the same place
  (boxes overlapping by 85 %) over ``frames`` frames, with no motion over it
  in between.  A hand passing over the table is no card to the localiser and
  never keeps still that long;
* **which card is the newest** - the card laid on a pile, the top card and
  never the one beneath - is what changed since the *scene at rest* (each
  pixel as it looked once it had been still for a second): the new card hides
  the table or the faces below it, so the changed patch is card-shaped and
  its rectangle is the card to read; the localiser's box confirms it is a
  card.  Where nothing changed (a card on the table since the camera
  started) the card's outline is fitted to the edges inside the box;
* a card already known is **gone** when its place, still again, no longer
  looks like the card (grey-level correlation with its look when placed, so
  a dimmer or a cloud changes nothing): turned face down, slid away,
  gathered - unless a newer face card lies on it (a trick pile), which keeps
  it until that card goes too, or another card lies partly across it (a
  quitted trick slid over an exposed card).

The tracker only says "a card came to rest here" or "the card that was here
is gone"; reading the card and deciding what it means is the pipeline's job
(:mod:`tablecam.vision.pipeline`), which runs the classifier only on those
few occasions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .zones import CameraConfig

BoxT = tuple[float, float, float, float]
Look = Callable[[], list[tuple[float, float, float, float, float]]]
"""The localiser on the current frame: ``(x1, y1, x2, y2, conf)`` per card, in view pixels."""

REF_W, REF_H = 20, 28
"""Size of a placed card's look kept to tell it is still there (grey, rectified)."""

SAME_PLACE = 0.85
"""Box overlap from which an outline offered for a new card is the outline of a card already placed
(on a pile the new card's own outline overlaps the card beneath by 0.6-0.8 and is kept)."""

LIES_OVER = 0.25
"""Share of a placed card's box that a new outline covers from which it lies over that card (a card
read again as it settles, a trick pushed together to be gathered)."""

SAME_LOOK = 0.8
"""Correlation with a placed card's look from which a card found again where it lies is that card."""


def _box_inter(a: BoxT, b: BoxT) -> float:
    """Area of the intersection of two axis-aligned boxes (x1, y1, x2, y2)."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def box_iou(a: BoxT, b: BoxT) -> float:
    """Overlap of two axis-aligned boxes (intersection over union).

    >>> box_iou((0, 0, 10, 10), (5, 0, 15, 10))
    0.3333333333333333
    """
    inter = _box_inter(a, b)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def box_cover(a: BoxT, b: BoxT) -> float:
    """The share of box ``b`` that box ``a`` covers.

    >>> box_cover((0, 0, 10, 10), (5, 0, 15, 10))
    0.5
    """
    area = (b[2] - b[0]) * (b[3] - b[1])
    return _box_inter(a, b) / area if area > 0 else 0.0


def gathered_over(box: BoxT, under: list[BoxT], share: float = LIES_OVER, least: int = 2) -> bool:
    """Whether an outline come to rest over a full trick is that trick pushed together to be gathered:
    it covers ``share`` of at least ``least`` of the boxes of the trick's cards still lying there.

    Why: the gathered pile rests a moment before the winner takes it, and its top card, read unsure,
    would be a new card leading a trick that has not begun. The next lead lands on the table, beside
    or over one card of the old trick at most (its own player's), never over two.

    >>> gathered_over((10, 10, 60, 80), [(0, 0, 50, 70), (20, 20, 70, 90), (200, 0, 250, 70)])
    True
    >>> gathered_over((0, 0, 50, 70), [(0, 0, 50, 70), (200, 0, 250, 70)])
    False
    """
    return sum(box_cover(box, b) >= share for b in under) >= least


def card_shaped(quad: np.ndarray, card: tuple[float, float], tol: float) -> bool:
    """Whether an outline (corners in order) is a card's size, each side within ``tol`` of the
    card's ``(short, long)`` sides, in the outline's units.

    >>> card_shaped(np.array([[0, 0], [64, 0], [64, 89], [0, 89]]), (63, 88), 0.08)
    True
    >>> card_shaped(np.array([[0, 0], [49, 0], [49, 69], [0, 69]]), (63, 88), 0.08)   # half a card, turned
    False
    """
    short, long_ = sorted((float(np.linalg.norm(quad[1] - quad[0])), float(np.linalg.norm(quad[2] - quad[1]))))
    cw, ch = card
    return (1 - tol) * cw <= short <= (1 + tol) * cw and (1 - tol) * ch <= long_ <= (1 + tol) * ch


def quad_box(q: np.ndarray) -> BoxT:
    q = np.asarray(q, np.float64).reshape(-1, 2)
    return (float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max()))


@dataclass
class Track:
    """A localiser box followed from look to look until it is a card at rest."""

    box: BoxT
    conf: float
    first_frame: int
    first_ts: float
    last_look: int
    seen: int = 1
    done: bool = False


@dataclass
class Placed:
    """A card the pipeline has accepted as lying on the table."""

    id: int
    quad_view: np.ndarray                 # 4x2 corners in view pixels
    box: BoxT
    ref: np.ndarray                       # its grey look when placed (REF_H x REF_W)
    info: dict[str, Any] = field(default_factory=dict)   # card, seat, zone ... (pipeline's)
    under: set[int] = field(default_factory=set)         # ids of newer face cards lying on it
    empty_count: int = 0
    empty_since: float | None = None


@dataclass
class Rest:
    """A card has come to rest and is no card already placed: read it.

    ``quads`` are the outlines worth reading, likeliest first (the changed
    patch's rectangle, else rectangles fitted in the localiser's box); the
    pipeline reads each and keeps the surest read."""

    quad_view: np.ndarray
    quads: list[np.ndarray]
    box: BoxT
    conf: float                           # the localiser's score
    rest_ts: float
    rest_frame: int
    changed: bool                         # found as what changed since the scene at rest


@dataclass
class Gone:
    placed: Placed
    gone_ts: float


def _grey_patch(grey: np.ndarray, quad: np.ndarray) -> np.ndarray:
    import cv2

    dst = np.array([[0, 0], [REF_W - 1, 0], [REF_W - 1, REF_H - 1], [0, REF_H - 1]], np.float32)
    M = cv2.getPerspectiveTransform(order_quad(quad).astype(np.float32), dst)
    return cv2.warpPerspective(grey, M, (REF_W, REF_H), flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_REPLICATE).astype(np.float32)


def scene_gain(now: np.ndarray, then: np.ndarray) -> float:
    """The gain of the light between the scene at rest (``then``) and ``now``: the median brightness
    ratio over the pixels whose ratio a change of light can make (0.6 to 1.6); 1.0 when too few are.

    Why the median over those, not the ratio of the means: the new card is what changed, and a white
    card over dark cloth lifts the window's mean by a third. Taken for light, that gain lifted the
    pips and edge of the card beneath past the change threshold, and the new card's patch grew past
    a card's size (:func:`~tablecam.vision.bidding.light_gain` measures a bidding zone's light on
    what did not change; here what changed is not known yet).

    >>> then = np.full((10, 10, 3), 60, np.int16); now = (then * 1.2).astype(np.int16)
    >>> now[:, :6] = 230                          # a white card over most of the window
    >>> round(scene_gain(now, then), 2), scene_gain(then, then)
    (1.2, 1.0)
    """
    ratio = (now.astype(np.float32).mean(axis=2) + 1.0) / (then.astype(np.float32).mean(axis=2) + 1.0)
    light = ratio[(ratio > 0.6) & (ratio < 1.6)]
    return float(np.median(light)) if light.size >= 0.2 * ratio.size else 1.0


def looks_alike(a: np.ndarray, b: np.ndarray) -> float:
    """Normalised correlation of two grey patches (1: same picture; a flat patch against a card: 0).

    >>> p = np.arange(560, dtype=np.float32).reshape(28, 20)
    >>> round(looks_alike(p, 0.5 * p + 30), 3), looks_alike(p, np.full_like(p, 9))
    (1.0, 0.0)
    """
    a = a - a.mean()
    b = b - b.mean()
    na, nb = float(np.sqrt((a * a).sum())), float(np.sqrt((b * b).sum()))
    if na < 1e-3 * a.size or nb < 1e-3 * b.size:
        return 1.0 if max(na, nb) < 1e-3 * a.size else 0.0
    return float((a * b).sum() / (na * nb))


class StabilityTracker:
    """Feed it top-down views (and the localiser); it reports :class:`Rest` and :class:`Gone` changes."""

    def __init__(self, cfg: CameraConfig) -> None:
        self.cfg = cfg
        self.ppm = cfg.px_per_mm
        cw, ch = cfg.card_mm
        self.card_px = (cw * self.ppm, ch * self.ppm)
        self.card_area = cw * ch * self.ppm * self.ppm
        self.N = cfg.stable_frames
        self.every = cfg.detection.every
        self.min_box = cfg.detection.conf
        self.absorb = max(4 * self.N, 20)       # frames still before a pixel joins the scene at rest
        self.prev_grey: np.ndarray | None = None
        self.still: np.ndarray | None = None    # frames each pixel has been still
        self.rest_scene: np.ndarray | None = None
        self.grey: np.ndarray | None = None
        self.tracks: list[Track] = []
        self.placed: list[Placed] = []
        self._next_id = 1
        self.last_look = -10 ** 9
        self.looks = 0
        self.moving_hist: list[int] = []
        self.motion_since_look = True

    # -- per frame ---------------------------------------------------------
    def update(self, view: np.ndarray, ts: float, frame: int, look: Look | None = None) -> list[Rest | Gone]:
        import cv2

        grey = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY)
        # motion on a half-size grid: a card is 30 x 44 cells there, enough to say what moved
        small = cv2.resize(grey, (grey.shape[1] // 2, grey.shape[0] // 2), interpolation=cv2.INTER_AREA)
        if self.prev_grey is None or self.prev_grey.shape != small.shape:
            moving = np.zeros(small.shape, bool)
            self.still = np.zeros(small.shape, np.uint16)
            self.rest_scene = view.copy()
            self.motion_since_look = True
        else:
            moving = cv2.absdiff(small, self.prev_grey) > self.cfg.stability.motion
        self.prev_grey, self.grey = small, grey
        assert self.still is not None and self.rest_scene is not None
        self.still = cv2.add(self.still, 1)
        self.still[moving] = 0
        n_moving = int(np.count_nonzero(moving))
        self.moving_hist = (self.moving_hist + [n_moving])[-4:]
        if n_moving >= 0.02 * self.card_area / 4:
            self.motion_since_look = True

        out: list[Rest | Gone] = []
        if look is not None and self._wants_look(frame):
            boxes = [b for b in look() if b[4] >= self.min_box]
            self.last_look = frame
            self.looks += 1
            self.motion_since_look = False
            out += self._follow(view, boxes, ts, frame)

        # the scene at rest: pixels still for a second (a card coming to rest now is not in it yet)
        if frame % 4 == 0:
            absorbed = cv2.resize((self.still >= self.absorb).astype(np.uint8), (view.shape[1], view.shape[0]),
                                  interpolation=cv2.INTER_NEAREST)
            np.copyto(self.rest_scene, view, where=absorbed[..., None].astype(bool))
        out += self._gone(grey, ts)
        return out

    def _wants_look(self, frame: int) -> bool:
        """Motion gates the localiser: it looks when something moved since it last looked -
        every ``every`` frames, at once when the motion has just stopped - and to confirm a
        card found lately.  A table where nothing moves costs no look at all."""
        since = frame - self.last_look
        if since < 1:
            return False
        if any(not t.done and frame - t.last_look >= max(1, self.N - 1) for t in self.tracks):
            return True          # confirm a card found lately: it may be at rest now
        if not self.motion_since_look:
            return False
        if since >= self.every:
            return True
        quarter = self.card_area / 4     # a card's area on the half-size motion grid
        h = self.moving_hist
        return len(h) >= 3 and h[-1] < 0.05 * quarter and max(h[:-1]) >= 0.3 * quarter

    def _still_over(self, box: BoxT, frames: int) -> bool:
        assert self.still is not None
        x1, y1, x2, y2 = (int(round(v / 2)) for v in box)
        h, w = self.still.shape
        x1, y1, x2, y2 = max(0, x1), max(0, y1), min(w, x2), min(h, y2)
        if x2 <= x1 or y2 <= y1:
            return False
        sub = self.still[y1:y2, x1:x2]
        return float(np.mean(sub < frames)) <= self.cfg.stability.moving_fraction

    # -- following the localiser's boxes -------------------------------------
    def _follow(self, view: np.ndarray, boxes: list[tuple[float, float, float, float, float]],
                ts: float, frame: int) -> list[Rest | Gone]:
        out: list[Rest | Gone] = []
        new_tracks: list[Track] = []
        free = list(self.tracks)
        for b in sorted(boxes, key=lambda b: -b[4]):
            box = (b[0], b[1], b[2], b[3])
            best = max(free, key=lambda t: box_iou(t.box, box), default=None)
            if best is not None and box_iou(best.box, box) >= 0.85:
                free.remove(best)
                span = frame - best.first_frame
                if self._still_over(box, max(1, span)):
                    t = Track(box, b[4], best.first_frame, best.first_ts, frame, best.seen + 1, best.done)
                else:           # it moved in between: start again from here
                    t = Track(box, b[4], frame, ts, frame)
            else:
                t = Track(box, b[4], frame, ts, frame)
            new_tracks.append(t)
            if not t.done and t.seen >= 2 and frame - t.first_frame >= self.N - 1:
                t.done = True
                rest = self._rest(view, t)
                if rest is not None and not any(
                        isinstance(o, Rest) and box_iou(quad_box(o.quad_view), quad_box(rest.quad_view)) >= 0.5
                        for o in out):
                    out.append(rest)         # (two boxes on one new card: one rest)
        self.tracks = new_tracks
        return out

    def _rest(self, view: np.ndarray, t: Track) -> Rest | None:
        """A box at rest: the newest card in it, or None when it is a card already placed."""
        changed, part = self._changed_card(view, t.box)
        if changed is None and part is not None:
            changed = self._covering(view, t.box, part)
        if changed is not None and self._seen_again(changed) is not None:
            return None          # a card placed lately, found again before the scene at rest took it in
        if changed is not None:
            # the other outlines in the box, less those that are a card already placed: on a pile the
            # box holds the card beneath too, and read through its outline it would be read instead
            lying = self._lying()
            alts = [q for q in self._fitted(view, t.box, changed)
                    if not any(box_iou(p.box, quad_box(q)) >= SAME_PLACE for p in lying)]
            return Rest(changed, [changed] + alts, t.box, t.conf, t.first_ts, t.first_frame, True)
        if any((box_iou(p.box, t.box) >= 0.5 or self._inside(t.box, p.box))
               and (not p.info.get("gathered") or self._looks_as_placed(p)) for p in self.placed):
            return None          # a known card, seen again (a hand passed over it)
        quads = self._fitted(view, t.box, None)
        if not quads:
            return None
        return Rest(quads[0], quads, t.box, t.conf, t.first_ts, t.first_frame, False)

    def _seen_again(self, quad: np.ndarray) -> Placed | None:
        """The placed card this changed patch is, when it lies where that card lies and still looks like it.

        Why: the scene at rest takes a card in only once it has been still
        for ``absorb`` frames; a hand passing over it sooner, or the
        localiser's box jumping, starts a new track over it, and the patch
        still differs from the scene at rest.  A card laid on it since (a
        face on a back turned in place, the next card on a pile) looks
        otherwise, so it is read."""
        if self.grey is None:
            return None
        b = quad_box(quad)
        for p in self.placed:
            if box_iou(p.box, b) >= 0.6 and self._looks_as_placed(p):
                return p
        return None

    def _looks_as_placed(self, p: Placed) -> bool:
        """Its place still looks like the card did when placed, as a card seen again must (``SAME_LOOK``)."""
        return self.grey is not None and looks_alike(_grey_patch(self.grey, p.quad_view), p.ref) >= SAME_LOOK

    def _lying(self) -> list[Placed]:
        """The placed cards a new card laid where they lie can be (not those of a trick gathered unseen:
        the card in their place now is a new one)."""
        return [p for p in self.placed if not p.info.get("gathered")]

    @staticmethod
    def _inside(a: BoxT, b: BoxT) -> bool:
        """Most of box ``a`` lies in box ``b``."""
        ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
        iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
        return ix * iy >= 0.7 * (a[2] - a[0]) * (a[3] - a[1])

    def _card_shaped(self, quad: np.ndarray, tol: float = 0.22) -> bool:
        return card_shaped(quad, self.card_px, tol)

    def _changed_card(self, view: np.ndarray, box: BoxT) -> tuple[np.ndarray | None, np.ndarray | None]:
        """The card-shaped patch of the box that differs from the scene at rest (view px), if any,
        and else the points of a changed patch that is part of a card (view px; for
        :meth:`_covering`), if any.

        The new card hides what was there (table, or the faces of the cards
        below it), so where it lies the view changed; a hand that passed
        over and left changes nothing, and the cards beneath did not change."""
        import cv2

        assert self.rest_scene is not None
        h, w = view.shape[:2]
        g = 0.15 * self.card_px[0]
        x1, y1 = max(0, int(box[0] - g)), max(0, int(box[1] - g))
        x2, y2 = min(w, int(box[2] + g + 1)), min(h, int(box[3] + g + 1))
        if x2 - x1 < 4 or y2 - y1 < 4:
            return None, None
        cur = view[y1:y2, x1:x2].astype(np.int16)
        old = self.rest_scene[y1:y2, x1:x2].astype(np.int16)
        # a change of light is a gain on every pixel: take it out before comparing
        gain = scene_gain(cur, old)
        if abs(gain - 1.0) > 0.05:
            old = np.clip(old * gain, 0, 255).astype(np.int16)
        diff = np.abs(cur - old).max(axis=2)
        mask = (diff > self.cfg.stability.changed).astype(np.uint8)
        if mask.sum() < 0.3 * self.card_area:
            return None, None
        k = max(3, int(round(2 * self.ppm)) | 1)
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((2 * k + 1, 2 * k + 1), np.uint8))
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
        n, lab, st, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        if n < 2:
            return None, None
        i = 1 + int(np.argmax(st[1:, cv2.CC_STAT_AREA]))
        if st[i, cv2.CC_STAT_AREA] < 0.3 * self.card_area:
            return None, None
        pts = cv2.findNonZero((lab == i).astype(np.uint8))
        hull = cv2.convexHull(pts)
        quad = cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64)
        e1 = float(np.linalg.norm(quad[1] - quad[0]))
        e2 = float(np.linalg.norm(quad[2] - quad[1]))
        if not self._card_shaped(quad) or cv2.contourArea(hull) < 0.8 * e1 * e2:
            # part of a card: one laid across white faces changes only where it covers the table
            # or the pips below; given for _covering to find the card around it
            short, long_ = sorted((e1, e2))
            if short <= 1.15 * self.card_px[0] and long_ <= 1.15 * self.card_px[1]:
                return None, pts.reshape(-1, 2).astype(np.float64) + np.array([x1, y1], np.float64)
            return None, None
        quad = quad + np.array([x1, y1], np.float64)
        # the localiser confirms: its box holds this card
        if box_iou(quad_box(quad), box) < 0.3 and not self._inside(quad_box(quad), box):
            return None, None
        return quad, None

    def _covering(self, view: np.ndarray, box: BoxT, part: np.ndarray) -> np.ndarray | None:
        """The card rectangle, fitted to the view's edges, that covers a changed patch too small or
        ragged to be a whole card (view px); None when no fitted card covers it.

        Why: on a pile the newest card lies partly on white faces, so only
        the part over the table (and over the pips below) changed.  The card
        is the card-sized rectangle on the edges that holds all of that part
        - never the card beneath, which does not hold the part that changed."""
        import cv2

        from .proposals import fitted_quads

        cw, ch = self.card_px
        h, w = view.shape[:2]
        lo, hi = part.min(0), part.max(0)
        reach = ch - min(float(hi[0] - lo[0]), float(hi[1] - lo[1]))
        x1, y1 = max(0.0, lo[0] - reach), max(0.0, lo[1] - reach)
        x2, y2 = min(w - 1.0, hi[0] + reach), min(h - 1.0, hi[1] + reach)
        try:
            quads = fitted_quads(view, (x1, y1, x2, y2), top=4, aspect=ch / cw, width=cw, max_side=160)
        except (ValueError, IndexError, ArithmeticError):
            return None
        sample = part[:: max(1, len(part) // 400)].astype(np.float32)
        lying = self._lying()
        for q in quads:
            c = q.astype(np.float32).reshape(-1, 1, 2)
            inside = np.mean([cv2.pointPolygonTest(c, (float(x), float(y)), True) >= -1.5 for x, y in sample])
            if inside >= 0.9 and self._card_shaped(q.astype(np.float64)):
                qb = quad_box(q)
                if any(box_iou(p.box, qb) >= 0.6 for p in lying):
                    continue         # a card already placed: the changed part lies on it, it is not the new one
                if box_iou(qb, box) >= 0.3 or self._inside(qb, box):
                    return q.astype(np.float64)
        return None

    def _fitted(self, view: np.ndarray, box: BoxT, avoid: np.ndarray | None) -> list[np.ndarray]:
        """Card rectangles in the box: fitted to its edges, and those inscribed in it."""
        from .proposals import box_quads, fitted_quads

        aspect = self.card_px[1] / self.card_px[0]
        out: list[np.ndarray] = []
        try:
            out += [q.astype(np.float64) for q in fitted_quads(view, box, top=2, aspect=aspect, max_side=160)]
        except (ValueError, IndexError, ArithmeticError):
            pass
        out += [q.astype(np.float64) for q in box_quads(box, aspect)]
        if avoid is not None:
            out = [q for q in out if float(np.abs(q.mean(0) - avoid.mean(0)).max()) > 1.0 or
                   abs(box_iou(quad_box(q), quad_box(avoid)) - 1.0) > 0.05]
        return [q for q in out if self._card_shaped(q, 0.35)][:4]

    # -- cards that left ---------------------------------------------------
    def _gone(self, grey: np.ndarray, ts: float) -> list[Rest | Gone]:
        out: list[Rest | Gone] = []
        alive = {p.id for p in self.placed}
        for p in list(self.placed):
            p.under &= alive
            if p.under:
                continue                      # a newer face card lies on it
            if any(0.1 < box_iou(t.box, p.box) < 0.6 for t in self.tracks):
                continue                      # another card lies across it (a quitted trick slid over it)
            if not self._still_over(p.box, self.N):
                continue                      # a hand over it: wait
            same = looks_alike(_grey_patch(grey, p.quad_view), p.ref) >= 0.5
            if same:
                p.empty_count, p.empty_since = 0, None
                continue
            if p.empty_count == 0:
                p.empty_since = ts
            p.empty_count += 1
            if p.empty_count >= self.N:
                self.placed.remove(p)
                out.append(Gone(p, p.empty_since if p.empty_since is not None else ts))
        return out

    def moved(self, M: np.ndarray) -> None:
        """The view moved by homography ``M`` (old view px -> new view px): carry the cards over."""
        import cv2

        for p in self.placed:
            p.quad_view = cv2.perspectiveTransform(p.quad_view.reshape(-1, 1, 2), M).reshape(4, 2)
            p.box = quad_box(p.quad_view)
            p.empty_count, p.empty_since = 0, None
        self.tracks = []
        self.prev_grey = None
        self.rest_scene = None

    def place(self, rest: Rest, info: dict[str, Any], quad: np.ndarray | None = None) -> Placed:
        """The pipeline accepted this resting card (``quad``: the outline it was read through)."""
        q = np.asarray(quad if quad is not None else rest.quad_view, np.float64)
        ref = _grey_patch(self.grey, q) if self.grey is not None else np.zeros((REF_H, REF_W), np.float32)
        p = Placed(self._next_id, q, quad_box(q), ref, dict(info))
        self._next_id += 1
        # a card of a trick gathered unseen, where a new card now lies: it is not there any more
        self.placed = [o for o in self.placed if not (o.info.get("gathered") and box_iou(o.box, p.box) >= 0.5)]
        for o in self.placed:
            iou = box_iou(o.box, p.box)
            if info.get("kind") not in ("back", "outside", None) and iou > 0.05:
                o.under.add(p.id)           # a face card laid on others keeps them (a trick pile)
            elif 0.05 < iou < 0.6:
                o.under.add(p.id)           # a back partly across a card hides it, does not take it away
        self.placed.append(p)
        return p

    def forget(self, placed: Placed) -> None:
        if placed in self.placed:
            self.placed.remove(placed)
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
