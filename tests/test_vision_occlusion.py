"""Two cards cannot each lie on the other's index (tablecam/vision/occlusion.py)."""

from __future__ import annotations

import math

import numpy as np

from tablecam.vision.detector import Detection
from tablecam.vision.occlusion import contradicts, drop_hidden, seen_share, within


def card(cx: float, cy: float, turn: float = 0.0, width: float = 100.0) -> np.ndarray:
    """A card quad, clockwise from the top-left of its upright face."""
    w, h = width / 2, width * 1.4 / 2
    c, s = math.cos(turn), math.sin(turn)
    pts = np.array([[-w, -h], [w, -h], [w, h], [-w, h]], np.float32)
    return pts @ np.array([[c, s], [-s, c]], np.float32) + np.array([cx, cy], np.float32)


def det(code: str, conf: float, q: np.ndarray) -> Detection:
    box = (*q.min(axis=0).tolist(), *q.max(axis=0).tolist())
    return Detection(code, conf, tuple(box), q)


def test_one_card_read_twice_keeps_the_surer_read():
    """A five of clubs read again through a rectangle a few pixels off as a
    three (an unseen-design scene of the tuning set): each read from the
    bottom-right corner, which lies inside the other's outline."""
    five = det("C5", 0.96, card(200, 200))
    three = det("C3", 0.78, card(200, 192))
    assert contradicts(five.quad, three.quad, 0.4, end_a=1, end_b=1)
    assert [d.card for d in drop_hidden([three, five], read_ends=lambda ds: [1] * len(ds))] == ["C5"]


def test_a_card_read_where_it_peeks_out_from_under_another_stays():
    """The card under is read from the corner beyond the card on it: no
    contradiction, whichever end the card on top was read from."""
    top = det("HK", 0.95, card(200, 200))
    under = det("C7", 0.7, card(200, 240))
    for top_end in (0, 1):
        ends = {id(top): top_end, id(under): 1}
        assert drop_hidden([top, under], read_ends=lambda ds: [ends[id(d)] for d in ds]) == [top, under]


def test_pile_card_under_shows_its_corner_and_both_stay():
    """A trick pile: the card under shows its top-left index beyond the
    card on it, so the two are no contradiction."""
    top = det("HK", 0.95, card(200, 200))
    under = det("C7", 0.7, card(175, 170, turn=0.1))
    assert seen_share(under.quad, top.quad) >= 0.3
    assert not contradicts(top.quad, under.quad, 0.3)
    assert drop_hidden([top, under]) == [top, under]


def test_fanned_hand_keeps_every_card():
    fan = [det(code, 0.9 - 0.05 * i, card(200 + 22 * i, 200, turn=0.12 * i))
           for i, code in enumerate(["SA", "SK", "SQ", "SJ", "ST"])]
    assert drop_hidden(fan) == fan


def test_backs_and_cards_apart_are_left_alone_and_zero_turns_it_off():
    back = det("back", 0.92, card(200, 200))
    face = det("D5", 0.6, card(203, 204, turn=math.pi))
    apart = det("C2", 0.7, card(600, 200))
    assert drop_hidden([back, face, apart]) == [back, face, apart]
    twice = [det("D5", 0.9, card(200, 200)), det("D8", 0.6, card(203, 204, turn=math.pi))]
    assert len(drop_hidden(twice)) == 1
    assert drop_hidden(twice, seen=0) == twice


def test_a_sure_read_is_never_dropped_for_a_badly_fitted_neighbour():
    """A held-out pile: the seven of hearts' rectangle was fitted over the
    eight of diamonds' index, so by the outlines each lies on the other's;
    the eight read at 0.93 stays, since its index is on the picture."""
    seven = det("H7", 0.97, card(200, 200))
    eight = det("D8", 0.93, card(200, 192))
    assert contradicts(seven.quad, eight.quad, 0.4, end_a=1, end_b=1)
    assert drop_hidden([seven, eight], read_ends=lambda ds: [1] * len(ds)) == [seven, eight]
    assert drop_hidden([seven, eight], read_ends=lambda ds: [1] * len(ds), sure=0.95) == [seven]


def test_second_read_of_a_found_card_is_dropped_in_a_rendered_pile():
    """Unseen-design tuning scene 4 (seed 97, designs no stage trained on):
    the five of clubs is also read, through a rectangle a few pixels off,
    as a three; with the rule the detector reports exactly the six cards
    on the table."""
    from tablecam.training.designs import validation_designs
    from tablecam.vision.detector import CardDetector
    from tablecam.training.synth import render_scene

    rng = np.random.default_rng(97)
    designs = validation_designs()
    for _ in range(5):
        scene = render_scene(rng, designs, size=(1280, 720))
    truth = sorted(str(c.card) for c in scene.cards if c.visible)
    detector = CardDetector(None)
    assert sorted(d.card for d in detector.detect(scene.image)) == truth
    detector.settings = detector.settings.model_copy(update={"hidden_seen": 0})
    assert sorted(d.card for d in detector.detect(scene.image)) == sorted(truth + ["C3"])


def test_a_smaller_card_inside_a_surer_ones_outline_is_a_part_of_it():
    """A rectangle inside the king of spades (edje IMG_2638), turned 20
    degrees and two thirds of its size, read the king's index as a four."""
    king = det("SK", 0.96, card(200, 200))
    part = det("S4", 0.80, card(205, 207, turn=0.35, width=78))
    assert within(part.quad, king.quad) and not within(king.quad, part.quad)
    assert drop_hidden([king, part]) == [king]


def test_a_card_on_a_card_of_its_size_is_no_part_of_it():
    """Cards of one pack are one size: a card turned over another, mostly
    on it, is two cards."""
    under = det("D9", 0.95, card(200, 200))
    top = det("CQ", 0.7, card(205, 200, turn=0.15))
    assert not within(top.quad, under.quad)
