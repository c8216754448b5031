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
with some weight on ``back`` (:class:`BackCheckedReader`).
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np

from .classify import _softmax, onnx_session

BACK_CLASSES = ["back", "face", "none"]
VIEW_W, VIEW_H = 64, 88  # the whole card, small: the pattern, not the index, is what tells a back


def card_view(card_bgr: np.ndarray) -> np.ndarray:
    """A rectified card (any size, portrait) as the check's (3, H, W) uint8 input."""
    import cv2

    small = cv2.resize(card_bgr, (VIEW_W, VIEW_H), interpolation=cv2.INTER_AREA)
    return np.ascontiguousarray(small.transpose(2, 0, 1))


def _wrong_quad(quad: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A card's quad moved off it: shifted by 40-80% of a side, or turned 30-60 degrees and shrunk."""
    from .synth import turn_matrix  # training only: the detector never loads the renderer

    q = quad.astype(np.float32)
    c = q.mean(axis=0)
    u, v = q[1] - q[0], q[3] - q[0]
    if rng.random() < 0.6:
        return q + u * rng.uniform(0.4, 0.8) * rng.choice([-1, 1]) + v * rng.uniform(-0.5, 0.5) * (rng.random() < 0.5)
    a = math.radians(rng.uniform(30, 60)) * rng.choice([-1, 1])
    return ((q - c) * rng.uniform(0.6, 1.0)) @ turn_matrix(a).T + c


def loose_quad(quad: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A card's quad off its outline as a box's rectangle is: corners moved
    by 3-7% of the sides, or turned 3-8 degrees, or 5-12% smaller or
    larger and shifted up to 4% - still mostly on the card.

    Why: a back's box gives rectangles inscribed in or fitted to an
    axis-aligned box, a few pixels or degrees off the card; a check that
    saw backs only through quads 0.5-3% off gave such rectangles P(back)
    0.1-0.5 (a true back through its outline shrunk by 10%, wholly on
    its pattern, read 0.53 on average), so backs boxed right were still
    missed."""
    from .synth import jittered_quad, turn_matrix

    mode = rng.random()
    if mode < 0.4:
        return jittered_quad(quad, rng, most=0.07, least=0.03)
    q = quad.astype(np.float32)
    c = q.mean(axis=0)
    if mode < 0.7:
        return (q - c) @ turn_matrix(math.radians(rng.uniform(3, 8)) * rng.choice([-1, 1])).T + c
    longer = max(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[3] - q[0]))
    s = rng.uniform(0.88, 0.95) if rng.random() < 0.5 else rng.uniform(1.05, 1.12)
    return (q - c) * s + c + rng.uniform(-0.04, 0.04, 2).astype(np.float32) * np.float32(longer)


def back_views(n: int, decks: list[str], seed: int = 0, reals: list[np.ndarray] | None = None,
               back_share: float = 0.35, progress: bool = False, loose: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` whole-card views (N, 3, 88, 64) uint8 and labels (``BACK_CLASSES``)
    from rendered table scenes of ``decks``.

    Each visible card (an index corner at least 70% uncovered, as the
    benchmark counts it) is seen through its own quad moved by 0.5-3%; about
    one view in five is a wrong quad (:func:`_wrong_quad`) or a bare patch
    of table, labelled ``none``.  With ``loose`` that share of the visible
    cards is seen once more through a quad off its outline as a box's
    rectangle is (:func:`loose_quad`), labelled as the card.  ``reals``
    (card-free strips of real photos) are laid under half the scenes."""
    from .localise import warp_card
    from .locdata import _background
    from .synth import jittered_quad, progress_bar, render_scene

    rng = np.random.default_rng(seed)
    xs: list[np.ndarray] = []
    ys: list[int] = []
    bar = progress_bar(n, "render back views", "view", progress)
    sizes = [(1280, 720), (960, 540), (1024, 768)]
    while len(xs) < n:
        w, h = sizes[int(rng.integers(len(sizes)))]
        bg = _background(rng, h, w, reals or [])
        sc = render_scene(rng, decks, size=(w, h), n_cards=int(rng.integers(2, 8)), card_px=(70, 220),
                          background=bg, back_share=back_share)
        before = len(xs)
        for card in sc.cards:
            if card.visible:
                xs.append(card_view(warp_card(sc.image, jittered_quad(card.quad, rng))))
                ys.append(0 if card.card == "back" else 1)
                if loose and rng.random() < loose:
                    xs.append(card_view(warp_card(sc.image, loose_quad(card.quad, rng))))
                    ys.append(ys[-1])
            if rng.random() < 0.25:
                xs.append(card_view(warp_card(sc.image, _wrong_quad(card.quad, rng))))
                ys.append(2)
        if rng.random() < 0.3 and sc.cards:  # bare table where a card could lie
            q = sc.cards[0].quad.astype(np.float32)
            shift = np.array([rng.uniform(-0.4, 0.4) * w, rng.uniform(-0.4, 0.4) * h], np.float32)
            xs.append(card_view(warp_card(sc.image, np.clip(q + shift, 0, [w - 1, h - 1]))))
            ys.append(2)
        if bar:
            bar.update(len(xs) - before)
    if bar:
        bar.close()
    return np.stack(xs[:n]), np.array(ys[:n], np.int64)


def real_decoys(n: int, seed: int = 0, real_val: int = 40) -> np.ndarray:
    """``n`` whole-card views (N, 3, 88, 64) uint8 of what the box
    localiser boxes on the real train photos (never the tuning photos of
    :func:`~tablecam.vision.locdata.split_real_train`) away from every
    labelled card: postcards, flyers, printed pictures, boxes - all
    ``none``.  A card-sized picture is patterned edge to edge as a back
    is; a check trained without these called a painting and a postcard
    backs.  Each box is
    seen through its inscribed card quads, moved as a localiser would."""
    from .evaluate import _covers
    from .localise import warp_card
    from .locdata import trained_on_photos
    from .proposals import CardLocaliser, box_iou, box_quads
    from .synth import jittered_quad, photometric

    rng = np.random.default_rng(seed)
    loc = CardLocaliser()
    seen: list[tuple[np.ndarray, np.ndarray]] = []  # (photo, quad) of each decoy
    for img, gts in trained_on_photos(0, real_val):
        cards = [b for _, b in gts]
        for box, _, _ in loc.proposals(img):
            if any(box_iou(box, c) > 0.05 or _covers(box, c) > 0.2 for c in cards):
                continue
            seen += [(img, q) for q in box_quads(box)]
    if not seen:
        return np.zeros((0, 3, VIEW_H, VIEW_W), np.uint8)
    out = []
    for i in range(n):
        img, q = seen[i % len(seen)] if i < len(seen) else seen[int(rng.integers(len(seen)))]
        view = warp_card(img, jittered_quad(q, rng, 0.05))
        out.append(card_view(photometric(view, rng, strength=0.5) if i >= len(seen) else view))
    return np.stack(out)


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
    detector's floors for a back (``min_conf_rare``, ``under_conf_rare``)
    apply to the check's word.  Everything else the classifier reads is
    passed through unchanged.

    Two more uses, measured and off by default (``CardDetector``'s
    docstring): ``face_below`` also shows it the face reads under that
    confidence, ``veto`` lets its P(back) stand when it is under ``veto``
    (a back read the check sees as a face or a picture)."""

    def __init__(self, classifier, check: BackCheck, low: float = 0.1, face_below: float = 0.0, veto: float = 0.0):
        self.classifier = classifier
        self.check = check
        self.low = low
        self.face_below = face_below
        self.veto = veto
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
        said = self.check.probs([cards[i] for i in ask])[:, self.check_back]
        for i, b in zip(ask, said):
            if b > probs[i][self.back] or b < self.veto:  # a back the check sees as a face or a picture: not a back
                probs[i] = with_back_share(probs[i], self.back, float(b))
        return probs

    def _ask(self, p: np.ndarray) -> bool:
        """Whether the check sees this read: it leans to ``back`` or
        ``none`` with P(back) at least ``low``, or it is a face card read
        under ``face_below`` (a back's pattern read as a court card)."""
        top = int(np.argmax(p))
        if top in (self.back, self.none):
            return p[self.back] >= self.low
        return p[top] < self.face_below
