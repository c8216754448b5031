"""The live pipeline on real photographs: webcam stills of cards on green felt
(``../shared/data/real-photos/blackjack-tracker``, full identities labelled).

A still repeated as frames is a fair video of cards at rest.  The table is the
felt mat (600 x 450 mm, its corners given as ``--points`` would give them);
one ``expose`` zone covers it, so every card found at rest gives one event.
What must hold on real pictures: a card is reported once, a wrong card is
never reported as sure (``uncertain: true`` with its candidates instead), and
most cards are found.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablecam.vision.calibrate import Calibration
from tablecam.vision.camera import frames_from_images
from tablecam.vision.pipeline import CameraPipeline
from tablecam.vision.zones import CameraConfig

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "real-photos" / "blackjack-tracker"
if not DATA.exists():
    DATA = Path("/work/shared/data/real-photos/blackjack-tracker")

# the felt's corners NW, NE, SE, SW in image pixels (found once by its colour, checked by eye)
FELT = {
    "club1": [[245, 211], [990, 197], [1192, 778], [64, 754]],
    "club3": [[237, 213], [1025, 198], [1185, 771], [65, 758]],
    "diamond1": [[234, 215], [1017, 197], [1194, 773], [65, 754]],
    "diamond3": [[241, 213], [991, 199], [1193, 776], [65, 756]],
    "heart1": [[237, 211], [1031, 206], [1188, 754], [69, 762]],
    "spade1": [[238, 211], [978, 197], [1190, 766], [66, 752]],
    "spade3": [[236, 214], [1026, 198], [1194, 773], [68, 752]],
    "surface1": [[211, 66], [1130, 49], [1214, 763], [125, 749]],
    "surface2": [[217, 71], [1144, 48], [1234, 780], [119, 759]],
    "surface3": [[238, 54], [1049, 115], [1230, 732], [13, 625]],
    "surface4": [[189, 152], [949, 42], [1232, 494], [233, 737]],
}

pytestmark = pytest.mark.skipif(not DATA.exists(), reason="real photos not present")


def _config() -> CameraConfig:
    return CameraConfig.from_dict({
        "table": {"width_mm": 600, "height_mm": 450},
        "calibration": {"method": "points", "image_points": FELT["club1"]},
        "zone": [{"name": "felt", "kind": "expose", "seat": "S", "rect": [0, 0, 600, 450]}],
    })


def _run(name: str, scale: float = 1.0, whole_card: bool = True, **kw) -> tuple[list[dict], set[str], set[str]]:
    """The still ``name`` as ten frames (shrunk by ``scale``), through the pipeline: its events,
    the cards labelled and the cards allowed; ``whole_card=False`` reads without the whole-card reader."""
    import cv2

    cfg = _config()
    labels = json.loads((DATA / "labels.json").read_text())[f"{name}.jpg"]
    img = cv2.imread(str(DATA / f"{name}.jpg"))
    if scale != 1.0:
        img = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    points = [[x * scale, y * scale] for x, y in FELT[name]]
    pipe = CameraPipeline(cfg, calibration=Calibration.from_points(points, cfg.geometry), **kw)
    if not whole_card:
        pipe._whole = None
    out = [e.to_dict() for e in pipe.run(frames_from_images([img] * 10))]
    return out, set(labels["cards"]), set(labels.get("allowed", []))


def _check(out: list[dict], want: set[str], allowed: set[str]) -> tuple[int, int]:
    events = [e for e in out if e.get("type") == "expose"]
    cards = [e["card"] for e in events]
    assert len(cards) == len(set(cards)), f"a card reported twice: {cards}"
    for e in events:
        if e["card"] not in want | allowed:
            assert e.get("uncertain") is True and e["candidates"], f"a confident wrong card: {e}"
    return len(set(cards) & want), len(want)


def test_cards_on_real_felt_are_found_once_and_never_confidently_wrong():
    """The fast read alone (no second look): the crop reader on real webcam stills."""
    found = total = 0
    for name in ("club1", "surface1"):
        out, want, allowed = _run(name, second_opinion=lambda window: [])
        f, t = _check(out, want, allowed)
        found, total = found + f, total + t
    assert found >= 0.75 * total, (found, total)


@pytest.mark.slow
def test_every_real_still_with_the_detectors_second_look():
    """All eleven stills as shipped (an unsure read looked at again by the still detector):
    recall at least 0.85 (133 of the 155 cards), no card twice, no confident wrong card."""
    found = total = 0
    for name in FELT:
        out, want, allowed = _run(name)
        f, t = _check(out, want, allowed)
        found, total = found + f, total + t
    assert found >= 0.85 * total, (found, total)


def test_real_stills_brought_down_to_480p_are_read_better_by_the_whole_card():
    """Three stills shrunk to 512x320 (the felt at about 0.5-0.6 frame px/mm, an index 3-4 px
    tall), the crop reader alone: with the whole-card reader more cards come out right than
    without it (measured: 28 -> 36 of 39), on no still fewer, and none is a confident wrong card.
    The pack is one no model was trained on."""
    counts = {}
    for whole_card in (False, True):
        found = 0
        for name in ("heart1", "spade3", "surface3"):
            out, want, allowed = _run(name, scale=0.4, whole_card=whole_card, second_opinion=lambda window: [])
            f, _ = _check(out, want, allowed)
            counts[name, whole_card] = f
            found += f
        counts[whole_card] = found
    assert counts[True] >= counts[False] + 5, counts
    assert all(counts[n, True] >= counts[n, False] for n in ("heart1", "spade3", "surface3")), counts
