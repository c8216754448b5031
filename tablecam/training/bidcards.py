"""The bid-card reader's recipe: rendered strips of many bidding-box designs -> ``bid_card.onnx``.

``python -m tablecam.training.bidcards --out data/bidcards`` renders the
training strips (:func:`strips`: :mod:`tablecam.sim.bidding_box` designs,
worn and glossy, warped as a camera sees them from up to 45 degrees, the next
card of the row over the strip's lower edge, blurred, down-sampled to 480p
sizes, noisy, JPEG-compressed), trains a small network on them with torch,
checks it on designs of a typeface family the training never saw, and writes
``bid_card.onnx`` and ``bid_card.json`` (the recipe and the held-out figures)
to ``--out``; copy both to ``tablecam/vision/models/`` to ship them.

Torch is needed here only (the ``train`` extra); the runtime reads the ONNX
file with ONNX Runtime (:mod:`tablecam.vision.bidcards`).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..sim.bidding_box import design, draw_card, held_out_design, wear
from .faces import HELD_OUT_DECKS
from .recipes import BidCardRecipe
from ..vision.bidcards import CARD_MM, CLASSES, STRIP_MM, STRIP_PX, judge_read
from ..vision.classify import _softmax, crops_batch

SIGNALS = ("STOP", "ALERT")


DRAW_PX_PER_MM = 4.0
"""Faces for training are drawn at half the simulator's resolution: the
strip reaches the reader at about 2 pixels a millimetre at most."""
KEEP_MM = STRIP_MM + 10.0
"""How much of a card's top is drawn into a sample: the strip and what lies below it."""


class FaceCache:
    """The tops of drawn faces by (design, call): drawing is the slow part of a sample."""

    def __init__(self) -> None:
        self.faces: dict[tuple[int, bool, str], np.ndarray] = {}

    def get(self, k: int, held_out: bool, call: str) -> np.ndarray:
        key = (k, held_out, call)
        if key not in self.faces:
            d = held_out_design(k) if held_out else design(k)
            self.faces[key] = draw_card(call, d, DRAW_PX_PER_MM)[: round(KEEP_MM * DRAW_PX_PER_MM)]
        return self.faces[key]


def _table(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A plain or textured table colour around the card."""
    img = np.empty((h, w, 3), np.float32)
    img[:] = rng.uniform(10, 200, 3)
    img += rng.normal(0, rng.uniform(2, 18), (h, w, 1))
    return np.clip(img, 0, 255).astype(np.uint8)


def strip_sample(rng: np.random.Generator, cache: FaceCache, label: str, k: int, held_out: bool,
                 camera_share: float = 0.0, scale: CameraScale | None = None) -> np.ndarray:
    """One strip as the camera would hand it to the reader (BGR, :data:`STRIP_PX`); a share
    ``camera_share`` of them cut from a low-resolution frame (:func:`through_camera`)."""
    ppm = DRAW_PX_PER_MM
    cw, kh = round(CARD_MM[0] * ppm), round(KEEP_MM * ppm)
    sh = round(STRIP_MM * ppm)
    margin = round(8 * ppm)
    canvas = _table(rng, kh + margin, cw + 2 * margin)
    top = cache.get(k, held_out, CLASSES[int(rng.integers(40))] if label == "none" else label)
    top = wear(top, rng, float(rng.uniform(0.2, 1.2)))
    if label == "none":
        kind = rng.integers(3)
        if kind == 1:      # a card's lower part: the strip's place shows no call
            canvas[margin:margin + kh - sh, margin:margin + cw] = top[sh:]
        elif kind == 2:    # only the card's edge in view
            canvas[margin:, margin:margin + cw] = top
            canvas = np.roll(canvas, int(rng.choice([-1, 1]) * rng.uniform(0.6, 0.9) * cw), axis=1)
    else:
        canvas[margin:, margin:margin + cw] = top
        if rng.random() < 0.75:   # the next card of the row lies over the strip's lower edge
            nxt = cache.get(k, held_out, CLASSES[int(rng.integers(40))])
            y0 = margin + sh + int(rng.uniform(-0.2, 0.15) * sh)
            dx = int(rng.normal(0, 1.5 * ppm))
            x0, x1 = max(0, margin + dx), min(canvas.shape[1], margin + dx + cw)
            rows = canvas.shape[0] - y0
            canvas[y0:, x0:x1] = nxt[:rows, x0 - (margin + dx):x1 - (margin + dx)]
    # the strip's corners as the pipeline would find them, a little off
    jit = lambda s: rng.normal(0, s)  # noqa: E731
    quad = np.float32([[margin, margin], [margin + cw, margin], [margin + cw, margin + sh], [margin, margin + sh]])
    quad += np.float32([[jit(0.04 * cw), jit(0.08 * sh)] for _ in range(4)])
    return _cut(canvas, quad, rng, camera_share, scale)


def _cut(canvas: np.ndarray, quad: np.ndarray, rng: np.random.Generator, camera_share: float,
         scale: CameraScale | None = None) -> np.ndarray:
    """The strip under ``quad`` (canvas pixels, a little off already) of an RGB ``canvas`` drawn at
    :data:`DRAW_PX_PER_MM`, as the reader gets it (BGR): turned a little, then cut sharp and
    degraded, or (a share ``camera_share``) cut from a low-resolution frame."""
    import cv2

    cw, sh = CARD_MM[0] * DRAW_PX_PER_MM, STRIP_MM * DRAW_PX_PER_MM
    ang = math.radians(rng.normal(0, 3))
    quad = _turned(quad, ang)
    if camera_share and rng.random() < camera_share:
        # the row model's strip in a low-resolution frame is off by a few millimetres more, mostly
        # along the card (its top edge is a pixel or two there)
        quad += np.float32([rng.normal(0, 0.04 * cw), rng.normal(0, 0.12 * sh)])
        return through_camera(canvas[..., ::-1].copy(), quad, rng, scale)
    w, h = STRIP_PX
    m = cv2.getPerspectiveTransform(quad, np.float32([[0, 0], [w, 0], [w, h], [0, h]]))
    out = cv2.warpPerspective(canvas, m, (w, h), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    return degrade(out[..., ::-1].copy(), rng)


PLAYING_MM = (63.0, 88.0)
"""A playing card, width x height in millimetres (the simulator's and the zones' size)."""


class PlayingFaces:
    """Playing-card faces of the training decks only, drawn at :data:`DRAW_PX_PER_MM` (RGB), by (deck, card).

    The bid-card reader is shown playing cards as ``none``: a playing card at rest in a bidding
    zone (the opening lead, a card exposed during the auction) must not read as a call. Only
    the decks a card model may train on (``faces.training_decks``) are drawn, never the held-out
    designs nor the tuning deck (``faces.NOT_TRAINED_DECKS``), so the video benchmarks' playing
    cards stay unseen. ``decks`` draws others instead, for checking only (the held-out decks for
    the model card, the tuning deck ``drawn-serif-bold`` for choosing settings)."""

    def __init__(self, decks: list[str] | None = None) -> None:
        from .faces import training_decks

        self.decks = list(decks) if decks else training_decks()
        self.faces: dict[tuple[str, str], np.ndarray] = {}

    def get(self, rng: np.random.Generator) -> np.ndarray:
        """A random face (now and then a back) of a random deck, upright."""
        from .faces import CARD_CODES, render_face

        deck = self.decks[int(rng.integers(len(self.decks)))]
        card = "back" if rng.random() < 0.05 else CARD_CODES[int(rng.integers(len(CARD_CODES)))]
        key = (deck, card)
        if key not in self.faces:
            self.faces[key] = render_face(card, deck, round(PLAYING_MM[1] * DRAW_PX_PER_MM))[..., ::-1].copy()
        return self.faces[key]


def _lay(canvas: np.ndarray, face: np.ndarray, y: int, x: int) -> None:
    """``face`` laid on ``canvas`` with its top-left corner at (``y``, ``x``), cut at the canvas edges."""
    h, w = face.shape[:2]
    y0, x0, y1, x1 = max(0, y), max(0, x), min(canvas.shape[0], y + h), min(canvas.shape[1], x + w)
    if y1 > y0 and x1 > x0:
        canvas[y0:y1, x0:x1] = face[y0 - y:y1 - y, x0 - x:x1 - x]


def playing_sample(rng: np.random.Generator, faces: PlayingFaces, camera_share: float = 0.0,
                   scale: CameraScale | None = None) -> np.ndarray:
    """A strip cut from a playing card at rest where bid cards lie (BGR, :data:`STRIP_PX`; label ``none``).

    The pipeline asks the bid-card reader about a card come to rest in a bidding zone
    (``BiddingWatcher.bid_card_at``): it cuts a bid card's strip at the card's end towards the
    table's centre, a few millimetres in or out and to the side, and the watcher cuts strips where
    the zone changed. So: a playing card any way up (its index end, its long side), worn, partly
    over another card now and then, and a strip-sized window mostly at its end towards the strip's
    top, else anywhere on it; cut as a bid card's strip is (:func:`_cut`)."""
    ppm = DRAW_PX_PER_MM
    margin = round(20 * ppm)
    face = np.ascontiguousarray(np.rot90(wear(faces.get(rng), rng, float(rng.uniform(0.2, 1.2))), int(rng.integers(4))))
    fh, fw = face.shape[:2]
    side = max(fh, fw)
    canvas = _table(rng, side + 2 * margin, side + 2 * margin)
    y0, x0 = margin + (side - fh) // 2, margin + (side - fw) // 2
    if rng.random() < 0.4:     # partly over another card: the card beneath shows beside it
        under = np.ascontiguousarray(np.rot90(faces.get(rng), int(rng.integers(4))))
        a = rng.uniform(0, 2 * math.pi)
        d = rng.uniform(15, 50) * ppm
        _lay(canvas, under, int(y0 + (fh - under.shape[0]) / 2 + d * math.sin(a)),
             int(x0 + (fw - under.shape[1]) / 2 + d * math.cos(a)))
    _lay(canvas, face, y0, x0)
    cw, sh = CARD_MM[0] * ppm, STRIP_MM * ppm
    if rng.random() < 0.7:     # where the pipeline looks: the end towards the centre, a little off
        top = y0 + rng.uniform(-12, 10) * ppm
        cx = x0 + fw / 2 + float(np.clip(rng.normal(0, 7), -14, 14)) * ppm
    else:                      # anywhere on the card (a strip the watcher cut where the zone changed)
        top = y0 + rng.uniform(-0.2 * sh, fh - 0.8 * sh)
        cx = x0 + rng.uniform(0.1 * fw, 0.9 * fw)
    quad = np.float32([[cx - cw / 2, top], [cx + cw / 2, top], [cx + cw / 2, top + sh], [cx - cw / 2, top + sh]])
    quad += np.float32([[rng.normal(0, 0.04 * cw), rng.normal(0, 0.08 * sh)] for _ in range(4)])
    return _cut(canvas, quad, rng, camera_share, scale)


def _turned(quad: np.ndarray, ang: float) -> np.ndarray:
    """``quad`` turned by ``ang`` radians about its centre (float32, as the warps take it)."""
    c = quad.mean(0)
    rot = np.float32([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]])
    return (quad - c) @ rot.T + c


class CameraScale(NamedTuple):
    """How big a card is in the frame a strip is cut from: ``px_per_mm`` the range of frame pixels a
    millimetre spans across the card (drawn log-uniformly), ``along`` the range of the factor that
    gives the pixels a millimetre along it (a tilted view foreshortens the card's length).
    :func:`through_camera` swaps the two for three strips in ten: a row across the tilt has its
    width foreshortened, and then the length spans more pixels than the width. ``aliased``: the
    share of frames that sample the card rather than average it (:func:`through_camera`): the
    simulator's renders do (the table plane at about 1.8 px/mm remapped bilinearly onto a coarser
    720p grid), and so does a webcam that scales its sensor down by skipping lines; a thin level
    digit then breaks up or vanishes while the solid suit sign stays. ``coded``: the share of
    frames sent through H.264 (:func:`coded_strips`) before the strip is cut."""

    px_per_mm: tuple[float, float] = (0.45, 1.3)
    along: tuple[float, float] = (0.5, 1.0)
    aliased: float = 0.0
    coded: float = 0.0


CAMERA_SCALE = CameraScale(BidCardRecipe.camera_px_per_mm, BidCardRecipe.camera_along)
"""The scale of the recipe before (``--camera-px-per-mm 0.45 1.3 --camera-along 0.5 1.0``): about
1.05 px/mm at 720p seen straight down with a plain lens, 0.6 at 720p with a 90-degree lens at the far
side of a tilted view. The bidding bench's 720p videos put 0.55-1.6 frame px a millimetre across a bid
card in the bidding zones, and along it 0.5-1.55 times that (docs/benchmarks.md)."""


BENCH_720P = CameraScale((0.55, 1.6), (0.5, 1.3), aliased=0.5, coded=1.0)
"""A bid card as the bidding bench's 720p videos show it (12-45 degrees, 72-degree lenses): 0.55-1.6
frame px a millimetre across the card where the bidding zones lie, and along it 0.5-1.55 times that
(from each video's table corners; docs/benchmarks.md); half the frames sampled rather than averaged
(a webcam's cheap scaler), and all through H.264 (:data:`CODED_QP`)."""


def through_camera(canvas: np.ndarray, quad: np.ndarray, rng: np.random.Generator,
                   scale: CameraScale | None = None) -> "np.ndarray | FrameCut":
    """The strip as the pipeline cuts it from a low-resolution video frame (BGR, :data:`STRIP_PX`).

    The card (``canvas``, drawn at :data:`DRAW_PX_PER_MM`) is first brought to the frame's own
    pixel grid: a few pixels a millimetre, fewer along the direction the camera is tilted in
    (foreshortening), a slight keystone and turn, any of the four ways up (a row in front of East
    lies across the frame). There the camera's own faults are added, at the frame's resolution
    where they happen: lens blur, light and white balance, sensor noise, half-resolution colour
    (4:2:0) and block compression. Then the strip is cut from that frame and stretched to the
    reader's input with bilinear interpolation, as :meth:`CameraPipeline._cut_strip` does: a
    level digit a few pixels high arrives as the blur it is in the benchmark's 720p videos."""
    import cv2

    from .camera_look import camera_faults

    look = scale or CAMERA_SCALE
    lo, hi = look.px_per_mm
    across = float(np.exp(rng.uniform(np.log(lo), np.log(hi))))
    along = across * float(rng.uniform(*look.along))
    sx, sy = (across, along) if rng.random() < 0.7 else (along, across)   # tilt mostly foreshortens the card's length
    sx, sy = sx / DRAW_PX_PER_MM, sy / DRAW_PX_PER_MM
    h0, w0 = canvas.shape[:2]
    src = np.float32([[0, 0], [w0, 0], [w0, h0], [0, h0]])
    k = rng.uniform(-0.12, 0.12) * w0                                  # keystone: one end narrower
    dst = np.float32([[k, 0], [w0 - k, 0], [w0, h0], [0, h0]]) * np.float32([sx, sy])
    ang = math.radians(rng.normal(0, 4))
    dst = _turned(dst, ang)
    dst -= dst.min(0) - 1
    m = cv2.getPerspectiveTransform(src, dst)
    size = (int(math.ceil(dst[:, 0].max())) + 2, int(math.ceil(dst[:, 1].max())) + 2)
    if look.aliased and rng.random() < look.aliased:
        # sampled, not averaged: the card at an intermediate 1.4-2.8 px/mm, then bilinearly onto the
        # frame's coarser grid (a renderer's or a webcam's cheap scaler, line skipping): a stroke
        # thinner than a frame pixel is hit or missed, not averaged into a faint line
        mid = max(float(rng.uniform(1.4, 2.8)), 1.2 * DRAW_PX_PER_MM * max(sx, sy)) / DRAW_PX_PER_MM
        small = cv2.resize(canvas, None, fx=mid, fy=mid, interpolation=cv2.INTER_AREA)
        m_small = m @ np.diag([1 / mid, 1 / mid, 1.0])
        frame = cv2.warpPerspective(small, m_small, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    else:
        # the frame's pixels average the card's (an area filter: blur to the new pixel size first)
        sig = (0.45 / max(sx, 1e-3), 0.45 / max(sy, 1e-3))
        frame = cv2.warpPerspective(cv2.GaussianBlur(canvas, (0, 0), sig[0], sigmaY=sig[1]), m, size,
                                    flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    q = cv2.perspectiveTransform(quad[None].astype(np.float32), m)[0]
    turns = int(rng.integers(4))
    for _ in range(turns):                                             # rows across the frame
        frame = np.ascontiguousarray(np.rot90(frame))                  # a quarter turn: (x, y) -> (y, W - 1 - x)
        q = np.stack([q[:, 1], frame.shape[0] - 1 - q[:, 0]], 1)
    frame = camera_faults(frame, rng)                                 # without the sharpening halo
    if look.coded and rng.random() < look.coded:
        return FrameCut(frame, q)                                     # cut after the codec (coded_strips)
    return FrameCut(frame, q).strip()


class FrameCut(NamedTuple):
    """A strip still in its frame (BGR), ``quad`` its corners there: it waits for the video codec,
    which codes frames by the batch (:func:`coded_strips`)."""

    frame: np.ndarray
    quad: np.ndarray

    def strip(self, frame: np.ndarray | None = None) -> np.ndarray:
        """The strip cut from ``frame`` (default its own) as :meth:`CameraPipeline._cut_strip` cuts it."""
        import cv2

        w, h = STRIP_PX
        cut = cv2.getPerspectiveTransform(self.quad.astype(np.float32),
                                          np.float32([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]))
        return cv2.warpPerspective(self.frame if frame is None else frame, cut, (w, h), flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REPLICATE)


CODED_QP = (34, 51)
"""The H.264 quantisers a coded strip's frame is drawn at (one per batch of :data:`CODED_BATCH`):
from a good stream's to the coarsest, where the bidding bench's 720p renders (1.2 Mbit/s) lose a
light typeface's level digit."""
CODED_BATCH = 64


def coded_strips(xs: list, rng: np.random.Generator) -> list[np.ndarray]:
    """``xs`` with each :class:`FrameCut` replaced by its strip cut after H.264
    (:func:`~tablecam.training.camera_look.h264`), :data:`CODED_BATCH` frames at a time, each
    batch at a quantiser drawn from :data:`CODED_QP`."""
    from .camera_look import h264

    out = list(xs)
    waiting = [i for i, x in enumerate(xs) if isinstance(x, FrameCut)]
    for k in range(0, len(waiting), CODED_BATCH):
        idx = waiting[k:k + CODED_BATCH]
        qp = int(rng.integers(CODED_QP[0], CODED_QP[1] + 1))
        for i, frame in zip(idx, h264([xs[i].frame for i in idx], qp)):
            out[i] = xs[i].strip(frame)
    return out


def degrade(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """What a camera does to a strip: resolution, blur, light, colour, noise, compression."""
    import cv2

    w, h = STRIP_PX
    f = float(rng.choice([1.0, 1.5, 2.0, 2.5, 3.0, 3.5]))          # 96 px down to ~27 px wide (480p, far row)
    if f > 1:
        small = cv2.resize(img, (max(8, int(w / f)), max(4, int(h / f))), interpolation=cv2.INTER_AREA)
        img = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.4:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.3))
    x = img.astype(np.float32)
    x = x * rng.uniform(0.55, 1.35) + rng.uniform(-35, 35)
    x *= rng.uniform(0.85, 1.15, 3)                                # white balance
    yy = np.linspace(-1, 1, h)[:, None, None]
    xx = np.linspace(-1, 1, w)[None, :, None]
    x *= 1 + rng.uniform(-0.25, 0.25) * xx + rng.uniform(-0.25, 0.25) * yy   # uneven light
    x += rng.normal(0, rng.uniform(0, 9), x.shape)
    x = np.clip(x, 0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        ok, buf = cv2.imencode(".jpg", x, [cv2.IMWRITE_JPEG_QUALITY, int(rng.uniform(25, 90))])
        x = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return x


def strips(n: int, seed: int, designs: int, held_out: bool = False, none_share: float = 0.08,
           camera_share: float = 0.0, stacked_share: float = 0.0,
           playing_share: float = 0.0, scale: CameraScale | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``n`` labelled strips: the 40 call and signal classes evenly, ``none`` a share; a share
    ``camera_share`` cut from low-resolution frames (:func:`through_camera`), and a share
    ``stacked_share`` of the samples drawn from the stacked designs (level over the sign: the
    small level digit is the hardest thing to read; 1.0 gives only stacked designs). A share
    ``playing_share`` are playing cards (:func:`playing_sample`, label ``none``; of the held-out
    decks when ``held_out``), on top of ``none_share``: 0 draws the strips of the recipe before it.
    ``scale``: the card's size in the frames strips are cut from (default :data:`CAMERA_SCALE`)."""
    rng = np.random.default_rng(seed)
    cache = FaceCache()
    playing = (PlayingFaces(HELD_OUT_DECKS if held_out else None)) if playing_share else None
    make = held_out_design if held_out else design
    stacked = [k for k in range(designs) if make(k).layout == "stacked"]
    xs, ys = [], []
    for i in range(n):
        if playing is not None and rng.random() < playing_share:
            xs.append(playing_sample(rng, playing, camera_share, scale))
            ys.append(len(CLASSES) - 1)
            continue
        y = len(CLASSES) - 1 if rng.random() < none_share else int(rng.integers(len(CLASSES) - 1))
        if stacked_share and stacked and rng.random() < stacked_share:
            k = stacked[int(rng.integers(len(stacked)))]
        else:
            k = int(rng.integers(designs))
        xs.append(strip_sample(rng, cache, CLASSES[y], k, held_out, camera_share, scale))
        ys.append(y)
    if scale is not None and scale.coded:
        xs = coded_strips(xs, np.random.default_rng([seed, 264]))
    return crops_batch(xs, STRIP_PX), np.array(ys, np.int64)


def _cached(path: Path, make) -> tuple[np.ndarray, np.ndarray]:
    """The strips saved at ``path``, or ``make()``'s, saved there: a rerun skips rendering."""
    if path.exists():
        with np.load(path) as z:
            return z["x"].astype(np.float32) / 255.0, z["y"]
    x, y = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, x=(x * 255).round().astype(np.uint8), y=y)
    return x, y


def build_net(n_classes: int, width: int = 16):
    """Four conv blocks over the 48x96 strip, global average pool, a linear read-out."""
    import torch.nn as nn

    def blk(i: int, o: int) -> list:
        return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]

    w = width
    return nn.Sequential(*blk(3, w), nn.MaxPool2d(2), *blk(w, 2 * w), nn.MaxPool2d(2),
                         *blk(2 * w, 4 * w), nn.MaxPool2d(2), *blk(4 * w, 8 * w),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(8 * w, n_classes))


def load_onnx(net, path: Path) -> None:
    """``net`` (:func:`build_net`) given the weights of an exported reader at ``path``.

    The export folds each batch norm into the convolution before it, so the convolutions take the
    folded weights and biases and each batch norm is set to pass its input through (mean 0,
    variance 1 - eps, scale 1, shift 0): in eval mode the network is the exported one. Fine-tuning
    keeps the batch norms in eval mode (:func:`freeze_norms`), so it starts from that network."""
    import onnx
    import torch
    from onnx import numpy_helper

    g = onnx.load(str(path)).graph
    init = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    layers = [(n.input[1], n.input[2]) for n in g.node if n.op_type in ("Conv", "Gemm")]
    mods = [m for m in net if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear))]
    norms = [m for m in net if isinstance(m, torch.nn.BatchNorm2d)]
    if len(layers) != len(mods):
        raise ValueError(f"{path}: {len(layers)} layers, the network {len(mods)}")
    with torch.no_grad():
        for (w, b), m in zip(layers, mods):
            if tuple(init[w].shape) != tuple(m.weight.shape):
                raise ValueError(f"{path}: weights {init[w].shape}, the network {tuple(m.weight.shape)}")
            m.weight.copy_(torch.from_numpy(init[w]))
            if isinstance(m, torch.nn.Linear):
                m.bias.copy_(torch.from_numpy(init[b]))
        for (_, b), bn in zip(layers, norms):
            bn.running_mean.zero_()
            bn.running_var.fill_(1 - bn.eps)
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(init[b]))


def freeze_norms(net) -> None:
    """Batch norms in eval mode (their running statistics kept) while the rest trains."""
    import torch

    for m in net:
        if isinstance(m, torch.nn.BatchNorm2d):
            m.eval()


def level_loss(logits, y):
    """Cross-entropy of the level alone, over the calls that are bids: a level's probability is
    its five strains' summed. A 3N read as 5N costs here as much as 3N read as 5C."""
    import torch

    bid = y < len(CLASSES) - 6                         # 1C ... 7N
    if not bool(bid.any()):
        return logits.sum() * 0.0
    logp = torch.log_softmax(logits[bid], 1)[:, :35].reshape(-1, 7, 5)
    return -torch.logsumexp(logp, 2).gather(1, (y[bid] // 5)[:, None]).mean()


def evaluate(probs: np.ndarray, y: np.ndarray) -> dict:
    """Accuracy, and how often a read judged sure (:func:`judge_read`) is wrong."""
    reads = [judge_read(p) for p in probs]
    right = [CLASSES[t] == r.call for r, t in zip(reads, y)]
    sure = [not r.uncertain for r in reads]
    sure_wrong = sum(1 for s, ok in zip(sure, right) if s and not ok)
    return {"n": int(len(y)), "top1": round(float(np.mean(right)), 4),
            "sure_share": round(float(np.mean(sure)), 4),
            "sure_right": round(sum(1 for s, ok in zip(sure, right) if s and ok) / max(1, sum(sure)), 5),
            "confident_wrong": int(sure_wrong)}


def playing_reads(probs: np.ndarray, seen_at: float = 0.25) -> dict:
    """How the reader takes strips of playing cards (all truly ``none``): how many it reads as a
    call at all, as a call of at least ``seen_at`` (the camera's ``min_conf``: the pipeline then
    asks whether the card is a bid card), and as a sure call (:data:`SURE`: a call the pipeline
    takes over a card read surely)."""
    reads = [judge_read(p) for p in probs]
    calls = [r for r in reads if r.call != "none"]
    return {"n": int(len(reads)), "read_as_call": round(len(calls) / max(1, len(reads)), 4),
            "seen_as_call": round(sum(1 for r in calls if r.conf >= seen_at) / max(1, len(reads)), 4),
            "sure_call": int(sum(1 for r in calls if not r.uncertain))}


TUNING_SETS = {
    "calls, training designs, sharp (2,500, seed 7)": dict(n=2500, seed=7, designs=60),
    "calls, training designs, through camera (2,000, seed 9)": dict(n=2000, seed=9, designs=60, camera_share=1.0),
    "calls, stacked training designs, through camera (2,000, seed 8)":
        dict(n=2000, seed=8, designs=60, camera_share=1.0, stacked_share=1.0),
    "calls, training designs, as the bench's 720p videos show them (2,000, seed 13)":
        dict(n=2000, seed=13, designs=60, camera_share=1.0, scale=BENCH_720P),
    "calls, stacked training designs, as the bench's 720p videos show them (2,000, seed 14)":
        dict(n=2000, seed=14, designs=60, camera_share=1.0, stacked_share=1.0, scale=BENCH_720P),
}
"""Fresh strips of the training designs: what a reader and its settings are chosen on."""


def check(models: list[Path], sure: tuple[float, ...] = (0.8, 0.85, 0.9), n_playing: int = 1000) -> dict:
    """Tuning figures of each model in ``models`` on the same fresh strips (:data:`TUNING_SETS`,
    and playing cards of the tuning deck ``drawn-serif-bold``, kept out of training but no test
    design, sharp and through the camera): calls read right, read as ``none`` (dropped by the
    camera) and sure-but-wrong at each ``sure``, playing cards read as calls. Nothing held out is
    looked at."""
    from ..vision.bidcards import BidCardReader

    sets = {name: strips(**kw) for name, kw in TUNING_SETS.items()}
    faces = PlayingFaces(["drawn-serif-bold"])
    for name, cam, seed in (("playing cards, tuning deck, sharp", 0.0, 11),
                            ("playing cards, tuning deck, through camera", 1.0, 12)):
        rng = np.random.default_rng(seed)
        sets[f"{name} ({n_playing:,}, seed {seed})"] = (
            crops_batch([playing_sample(rng, faces, cam) for _ in range(n_playing)], STRIP_PX),
            np.full(n_playing, len(CLASSES) - 1, np.int64))
    out: dict = {}
    for m in models:
        reader = BidCardReader(m, threads=1)
        res: dict = {}
        for name, (x, y) in sets.items():
            probs = _softmax(np.concatenate([reader.session.run(None, {reader.input: x[i:i + 512]})[0]
                                             for i in range(0, len(x), 512)]))
            if name.startswith("playing"):
                res[name] = playing_reads(probs)
                continue
            right = probs.argmax(1) == y
            calls = y != len(CLASSES) - 1
            res[name] = {"top1": round(float(right.mean()), 4),
                         # a call read as no bid card is dropped by the camera: the auction can end early
                         "calls_read_as_none": round(float((probs.argmax(1)[calls] == len(CLASSES) - 1).mean()), 4),
                         **{f"sure_share_at_{t}": round(float((probs.max(1) >= t).mean()), 4) for t in sure},
                         **{f"confident_wrong_at_{t}": int(((probs.max(1) >= t) & ~right).sum()) for t in sure}}
        out[str(m)] = res
    return out


def _sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def train(out: Path, r: BidCardRecipe) -> dict:
    """The bid-card reader made by recipe ``r`` (:class:`~tablecam.training.recipes.BidCardRecipe`),
    exported to ``out/bid_card.onnx`` with its figures on held-out strips in ``bid_card.json``."""
    import torch

    torch.manual_seed(r.seed)
    torch.set_num_threads(r.threads)
    t0 = time.time()
    n = r.n
    scale = CameraScale(r.camera_px_per_mm, r.camera_along, r.aliased_share, r.coded_share)
    tag = "" if scale == CAMERA_SCALE else f"-{'-'.join(map(str, [*scale.px_per_mm, *scale.along, *scale[2:]]))}"
    x, y = _cached(out / f"train-{n}-{r.seed}-{r.designs}-{r.camera_share}-{r.stacked_share}-{r.playing_share}{tag}.npz",
                   lambda: strips(n, r.seed, r.designs, camera_share=r.camera_share, stacked_share=r.stacked_share,
                                  playing_share=r.playing_share, scale=scale))
    xv, yv = _cached(out / f"heldout-{r.held_out}-{r.seed}.npz",
                     lambda: strips(r.held_out, r.seed + 1000, 8, held_out=True))
    print(f"rendered {n} training and {r.held_out} held-out strips in {time.time() - t0:.0f} s", file=sys.stderr)
    net = build_net(len(CLASSES), r.width)
    if r.init is not None:
        load_onnx(net, r.init)
    opt = torch.optim.AdamW(net.parameters(), lr=r.lr, weight_decay=1e-4)
    steps = r.epochs * math.ceil(n / r.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=r.lr, total_steps=steps)
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    for ep in range(r.epochs):
        net.train()
        if r.init is not None:
            freeze_norms(net)
        perm = torch.randperm(n)
        total = 0.0
        for i in range(0, n, r.batch):
            idx = perm[i:i + r.batch]
            opt.zero_grad()
            logits = net(xt[idx])
            loss = loss_fn(logits, yt[idx])
            if r.level_weight:
                loss = loss + r.level_weight * level_loss(logits, yt[idx])
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        print(f"epoch {ep + 1}/{r.epochs}: loss {total / n:.4f} ({time.time() - t0:.0f} s)", file=sys.stderr)
    net.eval()
    out.mkdir(parents=True, exist_ok=True)
    w, h = STRIP_PX
    torch.onnx.export(net, torch.zeros(1, 3, h, w), str(out / "bid_card.onnx"), input_names=["strip"],
                      output_names=["logits"], dynamic_axes={"strip": {0: "n"}, "logits": {0: "n"}},
                      opset_version=17, dynamo=False)
    from ..vision.bidcards import BidCardReader

    reader = BidCardReader(out / "bid_card.onnx", threads=r.threads)
    probs = _softmax(np.concatenate([reader.session.run(None, {reader.input: xv[i:i + 512]})[0]
                                     for i in range(0, len(xv), 512)]))
    # playing cards of the held-out decks, sharp and cut from low-resolution frames alike
    xp, _ = strips(1000, r.seed + 2000, 8, held_out=True, camera_share=0.5, playing_share=1.0)
    pprobs = _softmax(reader.session.run(None, {reader.input: xp})[0])
    meta = {"classes": CLASSES, "input": {"width": w, "height": h, "layout": "NCHW BGR 0-1"},
            "recipe": {"command": " ".join(["python -m tablecam.training.bidcards", *sys.argv[1:]]), "n": n,
                       "epochs": r.epochs, "seed": r.seed, "designs": r.designs, "width": r.width, "batch": r.batch,
                       "lr": r.lr, "camera_share": r.camera_share, "stacked_share": r.stacked_share,
                       "playing_share": r.playing_share, "camera_px_per_mm": list(r.camera_px_per_mm),
                       "camera_along": list(r.camera_along), "aliased_share": r.aliased_share,
                       "coded_share": r.coded_share, "coded_qp": list(CODED_QP), "level_weight": r.level_weight,
                       **({"init": str(r.init), "init_sha256": _sha256(r.init)} if r.init is not None else {}),
                       "minutes": round((time.time() - t0) / 60, 1)},
            "held_out": {"designs": "8 of the FreeFont family (free-sans, free-serif), never trained on",
                         **evaluate(probs, yv)},
            "held_out_playing": {"decks": f"playing cards of {', '.join(HELD_OUT_DECKS)} (never trained on), "
                                          f"half cut from low-resolution frames", **playing_reads(pprobs)}}
    (out / "bid_card.json").write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def main(argv: list[str] | None = None) -> int:
    defaults = BidCardRecipe()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("data/bidcards"))
    ap.add_argument("-n", type=int, default=defaults.n, help="training strips")
    ap.add_argument("--epochs", type=int, default=defaults.epochs)
    ap.add_argument("--seed", type=int, default=defaults.seed)
    ap.add_argument("--designs", type=int, default=defaults.designs, help="training designs (bidding_box.design(0..N-1))")
    ap.add_argument("--held-out", type=int, default=defaults.held_out, help="strips of the held-out designs to check on")
    ap.add_argument("--threads", type=int, default=defaults.threads, help="torch threads (1 is fastest on a shared machine)")
    ap.add_argument("--camera-share", type=float, default=defaults.camera_share,
                    help="share of strips cut from low-resolution frames (through_camera)")
    ap.add_argument("--stacked-share", type=float, default=defaults.stacked_share,
                    help="share of strips drawn from stacked designs only (besides their share of all designs)")
    ap.add_argument("--playing-share", type=float, default=defaults.playing_share,
                    help="share of strips cut from playing cards of the training decks, labelled none "
                         "(0, the shipped recipe: none; models/README.md has the 0.15 run, not kept)")
    ap.add_argument("--camera-px-per-mm", type=float, nargs=2, default=list(defaults.camera_px_per_mm),
                    metavar=("LO", "HI"),
                    help="frame pixels a millimetre across the card in strips cut from frames (log-uniform)")
    ap.add_argument("--camera-along", type=float, nargs=2, default=list(defaults.camera_along),
                    metavar=("LO", "HI"),
                    help="pixels a millimetre along the card, as a factor of those across it")
    ap.add_argument("--aliased-share", type=float, default=defaults.aliased_share,
                    help="share of frames that sample the card rather than average it (through_camera)")
    ap.add_argument("--coded-share", type=float, default=defaults.coded_share,
                    help="share of frames sent through H.264 before the strip is cut (coded_strips)")
    ap.add_argument("--level-weight", type=float, default=defaults.level_weight,
                    help="weight of a second loss on the level alone (0: none)")
    ap.add_argument("--init", type=Path, help="start from these weights (a bid_card.onnx of the same width)")
    ap.add_argument("--lr", type=float, default=defaults.lr)
    ap.add_argument("--check", type=Path, nargs="+", metavar="ONNX",
                    help="only print the tuning figures of these models (check), side by side; no training")
    a = ap.parse_args(argv)
    if a.check:
        print(json.dumps(check(a.check), indent=1))
        return 0
    meta = train(a.out, BidCardRecipe(n=a.n, epochs=a.epochs, seed=a.seed, designs=a.designs, held_out=a.held_out,
                                      threads=a.threads, camera_share=a.camera_share,
                                      stacked_share=a.stacked_share, playing_share=a.playing_share,
                                      camera_px_per_mm=tuple(a.camera_px_per_mm), camera_along=tuple(a.camera_along),
                                      aliased_share=a.aliased_share, coded_share=a.coded_share,
                                      level_weight=a.level_weight, init=a.init, lr=a.lr))
    print(json.dumps({**meta["held_out"], "playing": meta["held_out_playing"]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
