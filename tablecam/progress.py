"""Progress of long commands on stderr, so a run of minutes is never silent.

stdout stays the command's output (JSON Lines a script reads); progress goes
to stderr. On a terminal one line is rewritten in place; into a file or a
pipe (a log, CI) a line is written for the first step, then at most every
``every`` seconds, and for the last step, so a log stays short.

>>> import io
>>> out = io.StringIO()
>>> p = Progress("detect", 3, "images", stream=out, every=3600)
>>> for _ in range(3):
...     p.step()
>>> print(out.getvalue().strip())
detect: 1/3 images
detect: 3/3 images, done in 0s
"""

from __future__ import annotations

import sys
import time
from typing import IO, Callable


class Progress:
    """Counts steps of ``total`` (None: unknown) and reports them on ``stream``."""

    def __init__(self, label: str, total: int | None, unit: str, stream: IO[str] | None = None,
                 every: float = 5.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.label = label
        self.total = total
        self.unit = unit
        self.stream = stream if stream is not None else sys.stderr
        self.every = every
        self.clock = clock
        self.done = 0
        self.started = clock()
        self._said = -every - 1.0
        try:
            self.tty = bool(self.stream.isatty())
        except (AttributeError, ValueError):
            self.tty = False

    def step(self, n: int = 1, note: str = "") -> None:
        """``n`` more steps done; ``note`` says what (an image's name)."""
        self.done += n
        now = self.clock()
        last = self.total is not None and self.done >= self.total
        if not (self.tty or last or self.done == n or now - self._said >= self.every):
            return
        self._said = now
        self._write(self._line(now, last, note), last)

    def _line(self, now: float, last: bool, note: str) -> str:
        took = now - self.started
        if self.total is None:
            text = f"{self.label}: {self.done} {self.unit}"
        else:
            text = f"{self.label}: {self.done}/{self.total} {self.unit}"
        if last:
            return f"{text}, done in {_duration(took)}"
        if self.total and self.done and took >= 1.0:
            left = took / self.done * (self.total - self.done)
            text += f", about {_duration(left)} left"
        return f"{text} ({note})" if note else text

    def _write(self, line: str, last: bool) -> None:
        try:
            if self.tty:
                self.stream.write("\r\033[K" + line + ("\n" if last else ""))
            else:
                self.stream.write(line + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            pass  # a closed stderr must not stop the work


def _duration(seconds: float) -> str:
    """``42s``, ``3m05s``, ``1h02m``.

    >>> _duration(4.4), _duration(185), _duration(3720)
    ('4s', '3m05s', '1h02m')
    """
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"
