"""Cards found from their rank-and-suit index alone.

In a fanned hand or a trick pile a card under others often shows no
outline a box could fit, only its index corner: that is how a player reads
a fan.  ``card_index.onnx`` (an Ultralytics oriented-box model, one class
``index``, trained by ``tablecam locdata --format index``) finds the index
windows; each window says where its card's corner is and how the card is
turned, up to 180 degrees, so it gives two card quads, and the classifier
reads the index through each (:func:`card_quads`).
"""

from __future__ import annotations

import numpy as np

from .classify import CORNER_BOX
from .localise import CARD_H, CARD_W

# the index window's share of the card's width and height (the classifier's corner window)
WIN_U, WIN_V = CORNER_BOX[2] / CARD_W, CORNER_BOX[3] / CARD_H


def index_windows(quad: np.ndarray, corners: tuple[int, ...] = (0, 2),
                  share: tuple[float, float] = (WIN_U, WIN_V)) -> list[np.ndarray]:
    """The rank-and-suit index windows of a card, as image quads.

    ``quad`` runs clockwise from the top-left corner of the upright face;
    the window is the classifier's corner window (``CORNER_BOX`` of a
    250x350 card) at the top-left (corner 0) and, turned 180 degrees, the
    bottom-right (corner 2).  Each window starts at its card corner and
    runs clockwise like the card, so its first point is the card's corner
    and its long side follows the card's.  ``share`` is the window's share
    of the card's width and height (another region of the corner: the
    scenes' ground truth and :mod:`~tablecam.vision.occlusion` use 25% x 28%).

    >>> q = np.array([[0, 0], [250, 0], [250, 350], [0, 350]], np.float32)
    >>> [w.round().astype(int).tolist() for w in index_windows(q)]
    [[[0, 0], [80, 0], [80, 144], [0, 144]], [[250, 350], [170, 350], [170, 206], [250, 206]]]
    """
    q = np.asarray(quad, np.float32).reshape(4, 2)
    out = []
    for c in corners:
        o = q[c]
        u = (q[(c + 1) % 4] - o) * share[0]
        v = (q[(c + 3) % 4] - o) * share[1]
        out.append(np.array([o, o + u, o + u + v, o + v], np.float32))
    return out


def card_quads(window: np.ndarray) -> list[np.ndarray]:
    """The two cards an index window can belong to (the inverse of
    :func:`index_windows`), each as a quad clockwise from its face's
    top-left corner (``warp_card(..., ordered=True)`` shows the index
    upright at the top left of one).

    The window's short side runs along the card's width, its long side
    along the card's height; its corner is the card's corner, and the card
    lies on the side the two sides open to - for the clockwise frame that
    is two of the window's four corners, opposite each other.

    >>> win = np.array([[0, 0], [80, 0], [80, 144], [0, 144]], np.float32)
    >>> [q.round().astype(int).tolist() for q in card_quads(win)]
    [[[0, 0], [250, 0], [250, 350], [0, 350]], [[80, 144], [-170, 144], [-170, -206], [80, -206]]]
    """
    w = np.asarray(window, np.float64).reshape(4, 2)
    out = []
    for i in range(4):
        o = w[i]
        a, b = w[(i + 1) % 4] - o, w[(i + 3) % 4] - o
        u, v = (a, b) if np.hypot(*a) <= np.hypot(*b) else (b, a)
        if u[0] * v[1] - u[1] * v[0] <= 0:  # not the clockwise frame of an upright face
            continue
        cu, cv = u / WIN_U, v / WIN_V
        out.append(np.array([o, o + cu, o + cu + cv, o + cv], np.float32))
    return out


def edge_gradients(image_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The x and y intensity gradients (lightly smoothed) of an image or a
    patch of one, for :func:`fit_corner`."""
    import cv2

    g = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY).astype(np.float32)
    g = cv2.GaussianBlur(g, (0, 0), 0.8)
    return cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3) / 8, cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3) / 8


def _best_edge(gx: np.ndarray, gy: np.ndarray, o: np.ndarray, d: np.ndarray, n: np.ndarray, length: float,
               shift: float, turn: float, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """The straight edge near the line ``o + t d`` (t from 0 to ``length``)
    with the strongest mean gradient across it: turned by up to ``turn``
    radians and moved by up to ``shift`` pixels along ``n``.  Returns a
    point on it and its direction."""
    import cv2

    angles = np.linspace(-turn, turn, steps)
    offsets = np.linspace(-shift, shift, 2 * steps + 1)
    ts = np.arange(0.0, max(length, 2.0), 1.0)
    c, s = np.cos(angles), np.sin(angles)
    dirs = np.stack([c * d[0] - s * d[1], s * d[0] + c * d[1]], axis=1)  # (A, 2)
    norms = np.stack([-dirs[:, 1], dirs[:, 0]], axis=1)
    norms *= np.sign(norms @ n)[:, None]
    starts = o[None, None, :] + offsets[None, :, None] * norms[:, None, :]  # (A, O, 2)
    pts = starts[:, :, None, :] + ts[None, None, :, None] * dirs[:, None, None, :]  # (A, O, T, 2)
    h, w = gx.shape
    rows = (len(angles) * len(offsets), len(ts))  # a map under OpenCV's 32767 columns even on a phone photo
    mx = np.clip(pts[..., 0], 0, w - 1.001).astype(np.float32).reshape(rows)
    my = np.clip(pts[..., 1], 0, h - 1.001).astype(np.float32).reshape(rows)
    sx = cv2.remap(gx, mx, my, cv2.INTER_LINEAR).reshape(pts.shape[:3])
    sy = cv2.remap(gy, mx, my, cv2.INTER_LINEAR).reshape(pts.shape[:3])
    score = np.abs(sx * norms[:, None, None, 0] + sy * norms[:, None, None, 1]).mean(axis=2)  # (A, O)
    a, k = np.unravel_index(int(np.argmax(score)), score.shape)
    return starts[a, k], dirs[a]


def fit_corner(image_bgr: np.ndarray, quad: np.ndarray, shift: float = 0.25, turn: float = 0.14,
               steps: int = 9, reach: float = 1.6) -> np.ndarray | None:
    """A card quad from an index window, moved so its top-left corner sits
    where the image's two straightest, strongest edges near it meet.

    An index window a few pixels off its corner shifts the classifier's
    corner view by a tenth of the index, enough to halve a small index's
    read.  The card's top and left edges run from its corner along the
    window's sides, so each is looked for near where the window says
    (``shift`` of the window's width across it, ``turn`` radians either
    way, along ``reach`` times the window's side) and the quad is laid on
    their meeting point and directions, its size unchanged.  None when
    the edges meet farther off than that (no corner there).  Only the
    patch the search can reach is looked at (:func:`edge_gradients`), so a
    phone photo costs what a video frame does.

    ``quad`` runs clockwise from the face's top-left corner
    (:func:`card_quads`).

    >>> import cv2
    >>> img = np.full((200, 200, 3), 40, np.uint8)
    >>> _ = cv2.rectangle(img, (50, 60), (150, 199), (230, 230, 230), -1)
    >>> q = np.array([[53, 57], [153, 57], [153, 197], [53, 197]], np.float32)
    >>> corner = fit_corner(img, q)[0]  # the card's edges lie between pixels 49 and 50, 59 and 60
    >>> bool(np.abs(corner - [49.5, 59.5]).max() <= 1.0)
    True
    """
    q = np.asarray(quad, np.float64).reshape(4, 2)
    o = q[0]
    u, v = (q[1] - o) * WIN_U, (q[3] - o) * WIN_V  # the window's sides
    lu, lv = float(np.hypot(*u)), float(np.hypot(*v))
    if lu < 2 or lv < 2 or not np.all(np.isfinite(q)):
        return None
    uh, vh = u / lu, v / lv
    # the patch every edge sample can reach, with room for the smoothing and the gradient
    h, w = image_bgr.shape[:2]
    r = shift * lu + reach * max(lu, lv) + 8
    x0, y0 = max(0, int(o[0] - r)), max(0, int(o[1] - r))
    x1, y1 = min(w, int(o[0] + r) + 2), min(h, int(o[1] + r) + 2)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    gx, gy = edge_gradients(image_bgr[y0:y1, x0:x1])
    at = np.array([x0, y0], np.float64)
    p1, d1 = _best_edge(gx, gy, o - at, uh, vh, lu * reach, shift * lu, turn, steps)
    p2, d2 = _best_edge(gx, gy, o - at, vh, uh, lv * reach, shift * lu, turn, steps)
    m = np.array([d1, -d2]).T
    if abs(np.linalg.det(m)) < 1e-6:
        return None
    corner = p1 + np.linalg.solve(m, p2 - p1)[0] * d1 + at
    if np.hypot(*(corner - o)) > 1.5 * shift * lu:
        return None
    d1 = d1 if d1 @ uh > 0 else -d1
    d2 = d2 if d2 @ vh > 0 else -d2
    width, height = float(np.hypot(*(q[1] - o))), float(np.hypot(*(q[3] - o)))
    return np.array([corner, corner + d1 * width, corner + d1 * width + d2 * height, corner + d2 * height],
                    np.float32)


def read_index(image_bgr: np.ndarray, quads: list[np.ndarray], probs, box: tuple[int, int, int, int],
               size: tuple[int, int], views: int = 3, side_classes: list[str] | None = None,
               gate: float = 0.0, not_cards: tuple[int, ...] = ()) -> np.ndarray:
    """Class probabilities of the top-left index of each card quad only
    (the rest of such a card is usually under others): ``views`` corner
    windows (:func:`~tablecam.vision.classify.corner_views`), geometric
    mean (:func:`~tablecam.vision.classify.view_probs`).  ``probs`` is the
    classifier network.  With ``side_classes`` (its class list) a read
    split between two suits of one rank is decided again by the top
    edge's other end (:func:`~tablecam.vision.side_index.with_side_suits`).

    With ``gate`` every quad is read through the first window alone, and
    only those whose likeliest card (the classes ``not_cards`` left out)
    reaches ``gate`` through the others: a quad of bare table or of a
    found card's pips, most of those the index localiser's windows give,
    keeps its one-window read.  Why: no read under 0.1 there reached a
    card's floor (0.6) through three windows on the tuning photos, and
    two crops in three are saved (docs/detector-settings.md)."""
    from .classify import corner_views, view_probs
    from .localise import warp_card

    if not quads:
        return np.zeros((0, 0), np.float32)
    # only the rows every corner and side window lies in (147 of 350): the same pixels as the whole card's
    rows = max(v[3] for v in corner_views(box, views))
    cards = [warp_card(image_bgr, q, ordered=True, rows=rows) for q in quads]
    if gate <= 0 or views <= 1:
        return _side_suits(cards, view_probs(cards, probs, box, size, views, corners=1), probs, box, size, side_classes)
    p = view_probs(cards, probs, box, size, 1, corners=1)
    card_p = p.copy()
    card_p[:, list(not_cards)] = 0.0
    look = np.flatnonzero(card_p.max(axis=1) >= gate)
    if len(look):
        p[look] = _side_suits([cards[i] for i in look],
                              view_probs([cards[i] for i in look], probs, box, size, views, corners=1),
                              probs, box, size, side_classes)
    return p


def _side_suits(cards: list[np.ndarray], p: np.ndarray, probs, box: tuple[int, int, int, int],
                size: tuple[int, int], side_classes: list[str] | None) -> np.ndarray:
    """``p`` with a read split between two suits of one rank decided again
    by the top edge's other end, when ``side_classes`` is given
    (:func:`~tablecam.vision.side_index.with_side_suits`)."""
    if side_classes is None:
        return p
    from .side_index import with_side_suits

    return np.stack(with_side_suits(cards, list(p), probs, side_classes, box, size, ends=1))


__all__ = ["index_windows", "card_quads", "read_index", "WIN_U", "WIN_V"]
