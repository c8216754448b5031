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


def index_windows(quad: np.ndarray, corners: tuple[int, ...] = (0, 2)) -> list[np.ndarray]:
    """The rank-and-suit index windows of a card, as image quads.

    ``quad`` runs clockwise from the top-left corner of the upright face;
    the window is the classifier's corner window (``CORNER_BOX`` of a
    250x350 card) at the top-left (corner 0) and, turned 180 degrees, the
    bottom-right (corner 2).  Each window starts at its card corner and
    runs clockwise like the card, so its first point is the card's corner
    and its long side follows the card's.

    >>> q = np.array([[0, 0], [250, 0], [250, 350], [0, 350]], np.float32)
    >>> [w.round().astype(int).tolist() for w in index_windows(q)]
    [[[0, 0], [80, 0], [80, 144], [0, 144]], [[250, 350], [170, 350], [170, 206], [250, 206]]]
    """
    q = np.asarray(quad, np.float32).reshape(4, 2)
    out = []
    for c in corners:
        o = q[c]
        u = (q[(c + 1) % 4] - o) * WIN_U
        v = (q[(c + 3) % 4] - o) * WIN_V
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


def read_index(image_bgr: np.ndarray, quads: list[np.ndarray], probs, box: tuple[int, int, int, int],
               size: tuple[int, int], views: int = 3, side_classes: list[str] | None = None) -> np.ndarray:
    """Class probabilities of the top-left index of each card quad only
    (the rest of such a card is usually under others): ``views`` corner
    windows (:func:`~tablecam.vision.classify.corner_views`), geometric
    mean (:func:`~tablecam.vision.classify.view_probs`).  ``probs`` is the
    classifier network.  With ``side_classes`` (its class list) a read
    split between two suits of one rank is decided again by the top
    edge's other end (:func:`~tablecam.vision.side_index.with_side_suits`)."""
    from .classify import view_probs
    from .localise import warp_card

    if not quads:
        return np.zeros((0, 0), np.float32)
    cards = [warp_card(image_bgr, q, ordered=True) for q in quads]
    p = view_probs(cards, probs, box, size, views, corners=1)
    if side_classes is None:
        return p
    from .side_index import with_side_suits

    return np.stack(with_side_suits(cards, list(p), probs, side_classes, box, size, ends=1))


__all__ = ["index_windows", "card_quads", "read_index", "WIN_U", "WIN_V"]
