"""What a low-resolution webcam looking down at an angle does to a card: the
pixel grid it lands on, its tilt and keystone, and the camera's own faults.

Why a module of its own: the corner classifier's oblique views
(:func:`~tablecam.training.synth.oblique_sample`) and the bid-card reader's
strips cut from a frame (:func:`~tablecam.training.bidcards.through_camera`)
both draw a card as a camera at 480p-720p hands it over, and must age it
the same way.
"""

from __future__ import annotations

import math

import numpy as np

from .faces import FACE_H, FACE_W
from .synth import jittered_quad, turn_matrix

FACE_PX_PER_MM = FACE_W / 63.5
"""Pixels a millimetre of the 250x350 face (a 63.5 mm poker card)."""


def camera_view(canvas: np.ndarray, quad: np.ndarray, rng: np.random.Generator,
                px_per_mm: tuple[float, float]) -> np.ndarray:
    """The card at ``quad`` in ``canvas`` (drawn at :data:`FACE_PX_PER_MM`)
    brought to a camera frame's pixel grid and rectified back to 250x350.

    In the frame the card is ``px_per_mm`` across (log-uniform in the
    range; area-averaged, as a sensor averages), turned any way on the
    table, squashed to 50-100% along the frame's vertical (the camera's
    tilt: 0-60 degrees off vertical, a wide lens's edge included) with a
    slight keystone; the camera's faults are added there, at the frame's
    resolution (:func:`camera_faults`, with the webcam's sharpening halo).
    The rectifying quad is the true one moved by 0.5-3% of the card's sides
    (:func:`jittered_quad`), warped bilinearly as ``warp_card`` does."""
    import cv2

    lo, hi = px_per_mm
    s = float(np.exp(rng.uniform(np.log(lo), np.log(hi)))) / FACE_PX_PER_MM
    small = cv2.resize(canvas, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    q = quad.astype(np.float32) * s
    squash = float(rng.uniform(0.5, 1.0))
    turn = turn_matrix(float(rng.uniform(0, 2 * math.pi)))
    h, w = small.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    centre = q.mean(axis=0)

    dst = (src - centre) @ turn.T * np.float32([1.0, squash])
    k = float(rng.uniform(-0.06, 0.06))                      # keystone: the far side a little narrower
    ext = max(1e-3, float(np.abs(dst[:, 1]).max()))
    dst[:, 0] *= 1 + k * dst[:, 1] / ext
    dst -= dst.min(axis=0) - 1
    m = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
    size = (int(math.ceil(dst[:, 0].max())) + 2, int(math.ceil(dst[:, 1].max())) + 2)
    pre = cv2.GaussianBlur(small, (0, 0), 0.45 * (1 / squash - 1) + 0.01)   # the squashed direction averaged
    frame = cv2.warpPerspective(pre, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    fq = cv2.perspectiveTransform(q[None], m)[0]
    frame = camera_faults(frame, rng, sharpen=True)
    out = np.float32([[0, 0], [FACE_W - 1, 0], [FACE_W - 1, FACE_H - 1], [0, FACE_H - 1]])
    cut = cv2.getPerspectiveTransform(jittered_quad(fq, rng), out)
    return cv2.warpPerspective(frame, cut, (FACE_W, FACE_H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def camera_faults(img: np.ndarray, rng: np.random.Generator, sharpen: bool = False) -> np.ndarray:
    """A webcam's faults at the frame's own resolution: lens blur, with
    ``sharpen`` the in-camera sharpening's halo (an unsharp mask, most
    webcams), light and white balance, a light gradient, sensor noise,
    half-resolution colour (4:2:0) and block compression."""
    import cv2

    if rng.random() < 0.7:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 0.9))
    if sharpen and rng.random() < 0.6:
        a = float(rng.uniform(0.3, 1.2))
        img = cv2.addWeighted(img, 1 + a, cv2.GaussianBlur(img, (0, 0), rng.uniform(0.8, 1.6)), -a, 0)
    x = img.astype(np.float32)
    x = x * rng.uniform(0.55, 1.3) + rng.uniform(-30, 30)
    x *= rng.uniform(0.85, 1.15, 3)
    h, w = x.shape[:2]
    yy = np.linspace(-1, 1, h)[:, None, None]
    xx = np.linspace(-1, 1, w)[None, :, None]
    x *= 1 + rng.uniform(-0.2, 0.2) * xx + rng.uniform(-0.2, 0.2) * yy
    x += rng.normal(0, rng.uniform(0, 6), x.shape)
    x = np.clip(x, 0, 255).astype(np.uint8)
    if rng.random() < 0.8:                                   # 4:2:0: colour at half resolution
        ycc = cv2.cvtColor(x, cv2.COLOR_BGR2YCrCb)
        ch = cv2.resize(cv2.resize(ycc[..., 1:], (max(1, w // 2), max(1, h // 2)), interpolation=cv2.INTER_AREA),
                        (w, h), interpolation=cv2.INTER_LINEAR)
        x = cv2.cvtColor(np.dstack([ycc[..., :1], ch]), cv2.COLOR_YCrCb2BGR)
    if rng.random() < 0.8:
        ok, buf = cv2.imencode(".jpg", x, [cv2.IMWRITE_JPEG_QUALITY, int(rng.uniform(30, 90))])
        x = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return x


def h264(frames: list[np.ndarray], qp: int) -> list[np.ndarray]:
    """``frames`` (BGR, any sizes) through H.264 at quantiser ``qp`` and back, as a video stream
    hands them over: libx264 (the ``ffmpeg`` that ``imageio-ffmpeg`` ships, as the simulator's
    encoder uses), 4:2:0, one thread (the same bytes every run). Each frame is padded (edges
    repeated) to the batch's largest size, rounded up to 16, and cut back after decoding.

    At the quantisers a low-bitrate stream runs at (40-51 for a 720p frame of textured cloth at
    1.2 Mbit/s) a thin stroke of faint contrast is quantised away while a solid shape stays: a
    light-typeface level digit a few pixels high loses all but its stem (a 4 reads as a 1)."""
    import os
    import subprocess
    import tempfile

    import cv2

    from ..sim.encode import ffmpeg_exe

    if not frames:
        return []
    exe = ffmpeg_exe()
    if exe is None:
        raise RuntimeError("H.264 needs ffmpeg (the imageio-ffmpeg package)")
    h = max(f.shape[0] for f in frames) + 15 & ~15
    w = max(f.shape[1] for f in frames) + 15 & ~15
    raw = b"".join(cv2.copyMakeBorder(f, 0, h - f.shape[0], 0, w - f.shape[1], cv2.BORDER_REPLICATE).tobytes()
                   for f in frames)
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "coded.mp4")
        subprocess.run([exe, "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "bgr24", "-s", f"{w}x{h}",
                        "-r", "25", "-i", "-", "-c:v", "libx264", "-preset", "veryfast", "-threads", "1",
                        "-qp", str(int(qp)), "-pix_fmt", "yuv420p", out], input=raw, check=True)
        cap = cv2.VideoCapture(out)
        back = []
        while True:
            ok, img = cap.read()
            if not ok:
                break
            back.append(img)
        cap.release()
    if len(back) != len(frames):
        raise RuntimeError(f"H.264 gave {len(back)} frames for {len(frames)}")
    return [b[:f.shape[0], :f.shape[1]].copy() for b, f in zip(back, frames)]


__all__ = ["FACE_PX_PER_MM", "camera_view", "camera_faults", "h264"]
