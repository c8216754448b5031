"""The corner views detect() itself asks about, for teaching one network two stages' mean.

The shipped corner classifier averages two networks (``average-classifiers``),
so every corner view detect() reads costs two network runs.  A single
network taught the pair's mean probability (``tablecam train --teacher``)
costs one; what matters is that it gives the pair's probabilities on the
views detect() actually reads, and most of those are views through
candidate quads that are not the card's outline: loose quads over a pile,
a box's inscribed rectangles, index windows on bare table.  The drawn
decks' corner views rarely look like that, so this module records the
views detect() reads on rendered tables of the training decks and on the
real train photos the card localiser trains on (never the 40 photos kept
for tuning, nor the test split, nor blackjack-tracker or jackfurby): no
labels, the teacher labels them.
"""

from __future__ import annotations

import numpy as np

from ..vision.classify import CLASSES, INPUT_H, INPUT_W, CornerClassifier, corner_network


class _Recorder:
    """Keeps every distinct corner view a classifier runs (as uint8)."""

    def __init__(self) -> None:
        self.views: dict[int, np.ndarray] = {}

    def wrap(self, clf: CornerClassifier) -> None:
        run = clf.run

        def recording(batch: np.ndarray) -> np.ndarray:
            u8 = np.clip(np.rint(batch * 255.0), 0, 255).astype(np.uint8)
            for row in u8:
                self.views.setdefault(hash(row.tobytes()), row)
            return run(batch)

        clf.run = recording


def detect_views(scenes: int, seed: int, photos: bool = True, size: tuple[int, int] = (1280, 720),
                 progress: bool = True) -> np.ndarray:
    """(N, 3, H, W) uint8: the distinct corner views detect() runs through
    the classifier on ``scenes`` rendered tables of the training decks
    (seeded ``seed``, cards overlapping or apart in turn) and, with
    ``photos``, on the edje train photos the localiser trains on."""
    from ..vision.detector import CardDetector
    from .faces import training_decks
    from .locdata import trained_on_photos
    from .synth import progress_bar, render_scene

    det = CardDetector()
    rec = _Recorder()
    nets = [corner_network(r) for r in (det.classifier, det.index_reader)]
    for clf in {id(c): c for c in nets}.values():  # often one network reads both
        rec.wrap(clf)
    rng = np.random.default_rng(seed)
    decks = training_decks()
    bar = progress_bar(scenes, "scenes", "scene", progress)
    for i in range(scenes):
        sc = render_scene(rng, decks, size=size, overlap=i % 2 == 0, fingers=i % 2 == 0)
        det.detect(sc.image)
        if bar:
            bar.update(1)
    if bar:
        bar.close()
    if photos:
        for img, _ in trained_on_photos():
            det.detect(img)
    return np.stack(list(rec.views.values())) if rec.views else np.zeros((0, 3, INPUT_H, INPUT_W), np.uint8)


def detect_view_set(scenes: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`detect_views` on ``scenes`` tables and the photos as a
    training set (x, y): each view labelled ``none``, a placeholder that
    the teacher's probabilities stand in for (``train._loss`` never reads
    a label when taught; the recipe refuses these views without a teacher)."""
    x = detect_views(scenes, seed)
    return x, np.full(len(x), CLASSES.index("none"), np.int64)
