"""Camera pipeline on simulated table videos: the right events, none from a passing hand, on time.

The pipeline runs as at a table: the shipped card localiser finds the cards,
the shipped card model reads them (loaded once for the module).
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from camera_helpers import card_quad, truth  # noqa: E402

from tablecam.sim.video import SimOptions, random_deal_log, render_video  # noqa: E402
from tablecam.vision.camera import FrameSource  # noqa: E402
from tablecam.vision.fusion import HandBook  # noqa: E402
from tablecam.vision.pipeline import CameraPipeline, default_classifier  # noqa: E402
from tablecam.vision.zones import CameraConfig  # noqa: E402


_CLF: list = []


def _classifier():
    """The shipped card model (loaded once for the module): the pipeline is tested as it runs."""
    if not _CLF:
        _CLF.append(default_classifier())
    return _CLF[0]


def _run(video: Path, hands: HandBook | None = None, shoe: list | None = None, game: str = "bridge"):
    pipe = CameraPipeline(CameraConfig.load(), game=game, classify=_classifier(), hands=hands)
    for ev in shoe or []:
        pipe.feed(ev)
    out = [item.to_dict() for item in pipe.run(FrameSource(video, log=None))]
    return pipe, out


def _key(e: dict) -> tuple:
    if e["type"] == "trick_turned":
        return ("trick_turned", tuple(e["cards"]))
    return (e["type"], e["seat"], e["card"])


@pytest.fixture(scope="module")
def two_tricks(tmp_path_factory):
    d = tmp_path_factory.mktemp("cam")
    # two tricks, a card exposed by accident, a hand sweeping over the table twice per trick
    opt = SimOptions(fps=15, seed=4, max_tricks=2, pass_prob=1.0, plane_ppm=1.25)
    truth_path, meta, scene = render_video(random_deal_log(4, tricks=3, exposes=1), d / "t.mp4", opt)
    return d / "t.mp4", truth_path, scene


@pytest.fixture(scope="module")
def two_tricks_out(two_tricks):
    video, truth_path, scene = two_tricks
    pipe, out = _run(video)
    return pipe, out, truth_path, scene


def test_two_tricks_give_the_plays_in_order_and_the_tricks_turned(two_tricks_out):
    pipe, out, truth_path, scene = two_tricks_out
    assert scene.hand_passes, "the video must show a hand passing over the table"
    want = [_key(e) for e in truth(truth_path) if e["type"] in ("play", "trick_turned", "expose")]
    got = [_key(e) for e in out]
    assert got == want
    assert all(e["source"] == "camera" and 0 < e["conf"] <= 1 for e in out)
    assert pipe.cal is not None and pipe.cal.method == "aruco"


def test_event_follows_the_card_at_rest_within_300_ms(two_tricks_out):
    _, out, truth_path, _ = two_tricks_out
    gt = [e for e in truth(truth_path) if e["type"] == "play"]
    got = [e for e in out if e["type"] == "play"]
    assert len(got) == len(gt)
    for g, e in zip(gt, got):
        assert 0 <= e["ts"] - g["ts"] <= 0.3, (g, e)


def test_hand_passing_over_resting_cards_makes_no_event(two_tricks_out):
    _, out, truth_path, scene = two_tricks_out
    assert len(scene.hand_passes) >= 3
    gt = truth(truth_path)
    assert [_key(e) for e in out if e["type"] == "play"] == [_key(e) for e in gt if e["type"] == "play"]
    # nothing at all is reported while a hand sweeps over the table
    for t0, t1 in scene.hand_passes:
        assert not [e for e in out if t0 + 0.05 < e["ts"] < t1], (t0, t1)


def test_exposed_card_is_reported_for_its_seat(two_tricks_out):
    _, out, truth_path, _ = two_tricks_out
    want = [_key(e) for e in truth(truth_path) if e["type"] == "expose"]
    assert want and [_key(e) for e in out if e["type"] == "expose"] == want


def test_a_camera_restarted_mid_trick_takes_up_the_log_and_repeats_no_play(two_tricks, two_tricks_out):
    """The table node (and its camera) restart in the middle of the second
    trick, with two of its cards on the table.  Given the log so far, the new
    pipeline knows them: it goes on from there, and its events and the log
    before the restart together are the whole run's - no card played twice.
    Without the log it reports the cards lying there as new plays."""
    from tablecam.events import parse_event

    video, _, _ = two_tricks
    _, full, _, _ = two_tricks_out
    plays = [i for i, e in enumerate(full) if e["type"] == "play"]
    cut = plays[5]                                   # the second trick's second card is the last before
    before = full[:cut + 1]
    restart_ts = (full[cut]["ts"] + full[cut + 1]["ts"]) / 2    # between that play and the next event

    def resumed(recover: bool) -> list[dict]:
        pipe = CameraPipeline(CameraConfig.load(), game="bridge", classify=_classifier())
        if recover:
            pipe.recover(parse_event(e, i) for i, e in enumerate(before))
        frames = (f for f in FrameSource(video, log=None) if f.ts > restart_ts)
        return [item.to_dict() for item in pipe.run(frames)]

    after = resumed(True)
    assert [_key(e) for e in before + after] == [_key(e) for e in full]
    assert [e["trick"] for e in after if e["type"] == "trick_turned"] == \
        [e["trick"] for e in full[cut + 1:] if e["type"] == "trick_turned"]
    blind = resumed(False)
    repeated = [_key(e) for e in blind if e["type"] == "play" and _key(e) in {_key(b) for b in before}]
    assert len(repeated) == 2                         # the two cards lying there: what the log prevents


def test_fusion_flags_a_card_the_seat_cannot_hold(two_tricks):
    video, truth_path, _ = two_tricks
    from tablecam.events import read_events

    shoe = [e for e in read_events(Path(truth_path).read_text().splitlines()) if e.type in ("board", "deal")]
    # the shoe says N was dealt a different hand: swap N's first played card to W
    first_n = next(e for e in truth(truth_path) if e["type"] == "play" and e["seat"] == "N")["card"]
    from tablecam.cards import Seat
    shoe = [dataclasses.replace(e, data={**e.data, "to": Seat.W})
            if e.type == "deal" and str(e.get("card")) == first_n else e for e in shoe]
    _, out = _run(video, hands=HandBook(), shoe=shoe)
    flags = [e for e in out if e.get("kind") == "camera_unexpected_card"]
    assert len(flags) == 1 and flags[0]["seat"] == "N" and flags[0]["card"] == first_n
    assert flags[0]["rule"] and flags[0]["message"]


def test_trick_in_the_centre_for_other_games(tmp_path):
    opt = SimOptions(fps=15, seed=3, max_tricks=1, layout="centre", hand_passes=False, plane_ppm=1.25,
                     lighting=False)
    log = random_deal_log(3, tricks=1, game="whist")
    tp, _, _ = render_video(log, tmp_path / "c.mp4", opt)
    _, out = _run(tmp_path / "c.mp4", game="whist")
    assert [_key(e) for e in out] == [_key(e) for e in truth(tp) if e["type"] in ("play", "trick_turned")]


@pytest.mark.parametrize("game,fps,seed", [("whist", 15, 1), ("vira", 25, 3)])
def test_overlapping_trick_pile_gives_one_play_per_card_by_the_right_seat(tmp_path, game, fps, seed):
    """Whist, cards laid overlapping in the centre, hands sweeping over the pile.

    Each card laid on the pile is found as the card-shaped change on it and
    given to the seat on whose side it lies. Which card it is, is the
    classifier's business: the template stand-in here misreads some of these
    crops (diamonds for hearts), so this test checks who played and when.
    """
    opt = SimOptions(fps=fps, seed=seed, max_tricks=2, layout="pile", pass_prob=1.0, plane_ppm=1.25)
    tp, _, scene = render_video(random_deal_log(seed, tricks=3, game=game), tmp_path / "pile.mp4", opt)
    _, out = _run(tmp_path / "pile.mp4", game=game)
    gt = [e for e in truth(tp) if e["type"] in ("play", "trick_turned")]
    assert [(e["type"], e.get("seat")) for e in out] == [(e["type"], e.get("seat")) for e in gt]
    for g, e in zip(gt, out):
        assert 0 <= e["ts"] - g["ts"] <= 0.3 or e["type"] == "trick_turned"
    assert len(scene.hand_passes) >= 2


def test_knocked_camera_is_recalibrated_and_makes_no_event(tmp_path):
    opt = SimOptions(fps=15, seed=5, max_tricks=1, hand_passes=False, plane_ppm=1.25, lighting=False, bump_at=3.5)
    tp, _, _ = render_video(random_deal_log(5, tricks=2), tmp_path / "b.mp4", opt)
    pipe, out = _run(tmp_path / "b.mp4")
    assert [_key(e) for e in out] == [_key(e) for e in truth(tp) if e["type"] in ("play", "trick_turned")]
    assert len(pipe.recalibrations) == 1 and pipe.recalibrations[0][0] >= 3.5


def test_light_switched_down_in_the_middle_of_a_trick_changes_nothing():
    import numpy as np

    from tablecam.sim.video import Renderer, plan_scene
    from tablecam.vision.camera import Frame

    opt = SimOptions(fps=15, seed=6, max_tricks=1, hand_passes=False, plane_ppm=1.25, lighting=False)
    scene = plan_scene(random_deal_log(6, tricks=2), opt)
    r = Renderer(scene, opt)
    pipe = CameraPipeline(CameraConfig.load(), classify=_classifier())
    out = []
    for i in range(int(scene.duration * opt.fps)):
        img = r.frame(i)
        if i / opt.fps >= 3.6:                       # a lamp goes off: 40 % less light from one frame to the next
            img = (img.astype(np.float32) * 0.6).astype(np.uint8)
        out += [e.to_dict() for e in pipe.process(Frame(i, round(i / opt.fps, 4), img))]
    want = [_key(e.to_dict()) for e in scene.truth if e.type in ("play", "trick_turned")]
    assert [_key(e) for e in out] == want


def test_camera_command_prints_the_events_as_json_lines(two_tricks, monkeypatch, capsys):
    import tablecam.vision.pipeline as pl
    from tablecam.cli import main

    video, truth_path, _ = two_tricks
    monkeypatch.setattr(pl, "default_classifier", _classifier)   # the stand-in instead of the model
    shoe = Path(truth_path)
    assert main(["camera", "--source", str(video), "--shoe", str(shoe), "--stats"]) == 0
    cap = capsys.readouterr()
    out = [json.loads(line) for line in cap.out.splitlines()]
    want = [_key(e) for e in truth(truth_path) if e["type"] in ("play", "trick_turned", "expose")]
    assert [_key(e) for e in out] == want          # the shoe agrees with the camera: no findings
    assert json.loads(cap.err.strip().splitlines()[-1])["fps"] > 0


def test_unreadable_frames_cost_nothing_but_themselves():
    import numpy as np

    from tablecam.vision.camera import Frame

    pipe = CameraPipeline(CameraConfig.load(), classify=_classifier())
    assert pipe.process(Frame(0, 0.0, np.zeros((4, 4), np.uint8))) == []
    assert pipe.process(Frame(1, 0.04, np.zeros((720, 1280, 3), np.uint8))) == []   # no markers: no events
    assert pipe.cal is None


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_full_deal_at_25_fps_gives_the_exact_log_on_time(tmp_path):
    """13 tricks, exposes, hand passes, lighting: the whole log, every play within 300 ms.

    With the shoe's hands, as at a real table: the template stand-in mixes up
    a suit now and then (SK for DK), which the fusion puts right.
    """
    from tablecam.events import read_events

    opt = SimOptions(fps=25, seed=13, pass_prob=0.6)
    tp, _, scene = render_video(random_deal_log(13, tricks=13, exposes=2), tmp_path / "deal.mp4", opt)
    shoe = [e for e in read_events(Path(tp).read_text().splitlines()) if e.type in ("board", "deal")]
    _, out = _run(tmp_path / "deal.mp4", hands=HandBook(), shoe=shoe)
    gt = truth(tp)
    assert [_key(e) for e in out] == [_key(e) for e in gt if e["type"] in ("play", "trick_turned", "expose")]
    for g, e in zip([e for e in gt if e["type"] == "play"], [e for e in out if e["type"] == "play"]):
        assert 0 <= e["ts"] - g["ts"] <= 0.3


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_full_deal_with_shipped_model(tmp_path):
    """A whole deal on a held-out deck design, read by the shipped model.

    Raw readings (before the shoe's hands are consulted) must be at least
    95 % right; with the hands (fusion), the log must be exact.
    """
    pytest.importorskip("tablecam.vision.detector")
    from tablecam.events import read_events
    from tablecam.vision.classify import MODELS_DIR
    from tablecam.training.faces import HELD_OUT_DECKS

    if not (MODELS_DIR / "card_classifier.onnx").exists():
        pytest.skip("the card model is not shipped yet (models/card_classifier.onnx)")
    opt = SimOptions(fps=25, seed=21, deck=HELD_OUT_DECKS[0])
    tp, _, _ = render_video(random_deal_log(21, tricks=13), tmp_path / "deal.mp4", opt)
    shoe = [e for e in read_events(Path(tp).read_text().splitlines()) if e.type in ("board", "deal")]
    pipe = CameraPipeline(CameraConfig.load(), hands=HandBook())
    for ev in shoe:
        pipe.feed(ev)
    out = [i.to_dict() for i in pipe.run(FrameSource(tmp_path / "deal.mp4", log=None))]
    gt = truth(tp)
    want = [_key(e) for e in gt if e["type"] in ("play", "trick_turned")]
    got = [_key(e) for e in out if e.get("type") in ("play", "trick_turned")]
    assert got == want, json.dumps(pipe.readings)
    assert not [e for e in out if e.get("kind") == "camera_unexpected_card"]
    raw = [card for _, zone, card, _ in pipe.readings if zone.startswith("play-") and card not in ("back", "none")]
    right = sum(1 for g, c in zip([e for e in gt if e["type"] == "play"], raw) if g["card"] == c)
    assert len(raw) == 52 and right / 52 >= 0.95, (right, json.dumps(pipe.readings))


def _frames_with(scene, opt, edit):
    """The scene's frames, each passed through ``edit(i, img)`` first (a sleeve laid over a card ...)."""
    from tablecam.sim.video import Renderer
    from tablecam.vision.camera import Frame

    r = Renderer(scene, opt)
    for i in range(int(scene.duration * opt.fps)):
        yield Frame(i, round(i / opt.fps, 4), edit(i, r.frame(i)))


def _frozen(pipe, fps: float, pick, since: float, until: float):
    """An edit for :func:`_frames_with`: the card ``pick(placed)`` picks among the cards placed,
    frozen in view as it looked at ``since`` (seconds) until ``until`` (under an arm, or a
    gathered pile that the camera takes for the card still lying there).  Returns the edit and
    a dict that holds ``px`` once the card was frozen."""
    import numpy as np

    frozen: dict = {}

    def edit(i: int, img: np.ndarray) -> np.ndarray:
        t = i / fps
        mine = next((p for p in pipe.tracker.placed if pick(p)), None)
        if mine is not None and "px" not in frozen and t > since:
            q = pipe.cal.table_to_image(mine.quad_view / pipe.cfg.px_per_mm)
            x1, y1 = np.floor(q.min(0)).astype(int) - 4
            x2, y2 = np.ceil(q.max(0)).astype(int) + 4
            frozen.update(px=(x1, y1, x2, y2), patch=img[y1:y2, x1:x2].copy())
        if "px" in frozen and t < until:
            x1, y1, x2, y2 = frozen["px"]
            img = img.copy()
            img[y1:y2, x1:x2] = frozen["patch"]
        return img

    return edit, frozen


def test_an_arm_resting_on_an_exposed_card_makes_no_second_expose():
    """A still arm over an exposed card looks like the card is gone; the card seen again after
    is the same card, still exposed: one card, one event."""
    import cv2
    import numpy as np

    from tablecam.sim.video import plan_scene

    opt = SimOptions(fps=15, seed=4, max_tricks=1, hand_passes=False, plane_ppm=1.25, lighting=False)
    scene = plan_scene(random_deal_log(4, tricks=2, exposes=1), opt)
    pipe = CameraPipeline(CameraConfig.load(), classify=_classifier())
    cover: dict = {}

    def sleeve(i: int, img: np.ndarray) -> np.ndarray:
        exposed = [p for p in pipe.tracker.placed if p.info.get("kind") == "expose"]
        if exposed and "from" not in cover:
            q = exposed[0].quad_view / pipe.cfg.px_per_mm
            c = q.mean(0)
            cover.update({"from": i + 8, "px": pipe.cal.table_to_image(c + (q - c) * 1.3).astype(np.int32)})
        if "from" in cover and cover["from"] <= i < cover["from"] + 12:      # still for 0.8 s, then lifted
            img = img.copy()
            cv2.fillPoly(img, [cover["px"]], (60, 90, 170))
        return img

    out = [e.to_dict() for e in pipe.run(_frames_with(scene, opt, sleeve))]
    assert "from" in cover and cover["from"] + 12 < scene.duration * opt.fps
    want = [_key(e.to_dict()) for e in scene.truth if e.type in ("play", "expose")]
    assert [_key(e) for e in out if e["type"] in ("play", "expose")] == want


def test_a_full_trick_whose_turn_was_not_seen_is_never_retracted():
    """A trick's card whose leaving the camera misses (here: frozen in place, as under a gathered
    pile) leaves the trick full: the next card of the seat that led is the next trick, no retract."""
    from tablecam.sim.video import plan_scene

    opt = SimOptions(fps=15, seed=7, max_tricks=2, hand_passes=False, plane_ppm=1.25, lighting=False)
    scene = plan_scene(random_deal_log(7, tricks=3), opt)
    plays = [e for e in scene.truth if e.type == "play"]
    held = next(e for e in plays[:4] if e.get("seat") != plays[4].get("seat"))      # not the next leader's
    again = next(e for e in plays[4:8] if e.get("seat") == held.get("seat"))
    pipe = CameraPipeline(CameraConfig.load(), classify=_classifier())
    # that card stays in view, frozen, from after the trick until just before its seat plays again
    freeze, frozen = _frozen(pipe, opt.fps, lambda p: p.info.get("card") == str(held.get("card")),
                             plays[3].ts + 0.5, again.ts - 1.5)
    out = [e.to_dict() for e in pipe.run(_frames_with(scene, opt, freeze))]
    assert "px" in frozen
    assert not [e for e in out if e["type"] == "retract"]
    assert [_key(e) for e in out if e["type"] == "play"] == [_key(e.to_dict()) for e in scene.truth if e.type == "play"]


def test_law_50_a_penalty_card_played_from_the_table_is_a_play():
    """A card exposed on the table (a penalty card, Law 50) must be played at the first legal
    opportunity; when its holder moves it into the trick, that is a play of it, not the same
    exposed card seen again somewhere else - even while the camera still sees its old place as
    taken (here: that place frozen until after the play, as under the player's arm).  Deal 20:
    East's jack of spades is exposed, then played to the first trick."""
    from tablecam.sim.video import plan_scene

    opt = SimOptions(fps=15, seed=20, max_tricks=2, hand_passes=False, plane_ppm=1.25, lighting=False)
    scene = plan_scene(random_deal_log(20, tricks=2, exposes=1), opt)
    exposed = next(e for e in scene.truth if e.type == "expose")
    played = next(e for e in scene.truth if e.type == "play" and e.get("card") == exposed.get("card"))
    pipe = CameraPipeline(CameraConfig.load(), classify=_classifier())
    arm, frozen = _frozen(pipe, opt.fps, lambda p: p.info.get("kind") == "expose", 0.0, played.ts + 1.5)
    out = [e.to_dict() for e in pipe.run(_frames_with(scene, opt, arm))]
    assert "px" in frozen
    want = [_key(e.to_dict()) for e in scene.truth if e.type in ("play", "expose")]
    assert [_key(e) for e in out if e["type"] in ("play", "expose")] == want


def test_a_trick_gathered_with_a_card_never_seen_takes_no_card_back():
    """Whist, tricks laid in the centre and gathered. A card of the first trick is never read (here:
    its read is paper), so the camera sees a trick of three leave the table. That trick was gathered:
    the next trick's cards start a trick of their own - none joins the old one, and no card of the
    old one is taken back (a retract the rules engine would act on) when its seat plays again."""
    import numpy as np

    from tablecam.sim.video import plan_scene
    from tablecam.vision.readers import Reading

    opt = SimOptions(fps=15, seed=3, max_tricks=2, layout="centre", hand_passes=False, plane_ppm=1.25,
                     lighting=False)
    scene = plan_scene(random_deal_log(3, tricks=3, game="whist"), opt)
    plays = [e for e in scene.truth if e.type == "play"]
    unseen = plays[1]                                  # the second card of the first trick
    pipe = CameraPipeline(CameraConfig.load(), game="whist", classify=_classifier())
    read = pipe.read

    def blind(img, rest):
        r, quad, crop = read(img, rest)
        if r.card == str(unseen.get("card")):
            p = np.array([float(c == "none") for c in r.classes])
            return Reading("none", 1.0, p, r.classes), quad, crop
        return r, quad, crop

    pipe.read = blind
    out = [e.to_dict() for e in pipe.run(_frames_with(scene, opt, lambda i, img: img))]
    want = [_key(e.to_dict()) for e in plays if e is not unseen]
    assert not [e for e in out if e["type"] == "retract"]
    assert [_key(e) for e in out if e["type"] == "play"] == want
    assert len(pipe.trick) <= 4 and all(p["card"] in [e.get("card") for e in plays[4:]] for p in pipe.trick)


def _rest_at(pipe, x_mm: float, y_mm: float, ts: float):
    """A card come to rest centred at (x, y) mm on the table, as the tracker reports it."""
    from tablecam.vision.tracker import Rest, quad_box

    q = card_quad(x_mm, y_mm) * pipe.cfg.px_per_mm
    return Rest(q, [q], quad_box(q), 0.9, ts, int(ts * 25), True)


def _whist_reading(reads: list[tuple[str, float, dict]], px_per_mm: float = 0.55):
    """A whist pipeline whose rests read as ``reads`` in turn: each a card, its probability and
    other cards' probabilities (the rest is ``none``), the cards seen at ``px_per_mm`` frame
    pixels a millimetre (under 0.65 no read is sure)."""
    import numpy as np

    from tablecam.vision.readers import Reading

    pipe = CameraPipeline(CameraConfig.load(), game="whist", classify=lambda crop: Reading("none", 1.0))
    pipe.px_per_mm_at = lambda quad: px_per_mm
    classes = sorted({c for card, _, more in reads for c in (card, *more)}) + ["none"]
    it = iter(reads)

    def read(img, rest):
        card, conf, more = next(it)
        probs = {card: conf, **more}
        p = np.array([probs.get(c, 0.0) for c in classes])
        p[-1] = max(0.0, 1.0 - p.sum())
        return Reading(card, conf, p, classes), rest.quad_view, np.full((350, 250, 3), 235, np.uint8)

    pipe.read = read
    return pipe


def _unsure_whist(cards: list[str]):
    """A whist pipeline at 480p (no read sure) whose rests read as ``cards``, in turn, at 0.6."""
    return _whist_reading([(c, 0.6, {}) for c in cards])


def _events(pipe, places: list[tuple[float, float]], gone_after: int | None = None) -> list[dict]:
    """The events of cards come to rest at ``places`` (mm), one a second; after the
    ``gone_after``-th, every card placed leaves the table (a trick gathered)."""
    import numpy as np

    from tablecam.vision.camera import Frame
    from tablecam.vision.tracker import Gone

    img, out = np.zeros((480, 854, 3), np.uint8), []
    for k, (x, y) in enumerate(places):
        ts = 1.0 + k
        frame = Frame(int(ts * 25), ts, img)
        out += [e.to_dict() for e in pipe._on_rest(_rest_at(pipe, x, y, ts), frame)]
        if gone_after is not None and k + 1 == gone_after:
            for placed in list(pipe.tracker.placed):
                pipe.tracker.forget(placed)
                out += [e.to_dict() for e in pipe._on_gone(Gone(placed, ts + 0.5), frame)]
    return out


def test_a_full_tricks_earlier_card_is_not_the_next_trick_settling():
    """Whist at 480p, every read unsure. After a full trick whose gathering the camera has not yet
    seen, South's next card lands where South's card to that trick still lies: it is South's play
    to the next trick, not South's old card settling. The trick's last card read again where it
    lies is still that card settling: no second play."""
    pipe = _unsure_whist(["H9", "H6", "H8", "H4", "D4", "C5"])
    places = [(380, 300), (300, 380), (220, 300), (300, 220), (302, 222), (301, 381)]   # E S W N, N again, S
    assert [_key(e) for e in _events(pipe, places)] == [
        ("play", "E", "H9"), ("play", "S", "H6"), ("play", "W", "H8"), ("play", "N", "H4"), ("play", "S", "C5")]


def test_a_card_flicked_half_past_the_trick_zone_is_played():
    """The trick zone's drawn edge is 450 mm down; South's card stops centred at 464 mm, two of its
    corners inside. Nothing lies beyond it but the edge strip: it is South's play."""
    assert [_key(e) for e in _events(_unsure_whist(["SA"]), [(311, 464)])] == [("play", "S", "SA")]


def _outlines_read(reads: list[tuple[str, float]], quads_mm: list[list[tuple[float, float]]], px_per_mm: float):
    """``CameraPipeline.read`` of a card at rest offered the outlines ``quads_mm`` (table mm; the first
    is the changed patch), read in turn as ``reads``, the card seen at ``px_per_mm`` with a whole-card
    reader at hand; the read and the index of the outline it came from."""
    import numpy as np

    from tablecam.vision.calibrate import Calibration
    from tablecam.vision.readers import Reading
    from tablecam.vision.tracker import Rest, quad_box

    cfg = CameraConfig.load()
    cal = Calibration.from_points([[0, 0], [600, 0], [600, 600], [0, 600]], cfg.geometry)
    quads = [np.array(q, np.float64) * cfg.px_per_mm for q in quads_mm]
    it = iter(reads)
    pipe = CameraPipeline(cfg, calibration=cal, classify=lambda crop: Reading(*next(it)))
    pipe._whole = object()                                      # the whole face is read below 0.9 px/mm
    pipe.px_per_mm_at = lambda quad: px_per_mm
    r, quad, _ = pipe.read(np.full((600, 600, 3), 40, np.uint8), Rest(quads[0], quads, quad_box(quads[0]), 0.8, 1.0, 25, True))
    return r.card, next(i for i, q in enumerate(quads) if q is quad)


def test_an_outline_across_half_a_card_does_not_outread_the_card_itself():
    """At 0.7 px/mm a rectangle fitted across half a card reads some face at 0.3 as readily as the
    card's own outline does (a full-length 480p render: the king of hearts, upside down, read as
    the joker through its lower half, turned and squeezed).  Unsure, the outline the card's size
    wins; a sure read through another outline still does."""
    card = [(267.1, 127.2), (332.3, 118.2), (344.7, 208.2), (279.5, 217.1)]
    half = [(336.3, 157.1), (344.0, 206.0), (275.8, 216.8), (268.0, 167.9)]
    assert _outlines_read([("DK", 0.26), ("JK", 0.3)], [card, half], 0.69) == ("DK", 0)
    assert _outlines_read([("DK", 0.26), ("HK", 0.9)], [card, half], 0.69) == ("HK", 1)
    # seen small, the card's own outline read as nothing still wins: its whole face reads it next
    assert _outlines_read([("none", 0.97), ("JK", 0.3)], [card, half], 0.69) == ("none", 0)


def test_a_card_still_settling_is_read_through_its_changed_patch_at_1080p():
    """At 1080p a card's corners are all there is: the changed patch of a card still settling
    (grown by a finger, 63x100 mm) read as the jack of diamonds at 0.63 beats nothing read
    through the card's size (66x92 mm) - else the card makes no event."""
    grown = [(401.5, 251), (464.5, 251), (464.5, 351), (401.5, 351)]
    card = [(393, 256), (459, 256), (459, 348), (393, 348)]
    assert _outlines_read([("DJ", 0.63), ("none", 0.97)], [grown, card], 1.6) == ("DJ", 0)


def test_a_trick_pushed_together_to_be_gathered_is_no_new_lead():
    """Whist at 480p, tricks on a pile in the centre. The winner pushes the four cards together
    and the pile rests a moment before he takes it: an unsure outline over all four is no card
    leading a new trick (it was, and when that seat played again its phantom was taken back).
    The trick is turned when its cards leave, and the next lead is played as usual."""
    pipe = _unsure_whist(["H9", "H6", "H8", "H4", "D2", "S3"])
    places = [(340, 300), (300, 340), (260, 300), (300, 260), (304, 296), (300, 258)]   # E S W N, pile, N
    out = _events(pipe, places, gone_after=5)
    assert [_key(e) for e in out] == [("play", "E", "H9"), ("play", "S", "H6"), ("play", "W", "H8"),
                                      ("play", "N", "H4"), ("trick_turned", ("H9", "H6", "H8", "H4")),
                                      ("play", "N", "S3")]


def test_a_trick_with_a_seats_card_read_twice_is_not_full_and_the_last_card_is_played():
    """Whist at 480p. North's card is read twice as it settles (two plays of North: the trick
    looks full with East still to play). East's card, landing over two cards of the pile, is
    East's play - not the trick pushed together to be gathered, which needs every seat's card."""
    pipe = _unsure_whist(["H6", "H8", "H4", "D4", "H9"])
    places = [(300, 340), (260, 300), (300, 260), (296, 290), (330, 300)]             # S W N, N again, E
    out = _events(pipe, places)
    assert [_key(e) for e in out][-1] == ("play", "E", "H9")


def test_an_unsure_card_read_surely_where_it_lies_is_that_card_and_never_taken_back():
    """Whist at 720p. South's card, still settling, is read unsure as the six of hearts, then
    surely as the queen where it lies: the queen is South's card to the trick, the one turned with
    it, and South's next card is no second play to take the six back (a retract)."""
    reads = [("H9", 0.95, {}), ("H6", 0.5, {"HQ": 0.2}), ("HQ", 0.95, {}), ("H8", 0.95, {}),
             ("H4", 0.95, {}), ("C5", 0.95, {})]
    pipe = _whist_reading(reads, px_per_mm=1.2)
    places = [(340, 300), (300, 340), (302, 338), (260, 300), (300, 260), (300, 342)]    # E S S W N, S
    out = _events(pipe, places, gone_after=5)
    assert [_key(e) for e in out] == [("play", "E", "H9"), ("play", "S", "H6"), ("play", "S", "HQ"),
                                      ("play", "W", "H8"), ("play", "N", "H4"),
                                      ("trick_turned", ("H9", "HQ", "H8", "H4")), ("play", "S", "C5")]
    assert out[1].get("uncertain") and not out[2].get("uncertain")


def test_an_exposed_card_far_less_likely_than_the_read_is_not_that_card_seen_again():
    """Whist at 480p. South's three of diamonds lies exposed. South plays the jack, read unsure
    (0.34, the three at 0.07): that is the jack, unsure, not the exposed three played - which
    was reported surely, and the three, still lying exposed, was exposed a second time later."""
    pipe = _whist_reading([("DJ", 0.34, {"D3": 0.07, "DQ": 0.2})])
    pipe.exposed.add("D3")
    out = _events(pipe, [(300, 340)])
    assert [_key(e) for e in out] == [("play", "S", "DJ")]
    assert out[0]["uncertain"] and pipe.exposed == {"D3"}


def test_a_seats_unsure_card_read_again_across_a_quarter_of_it_is_no_second_play():
    """Whist at 480p. North's card, read unsure, is read again as it settles, unsure and as another
    card, through an outline a third of a card off that still covers almost half of it: that is
    North's card again, not a second play of North's (which made the trick look full and a wrong
    retract follow)."""
    pipe = _unsure_whist(["H6", "H8", "H4", "D8", "H9"])
    places = [(300, 340), (260, 300), (300, 260), (310, 285), (340, 300)]             # S W N, N again, E
    assert [_key(e) for e in _events(pipe, places)] == [
        ("play", "S", "H6"), ("play", "W", "H8"), ("play", "N", "H4"), ("play", "E", "H9")]


def test_a_trick_gathered_unseen_leaves_its_cards_marked_gathered():
    """Whist at 480p. A full trick whose cards the camera never saw leave: the next lead begins a
    new trick, and the old trick's cards still placed are marked gathered, so that a card laid
    in one of their places later is a new card, not that card seen again."""
    pipe = _unsure_whist(["H9", "H6", "H8", "H4", "C5"])
    places = [(380, 300), (300, 380), (220, 300), (300, 220), (301, 382)]              # E S W N, S leads
    out = _events(pipe, places)
    assert [_key(e) for e in out][-1] == ("play", "S", "C5")
    old = [p for p in pipe.tracker.placed if p.info.get("card") in ("H9", "H6", "H8", "H4")]
    assert len(old) == 4 and all(p.info.get("gathered") for p in old)


def _six_of_hearts_again(game: str):
    """A pipeline of ``game`` at 0.7 px/mm and its events: a first trick read surely (South's six
    of hearts among it) and gathered, then South's next card read as the six of hearts, unsure,
    the six of diamonds next."""
    pipe = _whist_reading([("H6", 0.97, {}), ("H8", 0.97, {}), ("H4", 0.97, {}), ("H9", 0.97, {}),
                           ("H6", 0.5, {"D6": 0.3, "C6": 0.1})], px_per_mm=0.7)
    pipe.game = game
    places = [(300, 380), (220, 300), (300, 220), (380, 300), (300, 380)]            # S W N E, S leads
    return pipe, _events(pipe, places, gone_after=4)


def test_a_card_surely_played_in_an_earlier_trick_is_not_played_again():
    """Whist. The six of hearts lies in the first trick, so South's next card read as it, unsure,
    is the six of diamonds, still unsure, and the six of hearts is no candidate."""
    pipe, out = _six_of_hearts_again("whist")
    assert [_key(e) for e in out] == [("play", "S", "H6"), ("play", "W", "H8"), ("play", "N", "H4"),
                                      ("play", "E", "H9"), ("trick_turned", ("H6", "H8", "H4", "H9")),
                                      ("play", "S", "D6")]
    last = out[-1]
    assert last["uncertain"] and [c["card"] for c in last["candidates"]] == ["D6", "C6"]


def test_vira_remembers_no_card_played_the_camera_cannot_tell_the_board_over():
    """Vira's boards are shorter than the pack (cards bought and discarded): with the camera alone
    nothing says a board is over, so a card surely played earlier stays a candidate."""
    pipe, out = _six_of_hearts_again("vira")
    assert _key(out[-1]) == ("play", "S", "H6") and pipe.played == set()
