"""The whole-card back check: a face-down card told by its whole pattern."""

from __future__ import annotations

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from tablecam.training.backdata import back_views, loose_quad  # noqa: E402
from tablecam.vision.backs import BACK_CLASSES, VIEW_H, VIEW_W, BackCheckedReader, card_view  # noqa: E402
from tablecam.vision.classify import CLASSES, MODELS_DIR  # noqa: E402

CHECK = MODELS_DIR / "back_check.onnx"
BACK, NONE = CLASSES.index("back"), CLASSES.index("none")


def test_a_card_is_seen_whole_and_small():
    v = card_view(np.zeros((350, 250, 3), np.uint8))
    assert v.shape == (3, VIEW_H, VIEW_W) and v.dtype == np.uint8


def test_back_views_label_backs_faces_and_wrong_quads():
    x, y = back_views(60, ["drawn-sans", "gen-0"], seed=3, back_share=0.5)
    assert x.shape == (60, 3, VIEW_H, VIEW_W)
    assert set(np.unique(y)) <= {0, 1, 2} and {0, 1} <= set(np.unique(y))
    again = back_views(60, ["drawn-sans", "gen-0"], seed=3, back_share=0.5)
    assert np.array_equal(again[0], x) and np.array_equal(again[1], y)  # reproducible from the seed


def test_a_loose_quad_stays_mostly_on_its_card():
    """A box's rectangle is a few pixels or degrees off the card, never off it."""
    card = np.array([[100, 100], [350, 100], [350, 450], [100, 450]], np.float32)
    rng = np.random.default_rng(0)
    for _ in range(200):
        q = loose_quad(card, rng)
        x1, y1 = np.maximum(q.min(axis=0), card.min(axis=0))
        x2, y2 = np.minimum(q.max(axis=0), card.max(axis=0))
        inter = max(0.0, x2 - x1) * max(0.0, y2 - y1)
        assert inter / (250 * 350) > 0.7
        assert np.abs(q - card).max() > 2  # but off its outline


def test_back_views_loose_adds_views_labelled_as_the_card():
    x, y = back_views(60, ["drawn-sans", "gen-0"], seed=3, back_share=0.5, loose=1.0)
    assert x.shape == (60, 3, VIEW_H, VIEW_W)
    # each visible card is seen twice running, with the same label
    assert any(y[i] == y[i + 1] != 2 for i in range(len(y) - 1))
    plain = back_views(60, ["drawn-sans", "gen-0"], seed=3, back_share=0.5, loose=0.0)
    assert not np.array_equal(plain[0], x)


class _Corners:
    """A corner classifier that reads every card as ``p``."""

    classes = CLASSES
    corner_box = (0, 0, 80, 144)

    def __init__(self, p):
        self.p = np.asarray(p, np.float64)

    def classify_cards(self, cards, views=1):
        return [self.p.copy() for _ in cards]


class _Check:
    classes = BACK_CLASSES

    def __init__(self, back):
        self.back = back
        self.asked = 0

    def probs(self, cards):
        self.asked += len(cards)
        return np.array([[self.back, (1 - self.back) / 2, (1 - self.back) / 2]] * len(cards))


def _read(back=0.0, none=0.0, face=0.0):
    p = np.full(len(CLASSES), 1e-6)
    p[BACK], p[NONE], p[0] = back, none, face
    return p / p.sum()


def test_a_back_the_corners_read_weakly_takes_the_checks_word():
    """A lone back with plain corners read 0.44 as a back, 0.40 as nothing."""
    check = _Check(0.99)
    got = BackCheckedReader(_Corners(_read(back=0.44, none=0.40, face=0.16)), check, low=0.1)
    p = got.classify_cards([np.zeros((350, 250, 3), np.uint8)])[0]
    assert check.asked == 1 and int(np.argmax(p)) == BACK and p[BACK] == pytest.approx(0.99)
    assert p.sum() == pytest.approx(1.0)


def test_a_face_read_is_never_shown_to_the_check():
    check = _Check(0.99)
    p = BackCheckedReader(_Corners(_read(back=0.2, face=0.8)), check, low=0.1).classify_cards([np.zeros((9, 9, 3))])[0]
    assert check.asked == 0 and int(np.argmax(p)) == 0


def test_the_check_never_lowers_a_back_the_corners_are_sure_of():
    p = BackCheckedReader(_Corners(_read(back=0.98, none=0.02)), _Check(0.5), low=0.1).classify_cards([np.zeros((9, 9, 3))])[0]
    assert p[BACK] == pytest.approx(0.98, abs=1e-4)


@pytest.mark.skipif(not CHECK.exists(), reason="no shipped back check in models/")
def test_the_shipped_check_tells_a_back_from_a_face_and_the_table():
    from tablecam.vision.backs import BackCheck
    from tablecam.training.designs import VALIDATION_DESIGNS
    from tablecam.training.faces import render_face
    from tablecam.training.synth import table_texture

    check = BackCheck(CHECK)
    unseen = f"gen-{VALIDATION_DESIGNS.start}"  # a design no model trained on
    cards = [render_face("back", unseen), render_face("SQ", unseen), render_face("H7", "drawn-sans"),
             table_texture(np.random.default_rng(0), 350, 250).astype(np.uint8)]
    said = [BACK_CLASSES[int(np.argmax(p))] for p in check.probs(cards)]
    assert said == ["back", "face", "face", "none"]


def test_the_checked_reader_stands_in_for_the_classifier():
    """The detector and the bench read ``classes`` and the corner window through it; a copy works."""
    import copy

    reader = BackCheckedReader(_Corners(_read(back=0.5, none=0.5)), _Check(0.9))
    assert reader.classes == CLASSES and reader.corner_box == (0, 0, 80, 144)
    assert copy.copy(reader).low == reader.low


def test_a_back_reaching_out_of_the_picture_is_cut_by_its_edge():
    from tablecam.vision.backs import cut_by_edge

    card = np.array([[100, 50], [200, 50], [200, 190], [100, 190]], np.float32)
    assert not cut_by_edge(card, 640, 480, 0.05)
    assert not cut_by_edge(card - [0, 54], 640, 480, 0.05)       # 4 px out: a quad a little loose
    for moved in ([0, -120], [-150, 0], [480, 0], [0, 330]):        # out at each edge
        assert cut_by_edge(card + moved, 640, 480, 0.05), moved


@pytest.mark.skipif(not CHECK.exists(), reason="no shipped back check in models/")
def test_a_rendered_back_at_an_angle_whole_in_the_picture_is_still_a_back():
    """A two-way back (``anglo``'s lattice) turned 30 degrees on felt, a face
    card beside it, its corners touching the picture's top and bottom
    edges: reported (a localiser's quad may poke out by a few pixels)."""
    from tablecam.training.faces import render_face
    from tablecam.vision.detector import load_detector

    img = np.full((420, 560, 3), (40, 110, 30), np.uint8)
    for code, centre, turn in (("back", (150, 210), 30), ("SA", (420, 210), -10)):
        face = render_face(code, "anglo")
        m = cv2.getRotationMatrix2D((125, 175), turn, 1.0)
        m[:, 2] += np.array(centre) - (125, 175)
        warped = cv2.warpAffine(face, m, (560, 420))
        mask = cv2.warpAffine(np.full((350, 250), 255, np.uint8), m, (560, 420))
        img[mask > 0] = warped[mask > 0]
    img = cv2.resize(img, None, fx=0.8, fy=0.8, interpolation=cv2.INTER_AREA)
    assert sorted(d.card for d in load_detector().detect(img)) == ["SA", "back"]


EDJE_TRAIN = MODELS_DIR.parents[2].parent / "shared" / "data" / "real-photos" / "edje" / "train"


@pytest.mark.skipif(not (CHECK.exists() and (EDJE_TRAIN / "IMG_2528.JPG").exists()),
                    reason="no shipped back check or no edje photos")
def test_a_picture_postcard_longer_than_the_card_beside_it_is_no_back():
    """edje ``IMG_2528``: a nine of diamonds on carpet and a picture
    postcard 1.35 times its length, which the corners and the back check
    read as a back (0.94).  A pack's backs are the size of its faces:
    only the nine is reported."""
    from tablecam.vision.detector import CardDetector, load_detector

    img = cv2.imread(str(EDJE_TRAIN / "IMG_2528.JPG"))
    assert [d.card for d in load_detector().detect(img)] == ["D9"]
    assert sorted(d.card for d in CardDetector(None, back_size=None).detect(img)) == ["D9", "back"]
