"""Real card faces in the corner classifier's training: rank-only labels.

The edje photos name each card's rank, never its suit, so their views are
labelled by rank (``realfaces.rank_label``) and taught as "one of these four
cards" (``train._loss``).
"""

from __future__ import annotations

import numpy as np
import pytest

from tablecam.training.realfaces import RANKS, face_views, rank_label, rank_masks
from tablecam.vision.classify import CLASSES, INPUT_H, INPUT_W


def test_views_of_a_real_face_carry_its_rank_alone():
    """Views of a real face are corner crops like the drawn decks' and
    carry a label past every class that names the face's rank; the same
    seed gives the same crops; its views through wrong quads are ``none``."""
    from tablecam.training.faces import render_face

    faces = np.stack([render_face("HK", "drawn-sans"), render_face("C9", "drawn-sans")])
    x, y = face_views(faces, ["K", "9"], 4, seed=1, n_classes=len(CLASSES))
    assert x.shape == (4, 3, INPUT_H, INPUT_W) and x.dtype == np.uint8
    assert y.tolist() == [rank_label("K", len(CLASSES)), rank_label("9", len(CLASSES))] * 2
    masks = rank_masks(CLASSES)
    assert [CLASSES[i] for i in np.flatnonzero(masks[RANKS.index("K")])] == sorted(
        (c for c in CLASSES if len(c) == 2 and c[1] == "K" and c != "JK"), key=CLASSES.index)
    assert masks.sum(axis=1).tolist() == [4] * 13  # four suits a rank; no joker, back or none
    again, _ = face_views(faces, ["K", "9"], 2, seed=1, n_classes=len(CLASSES))
    assert np.array_equal(again, x[:2])
    wrong, labels = face_views(faces, ["K", "9"], 2, seed=1, n_classes=len(CLASSES), none=CLASSES.index("none"))
    assert wrong.shape == (2, 3, INPUT_H, INPUT_W) and labels.tolist() == [CLASSES.index("none")] * 2


def test_a_rank_only_label_is_learned_as_its_four_cards_together():
    """A rank-only label's loss is minus the log of its four cards'
    probability together: a net sure of the king of spades or split over the
    four kings is right alike, and a class label keeps its cross-entropy."""
    torch = pytest.importorskip("torch")
    from tablecam.training.train import _loss

    n = len(CLASSES)
    groups = torch.from_numpy(rank_masks(CLASSES))
    kings = [CLASSES.index(c) for c in ("SK", "HK", "DK", "CK")]
    split = torch.full((1, n), -20.0)
    split[0, kings] = 0.0
    sure = torch.full((1, n), -20.0)
    sure[0, kings[0]] = 0.0
    king = torch.tensor([rank_label("K", n)])
    for logits in (split, sure):
        loss, right = _loss(logits, king, 0.0, groups)
        assert float(loss) < 1e-6 and right == 1
    wrong = torch.full((1, n), -20.0)
    wrong[0, CLASSES.index("ST")] = 0.0
    loss, right = _loss(wrong, king, 0.0, groups)
    assert float(loss) > 10 and right == 0
    p = torch.softmax(wrong, 1)[0, kings].sum()
    assert abs(float(loss) + float(torch.log(p))) < 1e-3
    exact, right = _loss(sure, torch.tensor([kings[0]]), 0.0, groups)
    assert float(exact) < 1e-6 and right == 1
