"""The back check's training views: rendered cards seen through their own,
loose and wrong quads, and what the localiser boxes on real photos away
from the cards (``tablecam train-back-check``; the check itself runs in
:mod:`tablecam.vision.backs`)."""

from __future__ import annotations

import math

import numpy as np

from ..vision.backs import VIEW_H, VIEW_W, card_view


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
    from ..vision.localise import warp_card
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
    :func:`~tablecam.training.locdata.split_real_train`) away from every
    labelled card: postcards, flyers, printed pictures, boxes - all
    ``none``.  A card-sized picture is patterned edge to edge as a back
    is; a check trained without these called a painting and a postcard
    backs.  Each box is
    seen through its inscribed card quads, moved as a localiser would."""
    from .evaluate import _covers
    from ..vision.localise import warp_card
    from .locdata import trained_on_photos
    from ..vision.proposals import CardLocaliser, box_iou, box_quads
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
