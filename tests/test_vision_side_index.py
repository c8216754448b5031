"""Peek-index packs: the rank in the top-left corner, the suit in the top-right one."""

from __future__ import annotations

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from tablecam.vision.classify import CLASSES, CornerClassifier, corner_crops  # noqa: E402
from tablecam.vision.side_index import side_suit, split_pair, with_side_suits  # noqa: E402


def _small_face(code: str, deck: str, px: int = 100) -> np.ndarray:
    """A rectified face as a card ``px`` wide on a table frame shows it."""
    from tablecam.training.faces import render_face

    face = cv2.resize(render_face(code, deck), (250, 350), interpolation=cv2.INTER_AREA)
    small = cv2.resize(face, (px, round(px * 1.4)), interpolation=cv2.INTER_AREA)
    return cv2.resize(small, (250, 350))


def _top_left_read(clf: CornerClassifier, card: np.ndarray) -> np.ndarray:
    """The read of the top-left corner alone: the bottom one is under another card."""
    return clf.probs(corner_crops(card, clf.corner_box, clf.input_size)[:1])[0]


def test_a_read_split_between_two_suits_of_one_rank_is_a_pair():
    p = np.zeros(len(CLASSES))
    p[CLASSES.index("S8")], p[CLASSES.index("C8")], p[CLASSES.index("none")] = 0.55, 0.40, 0.05
    assert split_pair(p, CLASSES) == (CLASSES.index("S8"), CLASSES.index("C8"))
    q = p.copy()
    q[CLASSES.index("C8")], q[CLASSES.index("C9")] = 0.0, 0.40  # two ranks: the side window says nothing of ranks
    assert split_pair(q, CLASSES) is None


def test_the_side_window_is_trusted_only_when_it_reads_one_of_the_pair():
    p = np.zeros(len(CLASSES))
    p[CLASSES.index("S8")], p[CLASSES.index("C8")] = 0.55, 0.40
    pair = split_pair(p, CLASSES)
    elsewhere = np.full(len(CLASSES), 0.001)
    elsewhere[CLASSES.index("HQ")] = 0.95  # a court picture in the window
    assert side_suit(p, elsewhere, pair) is p
    unsure = np.full(len(CLASSES), 0.01)
    unsure[CLASSES.index("C8")] = 0.4
    assert side_suit(p, unsure, pair) is p


def test_a_peek_index_eight_of_clubs_is_read_by_its_suit_at_the_other_end():
    """`tango_nuevo` prints the 8 at the top left and the club at the top
    right: the corner alone reads the eight of spades (both black), the
    side window the club."""
    clf = CornerClassifier()
    card = _small_face("C8", "tango_nuevo")
    p = _top_left_read(clf, card)
    assert CLASSES[int(np.argmax(p))] == "S8"
    (after,) = with_side_suits([card], [p], clf.probs, clf.classes, clf.corner_box, clf.input_size)
    assert CLASSES[int(np.argmax(after))] == "C8" and after.max() >= 0.9


@pytest.mark.parametrize("deck", ["paris", "plastic", "anglo_poker"])
def test_an_ordinary_index_is_not_changed_by_the_side_window(deck):
    """On packs that print rank over suit the corner is read surely, so the
    side window (a pip or a court picture there) is never consulted."""
    clf = CornerClassifier()
    cards = [_small_face(code, deck) for code in ("CQ", "SK", "D7", "HT")]
    probs = [_top_left_read(clf, c) for c in cards]
    after = with_side_suits(cards, probs, clf.probs, clf.classes, clf.corner_box, clf.input_size)
    assert [int(np.argmax(a)) for a in after] == [int(np.argmax(p)) for p in probs]
    assert [CLASSES[int(np.argmax(a))] for a in after] == ["CQ", "SK", "D7", "HT"]


def test_the_side_window_of_the_end_whose_corner_was_read_decides():
    """The bottom end of a card half under another shows that card's pips
    in its side window; the end whose corner reads the split pair (the
    top) is the one printed with the suit beside the rank."""
    def row(**ps):
        r = np.full(len(CLASSES), 1e-4)
        for code, v in ps.items():
            r[CLASSES.index(code)] = v
        return r / r.sum()

    # per card: top corner, bottom corner, top side window, bottom side window
    scripted = np.stack([row(S8=0.5, C8=0.4), row(none=0.95), row(C8=0.9), row(S8=0.95)])
    p = row(S8=0.55, C8=0.40)
    card = np.zeros((350, 250, 3), np.uint8)
    (after,) = with_side_suits([card], [p], lambda batch: scripted[:len(batch)], CLASSES, (0, 0, 80, 144), (48, 80))
    assert CLASSES[int(np.argmax(after))] == "C8"


def test_a_peek_index_card_seen_only_by_its_index_is_read_with_its_suit():
    """The index localiser's window on a `tango_nuevo` eight of clubs (the
    rest of the card may be under others): its corner alone reads no card
    surely enough; with the side window it is the eight of clubs."""
    from tablecam.vision.detector import CardDetector
    from tablecam.training.faces import render_face
    from tablecam.vision.indexes import index_windows

    from test_vision_indexes import _card, _Windows

    img = np.full((720, 1280, 3), (40, 110, 40), np.uint8)
    quad = _card(640, 360, 150, 0.3)
    face = render_face("C8", "tango_nuevo")
    fh, fw = face.shape[:2]
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [fw, 0], [fw, fh], [0, fh]]), quad)
    mask = cv2.warpPerspective(np.full((fh, fw), 255, np.uint8), m, (1280, 720)) > 127
    img[mask] = cv2.warpPerspective(face, m, (1280, 720))[mask]
    det = CardDetector()
    det.indexer = _Windows([index_windows(quad)[0]])
    det.settings = det.settings.model_copy(update={"side_suits": False})
    assert det._from_indexes(img, []) == []
    det.settings = det.settings.model_copy(update={"side_suits": True})
    assert [d.card for d in det._from_indexes(img, [])] == ["C8"]
