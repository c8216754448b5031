"""The demo's camera: the board rendered as video, read by the real camera pipeline.

For each board the table video simulator renders what the overhead camera
would see (cards brought in by hands, tricks turned, hands passing over,
drifting light), frame by frame, and the real
:class:`~tablecam.vision.pipeline.CameraPipeline` - calibration from the
ArUco markers, stability tracking, the shipped card model, fusion with the
hands the shoe dealt - turns the frames into ``play``, ``expose`` and
``trick_turned`` events for the table node. What the players *intended* (the
simulator's log) and what the camera *saw* can differ: the engine judges what
the camera saw, as it would at a real table.

Boards the video simulator cannot show (a card taken back, ``retract``) are
played from the simulator's log instead, and the demo says so.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from ..events import Event, parse_event
from ..findings import Finding

VISIBLE = ("play", "expose")


def camera_available() -> str | None:
    """None when the camera path can run, else the reason it cannot."""
    try:
        from ..vision.pipeline import default_classifier

        default_classifier()
    except Exception as e:  # a missing model, OpenCV or onnxruntime problem
        return str(e)
    return None


class DemoCamera:
    def __init__(self, game: str, emit: Callable[[dict[str, Any]], Any],
                 report: Callable[[Finding], None], log: Callable[[str], None], seed: int = 1) -> None:
        from ..vision.pipeline import default_classifier
        from ..vision.zones import CameraConfig

        self.game, self.emit, self.report, self.log = game, emit, report, log
        self.cfg = CameraConfig.load()
        self.classify = default_classifier()
        self.seed = seed
        self.frames = 0
        self.seconds = 0.0

    def can_show(self, events: list[dict[str, Any]]) -> bool:
        """One deal and no card taken back: what the video simulator can show."""
        return (not any(e["type"] == "retract" for e in events)
                and sum(e["type"] == "board" for e in events) == 1)

    def play(self, board_events: list[dict[str, Any]], stop: Any, speed: float) -> list[dict[str, Any]]:
        """Render and read the board's card play; emit what the camera saw.

        Returns the simulator's events the camera does not see (claim, end).
        """
        from ..sim.video import Renderer, SimOptions, plan_scene
        from ..vision.camera import Frame
        from ..vision.fusion import HandBook
        from ..vision.pipeline import CameraPipeline

        evs = [parse_event(e, i) for i, e in enumerate(board_events)
               if e["type"] in ("board", "deal", *VISIBLE)]
        opt = SimOptions(seed=self.seed, layout="zones" if self.game == "bridge" else "centre")
        self.seed += 1
        scene = plan_scene(evs, opt)
        hands = HandBook()  # what the shoe dealt; the pipeline marks cards played as it sees them
        for ev in evs:
            if ev.type in ("board", "deal"):
                hands.feed(ev)
        pipe = CameraPipeline(self.cfg, self.game, classify=self.classify, hands=hands)
        renderer = Renderer(scene, opt)
        t0 = time.monotonic()
        for i, img in enumerate(renderer.frames()):
            if stop.is_set():
                break
            # Never faster than the demo's speed: frame i belongs at i / fps / speed.
            ahead = t0 + i / opt.fps / speed - time.monotonic()
            if ahead > 0 and stop.wait(ahead):
                break
            for item in pipe.process(Frame(i, i / opt.fps, img)):
                if isinstance(item, Event):
                    d = item.to_dict()
                    d["ts"] = round(time.time(), 3)
                    d["source"] = "camera"
                    self.emit(d)
                elif isinstance(item, Finding):
                    self.report(item)
            self.frames += 1
        self.seconds += time.monotonic() - t0
        return [e for e in board_events if e["type"] in ("claim", "end")]
