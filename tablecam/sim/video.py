"""Table video simulator: a deal rendered as a table camera would see it.

``tablecam sim video LOG.jsonl -o table.mp4`` (or ``--random SEED``) turns an
event log (``board``, ``deal``, ``call``, ``play``, ``expose`` events) into a
video of the playing area and writes, beside it, the *exact* ground truth:
the same log with every ``play`` / ``expose`` / ``call`` stamped with the
timestamp of the first frame (index / fps) on which the card lies at rest,
uncovered, and a ``trick_turned`` event at the first frame after the last
card of a trick has reached its player's quitted-trick row (bridge) or the
winner's trick pile (``trick_end="gather"``).  The camera pipeline's tests
and benchmarks compare against that file.

The work is split by job: :mod:`~tablecam.sim.scene` (the options, the
paths of cards and hands), :mod:`~tablecam.sim.choreography` (the deal laid
out in time and space, and the ground truth), :mod:`~tablecam.sim.render`
with :mod:`~tablecam.sim.plane` and :mod:`~tablecam.sim.view` (the table
plane and the camera filming it), :mod:`~tablecam.sim.cardfaces` and
:mod:`~tablecam.sim.hands`; this module makes a random deal and writes the
video with its truth and meta files.

Two looks share one scene planner:

* the **classic** look (the defaults of :class:`SimOptions`): green felt, a
  fixed camera with a slight tilt given as image corners, simple hands, a
  moving light gradient, MPEG-4 - what the camera pipeline's own tests use;
* the **real** look (:meth:`SimOptions.real`, ``tablecam sim video --look
  real``): a table surface from :mod:`~tablecam.sim.surfaces` (cut from real
  photos or generated), chips and other things on it
  (:mod:`~tablecam.sim.props`), a pinhole camera at up to 45 degrees from
  vertical with a wide-angle lens (:mod:`~tablecam.sim.optics`),
  auto-exposure and white-balance drift, sensor noise, lens softness,
  sleeves, hands and players holding their cards in fans
  (:mod:`~tablecam.sim.hands`), a dealer with the pack, cards carried, slid
  and flicked into place, bridge cards turned face down in front of each
  player (Law 65) or Nordic tricks gathered into the winner's pile, bidding
  cards laid and picked up (``auction``), a knocked camera that shakes and
  stays turned, and low-bitrate H.264 (:mod:`~tablecam.sim.encode`) at 480p
  to 4K.

Faces come from :func:`tablecam.training.faces.render_face` (any deck of
``list_decks()``; default a drawn deck that renders in milliseconds), or
from the plain built-in faces (``deck="plain"``) when that module is absent.

Timestamps are ``frame_index / fps``: the same clock the pipeline uses for a
video file, so ground truth and readings compare directly.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any, Callable, Iterable

from ..cards import SEATS, Seat, full_deck
from ..events import Event, make_event, read_events
from .cardfaces import FaceBank, plain_face
from .choreography import plan_scene
from .render import Renderer
from .scene import RESOLUTIONS, CardTrack, HandTrack, Scene, SimOptions

__all__ = ["SIM_VERSION", "RESOLUTIONS", "SimOptions", "CardTrack", "HandTrack", "Scene", "plan_scene", "Renderer",
           "FaceBank", "plain_face", "random_deal_log", "render_video", "load_log"]

SIM_VERSION = 5
"""Bumped whenever a change makes the same options render different pixels (cached benchmark videos)."""


def random_deal_log(seed: int = 1, tricks: int = 13, game: str = "bridge", board: int = 1,
                    exposes: int = 0, auction: bool = False) -> list[Event]:
    """A bridge-like deal for demos and tests: 13 cards each, plays following suit where possible.

    ``auction``: the calls of a plausible bridge auction (:mod:`tablecam.sim.bridge`) come
    between the deal and the play (a passed-out auction is replaced by ``1N`` and three passes,
    so there is always play to show).

    >>> log = random_deal_log(3, tricks=2)
    >>> [e.type for e in log].count("deal"), [e.type for e in log].count("play")
    (52, 8)
    >>> [e.type for e in random_deal_log(3, tricks=1, auction=True)].count("call") >= 4
    True
    """
    rng = random.Random(seed)
    deck = full_deck()
    rng.shuffle(deck)
    dealer = Seat.N
    evs = [make_event("board", game=game, board=board, dealer="N", **({"vulnerable": "None"} if game == "bridge" else {}))]
    hands: dict[Seat, list] = {s: [] for s in SEATS}
    for k, c in enumerate(deck):
        s = dealer.next(k + 1)
        hands[s].append(c)
        evs.append(make_event("deal", to=s, card=c))
    leader = dealer.next(1)
    if auction:
        from .bridge import _auction

        calls, declarer, _ = _auction({s: list(h) for s, h in hands.items()}, dealer, random.Random(seed + 17))
        if declarer is None:
            calls, declarer = [(dealer, "1N"), (dealer.next(1), "P"), (dealer.next(2), "P"), (dealer.next(3), "P")], dealer
        evs += [make_event("call", seat=s, call=c) for s, c in calls]
        leader = declarer.next(1)
    shown = 0
    for _ in range(tricks):
        suit = None
        for k in range(4):
            s = leader.next(k)
            h = hands[s]
            if exposes > shown and k == 1 and len(h) > 2:
                ex = rng.choice(h)
                evs.append(make_event("expose", seat=s, card=ex))
                shown += 1
            follow = [c for c in h if suit and c.suit == suit]
            c = rng.choice(follow or h)
            h.remove(c)
            if k == 0:
                suit = c.suit
            evs.append(make_event("play", seat=s, card=c))
        leader = rng.choice(SEATS)
    return evs


def render_video(events: Iterable[Event], out: str | Path, opt: SimOptions,
                 progress: Callable[[int, int], None] | None = None) -> tuple[Path, Path, Scene]:
    """Write the video, ``<out>.truth.jsonl`` and ``<out>.meta.json``; return their paths and the scene.

    ``progress(frames written, frames in all)`` is called after each frame."""
    from .encode import VideoSink

    out = Path(out)
    scene = plan_scene(events, opt)
    r = Renderer(scene, opt)
    sink = VideoSink(out, opt.size, opt.fps, codec=opt.codec, bitrate_kbps=opt.bitrate_kbps)
    n = 0
    total = int(math.ceil(scene.duration * opt.fps))
    try:
        for img in r.frames():
            sink.write(img)
            n += 1
            if progress is not None:
                progress(n, total)
    finally:
        sink.close()
    truth = out.with_suffix(".truth.jsonl")
    with open(truth, "w") as fp:
        for e in scene.truth:
            fp.write(json.dumps(e.to_dict()) + "\n")
    meta = out.with_suffix(".meta.json")
    info: dict[str, Any] = {
        "fps": opt.fps, "frames": n, "size": list(opt.size), "deck": opt.deck, "seed": opt.seed,
        "area_mm": list(opt.area_mm), "marker_mm": opt.marker_mm, "card_mm": list(opt.card_mm),
        "corners_px": r.corners_px(), "layout": opt.layout,
        "hand_passes": scene.hand_passes, "bump_at": opt.bump_at,
        "surface": opt.surface, "props": opt.props, "codec": sink.codec,
        "bitrate_kbps": sink.bitrate_kbps if sink.codec == "h264" else None,
        "plane_px_per_mm": round(r.p, 3), "people": opt.people, "motions": opt.motions,
        "trick_end": opt.trick_end, "held_hands": opt.held_hands, "auction": opt.auction,
    }
    if opt.bump_at is not None:
        info["corners_px_after_knock"] = r.corners_px(bumped=True)
    if r.cam is not None:
        cam = r.cam
        info["camera"] = {"tilt_deg": cam.tilt_deg, "yaw_deg": cam.yaw_deg, "hfov_deg": cam.hfov_deg,
                          "K": [[round(v, 3) for v in row] for row in cam.K().tolist()],
                          "dist": cam.opencv_dist(), "lens_k": [cam.k1, cam.k2], "distance_mm": round(cam.distance, 1),
                          "blur": opt.blur, "exposure": opt.exposure, "noise": opt.noise}
    meta.write_text(json.dumps(info, indent=1) + "\n")
    return truth, meta, scene


def load_log(path: str | Path) -> list[Event]:
    """Events of a JSONL log (bad lines skipped) or of any archive ``load`` reads."""
    p = Path(path)
    if p.suffix.lower() == ".jsonl":
        with open(p, encoding="utf-8", errors="replace") as fp:
            return [e for e in read_events(fp) if isinstance(e, Event)]
    from ..archive import load

    return [e for e in load(str(p)) if isinstance(e, Event)]
