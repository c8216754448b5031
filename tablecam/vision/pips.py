"""Count the pips of a rectified number card: a second witness of its rank.

The corner classifier reads a card from its index alone, and on packs it
never saw it confuses ranks whose index glyphs look alike in a small or
unusual font (five and eight, four and six, two and three; on 20
generated designs no stage trained on, 74 of 140 errors kept the suit and
missed the rank).  The pips in the middle of a two to ten say the rank in
a way every pack shares: so many signs of one size, laid out between the
index columns.  Counting them is classical image work (ink against the
card's paper, connected blobs of one size) and needs no training.

:func:`count_pips` gives the count or ``None`` when the middle of the card
does not look like pips (a court card's picture, an ace's ornament, a card
half under another, blur that merges signs): it is only a witness, and
:func:`with_pips` weighs it against what the classifier read, so it
decides only between ranks the classifier already finds likely.
"""

from __future__ import annotations

import numpy as np

# the middle of a 250x350 rectified card where pips lie, clear of the index columns
PIP_REGION = (0.17, 0.06, 0.83, 0.94)
# a pixel is ink where its darkest channel is under this share of the paper around it
INK_RATIO = 0.7
RANK_OF_COUNT = {2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "T"}


def ink_mask(card_bgr: np.ndarray) -> np.ndarray:
    """Ink (dark or coloured print) against the card's paper, as a uint8
    mask: each pixel's darkest channel against the paper around it (a
    large closing), so a shadow or a tinted paper is not ink."""
    import cv2

    low = card_bgr.min(axis=2).astype(np.float32)
    k = max(3, round(card_bgr.shape[1] * 0.18)) | 1  # wider than a pip
    paper = cv2.morphologyEx(low, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    paper = cv2.GaussianBlur(paper, (0, 0), k / 5)
    ratio = low / np.maximum(paper, 1.0)
    mask = (ratio < INK_RATIO).astype(np.uint8) * 255
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))


def count_pips(card_bgr: np.ndarray, region: tuple[float, float, float, float] = PIP_REGION,
               spread: float = 2.2) -> int | None:
    """The number of pips in the middle of a rectified card (2 to 10), or
    None when the blobs there are not a set of like pips.

    The blobs kept are those of at least 0.4% of the region; they must be
    2 to 10, of sizes within ``spread`` of each other, and none much larger
    (a court card's picture or frame is one large blob).

    >>> import cv2
    >>> card = np.full((350, 250, 3), 235, np.uint8)
    >>> for x, y in [(80, 80), (170, 80), (125, 175), (80, 270), (170, 270)]:
    ...     _ = cv2.circle(card, (x, y), 16, (20, 20, 190), -1)
    >>> count_pips(card)
    5
    >>> count_pips(np.full((350, 250, 3), 235, np.uint8)) is None
    True
    """
    return pip_count(signs(card_bgr, region), spread)


def pip_count(found: list[tuple[float, float, float, float]] | None, spread: float = 2.2) -> int | None:
    """:func:`count_pips` from the card's :func:`signs`, already found."""
    if found is None:
        return None
    blobs = sorted(share for share, _, _, _ in found)
    if not 2 <= len(blobs) <= 10:
        return None
    if blobs[-1] > spread * blobs[0] or blobs[-1] > 0.12:
        return None
    return len(blobs)


def number_layout(found: list[tuple[float, float, float, float]] | None) -> int | None:
    """The pip count when the middle's signs lie as a two to ten lays its pips out, else None.

    Stricter than :func:`pip_count`, because it is used against the index: a
    court card's picture, broken up by blur, can count as two or three blobs,
    but not as like, compact signs (sizes within 1.8 of each other, none
    longer than twice its width: a pip the middle's edge cuts) in at most
    three columns, reaching over half the middle's height, each with a
    partner where the signs turned end over end about their own middle put
    it (one sign may lack one from five signs up: a seven's; their own
    middle, as a 480p outline may lie a few millimetres off the card).
    On flat and shrunken renders of the 38 decks the simulator draws (each
    face 250, 80, 60 and 45 pixels wide, blurred, noisy, JPEG), no court
    card, ace or joker lies so: 0 of 1,824 court, 608 ace and 152 joker views.

    >>> three = [(0.02, 0.5, 0.12, 1.0), (0.02, 0.5, 0.47, 1.0), (0.02, 0.5, 0.87, 1.1)]
    >>> number_layout(three), number_layout(three[:1] + [(0.02, 0.2, 0.5, 1.0)])
    (3, None)
    >>> number_layout([(0.02, 0.45, 0.30, 1.0), (0.05, 0.55, 0.70, 1.0)]) is None   # unlike sizes
    True
    """
    if found is None or not 2 <= len(found) <= 10:
        return None
    areas = [a for a, _, _, _ in found]
    if max(areas) > 1.8 * min(areas) or max(areas) > 0.08 or any(e > 2.0 for *_, e in found):
        return None
    pts = np.array([(x, y) for _, x, y, _ in found])
    if float(np.ptp(pts[:, 1])) < 0.5:
        return None
    if int(np.sum(np.diff(np.sort(pts[:, 0])) > 0.12)) > 2:
        return None
    turned = 2 * pts.mean(0) - pts          # about the signs' own middle: an outline a little off the card
    lone = sum(1 for q in turned if float(np.hypot(*(pts - q).T).min()) > 0.1)
    return len(found) if lone <= (1 if len(found) >= 5 else 0) else None


def signs(card_bgr: np.ndarray, region: tuple[float, float, float, float] = PIP_REGION
          ) -> list[tuple[float, float, float, float]] | None:
    """The ink blobs in the middle (``region``) of a rectified card, each of at least 0.4 % of it,
    as ``(area, x, y, elongation)``: area a share of the middle, centre as shares of its width and
    height, elongation the long side of its bounding box over the short; None for no picture."""
    import cv2

    middle = ink_in(card_bgr, region)
    if middle is None:
        return None
    mask = middle[1]
    n, _, stats, centres = cv2.connectedComponentsWithStats(mask, connectivity=8)
    h, w = mask.shape
    out = []
    for i in range(1, n):
        a = int(stats[i, cv2.CC_STAT_AREA])
        if a >= 0.004 * w * h:
            bw, bh = int(stats[i, cv2.CC_STAT_WIDTH]), int(stats[i, cv2.CC_STAT_HEIGHT])
            out.append((a / (w * h), float(centres[i][0]) / w, float(centres[i][1]) / h,
                        max(bw, bh) / max(1, min(bw, bh))))
    return out


def ink_in(card_bgr: np.ndarray, region: tuple[float, float, float, float] = PIP_REGION
           ) -> tuple[np.ndarray, np.ndarray] | None:
    """``region`` (shares of the card) of a rectified card at half its size, and its ink
    (:func:`ink_mask`, uint8): what the pips are counted in and their colour measured on; None for
    no picture.  Half the rectified size: a pip is still 15 pixels or more, at a quarter of the work."""
    import cv2

    if card_bgr is None or card_bgr.ndim != 3 or card_bgr.size == 0:
        return None
    small = cv2.resize(card_bgr, (125, 175), interpolation=cv2.INTER_AREA)
    x0, y0, x1, y1 = (int(round(v * s)) for v, s in zip(region, (125, 175, 125, 175)))
    return small[y0:y1, x0:x1], ink_mask(small)[y0:y1, x0:x1]


def with_pips(probs: np.ndarray, classes: list[str], count: int | None, ratio: float = 20.0) -> np.ndarray:
    """The classifier's ``probs`` with the pip count as evidence: when the
    classifier's choice is a number card and the pips count ``count``, the
    number cards of that rank weigh ``ratio`` times more, and the whole is
    renormalised (the count is right about 19 times in 20 on packs no
    stage trained on).  A court card, ace, joker, back or ``none`` read,
    or no count, leaves ``probs`` as they are: a court card's picture may
    count as two pips.

    >>> classes = ["S5", "S8", "H8", "none"]
    >>> [round(float(v), 2) for v in with_pips(np.array([0.2, 0.7, 0.05, 0.05]), classes, 5)]
    [0.83, 0.15, 0.01, 0.01]
    >>> with_pips(np.array([0.2, 0.7, 0.05, 0.05]), classes, None).tolist()
    [0.2, 0.7, 0.05, 0.05]
    >>> [round(float(v), 3) for v in with_pips(np.array([0.001, 0.95, 0.01, 0.039]), classes, 5)]  # sure of the eight
    [0.02, 0.932, 0.01, 0.038]
    """
    top = classes[int(np.argmax(probs))]
    if count is None or len(top) != 2 or top[1] not in "23456789T":
        return probs
    rank = RANK_OF_COUNT.get(count)
    if rank is None:
        return probs
    out = np.asarray(probs, np.float64).copy()
    for i, c in enumerate(classes):
        if len(c) == 2 and c[1] == rank:
            out[i] *= ratio
    return (out / out.sum()).astype(np.asarray(probs).dtype)


__all__ = ["count_pips", "pip_count", "number_layout", "signs", "ink_in", "with_pips", "ink_mask", "PIP_REGION"]
