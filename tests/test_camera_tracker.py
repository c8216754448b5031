"""The stability tracker's word on a box at rest where a card is already placed: that card seen
again, or a new card laid in its place.  Views drawn here (1 px/mm, the default config), so each
test sets exactly what the tracker sees."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from camera_helpers import card_quad  # noqa: E402

from tablecam.vision.tracker import Rest, StabilityTracker, Track, box_iou, quad_box  # noqa: E402
from tablecam.vision.zones import CameraConfig  # noqa: E402

CARD = (300.0, 380.0)          # South's place in the trick, mm (= view px)


def _view(mark: str | None) -> np.ndarray:
    """The dark table with a white card at ``CARD``, its pip drawn top left or bottom right."""
    import cv2

    img = np.full((600, 600, 3), 40, np.uint8)
    if mark is None:
        return img
    q = card_quad(*CARD).astype(np.int32)
    cv2.fillPoly(img, [q], (235, 235, 235))
    x, y = (int(v) for v in CARD)
    at = {"top left": (x - 18, y - 28), "bottom right": (x + 18, y + 28)}[mark]
    cv2.circle(img, at, 9, (20, 20, 160), -1)
    return img


def _tracker_with(mark: str) -> tuple[StabilityTracker, Rest]:
    """A tracker that has placed the card drawn with ``mark`` at South's place."""
    tr = StabilityTracker(CameraConfig.load())
    view = _view(mark)
    tr.update(view, 0.0, 0)
    q = card_quad(*CARD)
    rest = Rest(q, [q], quad_box(q), 0.9, 0.0, 0, True)
    tr.place(rest, {"kind": "play", "card": "D3", "seat": "S"})
    return tr, rest


def _rest_now(tr: StabilityTracker, mark: str, ts: float = 10.0) -> Rest | None:
    """What the tracker says of a box at rest at South's place once the view shows ``mark``'s card,
    taken into the scene at rest already (nothing there differs from it: only the placed card's
    look can tell a new card)."""
    view = _view(mark)
    tr.update(view, ts, int(ts * 25))
    tr.rest_scene = view.copy()
    box = quad_box(card_quad(*CARD))
    return tr._rest(view, Track(box, 0.9, int(ts * 25) - 2, ts - 0.08, int(ts * 25), 3))


def test_a_card_still_looking_as_placed_is_that_card_seen_again():
    tr, _ = _tracker_with("top left")
    assert _rest_now(tr, "top left") is None


def test_a_card_still_in_play_is_seen_again_however_it_looks_now():
    """A card of the trick still in play whose place looks otherwise now (a newer card landing
    partly over it in the same look, not yet placed) is still that card: no second read of it."""
    tr, _ = _tracker_with("top left")
    assert _rest_now(tr, "bottom right") is None


def test_a_card_of_a_trick_gathered_unseen_must_look_as_placed_to_be_seen_again():
    """A card of a trick the camera took as gathered (the next trick began), never seen to go (the
    winner's pile lay across its place), is that card seen again only if its place looks as it did
    (as a card seen again must). The same seat's next card, laid there since, is read - at 480p a
    white card on the layout's print changes too little for the changed patch to find it - and
    once placed it takes the gathered card's place."""
    tr, _ = _tracker_with("top left")
    tr.placed[0].info["gathered"] = True
    assert _rest_now(tr, "top left") is None
    rest = _rest_now(tr, "bottom right", 12.0)
    assert rest is not None
    new = tr.place(rest, {"kind": "play", "card": "HA", "seat": "S"})
    assert tr.placed == [new]


def test_a_new_card_across_one_placed_changes_only_where_it_lies():
    """A white card laid half across a placed one (its red pips and soft edge showing) on a brown
    table: the patch that changed since the scene at rest is the new card, card-sized, where it
    lies. The light's gain is measured on what a change of light can explain; taken from the
    window's mean, which the white card lifts by a third, it lifted the pips and edge of the card
    beneath past the change threshold, the patch grew past a card's size, and the new card was
    read through an outline over both (a 480p glossy top)."""
    import cv2

    tr = StabilityTracker(CameraConfig.load())
    before = np.zeros((600, 600, 3), np.uint8)
    before[:] = (40, 55, 90)                                  # brown (BGR)
    cv2.fillPoly(before, [card_quad(*CARD).astype(np.int32)], (235, 235, 235))
    cv2.polylines(before, [card_quad(*CARD).astype(np.int32)], True, (120, 130, 150), 2)   # its soft edge
    for dx in (-16, 16):
        for dy in (-28, 0, 28):
            cv2.circle(before, (int(CARD[0]) + dx, int(CARD[1]) + dy), 5, (30, 30, 170), -1)
    new_at = (CARD[0] + 45.0, CARD[1] + 40.0)
    now = before.copy()
    cv2.fillPoly(now, [card_quad(*new_at).astype(np.int32)], (240, 240, 240))
    cv2.circle(now, (int(new_at[0]), int(new_at[1])), 9, (30, 30, 170), -1)
    tr.update(before, 0.0, 0)
    tr.rest_scene = before.copy()
    both = quad_box(np.vstack([card_quad(*CARD), card_quad(*new_at)]))
    quad, _ = tr._changed_card(now, both)
    assert quad is not None
    assert np.abs(quad.mean(0) - new_at).max() < 4
    sides = np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)
    assert np.abs(np.sort(sides) - [63, 63, 88, 88]).max() < 3
