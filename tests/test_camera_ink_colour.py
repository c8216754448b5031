"""The colour of a card's print as a witness of its suit at 480p.

The faces are the simulator's own, shrunk to what a 480p camera puts on a
card (0.7 frame pixels per mm) and blown up again to the pipeline's
250x350 crop: ``drawn-sans`` prints hearts and diamonds red and spades and
clubs black, ``drawn-serif-bold`` is a four-colour pack (blue diamonds,
green clubs).
"""

from __future__ import annotations

import numpy as np
import pytest

from tablecam.vision.ink_colour import PackColours, coloured, ink_colour
from tablecam.vision.readers import Reading

from test_camera_low_resolution import CLASSES, _pipe, _probs, _seen_at

TWO_COLOUR, FOUR_COLOUR = "drawn-sans", "drawn-serif-bold"


@pytest.mark.parametrize("deck, colours", [(TWO_COLOUR, {"S": "black", "H": "red", "D": "red", "C": "black"}),
                                           (FOUR_COLOUR, {"S": "black", "H": "red", "D": "blue", "C": "green"})])
def test_the_print_colour_of_a_card_seen_at_480p(deck, colours):
    for suit, colour in colours.items():
        for rank in "A23456789T":
            assert ink_colour(_seen_at(suit + rank, 0.7, deck)) == colour, (deck, suit + rank)


def _washed_out(card: str, px_per_mm: float, glare: float, deck: str = TWO_COLOUR) -> np.ndarray:
    """``card`` under a glossy top's reflection: its print lifted ``glare`` of the way to white, then
    seen small and a little blurred, as a 480p camera sees it."""
    import cv2

    from tablecam.sim.video import FaceBank

    face = FaceBank(deck, (250, 350)).get(card).astype(np.float32)
    face = (face + (255 - face) * glare).clip(0, 255).astype(np.uint8)
    small = cv2.resize(face, (int(63 * px_per_mm), int(88 * px_per_mm)), interpolation=cv2.INTER_AREA)
    return cv2.resize(cv2.GaussianBlur(small, (0, 0), 0.6), (250, 350), interpolation=cv2.INTER_CUBIC)


def test_the_few_pips_of_a_washed_out_low_card_still_show_their_colour():
    """A glossy top at 480p left a two of spades two dots of grey (0.9 % of the card's middle) and
    it went out as the two of diamonds: half a per cent of ink is enough to tell black from red."""
    for card, colour in (("S2", "black"), ("S3", "black"), ("C2", "black"), ("D3", "red"), ("H2", "red")):
        assert ink_colour(_washed_out(card, 0.5, 0.6)) == colour, card


def test_a_court_card_is_told_by_its_index_corners_not_its_picture():
    assert ink_colour(_seen_at("HK", 0.9, TWO_COLOUR), court=True) in ("red", None)
    assert ink_colour(_seen_at("SK", 0.9, TWO_COLOUR), court=True) in ("black", None)


def test_a_spade_read_as_the_nine_of_diamonds_is_re_ranked_by_its_black_pips_and_stays_uncertain():
    """A printed layout at 480p read the nine of spades as the nine of diamonds at 0.81: a sure,
    wrong card. Its pips are black."""
    r = Reading("D9", 0.81, _probs(D9=0.81, S9=0.08, C9=0.04, H9=0.03), CLASSES)
    out = coloured(r, _seen_at("S9", 0.7, TWO_COLOUR), PackColours())
    assert (out.card, out.witness) == ("S9", "ink colour")


def test_a_read_of_the_colour_seen_and_a_read_of_0_9_are_left_alone():
    r = Reading("H4", 0.62, _probs(H4=0.62, D4=0.2, S4=0.1), CLASSES)
    assert coloured(r, _seen_at("H4", 0.7, TWO_COLOUR), PackColours()) is r
    sure = Reading("D9", 0.93, _probs(D9=0.93, S9=0.03), CLASSES)
    assert coloured(sure, _seen_at("S9", 0.7, TWO_COLOUR), PackColours()) is sure


def test_a_four_colour_pack_teaches_its_blue_diamonds_with_two_sure_diamonds():
    pack = _pipe().pack_colours                      # the pipeline's own: one pack a table
    for card in ("D5", "D9"):
        sure = Reading(card, 0.95, _probs(**{card: 0.95}), CLASSES)
        assert coloured(sure, _seen_at(card, 0.7, FOUR_COLOUR), pack) is sure   # blue: no two-colour suit
    assert pack.expected("D") == "blue"
    unsure = Reading("H7", 0.5, _probs(H7=0.5, D7=0.3, S7=0.1), CLASSES)
    out = coloured(unsure, _seen_at("D7", 0.7, FOUR_COLOUR), pack)
    assert (out.card, out.witness) == ("D7", "ink colour")


def test_one_sure_read_of_a_misjudged_colour_changes_no_suit():
    pack = PackColours()
    pack.learn("S", None)
    pack.learn("S", "red")
    assert pack.expected("S") == "black"
