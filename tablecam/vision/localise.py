"""Classical card localisation: where are the cards, as quadrilaterals.

A playing card is a bright, low-saturation quadrilateral with an aspect
ratio near 63:88 lying on a darker or more colourful table.  Finding it with
OpenCV contours transfers to real photographs far better than a detector
trained on renders (measured: see docs/vision-model.md), because nothing
here was learned from synthetic pixels.  What it cannot do is separate cards
that overlap into one bright blob; those blobs are split by erosion, and
what still fails is a known weakness written in the model card.  A second
source, the regions enclosed by Canny edges (nested ones included), finds
cards lying on white paper or touching a white box, and the upper card of
an overlapping pair, whose printed border is a closed edge inside the blob.

Every quad is returned as a 4x2 float32 array in input-image pixels, ordered
clockwise starting at a corner of a SHORT edge, so that warping it to a
250x350 portrait card gives an upright (or upside-down, which is the same
for the corner indices) face.
"""

from __future__ import annotations

import numpy as np

CARD_W, CARD_H = 250, 350
ASPECT = CARD_H / CARD_W  # 1.4; real packs 1.39 (poker) to 1.56 (bridge is 1.56? no: 88/56)


def order_quad(pts: np.ndarray) -> np.ndarray:
    """Order four points clockwise (image coordinates, y down), first edge short.

    >>> q = order_quad(np.array([[0, 0], [0, 140], [100, 140], [100, 0]], np.float32))
    >>> q.tolist()
    [[0.0, 0.0], [100.0, 0.0], [100.0, 140.0], [0.0, 140.0]]
    """
    pts = np.asarray(pts, np.float32).reshape(4, 2)
    d = pts - np.add.reduce(pts, axis=0) / 4  # the mean, as pts.mean(axis=0) sums and divides it
    pts = pts[np.argsort(np.arctan2(d[:, 1], d[:, 0]))]  # clockwise on screen (y points down)
    # start at the point nearest the top-left so that upright cards stay upright
    start = int(np.argmin(pts.sum(axis=1)))
    e = pts[_NEXT] - pts
    side = np.sqrt((e * e).sum(axis=1))  # side[i]: from corner i to corner i + 1
    e01 = side[start] + side[(start + 2) % 4]
    e12 = side[(start + 1) % 4] + side[(start + 3) % 4]
    if e01 > e12:  # first edge long: start one corner later (turn the card 90 degrees)
        start += 1
    return pts[[(start + k) % 4 for k in range(4)]]


_NEXT = [1, 2, 3, 0]


def warp_card(image: np.ndarray, quad: np.ndarray, size: tuple[int, int] = (CARD_W, CARD_H),
              ordered: bool = False, rows: int | None = None) -> np.ndarray:
    """Perspective-warp the quad to an upright ``size`` (w, h) card image.

    A quad found in a picture is put in portrait order first
    (:func:`order_quad`); one already ``ordered`` from the card face's own
    top-left corner (a rendered scene's truth) is warped as it is, so the
    face comes out upright, not possibly turned 180 degrees.  ``rows``:
    only the card's top rows, the same pixels, bit for bit, as the top of
    the whole card (OpenCV maps each output pixel alone; a narrower output
    is not the same), for a card read by its top-left index alone."""
    import cv2

    w, h = size
    dst = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    src = np.asarray(quad, np.float32) if ordered else order_quad(quad).astype(np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(image, m, (w, min(h, rows) if rows else h), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


CORNER_REACH = (96, 160)
"""The top-left block of a rectified card that every corner window lies
in (80x144, its views up to 82x147), in whole blocks of 32 pixels:
OpenCV's perspective warp of that block gives the pixels of the whole
card's warp bit for bit (of a narrower block it does not)."""


class CardCorners:
    """A rectified card's two index ends without the rest: its top-left
    block and its bottom-right block turned upright (``CORNER_REACH``),
    for reading a candidate quad through its corner windows at a third of
    the whole warp's cost.  :meth:`whole` warps the whole card when a
    step needs it (the back check).

    The top block is the whole card's top-left corner, bit for bit; the
    bottom one is warped from the quad's far corner and differs from the
    whole card's turned corner in a few pixels by one grey level (the
    perspective transform is solved from the corners in another order)."""

    def __init__(self, image: np.ndarray, quad: np.ndarray, size: tuple[int, int] = (CARD_W, CARD_H)):
        import cv2

        self.image, self.quad, self.size = image, quad, size
        w, h = size
        dst = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
        src = order_quad(quad).astype(np.float32)
        reach = (min(w, CORNER_REACH[0]), min(h, CORNER_REACH[1]))
        self.ends = tuple(cv2.warpPerspective(image, cv2.getPerspectiveTransform(s, dst), reach, flags=cv2.INTER_LINEAR,
                                              borderMode=cv2.BORDER_REPLICATE) for s in (src, src[[2, 3, 0, 1]]))

    def whole(self) -> np.ndarray:
        """The whole rectified card (:func:`warp_card`)."""
        return warp_card(self.image, self.quad, self.size)


def whole_card(card: "np.ndarray | CardCorners") -> np.ndarray:
    """A rectified card whole, whether warped whole or as :class:`CardCorners`."""
    return card.whole() if isinstance(card, CardCorners) else card


def _quad_from_contour(cnt: np.ndarray) -> tuple[np.ndarray, float]:
    """Best quadrilateral for a contour and how well the contour fills it."""
    import cv2

    area = cv2.contourArea(cnt)
    hull = cv2.convexHull(cnt)
    peri = cv2.arcLength(hull, True)
    quad = None
    for eps in (0.02, 0.03, 0.045, 0.06):
        ap = cv2.approxPolyDP(hull, eps * peri, True)
        if len(ap) == 4:
            quad = ap.reshape(4, 2).astype(np.float32)
            break
    if quad is None:
        quad = cv2.boxPoints(cv2.minAreaRect(cnt)).astype(np.float32)
    qa = abs(cv2.contourArea(quad.reshape(-1, 1, 2)))
    return quad, (area / qa if qa > 0 else 0.0)


def _aspect(quad: np.ndarray) -> float:
    q = order_quad(quad)
    short = (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[3] - q[2])) / 2
    long = (np.linalg.norm(q[2] - q[1]) + np.linalg.norm(q[0] - q[3])) / 2
    return float(long / max(short, 1e-6))


def _whiteness(small: np.ndarray) -> np.ndarray:
    """Per pixel, how white (value less saturation, clipped to 0-255): a card's face is bright and grey."""
    import cv2

    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    return np.clip(hsv[..., 2].astype(np.int16) - hsv[..., 1], 0, 255).astype(np.uint8)


def _masks(small: np.ndarray, white: np.ndarray, blur: np.ndarray) -> list[np.ndarray]:
    """Binary candidate masks: 'whiteness' by Otsu and by a fixed level, and
    closed edges (white card on a light table).  ``white``: :func:`_whiteness`;
    ``blur``: the grey picture under a 5x5 Gaussian."""
    import cv2

    white = cv2.GaussianBlur(white, (5, 5), 0)
    out = []
    _, m1 = cv2.threshold(white, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    out.append(m1)
    hi = np.percentile(white, 97)
    for frac in (0.8, 0.65):
        out.append(((white > max(110, hi * frac)) * 255).astype(np.uint8))
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    edges = cv2.Canny(blur, 40, 120)
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    ff = edges.copy()
    cnts, _ = cv2.findContours(ff, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    m3 = np.zeros_like(edges)
    cv2.drawContours(m3, cnts, -1, 255, -1)
    out.append(cv2.erode(m3, np.ones((3, 3), np.uint8)))
    # white cut along edges: overlapping cards are one white blob, but the
    # upper card's outline is an edge that splits it
    out.append(cv2.bitwise_and(m1, cv2.bitwise_not(edges)))
    soft = cv2.dilate(cv2.Canny(cv2.GaussianBlur(gray, (3, 3), 0), 20, 60), np.ones((3, 3), np.uint8))
    out.append(cv2.bitwise_and(out[2], cv2.bitwise_not(soft)))
    # local contrast: a card next to a white box or paper is still brighter
    # than its own surroundings somewhere along its rim
    block = (max(small.shape[:2]) // 6) | 1
    out.append(cv2.adaptiveThreshold(white, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block, -12))
    # "not the table": distance in Lab from the table colour (the median of
    # the image border) - finds face-down cards and court cards whose
    # picture breaks the white mask
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (5, 5), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    bw = max(2, min(small.shape[:2]) // 20)
    ring = np.concatenate([lab[:bw].reshape(-1, 3), lab[-bw:].reshape(-1, 3),
                           lab[:, :bw].reshape(-1, 3), lab[:, -bw:].reshape(-1, 3)])
    dist = np.linalg.norm(lab - np.median(ring, axis=0), axis=2)
    dist = np.clip(dist * (255.0 / max(1.0, float(np.percentile(dist, 99.5)))), 0, 255).astype(np.uint8)
    _, m4 = cv2.threshold(dist, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    out.append(cv2.morphologyEx(m4, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8)))
    k = np.ones((3, 3), np.uint8)
    return [cv2.morphologyEx(m, cv2.MORPH_OPEN, k) for m in out]


# Canny levels of the edge-region source: a faint card border on paper
# needs the low pair, a busy table (wood grain) the high one.  Chosen on the
# train split of the real photos: one level (40, 120) gave
# recall 0.748, adding (80, 200) 0.759, adding (20, 60) as well 0.763 at
# 1.5x the time.
EDGE_LEVELS = ((40, 120), (80, 200))
EDGE_GROW = 2.0  # px: the region stops inside the 3x3-dilated edge
EDGE_FILL = 0.85  # region area / quad area; 0.8 measured the same
# An edge region must be fairly white (mean V-S at least this fraction of
# the image's 97th percentile): carpet pile and wood grain enclose
# card-shaped regions too.  Train split: 0.3 and 0.4 gave precision 0.805
# at unchanged recall (0.797 without the gate), 0.5 lost recall (0.748).
# Face-down cards are left to the other masks.
EDGE_WHITE_FRAC = 0.4


def _edge_regions(blur: np.ndarray) -> list[np.ndarray]:
    """Outlines of every region the edge map encloses, nested ones included.

    A card lying on white paper or touching a white box merges with it in
    every brightness mask, but its printed border still leaves a closed
    edge: the region inside that edge is the card.  The whiteness masks only
    look at outermost blobs, so these inner regions are a separate source.
    ``blur``: the grey picture under a 5x5 Gaussian.
    """
    import cv2

    out = []
    for lo, hi in EDGE_LEVELS:
        edges = cv2.dilate(cv2.Canny(blur, lo, hi), np.ones((3, 3), np.uint8))
        cnts, _ = cv2.findContours(cv2.bitwise_not(edges), cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
        out += list(cnts)
    return out


def _completions(cnt: np.ndarray, max_area: float, aspect: float = 1.42) -> list[np.ndarray]:
    """Card-sized quads that could explain a blob that is not card-shaped.

    Two overlapping cards make one blob that is too wide; a card half under
    another shows a strip that is too narrow.  Either way one side of the
    blob's rotated rectangle is (probably) a whole card edge: a card-sized
    rectangle is placed flush with each end of the other side.  The
    classifier then reads each hypothesis; wrong ones come out as ``none``
    or are outscored.
    """
    import cv2

    (cx, cy), (w, h), ang = cv2.minAreaRect(cnt)
    if w < 4 or h < 4 or cv2.contourArea(cnt) < 0.6 * w * h:
        return []
    t = np.deg2rad(ang)
    ux = np.array([np.cos(t), np.sin(t)], np.float32)  # along w
    uy = np.array([-np.sin(t), np.cos(t)], np.float32)  # along h
    c = np.array([cx, cy], np.float32)
    out = []
    for along, other, ua, uo in ((w, h, ux, uy), (h, w, uy, ux)):
        # 'other' is a whole card edge: long or short one
        for full_other, full_along in ((other, other / aspect), (other, other * aspect)):
            if abs(full_along - along) < 0.12 * full_along or full_along > 2.6 * along:
                continue
            if full_along * full_other > max_area:
                continue
            for sgn in (-1, 1):
                # flush with the blob's end at sgn * along/2
                end = c + ua * (sgn * along / 2)
                cc = end - ua * (sgn * full_along / 2)
                hw, hh = ua * (full_along / 2), uo * (full_other / 2)
                q = np.array([cc - hw - hh, cc + hw - hh, cc + hw + hh, cc - hw + hh], np.float32)
                out.append(q)
    return out


def _split_at_defects(cnt: np.ndarray, shape: tuple[int, int], max_cuts: int = 4) -> list[np.ndarray]:
    """Pieces of a blob cut between pairs of its deepest concavities.

    A card touching a white box or another card makes one blob whose outline
    turns inwards where the two meet; a straight cut between two such
    concavities separates them.
    """
    import cv2

    hull = cv2.convexHull(cnt, returnPoints=False)
    if hull is None or len(hull) < 4 or len(cnt) < 8:
        return []
    try:
        defects = cv2.convexityDefects(cnt, hull)
    except cv2.error:
        return []
    if defects is None:
        return []
    scale = np.sqrt(cv2.contourArea(cnt))
    deep = sorted((d for d in defects.reshape(-1, 4) if d[3] / 256.0 > 0.06 * scale), key=lambda d: -d[3])[:max_cuts]
    pts = [tuple(int(v) for v in cnt[d[2], 0]) for d in deep]
    out = []
    x, y, w, h = cv2.boundingRect(cnt)
    for i in range(len(pts)):
        for j in range(i + 1, len(pts)):
            m = np.zeros((h + 2, w + 2), np.uint8)
            cv2.drawContours(m, [cnt - [x - 1, y - 1]], -1, 255, -1)
            p1 = (pts[i][0] - x + 1, pts[i][1] - y + 1)
            p2 = (pts[j][0] - x + 1, pts[j][1] - y + 1)
            cv2.line(m, p1, p2, 0, 3)
            cs, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            out += [c + [x - 1, y - 1] for c in cs]
    return out


def _clear_of(r: tuple[int, int, int, int], rects: np.ndarray, iou: float) -> bool:
    """Whether rectangle ``r`` overlaps each of ``rects`` ((N, 4) x, y, w, h,
    OpenCV bounding rectangles of quads) by an IoU under ``iou``, all at
    once (integer areas, one division each: the IoUs of comparing them one
    by one, bit for bit).

    >>> _clear_of((5, 0, 10, 10), np.array([[0, 0, 10, 10]]), 0.5), _clear_of((5, 0, 10, 10), np.array([[0, 0, 10, 10]]), 0.3)
    (True, False)
    """
    if not len(rects):
        return True
    x1, y1 = np.maximum(rects[:, 0], r[0]), np.maximum(rects[:, 1], r[1])
    x2, y2 = np.minimum(rects[:, 0] + rects[:, 2], r[0] + r[2]), np.minimum(rects[:, 1] + rects[:, 3], r[1] + r[3])
    inter = np.maximum(0, x2 - x1) * np.maximum(0, y2 - y1)
    u = rects[:, 2] * rects[:, 3] + r[2] * r[3] - inter
    ious = np.where(u > 0, inter / np.where(u > 0, u, 1), 0.0)
    return bool((ious < iou).all())


def find_cards(image: np.ndarray, max_side: int = 900, min_frac: float = 0.004,
               max_frac: float = 0.6, nms_iou: float = 0.5, edge_regions: bool = True) -> list[np.ndarray]:
    """Quadrilaterals of card candidates in ``image`` (BGR, any resolution).

    The image is downscaled to ``max_side`` for speed; quads are mapped back
    to input pixels.  Candidates from several masks are merged (the one that
    fills its quad best wins), so a candidate list may hold a few non-cards:
    the classifier's ``none`` class rejects them.  With a high ``nms_iou``
    near-duplicate quads of one card are all returned, so that the caller
    can keep the one the classifier reads best.
    """
    import cv2

    h, w = image.shape[:2]
    scale = min(1.0, max_side / max(h, w))
    small = cv2.resize(image, (int(w * scale), int(h * scale)), interpolation=cv2.INTER_AREA) if scale < 1 else image
    sh, sw = small.shape[:2]
    total = sh * sw
    cands: list[tuple[float, np.ndarray]] = []
    hyps: list[tuple[float, np.ndarray]] = []
    white = _whiteness(small)
    blur = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    for mask in _masks(small, white, blur):
        for it in (0, 2, 5):
            m = cv2.erode(mask, np.ones((3, 3), np.uint8), iterations=it) if it else mask
            cnts, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            for c in cnts:
                a = cv2.contourArea(c)
                if a < min_frac * total or a > max_frac * total:
                    continue
                quad, fill = _quad_from_contour(c)
                if it:  # undo the erosion: grow the quad about its centre
                    ctr = quad.mean(axis=0)
                    d = quad - ctr
                    n = np.linalg.norm(d, axis=1, keepdims=True)
                    quad = ctr + d * (1 + (it * 1.0) / np.maximum(n, 1) * 1.4)
                asp = _aspect(quad)
                if not (1.15 <= asp <= 1.85) or fill < 0.8:
                    if it == 0 and a > 2 * min_frac * total:
                        for hq in _completions(c, 0.25 * total):
                            hyps.append((0.0, hq))
                        for piece in _split_at_defects(c, (sh, sw)):
                            pa = cv2.contourArea(piece)
                            if pa < min_frac * total:
                                continue
                            pq, pf = _quad_from_contour(piece)
                            pasp = _aspect(pq)
                            if 1.15 <= pasp <= 1.85 and pf >= 0.8:
                                cands.append((pf - abs(pasp - 1.42) * 0.5 - 0.05, pq))
                    continue
                score = fill - abs(asp - 1.42) * 0.5
                cands.append((score, quad))
    if edge_regions:
        min_white = float(np.percentile(white, 97)) * EDGE_WHITE_FRAC
        for c in _edge_regions(blur):
            a = cv2.contourArea(c)
            if a < min_frac * total or a > max_frac * total:
                continue
            quad, fill = _quad_from_contour(c)
            # the region stops inside the dilated edge: grow it back
            ctr = quad.mean(axis=0)
            d = quad - ctr
            quad = ctr + d * (1 + EDGE_GROW / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1))
            asp = _aspect(quad)
            if 1.15 <= asp <= 1.85 and fill >= EDGE_FILL:
                m = np.zeros(white.shape, np.uint8)
                cv2.drawContours(m, [c], -1, 255, -1)
                if cv2.mean(white, m)[0] < min_white:
                    continue
                cands.append((fill - abs(asp - 1.42) * 0.5, quad))
    cands.sort(key=lambda t: -t[0])
    kept: list[np.ndarray] = []
    rects = np.zeros((len(cands) + len(hyps), 4), np.int64)  # the bounding rectangle of each quad kept, for the NMS
    for _, q in cands:
        r = cv2.boundingRect(q.astype(np.float32))
        if _clear_of(r, rects[:len(kept)], nms_iou):
            rects[len(kept)] = r
            kept.append(q)
    # completions of partly hidden cards, unless a whole-card quad explains them
    for _, q in hyps:
        r = cv2.boundingRect(q.astype(np.float32))
        if _clear_of(r, rects[:len(kept)], max(0.6, nms_iou)):
            rects[len(kept)] = r
            kept.append(q)
    res = []
    areas = [cv2.contourArea(k) for k in kept]
    for qi, q in enumerate(kept):
        inside = False
        for ki, k in enumerate(kept):
            if k is q:
                continue
            ratio = areas[ki] / max(1.0, areas[qi])
            if 1.3 < ratio < 2.8 and all(
                    cv2.pointPolygonTest(k.reshape(-1, 1, 2), (float(x), float(y)), True) > -3 for x, y in q):
                inside = True
                break
        if not inside:
            res.append(order_quad(q / scale))
    return res


def quad_iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex quads (rotated cards)."""
    import cv2

    a = np.asarray(a, np.float32).reshape(4, 2)
    b = np.asarray(b, np.float32).reshape(4, 2)
    lo, hi = np.maximum(a.min(axis=0), b.min(axis=0)), np.minimum(a.max(axis=0), b.max(axis=0))
    if lo[0] >= hi[0] or lo[1] >= hi[1]:
        return 0.0  # bounds apart (or touching): no overlap, and no need to order the corners
    a = order_quad(a).astype(np.float32)
    b = order_quad(b).astype(np.float32)
    inter, _ = cv2.intersectConvexConvex(a, b)
    u = cv2.contourArea(a) + cv2.contourArea(b) - inter
    return float(inter / u) if u > 0 else 0.0
