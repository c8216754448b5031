"""The newest bid card's large print read with its strip (``bidcards.with_middle``).

A bid card as the bench's 720p videos show it: the whole card drawn in a
design the reader never trained on, brought to the frame's pixel grid
(0.55-1.0 px/mm, foreshortened, turned, blurred, noisy, H.264 at a coarse
quantiser: ``training.bidcards.through_camera``), then its strip and its
large print cut from that frame as the watcher cuts them.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("cv2")

from tablecam.vision.bidcards import (CLASSES, MIDDLE_CORE_MM, MIDDLE_FROM_TOP_MM, MIDDLE_SCALE, STRIP_MM,
                                      BidCardReader, as_strip, middle_px, rectify, with_middle)

BIDS = ("1H", "2H", "3H", "4H", "2C", "3C", "5D", "2S", "4S", "3N")


def _frames(n: int, seed: int = 7):
    """``n`` bid cards in low-resolution coded frames: (call, frame, strip corners, large print corners)."""
    import cv2

    from tablecam.sim.bidding_box import draw_card, tuning_design
    from tablecam.training.bidcards import DRAW_PX_PER_MM, CameraScale, through_camera
    from tablecam.training.camera_look import h264
    from tablecam.vision.bidcards import CARD_MM

    rng = np.random.default_rng(seed)
    look = CameraScale((0.55, 1.0), (0.7, 1.0), aliased=0.5, coded=1.0)
    ppm = DRAW_PX_PER_MM
    out = []
    for i in range(n):
        call = BIDS[i % len(BIDS)]
        face = np.ascontiguousarray(draw_card(call, tuning_design(i // len(BIDS)), ppm)[..., ::-1])
        m = round(6 * ppm)
        canvas = cv2.copyMakeBorder(face, m, m, m, m, cv2.BORDER_CONSTANT, value=(60, 110, 40))
        w = CARD_MM[0] * ppm

        def rect(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
            return np.float32([[m + x0, m + y0], [m + x1, m + y0], [m + x1, m + y1], [m + x0, m + y1]])

        strip = rect(0, 0, w, STRIP_MM * ppm)
        half_h, half_w = STRIP_MM * MIDDLE_SCALE * ppm / 2, MIDDLE_CORE_MM * ppm / 2
        c = MIDDLE_FROM_TOP_MM * ppm
        middle = rect(w / 2 - half_w, c - half_h, w / 2 + half_w, c + half_h)
        cut = through_camera(canvas, np.vstack([strip, middle]), rng, look)
        out.append((call, cut.frame, cut.quad[:4], cut.quad[4:]))
    coded = h264([f for _, f, _, _ in out], 44)
    return [(call, frame, s, mq) for (call, _, s, mq), frame in zip(out, coded)]


def test_the_large_print_reads_the_level_a_low_resolution_strip_loses():
    """On 120 bids of twelve unseen designs at 0.55-1.0 px/mm through H.264 at quantiser 44, the strip
    alone read 24 right (its level digit gone), the strip and the large print together 94."""
    from tablecam.vision.bidcards import STRIP_PX

    reader = BidCardReader()
    strip_right = both_right = 0
    cards = _frames(120)
    for call, frame, sq, mq in cards:
        ps, pm = reader.probs([rectify(frame, sq, STRIP_PX), as_strip(rectify(frame, mq, middle_px()))])
        strip_right += CLASSES[int(np.argmax(ps))] == call
        both_right += CLASSES[int(np.argmax(with_middle(ps, pm)))] == call
    assert strip_right <= 0.4 * len(cards), (strip_right, both_right)
    assert both_right >= 0.7 * len(cards), (strip_right, both_right)


def test_a_large_print_that_shows_no_call_leaves_the_strips_read_alone():
    strip = np.zeros(len(CLASSES)); strip[CLASSES.index("P")] = 0.95; strip[CLASSES.index("none")] = 0.05
    hand = np.zeros(len(CLASSES)); hand[CLASSES.index("none")] = 0.9; hand[CLASSES.index("3H")] = 0.1
    assert with_middle(strip, hand) is strip
