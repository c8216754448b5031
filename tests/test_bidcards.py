"""Bidding-box cards: the drawn designs, the reader, and reads that are never forced.

The reader (``tablecam/vision/models/bid_card.onnx``) is checked on designs of
a typeface family the training never saw (``bidding_box.held_out_design``),
drawn and degraded as a camera sees them.
"""

from __future__ import annotations

import numpy as np
import pytest

from tablecam.sim.bidding_box import HELD_OUT_FONTS, TRAIN_FONTS, design, draw_card, held_out_design
from tablecam.vision.bidcards import CALLS, CLASSES, MODEL, BidCardReader, call_possible, judge_read
from tablecam.training.call_prior import ARCHIVES, auctions, count
from tablecam.vision.call_prior import shipped as shipped_prior
from tablecam.vision.classify import _softmax

needs_model = pytest.mark.skipif(not MODEL.exists(), reason="no bid_card.onnx shipped")


def test_every_call_and_signal_card_is_drawn_in_training_and_held_out_designs():
    for d in (design(0), design(7), held_out_design(0), held_out_design(3)):
        faces = {c: draw_card(c, d) for c in CLASSES[:-1]}
        assert all(f.std() > 10 for f in faces.values())
        assert len({f.tobytes() for f in faces.values()}) == len(faces)
    assert not set(TRAIN_FONTS) & set(HELD_OUT_FONTS)


def test_law_18_a_bid_must_be_higher_than_the_last_to_be_read_surely():
    """A confident read of a bid that cannot follow the auction is made
    uncertain, and the best call that can follow is offered in its place."""
    probs = np.zeros(len(CLASSES), np.float32)
    probs[CLASSES.index("1H")] = 0.95
    probs[CLASSES.index("4H")] = 0.04
    r = judge_read(probs, before=["1S", "P"])
    assert r.call == "4H" and r.uncertain and r.candidates[0][0] == "4H"
    assert r.event_fields()["uncertain"] is True
    sure = judge_read(probs, before=["P"])
    assert not sure.uncertain and "uncertain" not in sure.event_fields()


def test_law_19_doubles_and_redoubles_that_no_auction_allows():
    assert not call_possible([], "X")
    assert not call_possible(["1C", "P"], "X")          # partner's bid
    assert call_possible(["1C", "P", "P"], "X")          # balancing double of the opponents' bid
    assert not call_possible(["1C", "X", "P"], "XX")     # the doubler's partner may not redouble
    assert call_possible(["1C", "X"], "XX")


@needs_model
def test_the_reader_reads_held_out_designs_and_is_never_confidently_wrong():
    """Strips of designs no training design shares a typeface with, as a
    720p camera sees them: most read surely, none sure and wrong."""
    from tablecam.training.bidcards import strips

    x, y = strips(600, seed=99, designs=8, held_out=True)
    reader = BidCardReader()
    reads = [judge_read(p) for p in _softmax(reader.session.run(None, {reader.input: x})[0])]
    right = [r.call == CLASSES[t] for r, t in zip(reads, y)]
    sure_wrong = [r for r, ok in zip(reads, right) if not r.uncertain and not ok]
    assert np.mean(right) > 0.9
    assert len(sure_wrong) <= 1


@needs_model
def test_the_reader_reads_a_clean_strip_of_every_call():
    import cv2

    from tablecam.sim.bidding_box import card_strip

    d = held_out_design(1)
    strips = [cv2.cvtColor(card_strip(draw_card(c, d)), cv2.COLOR_RGB2BGR) for c in CALLS]
    reads = BidCardReader().read(strips)
    assert sum(r.call == c for r, c in zip(reads, CALLS)) >= len(CALLS) - 1


def test_playing_cards_are_shown_to_the_reader_as_no_call_from_training_decks_only():
    """A playing card at rest in a bidding zone is no call: the recipe's playing-card
    strips are labelled ``none`` and drawn from the decks a card model may train on,
    never the held-out decks nor the tuning deck the video benchmarks use."""
    from tablecam.training.bidcards import PlayingFaces, strips
    from tablecam.training.faces import HELD_OUT_DECKS, NOT_TRAINED_DECKS

    faces = PlayingFaces()
    assert faces.decks and not set(faces.decks) & set(NOT_TRAINED_DECKS)
    x, y = strips(24, seed=5, designs=8, camera_share=0.5, playing_share=1.0)
    assert x.shape == (24, 3, 48, 96) and set(y.tolist()) == {CLASSES.index("none")}
    assert all(s > 0.02 for s in x.reshape(24, -1).std(1))       # a card's print, not a blank
    assert PlayingFaces(HELD_OUT_DECKS).decks == HELD_OUT_DECKS   # for checking the model only


def test_playing_card_strips_are_a_share_beside_the_calls():
    from tablecam.training.bidcards import strips

    _, y = strips(300, seed=6, designs=8, playing_share=0.3)
    none = float(np.mean(y == CLASSES.index("none")))
    assert 0.25 < none < 0.45                     # 0.3 playing cards, 8% of the rest bid cards' ends
    assert len(set(y.tolist())) > 30


def test_no_playing_share_draws_the_recipe_before_it(monkeypatch):
    """``playing_share`` 0 draws no playing card and takes nothing from the random
    stream: the strips are those of the recipe that shipped before the field."""
    import tablecam.training.bidcards as bc

    def refuse(*a, **k):
        raise AssertionError("no playing card may be drawn")

    before = bc.strips(12, seed=3, designs=8, camera_share=0.5, stacked_share=0.25)
    monkeypatch.setattr(bc, "PlayingFaces", refuse)
    now = bc.strips(12, seed=3, designs=8, camera_share=0.5, stacked_share=0.25, playing_share=0.0)
    assert np.array_equal(before[0], now[0]) and np.array_equal(before[1], now[1])


def test_tuning_designs_are_drawn_as_training_designs_but_never_trained_on():
    """The bidding bench's tuning variants lay bid cards of these: settings are chosen on designs the
    reader has not seen, and the held-out family stays for judging."""
    from tablecam.sim.bidding_box import TRAINED_DESIGNS, tuning_design
    from tablecam.sim.cardfaces import FaceBank

    d = tuning_design(3)
    assert d.font_family in TRAIN_FONTS and d.seed >= TRAINED_DESIGNS and d == design(TRAINED_DESIGNS + 3)
    drawn = FaceBank("plain", (63, 88), (45, 90), bid_design=3, bid_tuning=True).get("bid:2H")
    held = FaceBank("plain", (63, 88), (45, 90), bid_design=3).get("bid:2H")
    assert drawn.shape == held.shape and not np.array_equal(drawn, held)


def test_an_unsure_level_is_ranked_by_what_championship_players_bid():
    """A ``3S`` whose level digit is a few pixels high, read ``7S`` at 0.5 and ``3S`` at 0.3 as
    the opening call, is offered as ``3S`` first (nobody in the archived championships opened at
    the seven level), still uncertain with ``7S`` among its candidates; the same read surely is
    left as the network gives it, and the card floor still sees the network's own 0.5."""
    probs = np.zeros(len(CLASSES))
    probs[CLASSES.index("7S")], probs[CLASSES.index("3S")], probs[CLASSES.index("none")] = 0.5, 0.3, 0.2
    prior = shipped_prior().probs([])
    r = judge_read(probs, before=[], prior=prior)
    assert (r.call, r.uncertain, r.strength) == ("3S", True, 0.5)
    assert "7S" in r.event_fields()["candidates"]
    sure = np.zeros(len(CLASSES))
    sure[CLASSES.index("7S")] = 0.95
    assert (judge_read(sure, before=[], prior=prior).call, judge_read(sure, before=[], prior=prior).uncertain) == ("7S", False)
    # a read whose likeliest class is no call stays no call: the prior says which call, not whether
    none = np.zeros(len(CLASSES))
    none[CLASSES.index("none")], none[CLASSES.index("1S")], none[CLASSES.index("7S")] = 0.4, 0.3, 0.3
    assert judge_read(none, before=[], prior=prior).call == "none"


def test_a_raise_is_likelier_than_a_jump_to_seven_after_an_opening():
    p = shipped_prior().probs(["1S", "P"])
    assert p[CALLS.index("2S")] > 10 * p[CALLS.index("4S")] > 10 * p[CALLS.index("7S")]
    assert p[CALLS.index("1H")] > 0        # ruled out by the reads before, yet not impossible: they may be wrong


def test_the_shipped_call_prior_is_what_the_recipe_counts_in_the_real_auctions(real_bridge_data):
    """``tablecam/vision/models/call_prior.json`` is reproduced from ``../shared/data/bridge``."""
    found = auctions(ARCHIVES)
    assert {s: dict(c) for s, c in count(found).items()} == shipped_prior().counts
    assert len(found) > 7000


def test_a_coarse_h264_quantiser_loses_a_thin_faint_stroke_but_keeps_a_solid_sign():
    """What the bidding bench's 720p renders do to a light typeface's level digit (the recipe's
    ``--coded-share``): a one-pixel grey stroke is quantised away at 51, kept at 20; a solid
    blob, the suit sign, stays dark either way. Frames of any size come back in their size."""
    from tablecam.training.camera_look import h264

    frame = np.full((60, 80, 3), 235, np.uint8)
    frame[10:40, 20] = 150                       # the stroke
    frame[20:28, 50:58] = 20                     # the sign
    for qp, stroke_kept in ((20, True), (51, False)):
        coded, small = h264([frame, frame[:50, :70].copy()], qp)
        assert coded.shape == frame.shape and small.shape == (50, 70, 3)
        assert (coded[15:35, 20].mean() < 200) == stroke_kept
        assert coded[21:27, 51:57].mean() < 60


def test_the_camera_scale_of_the_recipe_before_draws_its_strips():
    """The default scale takes nothing more from the random stream: the strips of the shipped
    recipe's command are drawn again by it; a coded scale gives the same strips each run."""
    from tablecam.training.bidcards import CAMERA_SCALE, CameraScale, strips

    before = strips(10, seed=4, designs=8, camera_share=0.5, stacked_share=0.25)
    now = strips(10, seed=4, designs=8, camera_share=0.5, stacked_share=0.25, scale=CAMERA_SCALE)
    assert np.array_equal(before[0], now[0]) and np.array_equal(before[1], now[1])
    look = CameraScale((0.55, 1.6), (0.5, 1.3), aliased=0.5, coded=1.0)
    a = strips(10, seed=4, designs=8, camera_share=1.0, scale=look)
    b = strips(10, seed=4, designs=8, camera_share=1.0, scale=look)
    assert a[0].shape == (10, 3, 48, 96) and np.array_equal(a[0], b[0])
    assert not np.array_equal(a[0], now[0])
