"""The learned card localiser: where cards are, on ONNX Runtime.

A one-class Ultralytics detector (``models/card_localiser.onnx``, trained by
``tablecam train-localiser`` on renders and the real-photos train split)
proposes an axis-aligned box around every card, face up or down.  The box
alone does not rectify the card, so each box becomes card-shaped *quads*:

* the rectangles of a card's aspect inscribed in the box
  (:func:`box_quads`): a card turned by ``t`` fills a box whose sides give
  ``t`` up to its sign, so two quads (``+t`` and ``-t``), one when upright;
* whole cards completed from a thin strip, a card under another
  (:func:`strip_quads`);
* cards the size of a found card, turned a little from it, in a box that
  overlaps it (:func:`sibling_quads`: the card under it in a fan or pile);
* the classical localiser's quads that fit the box, found in a crop around
  it (:func:`local_quads`) and on the whole image (``detector.py``);
* the outline of the whitest region in the box, of any shape
  (:func:`outline_quad`): a card seen from an angle is no longer a
  rectangle of a card's aspect.

The corner classifier then reads every quad and the surest read wins, so a
wrong quad costs a classification, not a wrong card.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from .classify import MODELS_DIR, onnx_session

CARD_ASPECT = 350 / 250  # height / width of a card face


def box_quads(box: tuple[float, float, float, float], aspect: float = CARD_ASPECT,
              upright_deg: float = 4.0) -> list[np.ndarray]:
    """Card rectangles inscribed in an axis-aligned box.

    A card of width ``a`` and height ``aspect*a`` turned by ``t`` has bounds
    ``W = a cos t + aspect a sin t`` and ``H = a sin t + aspect a cos t``, so
    ``tan t = (1 - r aspect) / (r - aspect)`` with ``r = W / H``; ``+t`` and
    ``-t`` give the same box.  A box flatter than any card (a card cut by
    the image edge, or half covered) gives the upright or sideways card
    that fits.

    >>> [q.round(1).tolist() for q in box_quads((0, 0, 100, 140))]
    [[[0.0, 0.0], [100.0, 0.0], [100.0, 140.0], [0.0, 140.0]]]
    >>> len(box_quads((0, 0, 120, 120)))  # a card at 45 degrees, either way
    2
    """
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    if w <= 1 or h <= 1:
        return []
    r = min(max(w / h, 1 / aspect), aspect)
    t = math.atan2(r * aspect - 1, aspect - r)  # both >= 0: t in [0, pi/2]
    c, s = math.cos(t), math.sin(t)
    a = min(w / (c + aspect * s), h / (s + aspect * c))
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    near = math.radians(upright_deg)
    if t < near:
        angles = [0.0]  # upright card: one exact rectangle
    elif math.pi / 2 - t < near:
        angles = [math.pi / 2]  # sideways card
    else:
        angles = [t, -t]
    out = []
    for tt in angles:
        out.append((_card_at(a, tt, aspect) + np.array([cx, cy])).astype(np.float32))
    return out


SLANT_ASPECT = 2.0
"""The flattest a card looks: lying sideways under a camera 45 degrees from
straight down (1.4 / cos 45 degrees)."""


def box_card(box: tuple[float, float, float, float]) -> list[np.ndarray]:
    """The box itself as a card's outline (upright or sideways, as the box
    lies): how a card lying square to a slanted camera looks, shortened
    along the line of sight, which no rectangle of a card's own shape
    inscribed in the box (:func:`box_quads`) fits.  None for a box of a
    card's own shape, which :func:`box_quads` gives already, nor for a box
    flatter than a card lying sideways looks from 45 degrees
    (``SLANT_ASPECT``): that is a part of a card, or two.

    >>> [q.round(1).tolist() for q in box_card((0, 0, 120, 66))]
    [[[120.0, 0.0], [120.0, 66.0], [0.0, 66.0], [0.0, 0.0]]]
    >>> box_card((0, 0, 100, 140)), box_card((0, 0, 128, 304))
    ([], [])
    """
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    if w <= 1 or h <= 1:
        return []
    aspect = max(w, h) / min(w, h)
    if abs(aspect - CARD_ASPECT) < 0.05 or aspect > SLANT_ASPECT:
        return []
    return box_quads(box, aspect=aspect)[:1]


def _card_at(a: float, t: float, aspect: float = CARD_ASPECT) -> np.ndarray:
    """Corners of a card ``a`` wide turned by ``t`` (radians), centred on 0."""
    base = np.array([[-a / 2, -aspect * a / 2], [a / 2, -aspect * a / 2],
                     [a / 2, aspect * a / 2], [-a / 2, aspect * a / 2]], np.float64)
    return base @ np.array([[math.cos(t), math.sin(t)], [-math.sin(t), math.cos(t)]])


def card_quad(rect: tuple[float, float, float, float], aspect: float = CARD_ASPECT) -> np.ndarray:
    """The four corners of a card rectangle ``(cx, cy, width, turn)`` (float32, as the warps take).

    >>> card_quad((0.0, 0.0, 10.0, 0.0)).tolist()
    [[-5.0, -7.0], [5.0, -7.0], [5.0, 7.0], [-5.0, 7.0]]
    """
    cx, cy, a, t = rect
    return (_card_at(a, t, aspect) + np.array([cx, cy])).astype(np.float32)

def _gradients(image: np.ndarray, x1: int, y1: int, x2: int, y2: int, max_side: int,
               sigma: float) -> tuple[np.ndarray, np.ndarray, float]:
    """Sobel gradients of the grey, blurred crop ``[y1:y2, x1:x2]``, shrunk
    so its longer side is at most ``max_side``; and the shrink factor."""
    import cv2

    crop = image[y1:y2, x1:x2]
    f = min(1.0, max_side / max(crop.shape[:2]))
    if f < 1:
        crop = cv2.resize(crop, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    g = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop
    g = cv2.GaussianBlur(g.astype(np.float32), (0, 0), sigma)
    return cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3), f


def box_corners(box: tuple[float, float, float, float]) -> np.ndarray:
    """The four corners of an axis-aligned box, clockwise from top-left.

    >>> box_corners((1, 2, 3, 4)).tolist()
    [[1.0, 2.0], [3.0, 2.0], [3.0, 4.0], [1.0, 4.0]]
    """
    x1, y1, x2, y2 = box
    return np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float32)


class CardLocaliser:
    """ONNX Runtime wrapper of the exported Ultralytics detector.

    ``proposals(image)`` returns ``(box, conf, quad)`` per card in input
    pixels.  The image is letterboxed as Ultralytics predicts (long side to
    the input size, padded to a multiple of 32).  ``imgsz`` may name several
    sizes: the model then runs once per size and one NMS merges the boxes -
    a close-up photo's cards are found at the small size the model was
    trained at, a wide table view's small cards at a larger one.
    """

    def __init__(self, path: str | Path | None = None, threads: int = 1, conf: float = 0.25, iou: float = 0.6,
                 imgsz: int | tuple[int, ...] | list[int] | None = None):
        self.path = Path(path) if path else MODELS_DIR / "card_localiser.onnx"
        meta = self.path.with_suffix(".json")
        self.meta = json.loads(meta.read_text()) if meta.exists() else {}
        self.session = onnx_session(self.path, threads)
        inp = self.session.get_inputs()[0]
        self.input = inp.name
        # a model exported with dynamic axes takes any multiple of 32; a static one only its own square size
        self.dynamic = not all(isinstance(d, int) for d in inp.shape[2:])
        if self.dynamic:
            sizes = imgsz or self.meta.get("infer_imgsz") or self.meta.get("imgsz", 320)
            self.sizes = tuple(int(v) for v in (sizes if isinstance(sizes, (list, tuple)) else [sizes]))
        else:
            self.sizes = (int(inp.shape[2]),)
        self.obb = bool(self.meta.get("obb"))
        self.conf = conf
        self.iou = iou

    def _letterbox(self, img: np.ndarray, size: int) -> tuple[np.ndarray, float, float, float]:
        import cv2

        h, w = img.shape[:2]
        s = size / max(h, w)
        nw, nh = max(1, round(w * s)), max(1, round(h * s))
        small = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
        if self.dynamic:
            cw, ch = -(-nw // 32) * 32, -(-nh // 32) * 32
        else:
            cw = ch = size
        px, py = (cw - nw) // 2, (ch - nh) // 2
        canvas = np.full((ch, cw, 3), 114, np.uint8)
        canvas[py:py + nh, px:px + nw] = small
        return canvas, s, px, py

    def _raw(self, image_bgr: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
        """Candidates above ``conf`` at one input size, in image pixels:
        rows (cx, cy, w, h[, angle in degrees]) and their scores."""
        canvas, s, px, py = self._letterbox(image_bgr, size)
        x = canvas[:, :, ::-1].transpose(2, 0, 1)[None].astype(np.float32) / 255.0
        out = self.session.run(None, {self.input: np.ascontiguousarray(x)})[0][0]  # (4 + nc [+ angle], N)
        obb = self.obb or out.shape[0] == 6
        scores = out[4:-1].max(axis=0) if obb else out[4:].max(axis=0)
        keep = np.flatnonzero(scores >= self.conf)
        geo = out[:4, keep].T.astype(np.float64)
        geo[:, 0] = (geo[:, 0] - px) / s
        geo[:, 1] = (geo[:, 1] - py) / s
        geo[:, 2:4] /= s
        if obb:
            geo = np.concatenate([geo, np.degrees(out[-1, keep])[:, None]], axis=1)
        return geo, scores[keep]

    def boxes(self, image_bgr: np.ndarray) -> list[tuple[float, float, float, float, float]]:
        """Axis-aligned ``(x1, y1, x2, y2, conf)`` of every card found."""
        return [(*b, c) for b, c, _ in self.proposals(image_bgr)]

    def proposals(self, image_bgr: np.ndarray, sizes: tuple[int, ...] | None = None
                  ) -> list[tuple[tuple[float, float, float, float], float, np.ndarray | None]]:
        """``(box, conf, quad)`` per card: ``quad`` is the oriented box's four
        corners for an oriented-box (OBB) model, None for a box model.
        ``sizes`` replaces the model's input sizes for this image."""
        import cv2

        h, w = image_bgr.shape[:2]
        if h < 2 or w < 2:
            return []
        parts = [self._raw(image_bgr, size) for size in (sizes or self.sizes)]
        geo = np.concatenate([p[0] for p in parts])
        sc = np.concatenate([p[1] for p in parts])
        if len(sc) == 0:
            return []
        res = []
        if geo.shape[1] == 5:
            rects = [((float(a), float(b)), (float(c), float(d)), float(e)) for a, b, c, d, e in geo]
            idx = cv2.dnn.NMSBoxesRotated(rects, [float(v) for v in sc], self.conf, self.iou)
            for i in np.array(idx).reshape(-1):
                q = cv2.boxPoints(rects[i]).astype(np.float32)
                x1, y1 = np.clip(q.min(axis=0), 0, [w, h])
                x2, y2 = np.clip(q.max(axis=0), 0, [w, h])
                if x2 - x1 > 2 and y2 - y1 > 2:
                    res.append(((float(x1), float(y1), float(x2), float(y2)), float(sc[i]), q))
            return res
        rects = [[float(a - c / 2), float(b - d / 2), float(c), float(d)] for a, b, c, d in geo]
        idx = cv2.dnn.NMSBoxes(rects, [float(v) for v in sc], self.conf, self.iou)
        for i in np.array(idx).reshape(-1):
            x0, y0, ww, hh = rects[i]
            x1, y1 = min(max(x0, 0.0), float(w)), min(max(y0, 0.0), float(h))
            x2, y2 = min(max(x0 + ww, 0.0), float(w)), min(max(y0 + hh, 0.0), float(h))
            if x2 - x1 > 2 and y2 - y1 > 2:
                res.append(((x1, y1, x2, y2), float(sc[i]), None))
        return res


def strip_quads(quad: np.ndarray, aspect: float = CARD_ASPECT, thin: float = 0.6) -> list[np.ndarray]:
    """Whole cards that a thin strip could be the visible edge of.

    A card under another shows a strip along one side, with its index at
    one end; the localiser boxes only the strip.  When the strip is thinner
    than ``thin`` (short side / long side) its long side is taken as a side
    of the card - the card's long side or its short side - and the card is
    completed across the strip, flush with either of the strip's long
    sides: four quads.  A card-shaped quad gives none.

    >>> len(strip_quads(np.array([[0, 0], [30, 0], [30, 140], [0, 140]], np.float32)))
    4
    >>> strip_quads(np.array([[0, 0], [100, 0], [100, 140], [0, 140]], np.float32))
    []
    """
    q = np.asarray(quad, np.float32).reshape(4, 2)
    u, v = q[1] - q[0], q[3] - q[0]
    lu, lv = float(np.linalg.norm(u)), float(np.linalg.norm(v))
    if min(lu, lv) < 1 or min(lu, lv) / max(lu, lv) >= thin:
        return []
    if lu < lv:  # make u the long side
        q = q[[0, 3, 2, 1]]
        u, v = v, u
        lu, lv = lv, lu
    nv = v / lv
    out = []
    for depth in (lu / aspect, lu * aspect):
        for flush in (0, 1):  # flush with the long side through q[0] or with the opposite one
            base = q[0] if flush == 0 else q[0] + v - nv * depth
            out.append(np.array([base, base + u, base + u + nv * depth, base + nv * depth], np.float32))
    return out


def sibling_quads(box: tuple[float, float, float, float], ref: np.ndarray,
                  turns: tuple[float, ...] = (-0.15, 0.0, 0.15), shift: float = 0.06) -> list[np.ndarray]:
    """Cards the size of the card ``ref`` (a found card's quad), turned
    from it by ``turns`` (radians), centred on ``box`` and moved from its
    middle by ``shift`` of the box's width or height each way.

    Why: the cards of a fan or a trick pile are one size and turned
    nearly alike, so the card half under a found one is that card moved
    and turned a little; its box (the localiser's) says where it lies,
    though not how it is turned, and the rectangles inscribed in a box
    it fills only in part are the wrong size.

    >>> ref = np.array([[0, 0], [100, 0], [100, 140], [0, 140]], np.float32)
    >>> qs = sibling_quads((200, 0, 300, 140), ref, turns=(0.0,), shift=0.0)
    >>> qs[0].round(1).tolist()
    [[200.0, 0.0], [300.0, 0.0], [300.0, 140.0], [200.0, 140.0]]
    >>> len(sibling_quads((200, 0, 300, 140), ref))  # 3 turns x 5 places
    15
    """
    ref = np.asarray(ref, np.float32)
    x1, y1, x2, y2 = box
    if x2 - x1 <= 1 or y2 - y1 <= 1:
        return []
    mid = ref.mean(axis=0)
    places = [(0.0, 0.0), (shift, 0.0), (-shift, 0.0), (0.0, shift), (0.0, -shift)] if shift else [(0.0, 0.0)]
    out = []
    for t in turns:
        c, s = math.cos(t), math.sin(t)
        turned = (ref - mid) @ np.array([[c, s], [-s, c]], np.float32)
        for fx, fy in places:
            centre = np.array([(x1 + x2) / 2 + fx * (x2 - x1), (y1 + y2) / 2 + fy * (y2 - y1)], np.float32)
            out.append(turned + centre)
    return out


def box_variants(box: tuple[float, float, float, float], trim: float = 0.1) -> list[tuple[float, float, float, float]]:
    """The box and four copies with one side pulled in by ``trim``: a box
    around a card of a fanned hand often takes in a strip of its neighbour.

    >>> box_variants((0, 0, 100, 100))[1:3]
    [(10.0, 0, 100, 100), (0, 10.0, 100, 100)]
    """
    x1, y1, x2, y2 = box
    dx, dy = (x2 - x1) * trim, (y2 - y1) * trim
    return [box, (x1 + dx, y1, x2, y2), (x1, y1 + dy, x2, y2), (x1, y1, x2 - dx, y2), (x1, y1, x2, y2 - dy)]


def _around(image: np.ndarray, box: tuple[float, float, float, float], grow: float
            ) -> tuple[int, int, int, int] | None:
    """The crop around ``box`` grown by ``grow`` of its size each way, cut
    to the picture: (x1, y1, x2, y2), or None when under 16 px either way.

    >>> _around(np.zeros((100, 100, 3), np.uint8), (10, 10, 60, 60), 0.1), _around(np.zeros((9, 9, 3), np.uint8), (0, 0, 9, 9), 0.1)
    ((5, 5, 65, 65), None)
    """
    h, w = image.shape[:2]
    x1, y1, x2, y2 = box
    gx, gy = (x2 - x1) * grow, (y2 - y1) * grow
    cx1, cy1 = int(max(0, x1 - gx)), int(max(0, y1 - gy))
    cx2, cy2 = int(min(w, x2 + gx)), int(min(h, y2 + gy))
    if cx2 - cx1 < 16 or cy2 - cy1 < 16:
        return None
    return cx1, cy1, cx2, cy2


def local_quads(image: np.ndarray, box: tuple[float, float, float, float], grow: float = 0.12,
                max_side: int = 320, min_iou: float = 0.5, keep: int = 3) -> list[np.ndarray]:
    """The classical localiser run on a crop around one box: the card fills
    most of the crop, so its thresholds separate it from the local
    background (carpet, wood) far better than on the whole photo.  Quads
    whose bounds fit the box (IoU >= ``min_iou``), best first, in image
    pixels."""
    from .localise import find_cards

    around = _around(image, box, grow)
    if around is None:
        return []
    cx1, cy1, cx2, cy2 = around
    crop = image[cy1:cy2, cx1:cx2]
    scored = []
    for q in find_cards(crop, max_side=max_side, min_frac=0.1, max_frac=1.0, nms_iou=0.9):
        q = q + np.array([cx1, cy1], np.float32)
        s = box_iou((*q.min(axis=0), *q.max(axis=0)), box)
        if s >= min_iou:
            scored.append((s, q))
    scored.sort(key=lambda t: -t[0])
    return [q for _, q in scored[:keep]]


def outline_quad(image: np.ndarray, box: tuple[float, float, float, float], grow: float = 0.12,
                 min_iou: float = 0.5) -> np.ndarray | None:
    """The four corners of the whitest region in a crop around one box, of
    whatever shape (None when there is none that fits the box by bounds
    IoU ``min_iou``).

    Why: a camera looking down at an angle shortens every card along the
    line of sight, so a card far from the camera shows nearly square when
    upright and nearly twice as long as high when sideways, and its sides
    are no longer parallel; the other quads of a box are rectangles of a
    card's aspect (and the classical localiser keeps only quads of aspect
    1.15-1.85).  On a blackjack webcam's stills such a card is read
    through none of them, yet surely through its outline.  The face is
    whiter (value less saturation, the classical localiser's measure) than
    the table around it: Otsu's threshold on the crop, the largest region's
    convex hull, simplified to four corners.

    >>> img = np.full((200, 300, 3), (40, 90, 30), np.uint8)
    >>> import cv2
    >>> _ = cv2.fillConvexPoly(img, np.array([[100, 60], [220, 60], [230, 140], [90, 140]], np.int32), (235, 235, 235))
    >>> q = outline_quad(img, (90, 60, 230, 140))
    >>> sorted(map(tuple, q.round().astype(int).tolist()))
    [(90, 140), (100, 60), (220, 60), (230, 140)]
    """
    import cv2

    from .localise import _whiteness, order_quad

    around = _around(image, box, grow)
    if around is None:
        return None
    cx1, cy1, cx2, cy2 = around
    white = _whiteness(cv2.GaussianBlur(image[cy1:cy2, cx1:cx2], (3, 3), 0))
    _, mask = cv2.threshold(white, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not cnts:
        return None
    hull = cv2.convexHull(max(cnts, key=cv2.contourArea))
    quad = None
    for eps in np.linspace(0.01, 0.12, 23):  # the least simplification that leaves four corners
        ap = cv2.approxPolyDP(hull, eps * cv2.arcLength(hull, True), True)
        if len(ap) <= 4:
            quad = ap.reshape(-1, 2) if len(ap) == 4 else None
            break
    if quad is None:
        quad = cv2.boxPoints(cv2.minAreaRect(hull))
    q = order_quad(quad.astype(np.float32) + np.array([cx1, cy1], np.float32))
    if box_iou((*q.min(axis=0), *q.max(axis=0)), box) < min_iou:
        return None
    return q


def edge_angles(image: np.ndarray, box: tuple[float, float, float, float], peaks: int = 2,
                max_side: int = 160) -> list[float]:
    """The directions (radians, modulo 90 degrees, in [0, pi/2)) of the
    strongest straight edges inside a box, strongest first.

    A card's border, its index and its pips all run along the card's two
    axes, so a histogram of gradient directions weighted by gradient
    strength peaks at the card's turn - whatever the box's shape, which a
    neighbouring card or a finger stretches.

    >>> import cv2
    >>> img = np.zeros((200, 200, 3), np.uint8)
    >>> pts = cv2.boxPoints(((100, 100), (80, 112), 30)).astype(np.int32)
    >>> _ = cv2.fillPoly(img, [pts], (255, 255, 255))
    >>> round(math.degrees(edge_angles(img, (30, 30, 170, 170))[0]))
    30
    """
    h, w = image.shape[:2]
    x1, y1 = int(max(0, box[0])), int(max(0, box[1]))
    x2, y2 = int(min(w, box[2])), int(min(h, box[3]))
    if x2 - x1 < 8 or y2 - y1 < 8:
        return []
    gx, gy, _ = _gradients(image, x1, y1, x2, y2, max_side, 1.5)
    mag = np.hypot(gx, gy)
    strong = mag > np.percentile(mag, 80)
    if not strong.any():
        return []
    ang = np.mod(np.arctan2(gy[strong], gx[strong]), math.pi / 2)
    hist, _ = np.histogram(ang, bins=90, range=(0, math.pi / 2), weights=mag[strong])
    hist = np.convolve(np.concatenate([hist[-3:], hist, hist[:3]]), np.ones(5) / 5, mode="same")[3:-3]
    out: list[float] = []
    for _ in range(peaks):
        i = int(np.argmax(hist))
        if hist[i] <= 0:
            break
        out.append((i + 0.5) * math.pi / 180)
        for d in range(-8, 9):  # suppress the neighbourhood of the peak
            hist[(i + d) % 90] = 0
    return out


def turned_quads(box: tuple[float, float, float, float], angle: float, aspect: float = CARD_ASPECT,
                 slide: bool = True) -> list[np.ndarray]:
    """Cards turned by ``angle`` (modulo 90 degrees: upright-ish and
    sideways-ish) that fit inside a box, as large as the box allows.

    Where the box is looser than the card in one direction (it takes in a
    neighbour's edge) the card may lie at either end of it or in the
    middle: three quads per orientation when ``slide``, one otherwise.

    >>> q = turned_quads((0, 0, 100, 140), 0.0, slide=False)
    >>> q[0].round().tolist()
    [[0.0, 0.0], [100.0, 0.0], [100.0, 140.0], [0.0, 140.0]]
    """
    x1, y1, x2, y2 = box
    bw, bh = x2 - x1, y2 - y1
    if bw <= 1 or bh <= 1:
        return []
    out = []
    for t in (angle, angle - math.pi / 2):
        c, s = abs(math.cos(t)), abs(math.sin(t))
        a = min(bw / (c + aspect * s), bh / (s + aspect * c))
        ew, eh = a * (c + aspect * s), a * (s + aspect * c)  # the card's own bounds
        card = _card_at(a, t, aspect)
        xs = [x1 + ew / 2, (x1 + x2) / 2, x2 - ew / 2] if slide and bw - ew > 0.08 * bw else [(x1 + x2) / 2]
        ys = [y1 + eh / 2, (y1 + y2) / 2, y2 - eh / 2] if slide and bh - eh > 0.08 * bh else [(y1 + y2) / 2]
        for cx in xs:
            for cy in ys:
                out.append((card + np.array([cx, cy])).astype(np.float32))
    return out


def _fit_scores(image: np.ndarray, box: tuple[float, float, float, float], step_deg: float, aspect: float,
                width: float | None, max_side: int) -> tuple[list[tuple[float, float, float, float, float]],
                                                           float, int, int]:
    """Every turn's best-placed card rectangle in a box, best first, as
    (score, turn, width, cx, cy) in crop pixels, with the crop's scale and
    origin (:func:`fitted_quads`)."""
    h, w = image.shape[:2]
    x1, y1, x2, y2 = (float(v) for v in box)
    bw, bh = x2 - x1, y2 - y1
    if bw < 8 or bh < 8:
        return [], 1.0, 0, 0
    m = (0.3 if width is not None else 0.08) * max(bw, bh)
    cx1, cy1 = int(max(0, x1 - m)), int(max(0, y1 - m))
    cx2, cy2 = int(min(w, x2 + m)), int(min(h, y2 + m))
    gx, gy, f = _gradients(image, cx1, cy1, cx2, cy2, max_side, 1.0)
    norm = float(np.percentile(np.hypot(gx, gy), 95)) + 1e-6
    gx, gy = gx / norm, gy / norm
    ch, cw = gx.shape
    # the box in crop pixels
    bx1, by1, bx2, by2 = (x1 - cx1) * f, (y1 - cy1) * f, (x2 - cx1) * f, (y2 - cy1) * f
    sbw, sbh = bx2 - bx1, by2 - by1
    n_side = 24
    tt = (np.arange(n_side) + 0.5) / n_side
    # every rectangle's side points, gathered and scored at once: per rectangle (turn, width)
    # only its placements differ, and the sums are those of scoring each alone, bit for bit
    groups = []  # (turn, width, placements across, placements down, their x, their y)
    flats, normals = [], []
    for deg in np.arange(0.0, 90.0, step_deg):
        for t in (math.radians(deg), math.radians(deg) - math.pi / 2):
            c, s = abs(math.cos(t)), abs(math.sin(t))
            a_fit = min(sbw / (c + aspect * s), sbh / (s + aspect * c))
            sizes = [a_fit]
            if width is not None and abs(width * f - a_fit) > 0.04 * a_fit:
                sizes.append(width * f)
            for a in sizes:
                ew, eh = a * (c + aspect * s), a * (s + aspect * c)
                corners = _card_at(a, t, aspect)
                d = corners[[1, 2, 3, 0]] - corners
                pts = corners[:, None, :] + tt[None, :, None] * d[:, None, :]  # (4, n, 2): points along each side
                # centres keeping the card inside the box, or (a card larger than its box: the
                # box holds only its visible part) the box inside the card; x-major as (x, y) pairs
                xs = _span(bx1 + ew / 2, bx2 - ew / 2)
                ys = _span(by1 + eh / 2, by2 - eh / 2)
                ix = np.minimum(np.maximum(np.rint(pts[None, :, :, 0] + xs[:, None, None]).astype(int), 0), cw - 1)  # (X, 4, n)
                iy = np.minimum(np.maximum(np.rint(pts[None, :, :, 1] + ys[:, None, None]).astype(int), 0), ch - 1)  # (Y, 4, n)
                flats.append((iy[None] * cw + ix[:, None]).reshape(-1, 4, n_side))  # (X*Y, 4, n)
                normals.append(np.repeat((np.stack([-d[:, 1], d[:, 0]], axis=1)
                                          / (np.hypot(d[:, 0], d[:, 1]) + 1e-9)[:, None])[None], len(xs) * len(ys), axis=0))
                groups.append((t, a, len(xs), len(ys), xs, ys))
    flat = np.concatenate(flats)
    nrm = np.concatenate(normals)  # (P, 4, 2): each side's unit normal
    gxf, gyf = gx.ravel(), gy.ravel()
    support = np.minimum(np.abs(np.take(gxf, flat) * nrm[:, :, None, 0] + np.take(gyf, flat) * nrm[:, :, None, 1]), 1.0).mean(axis=2)
    score = support.sum(axis=1)
    scored: list[tuple[float, float, float, float, float]] = []  # (score, angle, a, cx, cy)
    at = 0
    for t, a, nx, ny, xs, ys in groups:
        j = int(np.argmax(score[at:at + nx * ny]))
        scored.append((float(score[at + j]), t, a, float(xs[j // ny]), float(ys[j % ny])))
        at += nx * ny
    scored.sort(key=lambda r: -r[0])
    return scored, f, cx1, cy1


def fitted_quads(image: np.ndarray, box: tuple[float, float, float, float], top: int = 3,
                 step_deg: float = 3.0, aspect: float = CARD_ASPECT, width: float | None = None,
                 max_side: int = 200, avoid: list[np.ndarray] | None = None,
                 avoid_iou: float = 0.6, cache: dict | None = None) -> list[np.ndarray]:
    """The card rectangles in a box whose sides lie best on the image's edges.

    Where cards overlap, the strongest edge direction in a box may be a
    neighbour's, and one wrong direction puts every quad built from it
    off the index.  So every turn (``step_deg`` apart, through 90 degrees,
    upright-ish and sideways-ish) and every place in the box is scored by
    the gradient across the rectangle's four sides - a side under another
    card scores nothing, the visible ones score for the true turn - and
    the ``top`` best rectangles, apart from one another, are returned for
    the classifier to read.  The card's short side is the largest that
    fits the box at that turn, or ``width`` (the size of the other cards in
    the picture) when that fits.  Rectangles overlapping a quad of
    ``avoid`` (cards already found) by more than ``avoid_iou`` are passed
    over: their edges are the strongest in a box holding a found card and
    the card under it, and the card under it is the one wanted.
    ``cache`` (a dict kept for one image) holds each box's scored
    rectangles, so a box read again with other ``avoid`` or ``top`` is
    not scored again.

    >>> import cv2
    >>> img = np.full((240, 240, 3), 40, np.uint8)
    >>> pts = cv2.boxPoints(((120, 120), (100, 140), 20)).astype(np.int32)
    >>> _ = cv2.fillPoly(img, [pts], (230, 230, 230))
    >>> b = (*pts.min(axis=0), *pts.max(axis=0))
    >>> q = fitted_quads(img, b, top=1)[0]
    >>> d = q[1] - q[0]
    >>> abs(math.degrees(math.atan2(d[1], d[0])) % 90 - 20) <= 3  # 20 degrees, to the 3-degree step
    True
    """
    from .localise import quad_iou

    key = (tuple(float(v) for v in box), width, step_deg, aspect, max_side)
    scores = cache.get(key) if cache is not None else None
    if scores is None:
        scores = _fit_scores(image, box, step_deg, aspect, width, max_side)
        if cache is not None:
            cache[key] = scores
    scored, f, cx1, cy1 = scores
    out: list[np.ndarray] = []
    chosen: list[tuple[float, float, float]] = []
    for sc, t, a, x, y in scored:
        if any(abs(((t - t2 + math.pi / 4) % (math.pi / 2)) - math.pi / 4) < math.radians(2 * step_deg)
               and math.hypot(x - x2_, y - y2_) < 0.15 * a for t2, x2_, y2_ in chosen):
            continue
        q = ((_card_at(a, t, aspect) + np.array([x, y])) / f + np.array([cx1, cy1])).astype(np.float32)
        if avoid and any(quad_iou(q, v) > avoid_iou for v in avoid):
            continue
        chosen.append((t, x, y))
        out.append(q)
        if len(out) >= top:
            break
    return out


def _span(lo: float, hi: float, step: float = 3.0, most: int = 12) -> np.ndarray:
    """Positions from ``lo`` to ``hi`` (either order) about ``step`` apart, at most ``most``."""
    lo, hi = min(lo, hi), max(lo, hi)
    return np.linspace(lo, hi, int(min(most, max(1, (hi - lo) / step + 1))))


def box_iou(a, b) -> float:
    """Intersection over union of two axis-aligned boxes (x1, y1, x2, y2).

    >>> box_iou((0, 0, 10, 10), (5, 0, 15, 10))
    0.3333333333333333
    """
    x1, y1 = max(a[0], b[0]), max(a[1], b[1])
    x2, y2 = min(a[2], b[2]), min(a[3], b[3])
    inter = max(0.0, x2 - x1) * max(0.0, y2 - y1)
    u = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / u if u > 0 else 0.0

