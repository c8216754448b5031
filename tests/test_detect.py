"""`tablecam detect` on real photographs and renders of held-out decks.

The real photos (../shared/data/real-photos/edje) carry rank-only labels
(nine .. ace) with whole-card boxes: ranks are compared, boxes matched by
IoU.  Whole-set evaluations are marked slow; bench/vision reports them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")
pytest.importorskip("onnxruntime")

from tablecam.vision.classify import MODELS_DIR  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EDJE = ROOT.parent / "shared" / "data" / "real-photos" / "edje"
MODEL = MODELS_DIR / "card_classifier.onnx"

pytestmark = pytest.mark.skipif(not MODEL.exists(), reason="no shipped model in models/")

# Real photos of single cards and of two to four overlapping cards (test split).
SINGLE = ["IMG_2383", "IMG_2403", "IMG_2395"]


def _photo(name: str) -> Path:
    for ext in (".JPG", ".jpg"):
        p = EDJE / "test" / (name + ext)
        if p.exists():
            return p
    pytest.skip(f"real photo {name} not available")


@pytest.fixture(scope="module")
def detector():
    from tablecam.vision.detector import load_detector

    return load_detector()


def test_detect_reads_ranks_of_real_single_card_photos(detector):
    from tablecam.training.evaluate import match, read_voc

    for name in SINGLE:
        p = _photo(name)
        gts = read_voc(p.with_suffix(".xml"))
        dets = detector.detect(cv2.imread(str(p)))
        found, read, n_gt, _, _ = match(dets, gts)
        assert read == n_gt, (name, [d.card for d in dets], gts)


def test_detect_at_phone_resolution_maps_boxes_back(detector):
    """A 4032x3024 photo: localised on a downscaled copy, boxes in input pixels."""
    p = _photo(SINGLE[0])
    img = cv2.imread(str(p))
    big = cv2.resize(img, (3024, 4032), interpolation=cv2.INTER_CUBIC)  # portrait phone photo
    small = detector.detect(img)
    large = detector.detect(big)
    assert [d.card for d in large] == [d.card for d in small]
    s = 3024 / img.shape[1]
    for a, b in zip(small, large):
        assert np.allclose(np.array(a.box) * s, b.box, atol=0.03 * 3024)


def test_detect_any_angle(detector):
    p = _photo(SINGLE[1])
    img = cv2.imread(str(p))
    want = [d.card for d in detector.detect(img)]
    for rot in (cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_180):
        assert [d.card for d in detector.detect(cv2.rotate(img, rot))] == want


def test_classify_card_on_held_out_deck_renders(detector):
    from tablecam.training.faces import HELD_OUT_DECKS, render_face

    codes = ["SA", "HK", "DQ", "CJ", "ST", "H9", "D7", "C2", "back"]
    ok = n = 0
    for deck in HELD_OUT_DECKS:
        for code in codes:
            card, conf, probs = detector.classify_card(render_face(code, deck))
            n += 1
            ok += card == code
            assert card in probs or card == "none"
    # Regression guard, not the target: the shipped model reads 24 of these
    # 27 (tango's suit signs: SA->CA, ST->CT, D7->H7); models/README.md has
    # the full held-out figure (0.961) against the 0.995 target.
    assert ok / n >= 0.85, ok / n


def test_final_read_through_three_corner_windows_is_a_distribution(detector):
    """A card found is read again through three corner windows (the window,
    shifted, shrunk): the combined reading is still one distribution, and
    on a clean render it agrees with the single read."""
    from tablecam.training.faces import render_face

    face = render_face("D8", "drawn-sans")
    one = detector.classifier.classify_cards([face], views=1)[0]
    three = detector.classifier.classify_cards([face], views=3)[0]
    assert abs(float(three.sum()) - 1.0) < 1e-4
    assert int(np.argmax(one)) == int(np.argmax(three)) == detector.classes.index("D8")
    assert detector.settings.read_views == 3


def test_reads_remembered_past_their_limit_are_still_given_back(monkeypatch):
    """The camera pipeline reads card after card with one classifier and
    never starts its memory of reads afresh: when that memory fills up, a
    batch holding crops read before and new ones is still read whole (it
    once lost the remembered half and stopped the camera with a KeyError)."""
    from tablecam.vision import classify

    clf = classify.CornerClassifier(MODEL)
    rng = np.random.default_rng(0)
    crops = rng.random((6, 3, 80, 48)).astype(np.float32)
    first = clf.probs(crops[:4])
    monkeypatch.setattr(classify, "READS_KEPT", 5)
    both = clf.probs(crops[2:])  # two remembered, two new: over the limit of five
    assert np.array_equal(both[:2], first[2:])
    assert np.array_equal(both, clf.run(crops[2:]))

def test_detect_cli_json_and_bad_image(tmp_path):
    p = _photo(SINGLE[0])
    bad = tmp_path / "not_an_image.jpg"
    bad.write_bytes(b"this is not a jpeg")
    r = subprocess.run([sys.executable, "-m", "tablecam", "detect", str(p), str(tmp_path / "missing.png"),
                        str(bad), str(p), "--json"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 1, r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["image"] for x in lines] == [str(p), str(tmp_path / "missing.png"), str(bad), str(p)]
    first = lines[0]
    assert set(first) == {"image", "cards"}
    assert len(first["cards"]) == 1
    c = first["cards"][0]
    assert set(c) == {"card", "conf", "box"} and c["card"][1] == "A"
    assert 0 < c["conf"] <= 1 and len(c["box"]) == 4
    assert lines[1]["cards"] == [] and "error" in lines[1]
    assert "error" in lines[2]
    assert lines[3] == first  # processing went on after the bad files
    assert "missing.png" in r.stderr and "not_an_image.jpg" in r.stderr


def test_odd_but_valid_pictures_are_read_or_hold_no_card(detector, tmp_path):
    """A 1x1 or a 3 px high picture holds no card: an empty answer, not an
    OpenCV assertion as the error; a palette PNG, a 16-bit PNG, one with an
    alpha channel and a CMYK JPEG of a real photo read its card."""
    import cv2
    import numpy as np
    from PIL import Image

    from tablecam.vision.imagefile import read_photo

    def load_image(path: str) -> np.ndarray:
        return read_photo(path)[0]  # as `tablecam detect` reads a file

    photo = cv2.resize(cv2.imread(str(_photo(SINGLE[0]))), (1008, 756))
    rgb = Image.fromarray(cv2.cvtColor(photo, cv2.COLOR_BGR2RGB))
    cv2.imwrite(str(tmp_path / "tiny.png"), np.zeros((1, 1, 3), np.uint8))
    cv2.imwrite(str(tmp_path / "thin.png"), np.zeros((3, 4000, 3), np.uint8))
    cv2.imwrite(str(tmp_path / "u16.png"), photo.astype(np.uint16) * 257)
    cv2.imwrite(str(tmp_path / "alpha.png"), cv2.cvtColor(photo, cv2.COLOR_BGR2BGRA))
    rgb.convert("P").save(tmp_path / "palette.png")
    rgb.convert("CMYK").save(tmp_path / "cmyk.jpg")
    for name in ("tiny.png", "thin.png"):
        assert detector.detect(load_image(str(tmp_path / name))) == []
    for name in ("u16.png", "alpha.png", "palette.png", "cmyk.jpg"):
        cards = detector.detect(load_image(str(tmp_path / name)))
        assert [d.card[1] for d in cards] == ["A"], name


def test_detect_cli_warns_of_a_photo_cut_short(tmp_path):
    """A phone photo whose last tenth never arrived: the card in the part
    that is there is read, the record carries a warning (an extension of
    the contract's record), and the exit status is 0 - the picture was
    read, in part."""
    photo = cv2.resize(cv2.imread(str(_photo(SINGLE[0]))), (4032, 3024), interpolation=cv2.INTER_CUBIC)
    whole = tmp_path / "whole.jpg"
    cv2.imwrite(str(whole), photo, [cv2.IMWRITE_JPEG_QUALITY, 92])
    data = whole.read_bytes()
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(data[: len(data) * 9 // 10])
    r = subprocess.run([sys.executable, "-m", "tablecam", "detect", str(whole), str(cut), "--json"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    full, part = [json.loads(x) for x in r.stdout.splitlines()]
    assert "warning" not in full and "cut short" in part["warning"]
    assert [c["card"][1] for c in part["cards"]] == [c["card"][1] for c in full["cards"]] == ["A"]
    assert "cut.jpg: image file cut short" in r.stderr


def test_detect_cli_exit_0_when_all_images_read():
    p = _photo(SINGLE[1])
    r = subprocess.run([sys.executable, "-m", "tablecam", "detect", str(p), "--json"], capture_output=True,
                       text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["image"] == str(p)


@pytest.mark.slow
def test_real_photos_test_split_rank_accuracy(detector):
    from tablecam.training.evaluate import eval_real_photos

    r = eval_real_photos("test", detector)
    # Recorded in models/README.md (0.790 with the classical localiser alone,
    # 0.944 with the learned localiser of stage 1, 0.958 with classifier
    # stage 6 and fitted quads, all paired greedily; 0.972 paired one to one
    # at best); this guards against regressions.
    assert r["rank_accuracy"] >= 0.96 and r["rank_accuracy_greedy"] >= 0.94, r
    assert r["read"] / max(1, r["dets"]) >= 0.97, r  # precision


@pytest.mark.slow
def test_held_out_deck_crops_top1(detector):
    from tablecam.training.evaluate import eval_heldout_crops

    r = eval_heldout_crops(n_per_card=4, detector=detector)
    assert r["top1"] >= 0.97, r  # stage 6: 0.988 on 10 views per card (three corner windows)


def _train_photo(name: str) -> Path:
    for ext in (".JPG", ".jpg"):
        p = EDJE / "train" / (name + ext)
        if p.exists():
            return p
    pytest.skip(f"real photo {name} not available")


def test_localise_card_on_white_paper_by_its_edge():
    """A card lying on a white sheet is one white blob with the sheet; only
    the closed edge of its border separates it (the edge-region source)."""
    from tablecam.vision.localise import find_cards, quad_iou

    img = np.full((600, 800, 3), (40, 90, 30), np.uint8)  # green felt
    cv2.rectangle(img, (100, 80), (700, 540), (235, 235, 235), -1)  # paper
    card = np.array([[300, 150], [440, 150], [440, 346], [300, 346]], np.float32)  # 140 x 196
    cv2.fillConvexPoly(img, card.astype(np.int32), (250, 250, 250))
    cv2.polylines(img, [card.astype(np.int32)], True, (120, 120, 120), 2)
    cv2.putText(img, "A", (310, 185), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 200), 2)
    with_edges = find_cards(img, nms_iou=0.85)
    without = find_cards(img, nms_iou=0.85, edge_regions=False)
    assert max((quad_iou(q, card) for q in with_edges), default=0.0) > 0.85
    assert max((quad_iou(q, card) for q in without), default=0.0) < 0.85


def test_detect_reads_cards_lying_on_white_paper(detector):
    """Train-split photo of four cards on a sheet of paper: a faint card
    border on white paper needs the edge-region source; at least two are read."""
    from tablecam.training.evaluate import match, read_voc

    p = _train_photo("IMG_2579")
    gts = read_voc(p.with_suffix(".xml"))
    dets = detector.detect(cv2.imread(str(p)))
    found, read, n_gt, n_det, _ = match(dets, gts)
    assert read >= 2, ([d.card for d in dets], gts)
    assert n_det == found, [d.card for d in dets]


def test_wood_grain_is_not_read_as_card_backs(detector):
    """``back`` and ``JK`` are the classifier's usual reads of a non-card
    quad, so they must clear ``min_conf_rare``.  Train-split photo of one
    card on a wood table: at the plain floor wood quads read as ``back``;
    none may, and the card is still read."""
    from tablecam.training.evaluate import match, read_voc

    assert detector.settings.min_conf_rare > detector.min_conf
    p = _train_photo("cam_image28")
    gts = read_voc(p.with_suffix(".xml"))
    dets = detector.detect(cv2.imread(str(p)))
    found, read, n_gt, _, _ = match(dets, gts)
    assert read == n_gt, ([d.card for d in dets], gts)
    assert not [d for d in dets if d.card == "back"], [(d.card, d.conf) for d in dets]
    assert all(d.conf >= detector.settings.min_conf_rare for d in dets if d.card in ("back", "JK"))


BLACKJACK = ROOT.parent / "shared" / "data" / "real-photos" / "blackjack-tracker"


def _webcam_still(name: str):
    p = BLACKJACK / f"{name}.jpg"
    if not p.exists():
        pytest.skip(f"real photo {name} not available")
    return cv2.imread(str(p))


def test_outline_of_a_sideways_card_seen_at_an_angle():
    """A webcam looking down at an angle shortens a card along the line of
    sight: the sideways six of hearts of blackjack-tracker ``heart3.jpg``
    (a tuning still) is a trapezoid 83 by 137 px, no rectangle of a card's
    aspect.  Its box's outline is that trapezoid, and the card is read
    through it as a found card is read."""
    from tablecam.vision.localise import quad_iou
    from tablecam.vision.proposals import outline_quad

    img = _webcam_still("heart3")
    q = outline_quad(img, (594, 531, 737, 633))
    assert q is not None
    by_eye = np.array([[605, 536], [739, 546], [734, 634], [599, 624]], np.float32)  # from a 2.5x crop
    assert quad_iou(q, by_eye) > 0.85, q.round().tolist()
    from tablecam.vision.detector import load_detector

    card, conf, taken = load_detector().read_quad(img, q)
    assert (card, taken) == ("H6", True) and conf >= load_detector().settings.close_conf, (card, conf)
    assert outline_quad(img, (0, 0, 10, 10)) is None  # too small a box to hold a card


def test_webcam_cards_seen_at_an_angle_are_found_and_the_table_is_no_card(detector):
    """``heart3.jpg``: the three, five and six of hearts lie nearly across
    the camera's view and are found only through their outlines (close
    reads); a box along the picture's right edge, completed into a
    "card" seven times the others' width, read as a back at 0.92 - no
    quad wider than ``size_most`` times the widest sure card is read."""
    dets = detector.detect(_webcam_still("heart3"))
    cards = [d.card for d in dets]
    assert {"H3", "H5", "H6"} <= set(cards), cards
    assert "back" not in cards and len(cards) == len(set(cards)), cards


def test_a_back_cut_by_the_picture_edge_is_not_reported(detector):
    """Train-split photo of a ten of diamonds on a floor by a heating grille
    that the photo's top edge cuts: the grille read as a back at 1.00
    through a quad reaching 119 px above the picture.  A back is told by
    its whole pattern alone, so one reaching out of the picture is not
    reported; the card is.  The size rule for backs drops it too (its quad
    is longer than the ten beside it); with both rules off it comes back."""
    p = _train_photo("IMG_2545")
    img = cv2.imread(str(p))
    dets = detector.detect(img)
    assert [d.card for d in dets] == ["DT"], [(d.card, d.conf, d.box) for d in dets]
    from tablecam.vision.detector import CardDetector

    assert [d.card for d in CardDetector(None, back_in_picture=None).detect(img)] == ["DT"]
    off = CardDetector(None, back_in_picture=None, back_size=None)
    assert "back" in [d.card for d in off.detect(img)]


def test_one_card_is_not_reported_again_through_a_smaller_quad_inside_it(detector):
    """Train-split photo of the jack of hearts, ace and king of spades in a
    pile: a rectangle inside the king's outline, turned 20 degrees and
    two thirds of its size, read the king's index as a four of spades
    (0.80).  No card of the pack looks smaller than a card it lies on, so
    that read is a part of the king read again, and is dropped."""
    p = _train_photo("IMG_2638")
    dets = detector.detect(cv2.imread(str(p)))
    assert sorted(d.card for d in dets) == ["HJ", "SA", "SK"], [(d.card, d.conf) for d in dets]


def test_a_court_card_unsure_by_its_index_is_found_when_its_whole_face_agrees(detector):
    """Tuning stills of blackjack-tracker, each of one suit: the queens
    of ``club3.jpg``, ``diamond3.jpg`` and ``spade3.jpg``, about 1.2
    px/mm, read 0.35-0.5 by their index in a pack no model was trained
    on, under ``close_conf``.  The whole-card reader names the same
    cards, so the two multiplied stand (``whole_card``); with the
    witness off they are not reported.  No card is read twice or in
    another suit."""
    from tablecam.vision.detector import CardDetector

    off = CardDetector(None, whole_card=0)
    for name, gained in (("club3", "CQ"), ("diamond3", "DQ"), ("spade3", "SQ")):
        img = _webcam_still(name)
        cards = [d.card for d in detector.detect(img)]
        assert gained in cards and len(cards) == len(set(cards)), (name, cards)
        assert all(c[0] == gained[0] for c in cards), (name, cards)
        assert gained not in [d.card for d in off.detect(img)], name


def test_a_far_card_lying_sideways_to_a_slanted_camera_is_found(detector):
    """Tuning still ``surface3.jpg``: the three of clubs at the far edge,
    lying sideways, is a box 119 by 66 px (boxed at 0.27), shortened
    along the line of sight to no card's shape.  It is read surely through
    the box itself (``box_itself``: 0.96 read closely), and its size, the
    root of its area, is the size the cards found give at the far edge
    (``size_at_place``; its short side is 0.7 of the picture's usual
    card's).  With ``box_itself`` off it is lost; with ``size_at_place``
    off only a looser quad reads it, at 0.65 with its whole face's
    product (``whole_card_product``), and with that off too it is lost.
    No card is lost for it."""
    from tablecam.vision.detector import CardDetector

    img = _webcam_still("surface3")
    dets = detector.detect(img)
    cards = sorted(d.card for d in dets)
    assert cards == ["C3", "C4", "C9", "CK", "CT", "D6", "D8", "DJ", "H2", "H7", "H9", "HJ", "S5", "SA", "SK"], cards
    assert next(d.conf for d in dets if d.card == "C3") > 0.9
    for off in ({"box_itself": False}, {"size_at_place": False, "whole_card_product": False}):
        assert "C3" not in [d.card for d in CardDetector(None, **off).detect(img)], off


def test_two_threads_a_model_read_the_same_cards_as_one():
    """`tablecam detect` runs each network on two threads where there are
    two cores: the cards, confidences and outlines are those of one
    thread, bit for bit (the thread pool splits each layer's work, not a
    sum), on a real 16-card webcam frame."""
    from tablecam.vision.detector import CardDetector

    image = _webcam_still("surface1")
    one, two = (CardDetector(threads=t).detect(image) for t in (1, 2))
    assert len(one) >= 15
    assert [(d.card, d.conf) for d in one] == [(d.card, d.conf) for d in two]
    assert all(np.array_equal(a.quad, b.quad) for a, b in zip(one, two))


def test_one_pack_holds_each_card_once_so_the_surer_read_takes_it(detector):
    """Tuning still ``heart3.jpg``: the queen of hearts' box first reads
    "king" (0.75) through a rectangle inside it; the real king, lying
    sideways at the far edge, reads 0.98 closely (by its index and its
    whole face).  One pack holds the king once, so the surer read takes
    it and the queen is then found by her index (``close_displaces``);
    with the rule off the king is refused as a second king and lost."""
    from tablecam.vision.detector import CardDetector

    img = _webcam_still("heart3")
    dets = detector.detect(img)
    cards = [d.card for d in dets]
    assert {"HK", "HQ"} <= set(cards) and len(cards) == len(set(cards)), cards
    assert all(c[0] == "H" for c in cards), cards
    king = next(d for d in dets if d.card == "HK")
    assert king.box[0] > 880 and king.box[3] < 320, king.box  # the far card at the top right, not the queen
    assert "HK" not in [d.card for d in CardDetector(None, close_displaces=0).detect(img)]


def test_a_court_card_is_found_when_its_index_and_whole_face_together_name_it(detector):
    """Tuning still ``spade3.jpg``: the king of spades at the far edge,
    turned 35 degrees, reads 0.42 by its index through a classical quad
    a little off the card; there its whole face leans to "joker" (0.58),
    "king of spades" second (0.17).  The index gives the joker no chance,
    so the two reads multiplied name the king, at 0.82
    (``whole_card_product``); asking the whole face to name the king
    first, it is lost.  No card is read twice or in another suit."""
    from tablecam.vision.detector import CardDetector

    img = _webcam_still("spade3")
    cards = [d.card for d in detector.detect(img)]
    assert "SK" in cards and len(cards) == len(set(cards)) and all(c[0] == "S" for c in cards), cards
    assert "SK" not in [d.card for d in CardDetector(None, whole_card_product=False).detect(img)]
