"""Generated deck designs (``gen-k``): the extra variety the corner
classifier trains on to read packs it has never seen."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("PIL")

from tablecam.training import designs, faces  # noqa: E402
from pathlib import Path  # noqa: E402


def test_generated_design_is_the_same_every_time():
    a = faces.render_face("D7", "gen-5")
    b = faces.render_face("D7", "gen-5")
    assert np.array_equal(a, b)
    assert not np.array_equal(a, faces.render_face("D7", "gen-6"))


@pytest.mark.parametrize("k", [0, 1, 7])
def test_generated_deck_renders_every_code_with_an_index(k):
    for code in faces.ALL_CODES:
        f = faces.render_face(code, f"gen-{k}")
        assert f.shape == (350, 250, 3) and f.dtype == np.uint8
        if code != "back":
            corner = f[4:104, 4:72].astype(int).sum(axis=2)
            assert corner.min() < 450, (code, k)  # ink in the index corner


def test_generated_designs_cover_four_colour_packs_plain_backs_and_drawn_suits():
    ds = [designs.design(k) for k in range(60)]
    assert any(d.inks[2] != d.inks[1] for d in ds)  # a diamond not printed in the heart's ink
    assert any(d.back_plain for d in ds) and not all(d.back_plain for d in ds)
    assert any(d.suit_font is None for d in ds) and any(d.suit_font for d in ds)
    assert {d.joker for d in ds} >= {"JOKER", "Joker", "star", "across", "tall"}


def test_joker_layouts_write_the_word_across_or_down_the_corner():
    """A joker's word across the top of the corner (many European packs) or
    down it in letters as tall as a rank: both leave ink in the window the
    classifier reads, and only the joker differs from the version-1 draw."""
    import dataclasses

    for style in ("across", "tall"):
        k = next(k for k in range(60) if designs.design(k).joker == style)
        f = faces.render_face("JK", f"gen-{k}")
        assert f[4:144, 4:80].astype(int).sum(axis=2).min() < 450, style
        d, v1 = designs.design(k, version=2), designs.design(k, version=1)
        assert v1.joker in ("JOKER", "Joker", "star")
        assert dataclasses.replace(d, joker=v1.joker, joker_ink=None, joker_word="JOKER") == v1


def test_joker_art_reaches_the_corner_window_and_only_the_joker_differs_from_version_two():
    """Version 3 draws a jester on most jokers, up into the corner window the
    classifier reads (a printed joker's artwork fills the card up to its
    index), and squeezes or stretches a word across the corner; every other
    card is version 2's."""
    import dataclasses

    ds = [designs.design(k) for k in range(60)]
    assert 0.4 < sum(d.joker_art >= 0 for d in ds) / 60 < 0.8
    k = next(k for k, d in enumerate(ds) if d.joker_art >= 0)
    d, v2 = ds[k], designs.design(k, version=2)
    assert dataclasses.replace(d, joker_art=-1, joker_fit=None) == v2
    jester = faces.render_face("JK", f"gen-{k}")
    with designs.drawing(2):
        star = faces.render_face("JK", f"gen-{k}")
        assert designs.active_version() == 2
    assert designs.active_version() == designs.VERSION
    body = (slice(60, 300), slice(40, 210))
    assert (np.abs(jester[body].astype(int) - star[body].astype(int)).sum(axis=2) > 60).mean() > 0.15
    for c in ("S7", "HK", "back"):
        new = faces.render_face(c, f"gen-{k}")
        with designs.drawing(2):
            assert np.array_equal(new, faces.render_face(c, f"gen-{k}"))


def test_squeezed_joker_word_fills_its_box():
    k = next(k for k in range(200) if designs.design(k).joker == "across" and designs.design(k).joker_fit)
    d = designs.design(k)
    f = faces.render_face("JK", f"gen-{k}")
    ink = f[:int(350 * 0.2), :int(250 * 0.55)].astype(int).sum(axis=2) < 450
    cols = np.flatnonzero(ink.any(axis=0))
    assert cols.size and (cols.max() - cols.min()) > 250 * d.joker_fit[0] * 0.7


def test_design_version_one_redraws_the_jokers_stages_4_and_5_trained_on():
    k = next(k for k in range(60) if designs.design(k).joker == "across")
    new = [faces.render_face(c, f"gen-{k}") for c in ("JK", "S7", "back")]
    designs.use_version(1)
    try:
        old = [faces.render_face(c, f"gen-{k}") for c in ("JK", "S7", "back")]
        assert designs.design(k).joker != "across"
    finally:
        designs.use_version(designs.VERSION)
    assert not np.array_equal(new[0], old[0])
    assert np.array_equal(new[1], old[1]) and np.array_equal(new[2], old[2])


def test_training_crop_caches_name_the_design_version():
    from tablecam.training.train import _set_name

    assert f"-g60v{designs.VERSION}" in _set_name("corners", 100, 3, ["a"], generated=60)
    designs.use_version(1)
    try:
        assert _set_name("corners", 100, 3, ["a"], generated=60).endswith("-g60" + _set_name("x", 1, 1)[len("x-n1-s1"):])
    finally:
        designs.use_version(designs.VERSION)
    assert "-g" not in _set_name("prints", 100, 3)


def test_untrained_drawn_deck_font_is_never_used_by_a_generated_design():
    held_font = faces.DRAWN_STYLES["serif-bold"][0]
    assert "drawn-serif-bold" in faces.NOT_TRAINED_DECKS
    for k in range(200):
        d = designs.design(k)
        assert held_font not in (d.rank_font, d.suit_font)


def test_training_decks_take_generated_designs_only_when_asked():
    base = faces.training_decks()
    assert not any(designs.is_generated(d) for d in base)
    more = faces.training_decks(3)
    assert more == base + ["gen-0", "gen-1", "gen-2"]
    assert not set(more) & set(faces.NOT_TRAINED_DECKS)


def test_offcorner_views_are_labelled_none_and_repeatable():
    """Views through wrong quads teach the classifier to reject them: their
    corner crop must not hold the card's own index."""
    from tablecam.vision.classify import CLASSES, INPUT_H, INPUT_W
    from tablecam.training.synth import offcorner_dataset

    x, y = offcorner_dataset(12, ["drawn-sans"], seed=4)
    assert x.shape == (12, 3, INPUT_H, INPUT_W) and x.dtype == np.uint8
    assert set(y.tolist()) == {CLASSES.index("none")}
    a, _ = offcorner_dataset(3, ["drawn-sans"], seed=4)
    assert np.array_equal(a, x[:3])  # deterministic for its seed


def test_small_views_show_the_index_at_a_few_pixels_and_keep_the_default_draws():
    """``--small`` views (stage 13) are cards seen 88-175 px tall: less fine
    detail than the default 18-100% range, the same labels, and the default
    range still draws as before (the cached crop sets stay reproducible)."""
    import cv2

    from tablecam.training.synth import corner_dataset
    from tablecam.training.train import SMALL_SCALE

    x_big, y_big = corner_dataset(24, ["drawn-sans"], seed=3, none_frac=0.0, scale=(1.0, 1.0))
    x_small, y_small = corner_dataset(24, ["drawn-sans"], seed=3, none_frac=0.0, scale=SMALL_SCALE)
    assert np.array_equal(y_big, y_small)

    def detail(x):  # mean high-frequency energy of the crops
        return float(np.mean([cv2.Laplacian(c.transpose(1, 2, 0), cv2.CV_32F).var() for c in x]))

    assert detail(x_small) < 0.7 * detail(x_big)
    a, _ = corner_dataset(4, ["drawn-sans"], seed=3, none_frac=0.0)
    b, _ = corner_dataset(4, ["drawn-sans"], seed=3, none_frac=0.0, scale=(0.18, 1.0))
    assert np.array_equal(a, b)


def test_oblique_views_are_small_blurred_cards_with_their_own_labels():
    """``--oblique`` views are the cards a 480p-720p webcam sees at an
    angle: the corner window at the network's input size, the card's own
    label in the same balanced order as the default views, far less fine
    detail than a card seen full size, the same crops for the same seed,
    and the default views drawing as before."""
    import cv2

    from tablecam.training.synth import corner_dataset
    from tablecam.training.train import OBLIQUE_PX_PER_MM
    from tablecam.vision.classify import INPUT_H, INPUT_W

    x_big, y_big = corner_dataset(24, ["drawn-sans"], seed=3, none_frac=0.0, scale=(1.0, 1.0))
    x, y = corner_dataset(24, ["drawn-sans"], seed=3, none_frac=0.0, camera=OBLIQUE_PX_PER_MM)
    assert x.shape == (24, 3, INPUT_H, INPUT_W) and x.dtype == np.uint8
    assert np.array_equal(y, y_big)

    def detail(x):  # mean high-frequency energy of the crops
        return float(np.mean([cv2.Laplacian(c.transpose(1, 2, 0), cv2.CV_32F).var() for c in x]))

    assert detail(x) < 0.5 * detail(x_big)
    again, _ = corner_dataset(4, ["drawn-sans"], seed=3, none_frac=0.0, camera=OBLIQUE_PX_PER_MM)
    assert np.array_equal(again, x[:4])


def test_a_card_seen_oblique_and_small_is_rectified_upright_through_its_outline():
    """The oblique view squashes and turns the card in the camera's frame,
    then warps it back through its true outline (a little off): what the
    network sees is the card itself, upright, at the frame's few pixels -
    not a corner of the table or the card turned - so its label is right."""
    import cv2

    from tablecam.training.camera_look import camera_view

    face = faces.render_face("SQ", "drawn-sans")
    pad = 60
    canvas = np.full((350 + 2 * pad, 250 + 2 * pad, 3), 60, np.uint8)
    canvas[pad:pad + 350, pad:pad + 250] = face
    quad = np.float32([[pad, pad], [pad + 250, pad], [pad + 250, pad + 350], [pad, pad + 350]])

    def small_gray(img):
        return cv2.resize(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), (25, 35), interpolation=cv2.INTER_AREA).ravel()

    want = small_gray(face)
    for seed in range(6):  # light gradients and halos keep the likeness of a 50 px card under 1
        view = camera_view(canvas, quad, np.random.default_rng(seed), (0.8, 0.8))
        off = camera_view(canvas, quad + np.float32([80, 0]), np.random.default_rng(seed), (0.8, 0.8))
        assert view.shape == face.shape
        upright = np.corrcoef(small_gray(view), want)[0, 1]
        turned = np.corrcoef(small_gray(np.rot90(view, 2)), want)[0, 1]
        shifted = np.corrcoef(small_gray(off), want)[0, 1]
        assert upright > 0.5 and upright > turned + 0.15 and shifted < 0.2, (seed, upright, turned, shifted)


def test_oblique_training_views_are_drawn_from_the_training_decks_only(tmp_path, monkeypatch):
    """The recipe's oblique set renders training decks and generated
    training designs only: never the held-out decks nor drawn-serif-bold."""
    from tablecam.training import synth, train

    seen: set[str] = set()
    real = synth.render_face

    def recording(code, deck, *a, **k):
        seen.add(deck)
        return real(code, deck, *a, **k)

    monkeypatch.setattr(synth, "render_face", recording)
    x, y = train._oblique(40, seed=1, cache=tmp_path, generated=2)
    assert len(x) == len(y) == 40
    assert seen and seen <= set(faces.training_decks(2))
    assert not seen & set(faces.NOT_TRAINED_DECKS)
    assert [f.name.split("-n")[0] for f in tmp_path.iterdir()] == ["oblique0.6-2"]


def test_pile_views_label_a_covered_corner_none_and_a_free_one_the_card():
    """Cards in piles and fans: each corner is labelled by how much of its
    index area the scene left uncovered, the card's own corner order kept."""
    from tablecam.vision.classify import CLASSES, INPUT_H, INPUT_W
    from tablecam.training.synth import pile_dataset, render_scene

    x, y = pile_dataset(40, ["drawn-sans"], seed=3)
    assert x.shape == (40, 3, INPUT_H, INPUT_W) and x.dtype == np.uint8
    labels = {CLASSES[i] for i in y.tolist()}
    assert "none" in labels and len(labels - {"none"}) > 5
    a, b = pile_dataset(6, ["drawn-sans"], seed=3)
    assert np.array_equal(a, x[:6]) and np.array_equal(b, y[:6])
    sc = render_scene(np.random.default_rng(5), ["drawn-sans"], size=(640, 480), n_cards=6)
    for card in sc.cards:  # the per-corner shares agree with the card's visibility
        assert card.visible_frac == max(card.corner_visible)


def test_pile_views_label_corners_by_the_share_seen():
    """``seen`` moves the line between a corner labelled with its card and
    one left out: at 0.6 (the index windows' rule) there are more card
    labels among the same number of views than at 0.8."""
    from tablecam.vision.classify import CLASSES
    from tablecam.training.synth import pile_dataset

    none = CLASSES.index("none")
    _, strict = pile_dataset(60, ["drawn-sans"], seed=3)
    _, loose = pile_dataset(60, ["drawn-sans"], seed=3, seen=0.6)
    assert (loose != none).sum() >= (strict != none).sum()


def test_cable_views_cross_the_index_and_keep_the_card_label():
    """A cable, pen or knife over the index (the real photos have them):
    every view is labelled with its card, never ``none`` or ``back``, the
    set is deterministic, and the thing covers the point it is drawn
    through without covering the card."""
    from tablecam.vision.classify import CLASSES, INPUT_H, INPUT_W
    from tablecam.training.synth import cable_dataset, draw_cable

    x, y = cable_dataset(12, ["drawn-sans"], seed=4)
    assert x.shape == (12, 3, INPUT_H, INPUT_W) and x.dtype == np.uint8
    assert not {CLASSES[i] for i in y.tolist()} & {"none", "back"}
    a, b = cable_dataset(3, ["drawn-sans"], seed=4)
    assert np.array_equal(a, x[:3]) and np.array_equal(b, y[:3])
    for seed in range(8):  # a cable, a pen or a blade, any colour: it covers the point it passes through
        card = np.full((350, 250, 3), 128, np.uint8)
        draw_cable(card, np.random.default_rng(seed), (40.0, 72.0))
        assert np.abs(card[70:75, 38:43].astype(int) - 128).max() > 10
        assert (card == 128).all(axis=2).mean() > 0.5  # a thin thing, not a cover


def test_joker_views_are_labelled_joker_and_mostly_of_generated_designs():
    """The extra joker views (``tablecam train --jokers``): every one is
    ``JK``, deterministic, and a stage that trains on older crops still gets
    them drawn as the newest design version (the cache says which)."""
    from tablecam.vision.classify import CLASSES, INPUT_H, INPUT_W
    from tablecam.training.synth import joker_dataset
    from tablecam.training.train import _set_name

    x, y = joker_dataset(6, ["drawn-sans", "gen-3", "gen-4"], seed=2)
    assert x.shape == (6, 3, INPUT_H, INPUT_W) and set(y.tolist()) == {CLASSES.index("JK")}
    a, _ = joker_dataset(2, ["drawn-sans", "gen-3", "gen-4"], seed=2)
    assert np.array_equal(a, x[:2])
    with designs.drawing(2):
        assert "-g60v2" in _set_name("corners", 9, 1, ["a"], generated=60)
        with designs.drawing(designs.VERSION):
            assert f"-g60v{designs.VERSION}" in _set_name("jokers", 9, 1, ["a"], generated=60)


def test_classifier_reads_through_the_corner_window_it_was_trained_on(tmp_path):
    """The corner window travels with the model: a model whose JSON names
    none (trained before it was recorded) is read through the old window."""
    import json
    import shutil

    from tablecam.vision.classify import (CORNER_BOX, INPUT_H, INPUT_W, LEGACY_CORNER_BOX, LEGACY_INPUT,
                                          MODELS_DIR, CornerClassifier, corner_crops)

    if not (MODELS_DIR / "card_classifier.onnx").exists():
        pytest.skip("no shipped classifier")
    shutil.copy(MODELS_DIR / "card_classifier.onnx", tmp_path / "card_classifier.onnx")
    meta = json.loads((MODELS_DIR / "card_classifier.json").read_text())
    meta["input"].pop("corner_box", None)
    meta["input"]["shape"] = [3, LEGACY_INPUT[1], LEGACY_INPUT[0]]
    (tmp_path / "card_classifier.json").write_text(json.dumps(meta))
    old = CornerClassifier(tmp_path / "card_classifier.onnx")
    assert old.corner_box == LEGACY_CORNER_BOX and old.input_size == LEGACY_INPUT
    card = faces.render_face("HQ", "drawn-sans")
    assert corner_crops(card, old.corner_box, old.input_size).shape == (2, 3, LEGACY_INPUT[1], LEGACY_INPUT[0])
    assert corner_crops(card).shape == (2, 3, INPUT_H, INPUT_W)
    assert CORNER_BOX[3] / 350 >= 0.4  # a large index (rank over suit) fits the window


def test_printed_matter_views_are_labelled_none():
    """Newspaper, book and flyer print gave most false cards on the real
    train split; the classifier learns them as ``none``."""
    from tablecam.vision.classify import CLASSES, INPUT_H, INPUT_W
    from tablecam.training.synth import print_dataset, print_sample

    x, y = print_dataset(6, seed=2)
    assert x.shape == (6, 3, INPUT_H, INPUT_W)
    assert set(y.tolist()) == {CLASSES.index("none")}
    img = print_sample(np.random.default_rng(0))
    assert img.shape == (350, 250, 3) and img.std() > 5  # not a blank patch


def test_shipped_classifier_names_its_averaged_stages_and_ships_their_weights():
    """The shipped classifier averages two stages (``tablecam
    average-classifiers``): its JSON names each member's weights and
    recipe, and the weights are beside it (``tablecam/vision/models/``) so the average can be
    rebuilt and fine-tuned further."""
    import json

    from tablecam.vision.classify import MODELS_DIR

    meta = json.loads((MODELS_DIR / "card_classifier.json").read_text())
    members = meta["recipe"].get("average_of", [])
    assert len(members) == len(meta["recipe"]["members"]) >= 2
    for name in members:
        assert (MODELS_DIR / Path(name).name).is_file(), name
    assert all("command" in r for r in meta["recipe"]["members"])


def test_rebuilding_the_average_in_place_reads_each_member_s_own_recipe():
    """``models/card_classifier.pt`` is stage 6, and the JSON beside it now
    describes the average: a rebuild of the average (the model card's
    command) must record stage 6's recipe, not the average's."""
    from tablecam.vision.classify import MODELS_DIR
    from tablecam.training.train import _member_recipe

    assert "data/stage6" in _member_recipe(MODELS_DIR / "card_classifier.pt")["command"]
    assert "data/stage12" in _member_recipe(MODELS_DIR / "card_classifier_stage12.pt")["command"]
    assert "data/stage14" in _member_recipe(MODELS_DIR / "card_classifier_stage14.pt")["command"]
