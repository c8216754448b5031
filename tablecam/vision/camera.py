"""Frames from a camera, a video file or a network stream, with timestamps.

A table camera runs for hours: a USB hiccup, a dropped RTSP connection or a
corrupt frame in a recording must cost a few frames, never the session.  So
:class:`FrameSource` retries and reconnects live sources with a back-off, skips
unreadable frames in files, and gives every frame a timestamp the event log
can use:

* video file: ``index / fps`` (the recording's own clock, so a replay of the
  same file gives the same event times however fast the machine is);
* device or stream: seconds since the source was opened (monotonic clock).

``source`` is a device index (``0`` or ``"0"``), a path, or an ``rtsp://`` /
``http(s)://`` URL.

>>> classify_source("0"), classify_source("rtsp://cam/1"), classify_source("table.mp4")
('device', 'stream', 'file')
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np


@dataclass
class Frame:
    """One decoded frame: ``index`` counts frames delivered, ``ts`` is in seconds."""

    index: int
    ts: float
    image: np.ndarray


def classify_source(source: Any) -> str:
    """``device``, ``stream`` or ``file``."""
    if isinstance(source, int) or (isinstance(source, str) and source.strip().isdigit()):
        return "device"
    s = str(source).lower()
    if s.startswith(("rtsp://", "rtmp://", "http://", "https://", "udp://", "tcp://")):
        return "stream"
    return "file"


class FrameSource:
    """Iterate over :class:`Frame` objects from any OpenCV-readable source.

    ``max_failures``: consecutive failed reads tolerated (live sources
    reconnect after every ``reconnect_after`` of them) before giving up.
    ``width``/``height`` ask a device for a capture size (best effort).
    """

    def __init__(self, source: Any, *, width: int | None = None, height: int | None = None,
                 max_failures: int = 50, reconnect_after: int = 5, log: Any = sys.stderr) -> None:
        self.source = source
        self.kind = classify_source(source)
        self.width, self.height = width, height
        self.max_failures = max_failures
        self.reconnect_after = reconnect_after
        self.log = log
        self.cap: Any = None
        self.fps: float = 0.0
        self.frame_count: int = 0
        self.dropped = 0
        self._t0 = 0.0

    # -- opening -----------------------------------------------------------
    def open(self) -> "FrameSource":
        import cv2

        if self.kind == "device":
            cap = cv2.VideoCapture(int(str(self.source).strip()))
            if self.width:
                cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
            if self.height:
                cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
        elif self.kind == "stream":
            cap = cv2.VideoCapture(str(self.source), cv2.CAP_FFMPEG)
        else:
            cap = cv2.VideoCapture(str(self.source))
        if not cap.isOpened():
            cap.release()
            raise OSError(f"cannot open video source {self.source!r}")
        self.cap = cap
        fps = cap.get(cv2.CAP_PROP_FPS) or 0.0
        self.fps = float(fps) if 1.0 <= fps <= 1000.0 else 25.0
        self.frame_count = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        self._t0 = time.monotonic()
        return self

    def close(self) -> None:
        if self.cap is not None:
            self.cap.release()
            self.cap = None

    def __enter__(self) -> "FrameSource":
        return self.open() if self.cap is None else self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _say(self, msg: str) -> None:
        if self.log is not None:
            print(f"tablecam camera: {msg}", file=self.log)

    # -- reading -----------------------------------------------------------
    def __iter__(self) -> Iterator[Frame]:
        import cv2

        if self.cap is None:
            self.open()
        index = 0      # frames delivered
        pos = 0        # frames consumed from a file (delivered or skipped)
        failures = 0
        while True:
            ok, img = self.cap.read() if self.cap is not None else (False, None)
            if ok and img is not None and img.size:
                failures = 0
                if self.kind == "file":
                    ts = pos / self.fps
                    pos += 1
                else:
                    ts = time.monotonic() - self._t0
                if img.ndim == 2:
                    img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
                yield Frame(index, round(ts, 4), img)
                index += 1
                continue
            failures += 1
            self.dropped += 1
            if self.kind == "file":
                # End of file, or a corrupt frame: skip it if frames remain.
                pos += 1
                if self.frame_count and pos < self.frame_count and failures <= self.max_failures:
                    self.cap.set(cv2.CAP_PROP_POS_FRAMES, pos)
                    continue
                self.dropped -= 1  # the read past the end is not a dropped frame
                return
            if failures > self.max_failures:
                self._say(f"{self.source}: {failures} reads failed in a row; giving up")
                return
            if failures % self.reconnect_after == 0:
                self._say(f"{self.source}: read failed {failures} times; reconnecting")
                self.close()
                time.sleep(min(2.0, 0.1 * failures))
                try:
                    self.open()
                except OSError as e:
                    self._say(str(e))
            else:
                time.sleep(0.01)


def frames_from_images(images: Any, fps: float = 25.0) -> Iterator[Frame]:
    """Wrap a sequence of BGR arrays as frames at ``fps`` (tests, benchmarks)."""
    for i, img in enumerate(images):
        yield Frame(i, round(i / fps, 4), img)
