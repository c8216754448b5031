"""Real card faces for the corner classifier: the edje train split's cards, rectified.

Why: every face the classifier learns from is drawn (the Debian decks, the
drawn and generated designs), and a real printed index seen small reads
worse than a drawn one.  Seen small and oblique through the webcam look at
0.9-1.5 px/mm (the blackjack-tracker webcam's range; ``oblique_sample``),
two views a face, 350 rectified edje train faces (those of its ``IMG_*``
photos) read with the rank right 0.89-0.94 a rank and 0.68-0.80 sure of
the card (its suit as the detector read it in the photo); four training
decks' nines to aces 0.94-1.00 and 0.82-0.95.

Each labelled card of the edje train photos (``read_voc``; not the photos
the localiser's validation holds back, ``locdata.split_real_train``) is
rectified through the quad the shipped detector found it by, when that
detection reads the labelled rank; the labels name ranks only, so these
faces teach a rank and never a suit (``train._loss``: a rank's loss is
that of its four cards together).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

RANKS = "A23456789TJQK"
"""The rank letters, in the order of the rank-only label codes (``rank_label``)."""


def rank_label(rank: str, n_classes: int) -> int:
    """The training label of a view that shows ``rank`` but no known suit:
    past every class, one code a rank.

    >>> rank_label("K", 54), rank_label("A", 54)
    (66, 54)
    """
    return n_classes + RANKS.index(rank)


def rank_masks(classes: list[str]) -> np.ndarray:
    """(13, len(classes)) bool: the classes of each rank (its four cards).

    >>> m = rank_masks(["SA", "HA", "SK", "none"])
    >>> m[RANKS.index("A")].tolist(), m[RANKS.index("K")].tolist()
    ([True, True, False, False], [False, False, True, False])
    """
    return np.array([[len(c) == 2 and c[1] == r and c != "JK" for c in classes] for r in RANKS], bool)


def edje_faces(detector=None, root: Path | None = None, min_iou: float = 0.5) -> tuple[np.ndarray, list[str]]:
    """(N, 350, 250, 3) uint8 rectified faces and their rank letters: the
    labelled cards of the edje train photos outside the localiser's
    validation, each through the quad of the detection that best overlaps
    its box (IoU ``min_iou`` or more) and reads its rank.  A card no such
    detection finds is left out."""
    import cv2

    from ..vision.detector import load_detector
    from ..vision.localise import warp_card
    from ..vision.proposals import box_iou
    from .evaluate import REAL_PHOTOS, read_voc
    from .locdata import split_real_train

    root = Path(root or REAL_PHOTOS / "train")
    det = detector or load_detector()
    trained, _ = split_real_train(root)
    faces, ranks = [], []
    for name in trained:
        image = cv2.imread(str(root / name))
        if image is None:
            continue
        found = det.detect(image)
        for rank, box in read_voc(root / (Path(name).stem + ".xml")):
            same = [d for d in found if d.card[1:] == rank and d.card != "JK" and box_iou(box, d.box) >= min_iou]
            if same:
                d = max(same, key=lambda d: box_iou(box, d.box))
                faces.append(warp_card(image, d.quad))
                ranks.append(rank)
    return np.stack(faces) if faces else np.zeros((0, 350, 250, 3), np.uint8), ranks


def face_views(faces: np.ndarray, ranks: list[str], n: int, seed: int, n_classes: int,
               camera: tuple[float, float] | None = None, none: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``n`` corner crops (uint8, as ``synth.corner_dataset`` makes them) of
    the real ``faces``, each face in turn, either index corner, labelled by
    rank alone (:func:`rank_label`): seen as a photo shows a card
    (``corner_sample``), or with ``camera`` (px/mm across the card) small
    and oblique through a webcam (``oblique_sample``).  With ``none`` (the
    class index of ``none``) they are seen through wrong quads instead
    (``offcorner_sample``: pips, a court figure, the edge) and labelled
    ``none``: a real face teaches where a card is not read as well as what
    its index says."""
    from ..vision.classify import corner_crops
    from .synth import TexturePool, corner_sample, oblique_sample, offcorner_pool, offcorner_sample

    rng = np.random.default_rng(seed)
    pool = offcorner_pool(rng) if none is not None else TexturePool(rng)
    xs, ys = [], []
    for i in range(n):
        k = i % len(faces)
        if none is not None:
            img = offcorner_sample(faces[k], rng, pool=pool)
        elif camera:
            img = oblique_sample(faces[k], rng, camera, pool=pool)
        else:
            img = corner_sample(faces[k], rng, pool=pool)
        crop = corner_crops(img)[int(rng.integers(2))]
        xs.append((crop * 255).astype(np.uint8))
        ys.append(none if none is not None else rank_label(ranks[k], n_classes))
    return np.stack(xs), np.array(ys, np.int64)
