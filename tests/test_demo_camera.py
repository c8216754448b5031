"""The demo's camera path: a simulated board rendered as video and read back
by the real camera pipeline gives the table node the plays that were made.

The trained model is replaced by the test suite's template classifier (see
tests/camera_helpers.py) so this checks the wiring - rendering, calibration,
stability, fusion with the dealt hands, event hand-off - on its own.
"""

import threading

import pytest

from tablecam.sim.bridge import simulate_board


def _first_tricks(events, tricks):
    """The board up to the end of ``tricks`` tricks, then a claim and the end."""
    out, plays = [], 0
    for e in events:
        if e["type"] in ("claim", "end"):
            break
        if e["type"] == "play":
            if plays == 4 * tricks:
                break
            plays += 1
        out.append(e)
    return out + [{"type": "claim", "seat": "N", "tricks": 7}, {"type": "end"}]


def test_demo_camera_reads_the_plays_of_a_rendered_board():
    from tablecam.node import democamera

    board = _first_tricks(simulate_board(2, seed=4, irregularity=None), tricks=2)
    emitted, reported = [], []
    cam = democamera.DemoCamera("bridge", emitted.append, reported.append, lambda m: None, seed=3)
    rest = cam.play(board, threading.Event(), speed=1000.0)
    plays = [(e["seat"], e["card"]) for e in emitted if e["type"] == "play"]
    expected = [(e["seat"], e["card"]) for e in board if e["type"] == "play"]
    assert plays == expected
    assert all(e["source"] == "camera" for e in emitted)
    assert sum(e["type"] == "trick_turned" for e in emitted) >= 1
    assert [e["type"] for e in rest] == ["claim", "end"]
    assert cam.frames > 0


def test_demo_camera_declines_boards_it_cannot_show():
    import tablecam.node.democamera as democamera

    cam = object.__new__(democamera.DemoCamera)
    assert not cam.can_show(simulate_board(1, seed=1, irregularity="misdeal"))
    revoke_fixed = [b for b in (simulate_board(n, seed=2, irregularity="revoke_corrected") for n in range(1, 9))
                    if any(e["type"] == "retract" for e in b)]
    assert revoke_fixed and not cam.can_show(revoke_fixed[0])
