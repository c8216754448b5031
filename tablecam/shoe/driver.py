"""The shoe driver: any pyserial URL in, in-order shoe messages out.

``ShoeDriver(url).messages()`` opens the port with
:func:`serial.serial_for_url` (``/dev/ttyUSB0``, ``/dev/pts/3``,
``socket://host:port``, ``rfc2217://host:port``, ``loop://``), decodes
frames, runs them through :class:`~tablecam.shoe.link.ShoeLink` (duplicates,
gaps and RESEND, reboots) and yields:

- :class:`ShoeMessage` for every sequenced frame, exactly once, in order
  (and one per HEARTBEAT, which carries status only and may repeat);
- :class:`Health` when the shoe's health changes (``ok``, ``stale`` - no frame
  for ``heartbeat_timeout`` s although the port is open -, ``disconnected`` -
  the port could not be opened or failed; the driver keeps retrying);
- :class:`~tablecam.shoe.link.Notice` for lost frames and reboots.

A pulled USB cable shows up as a read error: the driver closes the port,
reports ``disconnected``, reopens it every ``reconnect_delay`` s and, once
back, asks the shoe to RESEND what it missed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from . import protocol as P
from .link import Notice, ShoeLink
from .protocol import Frame, FrameError, MsgType


@dataclass
class ShoeMessage:
    """One in-order message from the shoe."""

    kind: str                  # CARD, CARD_UNREADABLE, HELLO, SHOE_EMPTY, SHOE_LOADED, ERROR
    seq: int
    time_ms: int
    fields: dict[str, Any]
    ts: float                  # host wall-clock time it was decoded (time.time())
    frame: Frame | None = field(default=None, repr=False)
    # the shoe boot the link took the frame for when it handed it on (None: no HELLO heard yet)
    boot: int | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_frame(cls, frame: Frame, ts: float | None = None, boot: int | None = None) -> "ShoeMessage":
        return cls(frame.name, frame.seq, frame.time_ms, P.parse_payload(frame),
                   time.time() if ts is None else ts, frame, boot)


@dataclass
class Health:
    state: str                 # ok, stale, disconnected
    reason: str = ""
    fields: dict[str, Any] = field(default_factory=dict)  # last heartbeat's fields


class ShoeDriver:
    """Read a shoe on ``url``; see the module docstring."""

    def __init__(self, url: str, baudrate: int = P.BAUD, heartbeat_timeout: float = 1.5,
                 reconnect_delay: float = 0.5, link: ShoeLink | None = None,
                 clock: Callable[[], float] = time.monotonic, read_timeout: float = 0.02) -> None:
        self.url = url
        self.baudrate = baudrate
        self.heartbeat_timeout = heartbeat_timeout
        self.reconnect_delay = reconnect_delay
        self.link = link or ShoeLink()
        self._stream_boot: int | None = None   # the boot the last session notice named (_boot)
        self.clock = clock
        self.read_timeout = read_timeout
        self.decoder = P.StreamDecoder()
        self.port: Any = None
        self.health = Health("starting", "not opened yet")
        self.last_heartbeat: dict[str, Any] = {}
        self.opens = 0
        self._last_rx: float | None = None
        self._frame_done_at: float | None = None

    # --- port handling -----------------------------------------------------------

    def _open(self) -> bool:
        import serial

        try:
            self.port = serial.serial_for_url(self.url, baudrate=self.baudrate,
                                              timeout=self.read_timeout, write_timeout=0.2)
        except (serial.SerialException, OSError, ValueError) as e:
            self.port = None
            self._last_error = str(e)
            return False
        self.opens += 1
        self.decoder = P.StreamDecoder()  # a half frame from before is garbage now
        self._last_rx = self.clock()
        if self.opens > 1:
            self.link.reconnected(self.clock())
        return True

    def close(self) -> None:
        if self.port is not None:
            try:
                self.port.close()
            except Exception:
                pass
        self.port = None

    def _set_health(self, state: str, reason: str, out: list) -> None:
        if state != self.health.state:
            self.health = Health(state, reason, dict(self.last_heartbeat))
            out.append(self.health)

    def _flush(self, out: list) -> None:
        if not self.link.outbox or self.port is None:
            self.link.outbox.clear()
            return
        data = b"".join(self.link.outbox)
        self.link.outbox.clear()
        import serial

        try:
            self.port.write(data)
        except serial.SerialTimeoutException:
            pass  # the shoe is not reading: drop; host commands are repeated anyway
        except Exception as e:  # SerialException, OSError
            self.close()
            self._set_health("disconnected", f"write failed: {e}", out)

    # --- the loop ------------------------------------------------------------------

    def poll(self) -> list[ShoeMessage | Health | Notice]:
        """One step: read what is there (waiting at most ``read_timeout``), decode, answer."""
        out: list[ShoeMessage | Health | Notice] = []
        now = self.clock()
        if self.port is None:
            if not self._open():
                self._set_health("disconnected", f"cannot open {self.url}: {self._last_error}", out)
                time.sleep(self.reconnect_delay)
                return out
            self._set_health("stale", f"opened {self.url}, waiting for the shoe", out)
            self.link.request_resend(now)
            self._flush(out)
        try:
            waiting = self.port.in_waiting
            data = self.port.read(waiting or 1)
        except Exception as e:  # a pulled USB cable: SerialException / OSError EIO
            self.close()
            self._set_health("disconnected", f"read failed: {e}", out)
            return out
        now = self.clock()
        if data:
            self._feed(data, now, out)
        for item in self.link.tick(now):
            out.append(item)
        self._flush(out)
        if self._last_rx is not None and now - self._last_rx > self.heartbeat_timeout:
            self._set_health("stale", f"no frame for {now - self._last_rx:.1f} s", out)
        return out

    def _feed(self, data: bytes, now: float, out: list) -> None:
        ts = time.time()
        for item in self.decoder.feed(data):
            if isinstance(item, FrameError):
                if item.reason == "partial":   # joined mid-frame: not a line fault
                    self.link.request_resend(now)
                else:
                    out.extend(self.link.on_error(item, now))
                continue
            self._last_rx = now
            if item.type == MsgType.HEARTBEAT:
                self.last_heartbeat = P.parse_payload(item)
            for got in self.link.on_frame(item, now):
                if isinstance(got, Frame):
                    out.append(ShoeMessage.from_frame(got, ts, self._boot()))
                else:
                    if got.kind == "session" and isinstance(got.data.get("boot"), int):
                        self._stream_boot = got.data["boot"]
                    out.append(got)
            self._set_health("ok", "frames arriving", out)
            if item.type == MsgType.HEARTBEAT:
                # Unsequenced and not deduplicated: status only (shoe empty, jammed ...).
                out.append(ShoeMessage.from_frame(item, ts))

    def _boot(self) -> int | None:
        """The boot of the frame the link hands on now.  Told by the order
        of what the link hands on - its ``session`` notice comes just before
        a new boot's HELLO, after the old boot's last frames - not by the
        link's state once a whole read is decoded: one read can hold the old
        boot's last card and the new boot's HELLO.  Before any HELLO in this
        run, the boot the link was resumed at (``ShoeLink.resume``)."""
        if self._stream_boot is not None:
            return self._stream_boot
        boot = (self.link.hello or {}).get("boot")
        return boot if isinstance(boot, int) else None

    def messages(self, stop: Callable[[], bool] = lambda: False) -> Iterator[ShoeMessage | Health | Notice]:
        """Yield until ``stop()`` is true (checked every ``read_timeout`` at least)."""
        try:
            while not stop():
                yield from self.poll()
        finally:
            self.close()
