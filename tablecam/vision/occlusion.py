"""Two cards cannot each lie on the other's index.

A face card is read from its rank-and-suit index, so a card reported
must show the index corner it was read from.  Of two overlapping cards
one lies on top; if each was read from a corner inside the other's
outline, neither could show that corner while the other covers it, so
one of the two readings is wrong - in practice one card read twice
through rectangles a few pixels apart (in a tuning scene a five of clubs
read again as a three).  The surer reading stays.

What counts is the corner each card was *read* from: a card on top
shows both of its corners, a card under it shows the corner it was read
from beyond the card on it, so a real pile is never a contradiction.
A card read from a corner that lies inside another card's outline must
lie on that card; if that card too was read from a corner inside the
first one's outline, one of the two reads is of the other card's face.
Backs have no index and are left alone.

The cards of one pack are one size, and a card on top is nearer the
camera, so it never looks smaller than a card it covers: a face read
whose outline lies almost wholly inside a surer card's and is clearly
smaller than it and than the picture's usual card (:func:`within`) is a
part of that card read again (edje ``IMG_2638``: a rectangle inside the
king of spades, turned 20 degrees, read the king's index as a four of
spades).
"""

from __future__ import annotations

import numpy as np

# an index corner: this share of the card's width and height from the corner (as the scenes' ground truth)
CORNER_U, CORNER_V = 0.25, 0.28
# a read this sure is never dropped: the index it read is on the picture, while a card's
# outline can be fitted badly (a seven of hearts' rectangle reaching over the eight of
# diamonds under it would otherwise have taken the eight's index)
SURE_READ = 0.9
# a card read is a part of another card when this share of its outline lies inside that card's
# and it is at most this share of that card's area (cards overlapping in a pile are one size:
# a card turned over another by 10 degrees has 0.9 of its area inside it, at an area ratio of 1)
WITHIN_INSIDE, WITHIN_SMALLER = 0.85, 0.8


def index_corners(quad: np.ndarray) -> list[np.ndarray]:
    """The two index corners of a card quad (clockwise from the top-left
    of the upright face): the top-left and the bottom-right.

    >>> q = np.array([[0, 0], [100, 0], [100, 140], [0, 140]], np.float32)
    >>> [np.round(c.astype(float), 1).tolist() for c in index_corners(q)]
    [[[0.0, 0.0], [25.0, 0.0], [25.0, 39.2], [0.0, 39.2]], [[100.0, 140.0], [75.0, 140.0], [75.0, 100.8], [100.0, 100.8]]]
    """
    from .indexes import index_windows

    return index_windows(quad, share=(CORNER_U, CORNER_V))


def seen_share(quad: np.ndarray, over: np.ndarray, end: int | None = None, samples: int = 7) -> float:
    """How much of ``quad``'s index corner ``end`` (0 the top-left, 1 the
    bottom-right; None the better of the two) lies outside ``over``, on a
    grid of ``samples`` x ``samples`` points over the corner.

    >>> sq = lambda x, y, s=100: np.array([[x, y], [x + s, y], [x + s, y + 1.4 * s], [x, y + 1.4 * s]], np.float32)
    >>> seen_share(sq(0, 0), sq(0, 0)), seen_share(sq(0, 0), sq(300, 0))
    (0.0, 1.0)
    >>> round(seen_share(sq(0, 0), sq(10, 10)), 2), seen_share(sq(0, 0), sq(10, 10), end=1)  # the top-left peeks out
    (0.59, 0.0)
    """
    import cv2

    t = (np.arange(samples) + 0.5) / samples
    uu, vv = np.meshgrid(t, t)
    poly = np.asarray(over, np.float32).reshape(-1, 1, 2)
    corners = index_corners(quad)
    best = 0.0
    for c in corners if end is None else [corners[end]]:
        o, u, v = c[0], c[1] - c[0], c[3] - c[0]
        pts = o + uu.reshape(-1, 1) * u + vv.reshape(-1, 1) * v
        inside = sum(cv2.pointPolygonTest(poly, (float(x), float(y)), False) >= 0 for x, y in pts)
        best = max(best, 1.0 - inside / len(pts))
    return best


def contradicts(a: np.ndarray, b: np.ndarray, seen: float, end_a: int | None = None,
                end_b: int | None = None) -> bool:
    """Whether cards ``a`` and ``b`` each lie on the other's index: each
    shows less than ``seen`` of its index corner ``end_a`` / ``end_b`` (the
    end its card was read from; None: the better end) outside the other.

    >>> sq = lambda x, y: np.array([[x, y], [x + 100, y], [x + 100, y + 140], [x, y + 140]], np.float32)
    >>> turned = np.roll(sq(5, 5), 2, axis=0)  # the same card read upside down, a little off
    >>> contradicts(sq(0, 0), turned, 0.3), contradicts(sq(0, 0), sq(40, 50), 0.3)
    (True, False)
    >>> contradicts(sq(0, 0), sq(40, 50), 0.3, end_a=1, end_b=0)  # each read where the other lies
    True
    """
    return seen_share(a, b, end_a) < seen and seen_share(b, a, end_b) < seen


def within(a: np.ndarray, b: np.ndarray, usual: float | None = None, inside: float = WITHIN_INSIDE,
           smaller: float = WITHIN_SMALLER) -> bool:
    """Whether card quad ``a`` lies inside ``b``'s outline (at least
    ``inside`` of its area) and is smaller (at most ``smaller`` of ``b``'s
    area, and of ``usual``, the picture's usual card area, when given): a
    part of card ``b``, since no card of the pack can lie so.

    Why ``usual``: a quad fitted round a pile is larger than its card, and
    a whole card of the pile lies inside it; a part of a card is smaller
    than the cards of the picture, not only than the quad it lies in.

    >>> sq = lambda x, y, s=100: np.array([[x, y], [x + s, y], [x + s, y + 1.4 * s], [x, y + 1.4 * s]], np.float32)
    >>> within(sq(20, 20, 70), sq(0, 0)), within(sq(0, 0), sq(20, 20, 70))  # a smaller rectangle inside
    (True, False)
    >>> within(sq(5, 5), sq(0, 0)), within(sq(60, 0, 70), sq(0, 0))        # a card on a card; half out
    (False, False)
    >>> within(sq(20, 20, 70), sq(0, 0), usual=70 * 98)                    # a card inside a quad round a pile
    False
    """
    import cv2

    from .localise import order_quad

    pa = order_quad(np.asarray(a, np.float32)).astype(np.float32)
    pb = order_quad(np.asarray(b, np.float32)).astype(np.float32)
    area_a, area_b = _area(pa), _area(pb)
    if area_a <= 0 or area_a > smaller * min(area_b, usual if usual is not None else area_b):
        return False
    inter, _ = cv2.intersectConvexConvex(pa, pb)
    return inter >= inside * area_a


def _area(quad: np.ndarray) -> float:
    import cv2

    return float(cv2.contourArea(np.asarray(quad, np.float32).reshape(-1, 1, 2)))


def drop_hidden(dets: list, seen: float = 0.4, read_ends=None, sure: float = SURE_READ) -> list:
    """``dets`` (``Detection``-like: ``card``, ``conf``, ``box``, ``quad``)
    without the less sure of each pair of face cards that contradict each
    other (:func:`contradicts`) or of which it is a part (:func:`within`,
    smaller than the median face card found), when it was read under
    ``sure``; the order
    of the rest kept.  ``read_ends(cards)`` says which index corner each
    card was read from (0 the top-left, 1 the bottom-right of its quad in
    portrait order, as ``warp_card`` turns it upright); it is asked once,
    for the face cards whose boxes overlap another's.  Without it each
    card is taken at its better end."""
    from .localise import order_quad
    from .proposals import box_iou

    if seen <= 0:
        return dets
    faces = sorted((d for d in dets if d.card != "back" and d.quad is not None), key=lambda d: -d.conf)
    touching = [(d, k) for i, d in enumerate(faces) for k in faces[:i] if box_iou(d.box, k.box) > 0]
    if not touching:
        return dets
    portrait = {id(d): order_quad(d.quad) for d in faces}
    ends: dict[int, int | None] = {}
    if read_ends is not None:
        asked = list({id(d): d for pair in touching for d in pair}.values())
        ends = {id(d): e for d, e in zip(asked, read_ends(asked))}
    usual = float(np.median([_area(portrait[id(d)]) for d in faces]))  # the picture's usual card
    dropped: set[int] = set()
    for d, k in touching:  # d the less sure; k surer, unless k itself was dropped
        if (d.conf < sure and id(d) not in dropped and id(k) not in dropped
                and (within(d.quad, k.quad, usual) or contradicts(portrait[id(d)], portrait[id(k)], seen,
                                                                   ends.get(id(d)), ends.get(id(k))))):
            dropped.add(id(d))
    return [d for d in dets if id(d) not in dropped]


__all__ = ["index_corners", "seen_share", "contradicts", "within", "drop_hidden"]
