"""A virtual card shoe speaking the firmware's protocol, with fault injection.

:class:`VirtualShoe` mirrors ``firmware/src/shoe.c`` (sequence numbers, the
retransmit ring, unsequenced heartbeats, ACK / RESEND / RESET / SET_TIME)
using the Python encoder, so anything the host driver handles from the
simulator it handles from the firmware: the firmware's own image is checked
against the same driver under simavr (``tests/test_shoe_firmware.py``).

:class:`FaultyLine` sits between the shoe and the wire and damages frames on
purpose: bit flips, dropped bytes, duplicated frames, garbage, delays.
:func:`serve` puts a shoe on a pseudo-terminal or a TCP port for
``tablecam shoe-sim``.
"""

from __future__ import annotations

import os
import random
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from . import protocol as P
from .protocol import Frame, MsgType


class VirtualShoe:
    """The shoe's protocol behaviour; ``write`` receives the bytes it sends."""

    def __init__(self, write: Callable[[bytes], None], shoe_id: int = 0x5A0E5111, boot: int = 1,
                 pack: int = 1, ring_slots: int = 256, clock: Callable[[], float] = time.monotonic) -> None:
        self.write = write
        self.shoe_id = shoe_id
        self.boot = boot
        self.pack = pack
        self.ring_slots = ring_slots
        self.clock = clock
        self.dealt = 0
        self.empty = False
        self.kitty_armed = False
        self.reset_requested = False
        self._rx = P.StreamDecoder()
        self.power_on(P.ResetCause.POWER_ON)

    # --- lifecycle -----------------------------------------------------------------

    def power_on(self, cause: int = P.ResetCause.POWER_ON) -> None:
        """Boot: sequence restarts at 0 with a HELLO; the ring and the counters (RAM) are empty."""
        self._t0 = self.clock()
        self.dealt = 0
        self.kitty_armed = False
        self._offset = 0
        self.next_seq = 0
        self.resend_next: int | None = None
        self.ring: deque[tuple[int, bytes]] = deque()
        self._rx = P.StreamDecoder()
        self._send(MsgType.HELLO, P.hello_payload(self.shoe_id, self.boot, self.pack, (1, 1), cause))

    def reboot(self, cause: int = P.ResetCause.WATCHDOG) -> None:
        self.boot = (self.boot + 1) & 0xFFFF
        self.power_on(cause)

    def now_ms(self) -> int:
        return (int((self.clock() - self._t0) * 1000) + self._offset) & 0xFFFFFFFF

    # --- what the sensor reports ---------------------------------------------------

    def card(self, card: Any, confidence: int = 99, kitty: bool = False, pack: int | None = None,
             face_up: bool = False) -> None:
        flags = (P.FLAG_KITTY if kitty or self.kitty_armed else 0) | (P.FLAG_FACE_UP if face_up else 0)
        self.kitty_armed = False
        self.dealt += 1
        self._send(MsgType.CARD, P.card_payload(card, confidence, flags, self.pack if pack is None else pack))

    def unreadable(self, reason: int = P.Unreadable.NO_READ, count: int = 1, kitty: bool = False) -> None:
        self.dealt += count
        self._send(MsgType.CARD_UNREADABLE, P.unreadable_payload(reason, count, P.FLAG_KITTY if kitty else 0))

    def loaded(self, pack: int | None = None) -> None:
        if pack is not None:
            self.pack = pack
        self.dealt = 0
        self.empty = False
        self._send(MsgType.SHOE_LOADED, bytes([self.pack]))

    def emptied(self) -> None:
        self.empty = True
        self._send(MsgType.SHOE_EMPTY, P.u16_payload(self.dealt))

    def error(self, code: int, detail: int = 0) -> None:
        self._send(MsgType.ERROR, P.error_payload(code, detail))

    def heartbeat(self) -> None:
        status = (P.STATUS_EMPTY if self.empty else 0) | (P.STATUS_KITTY_ARMED if self.kitty_armed else 0)
        f = Frame(MsgType.HEARTBEAT, (self.next_seq - 1) % 65536, self.now_ms(),
                  P.heartbeat_payload(self.dealt, status, min(len(self.ring), 255)))
        self.write(P.encode_frame(f))

    # --- host commands -------------------------------------------------------------

    def receive(self, data: bytes) -> None:
        """Bytes from the host."""
        for item in self._rx.feed(data):
            if isinstance(item, Frame):
                self._handle(item)

    def _handle(self, f: Frame) -> None:
        if f.type == MsgType.ACK:
            ack = P.parse_payload(f)["seq"]
            if (ack - self.next_seq) % 65536 < 0x8000:
                return  # an ACK for frames not sent (yet): a stale one from before a reboot
            while self.ring and (ack - self.ring[0][0]) % 65536 < 0x8000:
                self.ring.popleft()
        elif f.type == MsgType.RESEND:
            self._resend(P.parse_payload(f)["seq"])
        elif f.type == MsgType.RESET:
            self.reset_requested = True
            self.reboot(P.ResetCause.HOST)
        elif f.type == MsgType.SET_TIME:
            want = P.parse_payload(f)["time_ms"]
            if 0 < (want - self.now_ms()) % (1 << 32) < (1 << 31):   # forward only, like firmware 1.1
                self._offset = want - int((self.clock() - self._t0) * 1000)
        else:
            self.error(P.ErrorCode.BAD_FRAME, f.type)

    def _resend(self, start: int) -> None:
        """Like the firmware: a RESEND (re)starts a resend cursor, it does not
        stack copies; :meth:`pump` sends a few kept frames at a time."""
        if start == self.next_seq:
            return  # the host is up to date: nothing to send
        seqs = [s for s, _ in self.ring]
        if start not in seqs:
            # Not kept (acknowledged, overwritten, or from before a reboot): say
            # which is the oldest kept once this ERROR is in the ring, then replay.
            if len(self.ring) >= self.ring_slots:
                oldest = seqs[1] if len(seqs) > 1 else self.next_seq
            else:
                oldest = seqs[0] if seqs else self.next_seq
            self.error(P.ErrorCode.RESEND_UNAVAILABLE, oldest)
            start = self.ring[0][0]
        self.resend_next = start

    def pump(self, max_frames: int = 8) -> int:
        """Send up to ``max_frames`` frames of a resend in progress; return how many."""
        sent = 0
        while self.resend_next is not None and sent < max_frames:
            seqs = [s for s, _ in self.ring]
            if self.resend_next not in seqs:
                self.resend_next = None
                break
            i = seqs.index(self.resend_next)
            self.write(P.cobs_encode(self.ring[i][1]) + b"\x00")
            sent += 1
            self.resend_next = (self.resend_next + 1) % 65536
        return sent

    def _send(self, type: MsgType, payload: bytes) -> None:
        f = Frame(type, self.next_seq, self.now_ms(), payload)
        self.next_seq = (self.next_seq + 1) % 65536
        raw = P.pack_frame(f)
        self.ring.append((f.seq, raw))
        if len(self.ring) > self.ring_slots:
            self.ring.popleft()
        self.write(P.cobs_encode(raw) + b"\x00")


@dataclass
class Faults:
    """Per-frame fault probabilities (0..1) for :class:`FaultyLine`."""

    bit_flip: float = 0.0
    drop_byte: float = 0.0
    duplicate: float = 0.0
    garbage: float = 0.0
    delay: float = 0.0
    max_delay: float = 0.05

    @classmethod
    def parse(cls, text: str) -> "Faults":
        """``"bit_flip=0.02,drop_byte=0.01"`` -> Faults; ``"all=0.05"`` sets every kind.

        >>> Faults.parse("bit_flip=0.1,duplicate=0.2").duplicate
        0.2
        """
        f = cls()
        for part in filter(None, (p.strip() for p in text.split(","))):
            k, _, v = part.partition("=")
            k = k.strip().replace("-", "_")
            if k == "all":
                for name in ("bit_flip", "drop_byte", "duplicate", "garbage"):
                    setattr(f, name, float(v))
            elif hasattr(f, k):
                setattr(f, k, float(v))
            else:
                raise ValueError(f"unknown fault {k!r} (bit_flip, drop_byte, duplicate, garbage, delay, max_delay)")
        return f


@dataclass
class FaultCounts:
    frames: int = 0
    bit_flips: int = 0
    dropped_bytes: int = 0
    duplicates: int = 0
    garbage: int = 0
    delays: int = 0

    @property
    def corrupted(self) -> int:
        return self.bit_flips + self.dropped_bytes


class FaultyLine:
    """Damage frames on their way to the wire; ``write`` gets what survives.

    Works per frame (the shoe writes whole frames), so every fault can be
    counted: ``counts.corrupted`` frames were damaged and must never be
    accepted by the host.
    """

    def __init__(self, write: Callable[[bytes], None], faults: Faults, seed: int | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.write_out = write
        self.faults = faults
        self.rng = random.Random(seed)
        self.sleep = sleep
        self.counts = FaultCounts()
        self.cut = False  # a pulled cable: everything is lost

    def write(self, data: bytes) -> None:
        r = self.rng
        f = self.faults
        self.counts.frames += 1
        if self.cut:
            return
        out = bytearray(data)
        if f.garbage and r.random() < f.garbage:
            self.counts.garbage += 1
            junk = bytes(r.randrange(1, 256) for _ in range(r.randrange(1, 24)))
            self.write_out(junk + (b"\x00" if r.random() < 0.5 else b""))
        if f.bit_flip and r.random() < f.bit_flip and len(out) > 1:
            self.counts.bit_flips += 1
            i = r.randrange(len(out) - 1)  # not the delimiter: that is a drop/merge case
            out[i] ^= 1 << r.randrange(8)
        elif f.drop_byte and r.random() < f.drop_byte:
            self.counts.dropped_bytes += 1
            del out[r.randrange(len(out))]
        if f.delay and r.random() < f.delay:
            self.counts.delays += 1
            self.sleep(r.uniform(0, f.max_delay))
        self.write_out(bytes(out))
        if f.duplicate and r.random() < f.duplicate:
            self.counts.duplicates += 1
            self.write_out(bytes(data))


# --- deals to play ----------------------------------------------------------------------

@dataclass
class SimCard:
    """One card through the slot: ``card`` None means the reader missed it."""

    card: str | None
    kitty: bool = False
    pack: int | None = None


def shuffled_deal(game: str, seed: int | None = None, pack: int = 1) -> list[SimCard]:
    """A plausible deal for ``game`` out of a shuffled pack.

    Whist: 55 cards with 3 jokers; three cards go to the kitty, never two in a
    row and never the last (the rule the dealer follows). Pidro: the whole pack
    (36 dealt, the rest for the refill).
    """
    from ..cards import shuffled_deck

    rng = random.Random(seed)
    deck = [str(c) for c in shuffled_deck(rng.randrange(1 << 30), jokers=3 if game == "whist" else 0)]
    cards = [SimCard(c, pack=pack) for c in deck]
    if game == "whist":
        spots: set[int] = set()
        while len(spots) < 3:
            i = rng.randrange(1, 54)
            if i in spots or i - 1 in spots or i + 1 in spots:
                continue
            spots.add(i)
        for i in spots:
            cards[i].kitty = True
    return cards


def deal_from_events(lines: Iterable[str]) -> list[list[SimCard]]:
    """The deals recorded in an event log (``deal`` events), one list per board."""
    from ..events import read_events

    return deals_from_items(read_events(lines))


def deals_from_items(items: Iterable[Any]) -> list[list[SimCard]]:
    """Boards of cards from events (a log, or ``tablecam.archive.load`` of a PBN/LIN file)."""
    from ..events import Event

    boards: list[list[SimCard]] = []
    cur: list[SimCard] | None = None
    for item in items:
        if not isinstance(item, Event):
            continue
        if item.type == "board":
            cur = []
            boards.append(cur)
        elif item.type == "deal":
            if cur is None:
                cur = []
                boards.append(cur)
            cur.append(SimCard(str(item.card), kitty=item.get("to") == "kitty"))
    return boards


# --- serving ---------------------------------------------------------------------------

@dataclass
class SimPlan:
    """What ``tablecam shoe-sim`` plays, and the faults it injects."""

    boards: list[list[SimCard]]
    card_interval: float = 0.05
    heartbeat: float = 0.5
    faults: Faults = field(default_factory=Faults)
    seed: int | None = None
    reboot_after: int | None = None       # reboot once after this many cards in total
    cable_pull_after: int | None = None   # cut the line after this many cards ...
    cable_pull_for: float = 1.0           # ... for this long
    loop: bool = False


def open_pty() -> tuple[int, str]:
    """A raw pseudo-terminal: returns (master fd, slave path)."""
    import termios
    import tty

    master, slave = os.openpty()
    tty.setraw(slave)
    attrs = termios.tcgetattr(slave)
    attrs[3] &= ~termios.ECHO
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    path = os.ttyname(slave)
    # Keep the slave open so the master does not see EIO before the host opens it.
    open_pty.keep = getattr(open_pty, "keep", []) + [slave]  # type: ignore[attr-defined]
    return master, path


class FdLink:
    """Write to / poll a file descriptor (pty master or socket)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        os.set_blocking(fd, False)

    def write(self, data: bytes) -> None:
        """Write like a UART without flow control: if the other side does not
        read for half a second the bytes are lost, never a deadlock."""
        import select

        view = memoryview(data)
        while view:
            _, w, _ = select.select([], [self.fd], [], 0.5)
            if not w:
                return
            try:
                n = os.write(self.fd, view)
            except BlockingIOError:
                continue
            except OSError:
                return  # nobody listening: the bytes are lost, like on a real line
            view = view[n:]

    def read(self, timeout: float) -> bytes:
        import select

        r, _, _ = select.select([self.fd], [], [], max(0.0, timeout))
        if not r:
            return b""
        try:
            return os.read(self.fd, 4096)
        except OSError:
            return b""


def run_plan(plan: SimPlan, link: Any, log: Callable[[str], None] = lambda s: None,
             stop: Callable[[], bool] = lambda: False,
             linger: Callable[[], bool] = lambda: True) -> FaultCounts:
    """Play ``plan`` on ``link`` (an :class:`FdLink`-like object); return the fault counts.

    After the last card the shoe stays on line (heartbeats, answering RESEND)
    until ``linger()`` returns true, like a real shoe that stays plugged in.
    """
    line = FaultyLine(link.write, plan.faults, plan.seed)
    shoe = VirtualShoe(line.write)
    dealt_total = 0
    last_hb = time.monotonic()
    rebooted = pulled = False

    def idle(seconds: float) -> None:
        nonlocal last_hb
        end = time.monotonic() + seconds
        while True:
            now = time.monotonic()
            if now - last_hb >= plan.heartbeat:
                shoe.heartbeat()
                last_hb = now
            if shoe.pump():
                data = link.read(0)      # keep listening while resending
                if data:
                    shoe.receive(data)
                continue
            left = end - now
            if left <= 0:
                return
            data = link.read(min(left, plan.heartbeat / 2))
            if data:
                shoe.receive(data)

    while True:
        for cards in plan.boards:
            shoe.loaded()
            idle(plan.card_interval)
            for c in cards:
                if stop():
                    return line.counts
                if c.card is None:
                    shoe.unreadable(kitty=c.kitty)
                else:
                    shoe.card(c.card, kitty=c.kitty, pack=c.pack)
                dealt_total += 1
                if plan.reboot_after is not None and not rebooted and dealt_total >= plan.reboot_after:
                    rebooted = True
                    # The host has time to ask for what it missed: wait until it has
                    # acknowledged every frame (or 5 s), however busy the machine is.
                    idle(max(0.3, plan.card_interval * 4))
                    settle = time.monotonic() + 5.0
                    while shoe.ring and time.monotonic() < settle:
                        idle(0.05)
                    log(f"shoe-sim: rebooting after card {dealt_total}")
                    shoe.reboot()
                if plan.cable_pull_after is not None and not pulled and dealt_total >= plan.cable_pull_after:
                    pulled = True
                    log(f"shoe-sim: cable pulled for {plan.cable_pull_for}s")
                    line.cut = True
                    idle(plan.cable_pull_for)
                    line.cut = False
                    log("shoe-sim: cable back")
                idle(plan.card_interval)
            shoe.emptied()
            idle(plan.card_interval * 2)
        if not plan.loop:
            break
    idle(plan.heartbeat * 2)
    while not linger() and not stop():
        idle(plan.heartbeat)
    return line.counts
