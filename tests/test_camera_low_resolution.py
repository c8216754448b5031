"""A card seen at 480p: its pips are a witness of its rank when its index is not legible.

The faces are the simulator's own (the benchmark's held-out deck), shrunk to
what a 480p / 720p camera puts on a card (0.7 and 0.9 frame pixels per mm)
and blown up again to the pipeline's 250x350 crop, as the pipeline's crop
of such a frame is.
"""

from __future__ import annotations

import numpy as np
import pytest

from tablecam.vision.pip_vote import marks, pip_vote
from tablecam.vision.pipeline import CameraPipeline
from tablecam.vision.readers import Reading
from tablecam.vision.zones import CameraConfig

DECK = "drawn-serif-bold"
CLASSES = [s + r for s in "SHDC" for r in "AKQJT98765432"] + ["JK", "back", "none"]


def _seen_at(card: str, px_per_mm: float, deck: str = DECK) -> np.ndarray:
    import cv2

    from tablecam.sim.video import FaceBank

    face = FaceBank(deck, (250, 350)).get(card)
    small = cv2.resize(face, (int(63 * px_per_mm), int(88 * px_per_mm)), interpolation=cv2.INTER_AREA)
    return cv2.resize(small, (250, 350), interpolation=cv2.INTER_CUBIC)


def _probs(**p: float) -> np.ndarray:
    rest = (1.0 - sum(p.values())) / (len(CLASSES) - len(p))
    return np.array([p.get(c, rest) for c in CLASSES])


@pytest.mark.parametrize("deck", [DECK, "drawn-sans"])
@pytest.mark.parametrize("px_per_mm", [0.7, 0.9])
def test_the_pips_of_a_card_seen_at_480p_are_counted(deck, px_per_mm):
    for suit in "SHDC":
        for rank, n in zip("A23456789T", range(1, 11)):
            assert marks(_seen_at(suit + rank, px_per_mm, deck)) == n, (suit + rank, px_per_mm)


def test_a_court_card_has_no_count_or_a_small_one():
    # its picture is one large blob, or two or three: never read as an ace's lone sign
    assert all(marks(_seen_at(s + r, 0.7)) in (None, 2, 3) for s in "SHDC" for r in "JQK")


def test_outlines_read_as_no_card_do_not_vote():
    assert pip_vote([6, 6, 4, 4, 4], ["JK", "S4", "none", "back", "none"]) == 6


def _pipe(game: str = "bridge") -> CameraPipeline:
    return CameraPipeline(CameraConfig.load(), game=game, classify=lambda crop: ("none", 0.0, {}),
                          localise=lambda img: [])


def test_an_unsure_read_of_a_six_is_re_ranked_by_its_pips_and_stays_uncertain():
    crops = [_seen_at("S6", 0.7)] * 3
    r = Reading("JK", 0.45, _probs(JK=0.45, S4=0.12, S5=0.08, S6=0.04), CLASSES)    # a joker, then a four
    reads = [(r, None), (Reading("S4", 0.3), None), (Reading("none", 0.6), None)]
    out = _pipe()._with_pips(r, reads, crops)
    assert out.card == "S6" and out.witness == "pips"
    assert max(out.probs, key=out.probs.get) == "S6"


def test_a_three_read_as_a_joker_in_a_game_with_jokers_is_re_ranked_by_its_pips():
    """Whist and Pidro packs hold jokers, so a joker is a face the read may keep: it is still
    no court card, and the pips counted re-rank it (a glossy pile at 480p read S3 as JK)."""
    crops = [_seen_at("S3", 0.7)] * 2
    r = Reading("JK", 0.27, _probs(JK=0.27, S7=0.11, S3=0.09), CLASSES)
    out = _pipe("whist")._with_pips(r, [(r, None), (r, None)], crops)
    assert (out.card, out.witness) == ("S3", "pips")


def test_an_ace_read_as_a_three_is_re_ranked_by_its_lone_sign():
    crops = [_seen_at("DA", 0.9)] * 2
    r = Reading("D3", 0.3, _probs(D3=0.3, DA=0.2, JK=0.25), CLASSES)
    out = _pipe()._with_pips(r, [(r, None), (r, None)], crops)
    assert out.card == "DA" and out.witness == "pips"


def test_a_sure_read_and_a_court_cards_read_over_its_picture_are_left_alone():
    pipe = _pipe()
    sure = Reading("S4", 0.93, _probs(S4=0.93), CLASSES)
    assert pipe._with_pips(sure, [(sure, None)], [_seen_at("S6", 0.7)]) is sure
    for deck in (DECK, "drawn-sans", "bellot"):
        for card in ("SQ", "HJ", "DK", "CJ"):
            court = Reading(card, 0.6, _probs(**{card: 0.6, card[0] + "3": 0.05}), CLASSES)
            for px_per_mm in (0.7, 0.9, 1.3):     # a picture may count as two or three blobs
                crop = _seen_at(card, px_per_mm, deck)
                assert pipe._with_pips(court, [(court, None)], [crop]) is court, (deck, card, px_per_mm)


@pytest.mark.parametrize("sure", [0.49, 0.97])
def test_a_court_card_read_over_a_threes_pips_is_doubted(sure):
    """A three whose thin "3" reads as a jack (the held-out deck on a taped layout at 45 degrees,
    720p: DJ 0.49, D3 0.29, and the detector's second look then DJ surely): three like pips in a
    column are no jack's picture, so the read is re-ranked by them and goes out uncertain."""
    crops = [_seen_at("D3", 1.0, "bellot")] * 2
    r = Reading("DJ", sure, _probs(DJ=sure, D3=(1 - sure) * 0.6), CLASSES)
    out = _pipe()._with_pips(r, [(r, None), (r, None)], crops)
    assert (out.card, out.witness) == ("D3", "pips")     # even a sure jack: no picture lies so


def test_eight_pips_laid_out_are_no_joker_in_a_game_with_jokers():
    """Whist's pack holds jokers, and a glossy 480p eight read as a joker (0.22, the eights 0.12
    after its pips re-ranked it) stayed a joker: a number card's whole pip layout rules a picture out."""
    crops = [_seen_at("S8", 0.7)] * 2
    r = Reading("JK", 0.3, _probs(JK=0.3, S8=0.01, C8=0.01), CLASSES)
    out = _pipe("whist")._with_pips(r, [(r, None), (r, None)], crops)
    assert out.card[1:] == "8" and out.witness == "pips"


def test_a_card_only_the_detectors_second_look_reads_is_never_sure():
    """At 480p detect() too reads a five for a six, surely: a card the crop's read gave no chance
    is reported uncertain; one the crop's read held among its candidates is taken."""
    from tablecam.vision.calibrate import Calibration

    cfg = CameraConfig.load()
    square = [[0, 0], [600, 0], [600, 600], [0, 600]]           # the frame is the table, 1 px per mm

    def detector_says_c5(window: np.ndarray):
        h, w = window.shape[:2]
        q = np.array([[-31.5, -44], [31.5, -44], [31.5, 44], [-31.5, 44]]) + (w / 2, h / 2)
        return [("C5", 0.88, q, {"C5": 0.88, "C6": 0.06})]

    pipe = CameraPipeline(cfg, calibration=Calibration.from_points(square, cfg.geometry),
                          classify=lambda crop: ("none", 0.0, {}), second_opinion=detector_says_c5)
    img = np.full((600, 600, 3), 40, np.uint8)
    card = np.array([[268.5, 256], [331.5, 256], [331.5, 344], [268.5, 344]])
    alone, _ = pipe.second_look(img, card, Reading("none", 0.78, {"none": 0.78, "C6": 0.1, "C9": 0.05}))
    assert (alone.card, alone.witness) == ("C5", "second look alone")
    backed, _ = pipe.second_look(img, card, Reading("C6", 0.4, {"C6": 0.4, "C5": 0.3, "none": 0.2}))
    assert (backed.card, backed.witness) == ("C5", None)
    # the crop's read leant to the six, likelier than all the others together: disputed, not sure
    disputed, _ = pipe.second_look(img, card, Reading("C6", 0.6, {"C6": 0.6, "C5": 0.2, "none": 0.1}))
    assert (disputed.card, disputed.witness) == ("C5", "second look disputed")
