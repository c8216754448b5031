"""Is this quad a face-down card?  A whole-card check of the corner reads.

The corner classifier reads a card from its two index windows.  A card's
back has no index, so a back is told only by its corners' pattern, and many
backs show a plain border there - the same plain paper as the body of a
face card seen through a wrong quad, which the classifier learnt to call
``none``.  On the tuning scenes a clear, lone back read 0.44-0.89 as
``back`` (the floor for a back is 0.9: wood grain and carpet read as backs
too), and backs were half the cards missed.

The back check looks at the whole rectified card, small (64x88): a back's
pattern fills it edge to edge and no index or pip is anywhere; a face card
shows white paper with ink; a wrong quad shows table or half a card.  Its
three classes are ``back``, ``face`` and ``none``.  It is trained on
rendered table scenes (fans, piles, fingers, the real photos' floors as
backgrounds; 35% of the cards face down), each card seen through its own
quad moved as a localiser would find it, half of them once more through
a rectangle a little off the card as a box gives it (:func:`loose_quad`),
and wrong quads labelled ``none`` (:func:`back_views`).  The detector asks
it only about reads the corner classifier leaned to ``back`` or ``none``
with some weight on ``back`` (:class:`BackCheckedReader`).  Its training
views are drawn by :mod:`tablecam.training.backdata`.

A back is told by nothing but its whole pattern, so a still's back must lie
whole in the picture (:func:`cut_by_edge`): the part of a quad beyond the
picture's edge is warped from the edge's own pixels smeared outwards, a
striped picture the check never saw (a heating grille cut by the top edge
of edje ``IMG_2545`` read as a back at 1.00).  A face card cut so is still
read by its index.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np

from .classify import _softmax, onnx_session
from .detections import _long_side

BACK_CLASSES = ["back", "face", "none"]
VIEW_W, VIEW_H = 64, 88  # the whole card, small: the pattern, not the index, is what tells a back


def card_view(card_bgr: np.ndarray) -> np.ndarray:
    """A rectified card (any size, portrait) as the check's (3, H, W) uint8 input."""
    import cv2

    small = cv2.resize(card_bgr, (VIEW_W, VIEW_H), interpolation=cv2.INTER_AREA)
    return np.ascontiguousarray(small.transpose(2, 0, 1))


class BackCheck:
    """The ONNX back check (``models/back_check.onnx``): P(back, face, none) per rectified card."""

    def __init__(self, path: str | Path, threads: int = 1):
        self.session = onnx_session(path, threads)
        self.input_name = self.session.get_inputs()[0].name
        meta = Path(path).with_suffix(".json")
        self.classes = json.loads(meta.read_text()).get("classes", BACK_CLASSES) if meta.exists() else BACK_CLASSES

    def probs(self, cards: list[np.ndarray]) -> np.ndarray:
        if not cards:
            return np.zeros((0, len(self.classes)), np.float32)
        x = np.stack([card_view(c) for c in cards]).astype(np.float32) / 255.0
        return _softmax(self.session.run(None, {self.input_name: x})[0])


def cut_by_edge(quad: np.ndarray, width: int, height: int, share: float) -> bool:
    """Whether ``quad`` reaches beyond a ``width`` x ``height`` picture by
    more than ``share`` of its short side (a localiser's quad of a card
    lying whole in the picture may poke out by a few pixels).

    >>> q = np.array([[10, -60], [110, -60], [110, 80], [10, 80]], np.float32)
    >>> cut_by_edge(q, 400, 300, 0.05), cut_by_edge(q + [0, 64], 400, 300, 0.05)
    (True, False)
    """
    q = np.asarray(quad, np.float64).reshape(4, 2)
    short = min(np.hypot(*(q[1] - q[0])), np.hypot(*(q[2] - q[1])))
    out = max(0.0, -q[:, 0].min(), -q[:, 1].min(), q[:, 0].max() - width, q[:, 1].max() - height)
    return bool(out > share * short)


def outsized(back: np.ndarray, faces: list[np.ndarray], ratio: float, reach: float = 3.0) -> bool:
    """Whether the back ``back`` is more than ``ratio`` times as long as the
    face card nearest it (of ``faces``, quads; only those whose centre lies
    within ``reach`` of their own lengths): a pack's backs are the size of
    its faces, so a longer thing read as a back is something else of that
    pattern (a postcard, a flyer, a menu).  Near cards only, because a
    camera looking down at a slant shows the far cards smaller.  A back
    whose quad overlaps a face card is not judged so: a quad fitted round
    a fan or a pile holds its neighbours too, and the back in it is real.

    >>> card = np.array([[0, 0], [60, 0], [60, 90], [0, 90]], np.float32)
    >>> outsized(card * 1.4 + [100, 0], [card], 1.25), outsized(card * 1.1 + [100, 0], [card], 1.25)
    (True, False)
    >>> outsized(card * 1.4 + [1000, 0], [card], 1.25), outsized(card * 1.4, [], 1.25)
    (False, False)
    >>> outsized(card * 1.4 + [30, 0], [card], 1.25)  # round a pile with the face card
    False
    """
    import cv2

    b = np.asarray(back, np.float64).reshape(4, 2)
    near = []
    for f in faces:
        q = np.asarray(f, np.float64).reshape(4, 2)
        length = _long_side(q)
        gap = float(np.hypot(*(b.mean(0) - q.mean(0))))
        if length <= 0 or gap > reach * length:
            continue
        shared, _ = cv2.intersectConvexConvex(b.astype(np.float32), q.astype(np.float32))
        if shared > 0.05 * cv2.contourArea(q.astype(np.float32)):
            return False
        near.append((gap, length))
    return bool(near) and _long_side(b) > ratio * min(near)[1]


def with_back_share(p: np.ndarray, back: int, share: float) -> np.ndarray:
    """A read ``p`` whose class ``back`` takes the back check's ``share``,
    the other classes scaled to make room (so the detector's floors for a
    back apply to the check's word).

    >>> with_back_share(np.array([0.5, 0.3, 0.2]), 1, 0.65).round(3).tolist()
    [0.25, 0.65, 0.1]
    """
    rest = 1.0 - p[back]
    q = p * ((1.0 - share) / rest if rest > 0 else 0.0)
    q[back] = share
    return q


class BackCheckedReader:
    """The corner classifier, with its leaning-to-back reads checked whole.

    A read whose likeliest class is ``back`` or ``none`` and that gives
    ``back`` at least ``low`` is shown to the back check; where the check
    says ``back`` surer than the corners did, that becomes the read's
    ``back`` share (the other classes scaled down to make room), so the
    detector's floors for a back (``min_conf_rare``, ``close_conf_rare``)
    apply to the check's word.  Everything else the classifier reads is
    passed through unchanged."""

    def __init__(self, classifier, check: BackCheck, low: float = 0.1):
        self.classifier = classifier
        self.check = check
        self.low = low
        self.back = classifier.classes.index("back")
        self.none = classifier.classes.index("none")
        self.check_back = check.classes.index("back")

    def around(self, classifier) -> "BackCheckedReader":
        """The same check, with the same settings, around another corner
        classifier (the bench's torch one)."""
        other = copy.copy(self)
        other.classifier = classifier
        return other

    def __getattr__(self, name):  # classes, corner_box, input_size, probs ...
        if name == "classifier":  # not set yet (a copy being built): no endless lookup
            raise AttributeError(name)
        return getattr(self.classifier, name)

    def classify_cards(self, cards: list[np.ndarray], views: int = 1) -> list[np.ndarray]:
        probs = self.classifier.classify_cards(cards, views=views)
        ask = [i for i, p in enumerate(probs) if self._ask(p)]
        if not ask:
            return probs
        from .localise import whole_card

        said = self.check.probs([whole_card(cards[i]) for i in ask])[:, self.check_back]
        for i, b in zip(ask, said):
            if b > probs[i][self.back]:
                probs[i] = with_back_share(probs[i], self.back, float(b))
        return probs

    def _ask(self, p: np.ndarray) -> bool:
        """Whether the check sees this read: it leans to ``back`` or
        ``none`` with P(back) at least ``low``."""
        return int(np.argmax(p)) in (self.back, self.none) and p[self.back] >= self.low
