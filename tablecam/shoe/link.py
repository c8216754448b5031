"""The host side of the shoe link: ordering, duplicates, gaps, reboots.

:class:`ShoeLink` is a pure state machine (no I/O, time passed in), so the
recovery rules of ``firmware/PROTOCOL.md`` are tested directly and the same
object runs behind a real serial port, a pty or a TCP socket.

Recovery rules, in short (PROTOCOL.md has them in full):

- **Garbage / corrupt frame**: the stream decoder drops bytes up to the next
  0x00; the link asks ``RESEND`` from the next expected sequence number (the
  shoe ignores a RESEND of frames it has not sent yet, so asking is free).
- **Gap** (a frame arrives ahead of the expected one, or a HEARTBEAT names a
  later last-seq): the later frames wait in a reorder buffer; ``RESEND`` is
  repeated every ``resend_timeout`` s up to ``max_resend_tries`` times, then
  the missing frames are declared lost and reported, never silently skipped.
- **Duplicate**: a frame whose sequence number was already delivered with the
  same bytes is dropped.
- **Reboot**: a HELLO with a new boot counter, or a frame that reuses an old
  sequence number with different bytes, or device time running backwards
  (behind the last delivered frame, or behind the latest heartbeat for a
  frame sent after it), starts a new session at seq 0 (``RESEND 0`` if the
  HELLO itself was lost).  The notice says whether the old boot's tail is
  confirmed: cards it stamped after the last heartbeat heard died with it.
- **A boot never heard**: damaged frames before the first frame heard, when
  that is a HELLO, are reported (``unheard``): an earlier boot's cards.
- **Cable pull**: nothing arrives; health goes ``stale``/``disconnected``;
  on reconnect the link asks ``RESEND`` from where it stopped.
- **Clock mark**: a shoe whose clock still counts from boot is set forward by
  :data:`CLOCK_MARK` (``SET_TIME``), so a later restart, which starts the
  clock at 0 again, always shows as time running backwards - even when the
  new session's HELLO and first frames are all lost and its numbers happen
  to meet the ones the old session would have sent next.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from . import protocol as P
from .protocol import Frame, FrameError, MsgType

SEQ_MOD = 1 << 16

#: Device time the host sets a freshly booted shoe's clock past (2**30 ms,
#: about 12.4 days).  A restart puts the clock back under it, far more than
#: the 1 s that rule 4(c) of PROTOCOL.md calls a restart.
CLOCK_MARK = 1 << 30


def seq_ahead(a: int, b: int) -> int:
    """How far ``a`` is ahead of ``b`` modulo 2**16 (0..65535).

    >>> seq_ahead(2, 65535), seq_ahead(5, 5), seq_ahead(4, 5)
    (3, 0, 65535)
    """
    return (a - b) % SEQ_MOD


@dataclass
class Notice:
    """Something about the link the operator should know (lost frames, reboot ...)."""

    kind: str           # reboot, lost, unheard, resync, session
    message: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class LinkStats:
    frames: int = 0           # good frames received (any type)
    delivered: int = 0        # sequenced frames handed on, in order
    corrupt: int = 0          # frames that failed COBS/CRC/length/version
    duplicates: int = 0
    resend_requests: int = 0
    lost: int = 0             # sequenced frames given up on
    reboots: int = 0
    heartbeats: int = 0


class ShoeLink:
    """Turn received frames (in any order, with faults) into the in-order stream.

    Call :meth:`on_frame` / :meth:`on_error` for what the decoder produced and
    :meth:`tick` regularly; each returns a list of delivered :class:`Frame`
    and :class:`Notice` items. Frames to send to the shoe collect in
    :attr:`outbox` (bytes, already framed) for the transport to write.
    """

    def __init__(self, resend_timeout: float = 0.05, max_resend_tries: int = 8,
                 window: int = 1024, ack_interval: float = 0.2, ack_every: int = 8,
                 memory: int = 1024, set_clock: bool = True, clock_retry: float = 0.5,
                 tail_window: float = 0.75) -> None:
        self.resend_timeout = resend_timeout
        self.max_resend_tries = max_resend_tries
        self.window = window
        self.ack_interval = ack_interval
        self.ack_every = ack_every
        self.memory = memory
        self.set_clock = set_clock
        self.clock_retry = clock_retry
        self.tail_window = tail_window      # 1.5 heartbeat periods (the shoe beats every 0.5 s)
        self.outbox: list[bytes] = []
        self.stats = LinkStats()
        self.hello: dict[str, Any] | None = None
        self._host_seq = 0
        self._epoch: float | None = None   # host time of the first frame: SET_TIME values count from it
        self._damaged_before_first = 0     # damaged frames before the first good one
        self._reset_session()

    # --- session state -------------------------------------------------------------

    def _reset_session(self) -> None:
        self.expected: int | None = None
        self._pending: dict[int, Frame] = {}
        self._seen: OrderedDict[int, bytes] = OrderedDict()
        self._last_time: int | None = None
        self._gap_target: int | None = None   # last seq the shoe says it sent
        self._resend_at: float | None = None
        self._resend_for: int | None = None
        self._resend_tries = 0
        self._tries_for: int | None = None
        self._heard_since_request = False  # a silent shoe (cable out) is not refusing a RESEND
        self._unacked = 0
        self._last_ack_at = -1e9
        self._acked: int | None = None
        self._joining = False   # first contact: frames before the shoe's oldest kept one are history
        self._clock_marked = False           # a frame of this session showed the clock past CLOCK_MARK
        self._clock_sent_at: float | None = None
        self._heartbeat: tuple[int, int] | None = None   # the latest heartbeat's (seq, time)
        self._heartbeat_at = -1e9            # host time it was heard
        self._resumed = False                # expected comes from an earlier run's log (resume)

    @property
    def in_sync(self) -> bool:
        """No gap outstanding."""
        return not self._pending and self._gap_target is None

    # --- host -> shoe ---------------------------------------------------------------

    def send(self, type: MsgType, payload: bytes = b"") -> None:
        self.outbox.append(P.encode_frame(Frame(type, self._host_seq, 0, payload)))
        self._host_seq = (self._host_seq + 1) % SEQ_MOD

    def request_resend(self, now: float, force: bool = False) -> None:
        if self.expected is None:
            return
        # One request per resend_timeout: the shoe answers a RESEND with a
        # stream of frames, and asking again while it is still coming would
        # only restart it.
        if not force and self._resend_at is not None and now - self._resend_at < self.resend_timeout:
            return
        self.send(MsgType.RESEND, P.u16_payload(self.expected))
        self.stats.resend_requests += 1
        self._heard_since_request = False
        self._resend_at = now
        self._resend_for = self.expected

    def _maybe_ack(self, now: float, force: bool = False) -> None:
        if self.expected is None or not (self._seen or self._resumed):
            return      # nothing delivered in this session: no ACK (after a restart, not "65535")
        last = (self.expected - 1) % SEQ_MOD
        if last == self._acked:
            return
        if force or self._unacked >= self.ack_every or now - self._last_ack_at >= self.ack_interval:
            self.send(MsgType.ACK, P.u16_payload(last))
            self._acked = last
            self._unacked = 0
            self._last_ack_at = now

    def resume(self, last_seq: int, boot: int | None = None) -> None:
        """Continue where an earlier run of the host left off: it delivered
        the shoe's frames up to ``last_seq`` of boot ``boot`` (the table's
        stored log says so).  The shoe replays what it kept unacknowledged;
        frames up to ``last_seq`` are then duplicates, not new cards.  A
        HELLO of another boot is a restart while the host was away."""
        self._reset_session()
        self.expected = (last_seq + 1) % SEQ_MOD
        self.hello = {"boot": boot} if boot is not None else None
        self._resumed = True

    def reconnected(self, now: float) -> None:
        """The transport reopened the port: ask for whatever was missed."""
        self.request_resend(now, force=True)

    # --- shoe -> host ---------------------------------------------------------------

    def on_error(self, err: FrameError, now: float) -> list[Frame | Notice]:
        """A corrupt frame: count it and ask for a resend straight away."""
        self.stats.corrupt += 1
        if self._epoch is None and err.reason != "partial":
            self._damaged_before_first += 1
        self.request_resend(now)
        return []

    def on_frame(self, frame: Frame, now: float) -> list[Frame | Notice]:
        self.stats.frames += 1
        self._heard_since_request = True
        if frame.type not in P.SHOE_TYPES:
            return []  # our own frames echoed back (loop://), or noise with a good CRC
        out: list[Frame | Notice] = []
        if frame.type == MsgType.HEARTBEAT:
            self._on_heartbeat(frame, now, out)
        elif frame.type == MsgType.HELLO:
            self._on_hello(frame, now, out)
        else:
            self._on_sequenced(frame, now, out)
        self._mark_clock(frame, now)
        self._maybe_ack(now)
        return out

    def _mark_clock(self, frame: Frame, now: float) -> None:
        """Set a clock that still counts from boot past :data:`CLOCK_MARK`.

        Why: rule 4(c) tells a restart by device time running backwards, but
        a short session's clock may be behind the new one's when the restart
        is noticed.  Once the clock is past the mark a restart always puts it
        back by days.  Every value sent is the mark plus the host's time
        since this link first heard the shoe, so this link's SET_TIMEs never
        disagree, even when one meant for the old boot reaches the new one.
        The shoe (firmware 1.1) ignores a value behind its clock, so the
        clock only ever moves forward: a SET_TIME from a frame stamped
        before an earlier host marked the clock, or from a restarted host
        with a later epoch, changes nothing.
        """
        if self._epoch is None:
            self._epoch = now
        if not self.set_clock or self._clock_marked:
            return
        t = frame.time_ms
        if t >= CLOCK_MARK:
            # Past the mark (ours or an earlier host's): leave it.  A clock
            # past 2 * CLOCK_MARK is far ahead and is left alone too.
            self._clock_marked = CLOCK_MARK <= t < 2 * CLOCK_MARK
            return
        if self._clock_sent_at is not None and now - self._clock_sent_at < self.clock_retry:
            return
        value = CLOCK_MARK + int((now - self._epoch) * 1000.0)
        if value < 2 * CLOCK_MARK:   # (a link up for 12 days stops marking)
            self.send(MsgType.SET_TIME, P.u32_payload(value))
            self._clock_sent_at = now

    def _on_hello(self, frame: Frame, now: float, out: list) -> None:
        info = P.parse_payload(frame)
        if self.expected is not None and self._seen.get(frame.seq) == frame.raw:
            self.stats.duplicates += 1
            return
        if self._resumed and self.hello is not None and info["boot"] == self.hello.get("boot"):
            self.stats.duplicates += 1  # the resumed boot's own HELLO, replayed: long delivered
            return
        if self._seen or self._resumed:  # frames of this session delivered: a new HELLO is a restart
            old = self.hello.get("boot") if self.hello else "?"
            self._reboot(now, out, f"the shoe restarted (boot {old} -> {info['boot']})")
        if self._damaged_before_first and self.stats.delivered == 0:
            # The first frame delivered is a boot's HELLO, so the shoe has
            # kept every frame of this boot; yet damaged frames came before
            # the first good one: an earlier boot may have dealt cards the
            # host never read, and its RAM ring is gone.  Nothing says how many.
            n, self._damaged_before_first = self._damaged_before_first, 0
            out.append(Notice("unheard", f"{n} damaged frame(s) came before the shoe's first frame heard "
                                         f"(boot {info['boot']}): if it was dealing then, those cards "
                                         "must be entered by hand.", {"damaged": n, "boot": info["boot"]}))
        self._joining = False
        self.hello = info
        self.expected = frame.seq
        out.append(Notice("session", f"shoe {info['shoe_id']:08x} firmware {info['firmware']} boot {info['boot']}",
                          info))
        self._on_sequenced(frame, now, out)

    def _on_heartbeat(self, frame: Frame, now: float, out: list) -> None:
        self.stats.heartbeats += 1
        info = P.parse_payload(frame)
        last = frame.seq
        if self.expected is None:
            # Joined a running shoe: start with the oldest frame it still keeps.
            self.expected = (last + 1 - info["unacked"]) % SEQ_MOD
            if info["unacked"]:
                self._gap_target = last
                self.request_resend(now, force=True)
            return
        behind = 1 < seq_ahead(self.expected, last) < self.window
        if self._time_went_back(frame.time_ms) or self._behind_heartbeat(frame) or behind:
            # (behind: the shoe says it stamped fewer frames than were
            # delivered - only a new boot numbers from 0 again, rule 4(e))
            self._reboot(now, out, "the shoe's numbers went back: the shoe restarted" if behind
                         else "device time went backwards: the shoe restarted")
            self.expected = 0
            self._gap_target = last
            self._heartbeat, self._heartbeat_at = (last, frame.time_ms), now
            self.request_resend(now, force=True)
            return
        self._heartbeat, self._heartbeat_at = (last, frame.time_ms), now
        ahead = seq_ahead(last, self.expected)
        if ahead < self.window:          # last >= expected: frames missing at the tail
            self._gap_target = last
            self.request_resend(now)
        elif seq_ahead(self.expected, last) == 1:
            self._gap_target = None      # fully up to date
        # (a heartbeat's time is not the last delivered time - resent frames are
        # older than it; rule 4(d) holds only frames numbered after it to it)

    def _time_went_back(self, t: int) -> bool:
        if self._last_time is None:
            return False
        back = (self._last_time - t) % (1 << 32)
        return 1000 < back < (1 << 31)   # more than 1 s back, and not a 49-day wrap

    def _behind_heartbeat(self, frame: Frame) -> bool:
        """Stamped before the latest heartbeat, yet sent after it: a restart.

        A heartbeat carries the seq of the last frame the shoe had stamped,
        so a later frame (or heartbeat) of the same boot is stamped no
        earlier.  Resent frames are older, but their seqs are not after the
        heartbeat's.  Unlike rule 4(c) this needs no delivered frame to
        compare with: it tells a restart whose HELLO was lost while the
        host was waiting for the old session's next frame."""
        if self._heartbeat is None:
            return False
        seq, t = self._heartbeat
        if frame.type != MsgType.HEARTBEAT and not 0 < seq_ahead(frame.seq, seq) < self.window:
            return False
        return 0 < (t - frame.time_ms) % (1 << 32) < (1 << 31)

    def _on_sequenced(self, frame: Frame, now: float, out: list) -> None:
        if (frame.type == MsgType.ERROR and frame.payload[0] == P.ErrorCode.RESEND_UNAVAILABLE
                and self._is_new(frame)):
            self._resend_unavailable(frame, now, out)
        if self.expected is None:
            # First contact in the middle of a session: ask for everything the
            # shoe still keeps (it answers RESEND_UNAVAILABLE with its oldest).
            self.expected = 0
            self._joining = True
            if frame.seq != 0:
                self._pending[frame.seq] = frame
                self.request_resend(now, force=True)
                return
        d = seq_ahead(frame.seq, self.expected)
        if self._joining and d != 0:
            # Until the shoe says where its memory starts, every frame waits.
            if frame.seq in self._pending:
                self.stats.duplicates += 1
            else:
                self._pending[frame.seq] = frame
            self.request_resend(now)
            return
        went_back = self._time_went_back(frame.time_ms) or self._behind_heartbeat(frame)
        if d == 0:
            if went_back and frame.type != MsgType.HELLO:
                self._reboot(now, out, "device time went backwards: the shoe restarted")
                self.expected = 0
                self._pending[frame.seq] = frame
                self.request_resend(now, force=True)
                return
            self._deliver(frame, out)
            self._drain(out)
        elif d < self.window:
            if went_back:
                self._reboot(now, out, "device time went backwards: the shoe restarted")
                self.expected = 0
                self._pending[frame.seq] = frame
                self.request_resend(now, force=True)
                return
            if frame.seq in self._pending:
                self.stats.duplicates += 1
            else:
                self._pending[frame.seq] = frame
                self.request_resend(now)
        else:
            seen = self._seen.get(frame.seq)
            if seen == frame.raw or (seen is None and self._resumed):
                # (resumed: a kept copy from before the resume, delivered by the
                # earlier run; a new boot tells itself by its HELLO or heartbeat)
                self.stats.duplicates += 1
            elif seen is not None or went_back:
                self._reboot(now, out, "a sequence number came back with new content: the shoe restarted")
                self.expected = 0
                self._pending[frame.seq] = frame
                if frame.seq == 0:
                    self._deliver(self._pending.pop(0), out)
                    self._drain(out)
                else:
                    self.request_resend(now, force=True)
            else:
                self.stats.duplicates += 1  # too old to check: treat as a late copy

    def _is_new(self, frame: Frame) -> bool:
        """Not delivered or buffered yet (a resent copy of an old ERROR must not act twice)."""
        if self.expected is None:
            return True
        if self._joining:
            return frame.seq not in self._pending
        return frame.seq not in self._pending and seq_ahead(frame.seq, self.expected) < self.window

    def _resend_unavailable(self, frame: Frame, now: float, out: list) -> None:
        oldest = P.parse_payload(frame)["detail"]
        if self.expected is None:
            return
        missing = seq_ahead(oldest, self.expected)
        if 0 < missing and (missing < self.window or self._joining):
            if self._joining:
                out.append(Notice("session", f"joined a running shoe at frame {oldest}", {"seq": oldest}))
            else:
                self._lose(self.expected, missing, out, "the shoe no longer keeps them")
            self.expected = oldest
            self._drain(out)
        self._joining = False

    def _deliver(self, frame: Frame, out: list) -> None:
        self._joining = False
        self._damaged_before_first = 0
        self._seen[frame.seq] = frame.raw
        self._seen.move_to_end(frame.seq)
        while len(self._seen) > self.memory:
            self._seen.popitem(last=False)
        self.expected = (frame.seq + 1) % SEQ_MOD
        self._last_time = frame.time_ms if self._last_time is None else max(self._last_time, frame.time_ms)
        self.stats.delivered += 1
        self._unacked += 1
        if self._gap_target is not None and seq_ahead(self._gap_target, frame.seq) == 0:
            self._gap_target = None
        out.append(frame)

    def _drain(self, out: list) -> None:
        while self.expected in self._pending:
            self._deliver(self._pending.pop(self.expected), out)
        # stale entries behind expected (delivered meanwhile) are dropped
        for s in [] if self._joining else [s for s in self._pending if seq_ahead(s, self.expected) >= self.window]:
            del self._pending[s]
        if self.in_sync:
            self._resend_at = None
            self._resend_tries = 0

    def _lose(self, start: int, count: int, out: list, why: str) -> None:
        self.stats.lost += count
        seqs = [(start + i) % SEQ_MOD for i in range(count)]
        out.append(Notice("lost", f"{count} frame(s) from the shoe were lost ({why}); "
                                  "a card among them must be entered by hand.",
                          {"seqs": seqs[:64], "count": count}))

    def _reboot(self, now: float, out: list, why: str) -> None:
        """End the old session: report what it can no longer resend, hand on
        what did arrive (after the gap, in order), then start afresh."""
        self.stats.reboots += 1
        if self.expected is not None and not self.in_sync:
            target = self._gap_target
            if self._pending:
                last = max(self._pending, key=lambda s: seq_ahead(s, self.expected))
                if target is None or seq_ahead(last, self.expected) > seq_ahead(target, self.expected):
                    target = last
            if target is not None:
                n = seq_ahead(target, self.expected) + 1 - len(self._pending)
                if n > 0:
                    self._lose(self.expected, n, out, "the shoe restarted before resending them")
            for s in sorted(self._pending, key=lambda s: seq_ahead(s, self.expected)):
                self._deliver(self._pending.pop(s), out)
        last = None if self.expected is None or not (self._seen or self._resumed) \
            else (self.expected - 1) % SEQ_MOD
        # Frames the old boot stamped after the last heartbeat heard died with
        # its RAM ring, and nothing tells how many; a heartbeat naming the last
        # frame delivered says there were none when it was sent - and if it
        # was heard within ``tail_window`` s, no later one was missed, so no
        # card came between it and the restart unheard.
        unconfirmed = last is not None and (self._heartbeat is None or self._heartbeat[0] != last
                                            or now - self._heartbeat_at > self.tail_window)
        if unconfirmed:
            why += (f"; its last frame heard was #{last} and no heartbeat after it: a card dealt "
                    "just before the restart may be lost")
        out.append(Notice("reboot", why, {"last_seq": last, "tail_unconfirmed": unconfirmed}))
        hello = self.hello
        self._reset_session()
        self.hello = hello

    def tick(self, now: float) -> list[Frame | Notice]:
        """Repeat or give up a RESEND, send a due ACK."""
        out: list[Frame | Notice] = []
        if self._tries_for != self.expected:      # progress: the count starts again
            self._tries_for = self.expected
            self._resend_tries = 0
        if not self.in_sync and self._resend_at is not None and now - self._resend_at >= self.resend_timeout:
            if self._resend_tries >= self.max_resend_tries:
                assert self.expected is not None
                if self._pending:
                    first = min(self._pending, key=lambda s: seq_ahead(s, self.expected))
                    if self._joining:
                        out.append(Notice("session", f"joined a running shoe at frame {first}", {"seq": first}))
                    else:
                        self._lose(self.expected, seq_ahead(first, self.expected), out, "no answer to RESEND")
                    self.expected = first
                    self._drain(out)
                elif self._gap_target is not None:
                    n = seq_ahead(self._gap_target, self.expected) + 1
                    self._lose(self.expected, n, out, "no answer to RESEND")
                    self.expected = (self._gap_target + 1) % SEQ_MOD
                    self._gap_target = None
                self._resend_tries = 0
                self._resend_at = None if self.in_sync else now
            else:
                if self._heard_since_request:  # only an answering shoe uses up tries
                    self._resend_tries += 1
                self.request_resend(now, force=True)
        self._maybe_ack(now)
        return out
