"""Writing the simulated video: low-bitrate H.264 as a webcam or a stream sends it.

OpenCV's own FFmpeg here has no H.264 encoder (only a hardware one that
needs a device), so H.264 goes through the static ``ffmpeg`` binary that the
``imageio-ffmpeg`` package ships (libx264), fed raw frames on a pipe.  Where
that package is missing, the writer falls back to OpenCV's MPEG-4 part 2
(``mp4v``) or Motion-JPEG for ``.avi``, and says so in :attr:`VideoSink.codec`.

The bitrate is what makes the codec matter: at the rates below a USB webcam
or an RTSP camera really sends, fine print blurs into blocks, and a card
moving fast smears (:data:`BITRATE_KBPS`).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np

BITRATE_KBPS = {480: 500, 720: 1200, 1080: 2500, 2160: 8000}
"""Default H.264 bitrate by frame height (kbit/s): a low but common stream setting."""


def ffmpeg_exe() -> str | None:
    """The ffmpeg binary with libx264: imageio-ffmpeg's, else one on PATH."""
    try:
        import imageio_ffmpeg

        return imageio_ffmpeg.get_ffmpeg_exe()
    except Exception:  # not installed, or its binary missing for this platform
        return shutil.which("ffmpeg")


def default_bitrate(height: int) -> int:
    """kbit/s for a frame height (the nearest listed height at or above it).

    >>> default_bitrate(480), default_bitrate(720), default_bitrate(2160)
    (500, 1200, 8000)
    """
    for h in sorted(BITRATE_KBPS):
        if height <= h:
            return BITRATE_KBPS[h]
    return BITRATE_KBPS[max(BITRATE_KBPS)]


class VideoSink:
    """Frames in, a video file out.

    ``codec``: ``"h264"`` (libx264 at ``bitrate_kbps``, ``yuv420p``, a key
    frame every two seconds), or an OpenCV FourCC such as ``"mp4v"`` or
    ``"MJPG"``.  ``codec="h264"`` without an ffmpeg falls back to ``mp4v``.
    libx264 runs on one thread: with several, its rate control depends on
    which frame finishes first, and the same frames encode to different
    videos from run to run (a benchmark's video would not be the one its
    key names).
    """

    def __init__(self, path: str | Path, size: tuple[int, int], fps: float, codec: str = "h264",
                 bitrate_kbps: int | None = None) -> None:
        self.path, self.size, self.fps = Path(path), size, fps
        self.bitrate_kbps = bitrate_kbps or default_bitrate(size[1])
        self._proc: subprocess.Popen | None = None
        self._cv = None
        exe = ffmpeg_exe() if codec.lower() in ("h264", "avc1", "x264") else None
        if exe is not None:
            w, h = size
            cmd = [exe, "-y", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "bgr24", "-s", f"{w}x{h}",
                   "-r", f"{fps:g}", "-i", "-", "-c:v", "libx264", "-preset", "veryfast",
                   "-b:v", f"{self.bitrate_kbps}k", "-maxrate", f"{int(self.bitrate_kbps * 1.5)}k",
                   "-bufsize", f"{self.bitrate_kbps * 2}k", "-g", str(max(1, int(round(2 * fps)))),
                   "-pix_fmt", "yuv420p", "-threads", "1", str(self.path)]
            self._proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stderr=subprocess.PIPE)
            self.codec = "h264"
            return
        import cv2

        cc = "mp4v" if codec.lower() in ("h264", "avc1", "x264") else codec
        if self.path.suffix.lower() == ".avi" and cc == "mp4v":
            cc = "MJPG"
        self._cv = cv2.VideoWriter(str(self.path), cv2.VideoWriter_fourcc(*cc), fps, size)
        if not self._cv.isOpened():
            raise OSError(f"cannot write video {self.path} (codec {cc})")
        self.codec = cc

    def write(self, img: np.ndarray) -> None:
        if self._proc is not None:
            assert self._proc.stdin is not None
            try:
                self._proc.stdin.write(np.ascontiguousarray(img).tobytes())
            except BrokenPipeError:
                raise OSError(f"ffmpeg stopped writing {self.path}: {self._stderr()}") from None
        else:
            self._cv.write(img)

    def _stderr(self) -> str:
        try:
            return (self._proc.stderr.read() or b"").decode(errors="replace").strip()[-400:]  # type: ignore[union-attr]
        except Exception:
            return ""

    def close(self) -> None:
        if self._proc is not None:
            if self._proc.stdin:
                self._proc.stdin.close()
            rc = self._proc.wait()
            if rc != 0:
                raise OSError(f"ffmpeg failed writing {self.path}: {self._stderr()}")
            self._proc = None
        elif self._cv is not None:
            self._cv.release()
            self._cv = None

    def __enter__(self) -> "VideoSink":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
