"""The suit printed at the other end of the top edge ("side" or "peek" index).

Most packs print the index as the rank over the suit in one corner.  Some
(large-index and "peek" packs; `tango_nuevo` among the training decks)
print the rank in the top-left corner and the suit in the top-right one,
so the corner window the classifier reads shows a rank and no suit: the
colour of the rank tells hearts-or-diamonds from clubs-or-spades, and the
read splits between the two suits of that colour (a seven read 0.55
diamonds, 0.37 hearts).

The *side window* puts the top half of the corner window (the rank) over
the top half of the same window at the other end of the top edge (where
such a pack prints the suit), so it looks to the classifier like an
ordinary index.  It is consulted only to split a read between two cards
of one rank (:func:`side_suit`); on an ordinary pack that window holds a
pip, part of a court picture or nothing, and the split it gives is
trusted only when the window reads one of the two cards.
"""

from __future__ import annotations

import numpy as np

from .classify import CORNER_BOX, INPUT_H, INPUT_W, card_ends, corner_crops, crops_batch

# when a read is split between two suits of one rank: the surer of the two under
# SPLIT_BELOW, the other at least SPLIT_SHARE of it, and the side window's own
# read one of the two at SIDE_SURE or more (chosen on the training decks'
# faces at 100 and 130 px and through the detector on the tuning sets, where a
# SPLIT_SHARE of 0.25 read a false card in a pile: CardDetector's notes)
SPLIT_BELOW, SPLIT_SHARE, SIDE_SURE = 0.9, 0.4, 0.5


def side_crops(card_bgr: np.ndarray, box: tuple[int, int, int, int] = CORNER_BOX,
               size: tuple[int, int] = (INPUT_W, INPUT_H), ends: int = 2) -> np.ndarray:
    """The side windows of both ends of a rectified card (top, then the
    bottom turned upright; the top alone with ``ends`` 1) as an (ends, 3, H, W) float32 batch in [0, 1]:
    the top half of the corner window ``box`` over the top half of its
    mirror position at the other end of the same edge.

    >>> card = np.zeros((350, 250, 3), np.uint8)
    >>> card[:72, :80] = 255                # the rank's half of the top-left window
    >>> card[:72, 170:] = 128               # the top-right window's top half
    >>> x = side_crops(card, size=(80, 144))
    >>> x.shape, float(x[0, 0, 0, 0]), round(float(x[0, 0, 100, 0]), 3), float(x[1].max())
    ((2, 3, 144, 80), 1.0, 0.502, 0.0)
    """
    x0, y0, x1, y1 = box
    half = (y1 - y0) // 2
    tops = card_ends(card_bgr, ends)
    width = tops[0].shape[1]
    return crops_batch([np.vstack([end[y0:y0 + half, x0:x1], end[y0:y1 - half, width - x1:width - x0]])
                        for end in tops], size)


def split_pair(p: np.ndarray, classes: list[str]) -> tuple[int, int] | None:
    """The two cards a read is split between, when they are one rank in
    two suits, the surer under ``SPLIT_BELOW`` and the other at least
    ``SPLIT_SHARE`` of it; None otherwise (``none`` is passed over).

    >>> classes = ["H7", "D7", "S7", "none"]
    >>> split_pair(np.array([0.37, 0.55, 0.02, 0.06]), classes)
    (1, 0)
    >>> split_pair(np.array([0.05, 0.93, 0.01, 0.01]), classes) is None  # sure already
    True
    """
    order = [int(i) for i in np.argsort(-p) if classes[i] != "none"][:2]
    if len(order) < 2:
        return None
    a, b = order
    ca, cb = classes[a], classes[b]
    if p[a] >= SPLIT_BELOW or p[b] < SPLIT_SHARE * p[a]:
        return None
    if len(ca) != 2 or len(cb) != 2 or ca[1] != cb[1] or ca[0] == cb[0] or "JK" in (ca, cb):
        return None
    return a, b


def side_suit(p: np.ndarray, side: np.ndarray, pair: tuple[int, int]) -> np.ndarray:
    """``p`` with the share of the two cards of ``pair`` split again by the
    side window's read ``side`` (the product of the two reads, within the
    pair's own total), when the side window reads one of them at
    ``SIDE_SURE`` or more; ``p`` unchanged otherwise.

    >>> p = np.array([0.37, 0.55, 0.02, 0.06])
    >>> side_suit(p, np.array([0.90, 0.05, 0.03, 0.02]), (1, 0)).round(2).tolist()
    [0.85, 0.07, 0.02, 0.06]
    >>> side_suit(p, np.array([0.1, 0.1, 0.7, 0.1]), (1, 0)) is p  # it reads another card
    True
    """
    a, b = pair
    k = int(np.argmax(side))
    if k not in pair or side[k] < SIDE_SURE:
        return p
    wa, wb = p[a] * side[a], p[b] * side[b]
    if wa + wb <= 0:
        return p
    out = p.copy()
    total = p[a] + p[b]
    out[a], out[b] = total * wa / (wa + wb), total * wb / (wa + wb)
    return out


def with_side_suits(cards: list[np.ndarray], probs: list[np.ndarray], network, classes: list[str],
                    box: tuple[int, int, int, int], size: tuple[int, int], ends: int = 2) -> list[np.ndarray]:
    """Each read of ``probs`` (rectified ``cards``) split between two suits
    of one rank decided again by a side window (:func:`side_suit`).

    The side window used is that of the end whose corner reads the pair
    most (``ends`` 2; with 1 the top end, for a card read by its top-left
    index alone): a peek-index pack prints the suit on the same edge as
    the rank that was read, while the other end is often under another
    card, whose pips would then decide the suit.  Only the split reads cost
    a network call (``network``: a batch of crops -> class probabilities)."""
    pairs = [(i, pr) for i, p in enumerate(probs) if (pr := split_pair(p, classes)) is not None]
    if not pairs:
        return probs
    per = 2 * ends  # the corner and side windows of each end read
    reads = network(np.concatenate([np.concatenate([corner_crops(cards[i], box, size, ends),
                                                    side_crops(cards[i], box, size, ends)]) for i, _ in pairs]))
    out = list(probs)
    for (i, (a, b)), r in zip(pairs, reads.reshape(len(pairs), per, -1)):
        end = int(np.argmax([r[e][a] + r[e][b] for e in range(ends)]))
        out[i] = side_suit(probs[i], r[ends + end], (a, b))
    return out


__all__ = ["side_crops", "split_pair", "side_suit", "with_side_suits", "SPLIT_BELOW", "SPLIT_SHARE", "SIDE_SURE"]
