"""Card faces, synthetic data and the classical localiser (no model needed)."""

from __future__ import annotations

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from tablecam.training import faces, synth  # noqa: E402
from tablecam.vision.localise import find_cards, order_quad, warp_card  # noqa: E402


def test_held_out_decks_exist_and_are_not_trained_on():
    decks = faces.list_decks()
    assert len(decks) >= 30
    assert len(faces.HELD_OUT_DECKS) >= 2
    for d in faces.HELD_OUT_DECKS:
        assert d in decks
        assert d not in faces.training_decks()


def test_held_out_decks_are_no_cut_of_a_training_deck():
    """A held-out design must be truly unseen: not a drawn deck (their
    faces share one drawing, only the font changes) and not another cut
    of a training deck's name (``drawn-serif-bold`` of ``drawn-serif``)."""
    trained = faces.training_decks()
    for d in faces.HELD_OUT_DECKS:
        assert not d.startswith("drawn-")
        assert not any(d != t and (d.startswith(t + "-") or t.startswith(d + "-")) for t in trained)
    assert "drawn-serif-bold" not in trained


@pytest.mark.parametrize("deck", ["drawn-serif-bold", "drawn-hershey"])
def test_drawn_deck_renders_every_code(deck):
    for code in faces.ALL_CODES:
        f = faces.render_face(code, deck)
        assert f.shape == (350, 250, 3) and f.dtype == np.uint8


def test_svg_deck_renders_upright_face_with_index(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLECAM_CACHE", str(tmp_path))
    f = faces.render_face("SA", "tango")
    assert f.shape == (350, 250, 3)
    # ink in the top-left index corner, white-ish card in the middle of the edge
    corner = cv2.cvtColor(f[5:100, 5:70], cv2.COLOR_BGR2GRAY)
    assert corner.min() < 100
    small = faces.render_face("HT", "tango", height=140)
    assert small.shape == (140, 100, 3)
    assert any((tmp_path / "faces").rglob("SA.png"))


def test_unknown_card_or_deck_is_a_clear_error():
    with pytest.raises(ValueError):
        faces.render_face("SX", "drawn-sans")
    with pytest.raises(ValueError):
        faces.render_face("SA", "no-such-deck")


def test_localiser_finds_single_cards_in_a_rendered_scene():
    rng = np.random.default_rng(3)
    hits = total = 0
    for _ in range(4):
        sc = synth.render_scene(rng, ["drawn-serif-bold"], size=(960, 540), n_cards=3, overlap=False,
                                fingers=False, backs=False)
        quads = find_cards(sc.image)
        for c in sc.cards:
            total += 1
            ctr = c.quad.mean(axis=0)
            if any(np.linalg.norm(q.mean(axis=0) - ctr) < 25 for q in quads):
                hits += 1
    assert hits >= 0.75 * total, (hits, total)


def test_order_quad_and_warp_give_a_portrait_card():
    img = np.zeros((400, 400, 3), np.uint8)
    quad = np.array([[50, 100], [330, 100], [330, 300], [50, 300]], np.float32)  # a card lying sideways
    cv2.fillConvexPoly(img, quad.astype(np.int32), (255, 255, 255))
    q = order_quad(quad)
    assert np.linalg.norm(q[1] - q[0]) < np.linalg.norm(q[2] - q[1])  # first edge is the short one
    card = warp_card(img, q)
    assert card.shape == (350, 250, 3) and card.mean() > 200


def test_yolo_obb_labels_are_normalised(tmp_path):
    rng = np.random.default_rng(0)
    sc = synth.render_scene(rng, ["drawn-sans"], size=(640, 360), n_cards=2)
    synth.write_yolo_obb(sc, tmp_path / "a.jpg", tmp_path / "a.txt")
    rows = [r.split() for r in (tmp_path / "a.txt").read_text().splitlines()]
    assert len(rows) == 2
    for r in rows:
        assert r[0] in ("0", "1") and len(r) == 9
        assert all(0.0 <= float(v) <= 1.0 for v in r[1:])
