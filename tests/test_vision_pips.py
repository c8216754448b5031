"""The pip count: a second witness of a number card's rank."""

from __future__ import annotations

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from tablecam.vision.classify import CLASSES  # noqa: E402
from tablecam.vision.pips import count_pips, with_pips  # noqa: E402

NUMBER_CARDS = ["S2", "H3", "D4", "C5", "S6", "H7", "D8", "C9", "ST"]


def _rectified(card: str, deck: str) -> np.ndarray:
    from tablecam.training.faces import render_face

    return cv2.resize(render_face(card, deck), (250, 350), interpolation=cv2.INTER_AREA)


@pytest.mark.parametrize("deck", ["drawn-sans", "drawn-mono", "drawn-hershey"])
@pytest.mark.parametrize("turned", [False, True])
def test_the_pips_of_every_number_card_are_counted(deck, turned):
    """Two to ten, either way up (the localiser cannot tell up from down)."""
    for card in NUMBER_CARDS:
        face = _rectified(card, deck)
        got = count_pips(np.rot90(face, 2).copy() if turned else face)
        assert got == (10 if card[1] == "T" else int(card[1])), card


def test_an_ace_or_a_blank_card_has_no_count():
    assert count_pips(_rectified("HA", "drawn-sans")) is None
    assert count_pips(np.full((350, 250, 3), 230, np.uint8)) is None


@pytest.mark.parametrize("bad", [None, np.zeros((0, 0, 3), np.uint8), np.zeros((350, 250), np.uint8)])
def test_an_unreadable_card_image_gives_no_count(bad):
    assert count_pips(bad) is None


def test_a_pip_count_settles_an_index_read_as_the_wrong_rank():
    """The classifier reads a five's small index as an eight (0.7 against
    0.2); the five pips in the middle make it a five."""
    p = np.full(len(CLASSES), 0.1 / (len(CLASSES) - 2), np.float32)
    p[CLASSES.index("S8")], p[CLASSES.index("S5")] = 0.7, 0.2
    q = with_pips(p, CLASSES, count_pips(_rectified("S5", "drawn-sans")))
    assert CLASSES[int(np.argmax(q))] == "S5" and q.sum() == pytest.approx(1.0, abs=1e-5)


def test_a_court_card_read_surely_keeps_its_read_whatever_its_picture_counts():
    """A court card's picture may count as pips; only a number card's read
    is weighed against the count."""
    p = np.full(len(CLASSES), 0.05 / (len(CLASSES) - 2), np.float32)
    p[CLASSES.index("SK")], p[CLASSES.index("S3")] = 0.9, 0.05
    assert with_pips(p, CLASSES, 3) is p


def test_the_detectors_final_read_weighs_the_pips():
    """``CardDetector.read_found`` is the read of every card found: with
    ``pips`` the count is evidence, without it the classifier alone."""
    from tablecam.vision.detector import CardDetector
    from tablecam.vision.settings import DetectorSettings

    class Misreads:
        """A classifier that reads every card as an eight of spades, a five second."""

        classes = CLASSES

        def classify_cards(self, cards, views=1):
            p = np.full(len(CLASSES), 0.1 / (len(CLASSES) - 2), np.float32)
            p[CLASSES.index("S8")], p[CLASSES.index("S5")] = 0.7, 0.2
            return [p.copy() for _ in cards]

    det = CardDetector.__new__(CardDetector)
    det.classifier, det.classes = Misreads(), CLASSES
    det.settings = DetectorSettings(read_views=3, side_suits=False, pips=20.0)
    five = [_rectified("S5", "drawn-mono")]
    assert CLASSES[int(np.argmax(det.read_found(five)[0]))] == "S5"
    det.settings = DetectorSettings(read_views=3, side_suits=False, pips=0.0)
    assert CLASSES[int(np.argmax(det.read_found(five)[0]))] == "S8"
