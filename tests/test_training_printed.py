"""Printed matter that is no playing card (flyers, postcards, photos, other
games' cards): the back check's ``none`` views drawn from no deck."""

from __future__ import annotations

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from tablecam.training import faces  # noqa: E402
from tablecam.training.printed import KINDS, item_quad, picture, printed_item, printed_views  # noqa: E402
from tablecam.vision.backs import VIEW_H, VIEW_W  # noqa: E402
from tablecam.vision.proposals import CARD_ASPECT  # noqa: E402

FLOOR = np.random.default_rng(5).integers(60, 120, (90, 300, 3)).astype(np.uint8)  # a carpet-like strip


def test_each_kind_is_a_flat_bgr_item_of_a_few_hundred_pixels():
    rng = np.random.default_rng(0)
    for kind in KINDS:
        for _ in range(3):
            item = printed_item(rng, kind, [FLOOR])
            assert item.dtype == np.uint8 and item.ndim == 3 and item.shape[2] == 3
            assert 300 <= max(item.shape[:2]) <= 520 and min(item.shape[:2]) >= 180
            assert item.std() > 5  # something printed on it, not a blank sheet


def test_a_game_card_is_portrait_and_a_postcard_is_wider_than_a_card():
    rng = np.random.default_rng(1)
    for _ in range(5):
        h, w = printed_item(rng, "game card").shape[:2]
        assert h > w
        h, w = printed_item(rng, "postcard").shape[:2]
        assert max(h, w) / min(h, w) >= 1.39


def test_a_picture_has_the_asked_size_and_large_shapes():
    p = picture(np.random.default_rng(2), 200, 120, [FLOOR])
    assert p.shape == (120, 200, 3) and p.dtype == np.uint8


def test_a_part_of_an_item_is_card_shaped_and_inside_it():
    rng = np.random.default_rng(3)
    for w, h in [(300, 420), (500, 330), (400, 400)]:
        for _ in range(50):
            q = item_quad(w, h, rng, whole=0.0)
            assert q.min() >= -1e-3 and q[:, 0].max() <= w + 1e-3 and q[:, 1].max() <= h + 1e-3
            side_w, side_h = np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[3] - q[0])
            assert max(side_w, side_h) / min(side_w, side_h) == pytest.approx(CARD_ASPECT, rel=1e-3)


def test_printed_views_are_back_check_views_reproducible_from_the_seed():
    x = printed_views(12, seed=4, floors=[FLOOR])
    assert x.shape == (12, 3, VIEW_H, VIEW_W) and x.dtype == np.uint8
    assert np.array_equal(printed_views(12, seed=4, floors=[FLOOR]), x)
    assert not np.array_equal(printed_views(12, seed=5, floors=[FLOOR]), x)
    assert len({v.tobytes() for v in x}) == 12  # every view its own
    assert printed_views(4, seed=4).shape == (4, 3, VIEW_H, VIEW_W)  # without floors: plain ones


def test_printed_views_draw_no_deck(monkeypatch):
    """No card face or back of any deck (training or held out) is drawn:
    every view is ``none`` whatever the decks are."""
    def no_deck(*a, **k):
        raise AssertionError("a deck was drawn")

    for name in ("render_face", "deck_faces", "draw_face", "list_decks", "training_decks"):
        monkeypatch.setattr(faces, name, no_deck)
    printed_views(8, seed=6, floors=[FLOOR])
