"""Recovery rules of the shoe link (firmware/PROTOCOL.md, "Recovery"), in memory.

A VirtualShoe and a ShoeLink talk through a FaultyLine with a fake clock, so
each rule is checked exactly and fast; tests/test_shoe_pty.py runs the same
through a real pseudo-terminal.
"""

from __future__ import annotations

import pytest

from tablecam.shoe import protocol as P
from tablecam.shoe.link import Notice, ShoeLink
from tablecam.shoe.protocol import Frame, MsgType
from tablecam.shoe.sim import Faults, FaultyLine, VirtualShoe


class Bench:
    """Shoe -> (faults) -> decoder -> link -> (outbox) -> shoe, with a fake clock."""

    def __init__(self, faults: Faults | None = None, seed: int = 1, ring: int = 256) -> None:
        self.now = 0.0
        self.wire: list[bytes] = []
        self.line = FaultyLine(self.wire.append, faults or Faults(), seed, sleep=lambda s: None)
        self.shoe = VirtualShoe(self.line.write, clock=lambda: self.now, ring_slots=ring)
        self.link = ShoeLink()
        self.dec = P.StreamDecoder()
        self.cards: list[str] = []
        self.notices: list[Notice] = []
        self.kinds: list[str] = []

    def pump(self, steps: int = 20, dt: float = 0.05) -> None:
        for _ in range(steps):
            data = b"".join(self.wire)
            self.wire.clear()
            got = []
            for item in self.dec.feed(data):
                if isinstance(item, Frame):
                    got += self.link.on_frame(item, self.now)
                else:
                    got += self.link.on_error(item, self.now)
            got += self.link.tick(self.now)
            for g in got:
                if isinstance(g, Notice):
                    self.notices.append(g)
                else:
                    self.kinds.append(g.name)
                    if g.type == MsgType.CARD:
                        self.cards.append(P.parse_payload(g)["card"])
            out = b"".join(self.link.outbox)
            self.link.outbox.clear()
            if out:
                self.shoe.receive(out)
            self.shoe.pump(1000)
            self.now += dt
            if self.now % 0.5 < dt:
                self.shoe.heartbeat()


DECK = ["SA", "SK", "SQ", "SJ", "ST", "S9", "S8", "S7", "S6", "S5", "S4", "S3", "S2"]


def deal(b: Bench, cards=DECK, pump: int = 1) -> None:
    for c in cards:
        b.shoe.card(c)
        b.pump(pump)


def test_in_order_exactly_once_on_a_clean_line():
    b = Bench()
    deal(b)
    b.pump()
    assert b.cards == DECK
    assert b.kinds[0] == "HELLO"
    assert b.link.stats.resend_requests == 0 and b.link.stats.lost == 0


def test_acks_free_the_shoes_ring():
    b = Bench()
    deal(b)
    b.pump(10)
    assert len(b.shoe.ring) == 0


def test_duplicated_frames_are_dropped():
    b = Bench(Faults(duplicate=1.0))
    deal(b)
    b.pump()
    assert b.cards == DECK
    assert b.link.stats.duplicates >= len(DECK)


def test_gap_is_filled_by_resend():
    b = Bench()
    deal(b, DECK[:3])
    b.line.cut = True          # frames 4 and 5 never arrive
    deal(b, DECK[3:5])
    b.line.cut = False
    deal(b, DECK[5:])
    b.pump()
    assert b.cards == DECK
    assert b.link.stats.resend_requests >= 1 and b.link.stats.lost == 0


def test_lost_tail_frame_is_found_by_the_heartbeat():
    b = Bench()
    deal(b, DECK[:12])
    b.line.cut = True
    b.shoe.card(DECK[12])      # the last card of the deal is lost on the line ...
    b.line.cut = False
    b.pump(30)                 # ... the next heartbeat names it, RESEND fetches it
    assert b.cards == DECK


def test_garbage_and_corruption_are_recovered():
    b = Bench(Faults(bit_flip=0.2, drop_byte=0.2, garbage=0.2, duplicate=0.2), seed=7)
    deck = DECK * 8
    deal(b, deck)
    b.pump(60)
    assert b.cards == deck
    assert b.link.stats.corrupt > 0 and b.link.stats.lost == 0


def test_reboot_with_hello_starts_a_new_session():
    b = Bench()
    deal(b, DECK[:5])
    b.pump(5)
    b.shoe.reboot()
    deal(b, DECK[5:])
    b.pump()
    assert b.cards == DECK
    assert b.link.stats.reboots == 1
    assert [n.kind for n in b.notices].count("reboot") == 1
    assert b.kinds.count("HELLO") == 2


def test_reboot_with_lost_hello_is_detected_and_replayed():
    b = Bench()
    deal(b, DECK[:5])
    b.pump(5)
    b.line.cut = True
    b.shoe.reboot()            # HELLO lost
    b.line.cut = False
    deal(b, DECK[5:])
    b.pump(20)
    assert b.cards == DECK
    assert b.link.stats.reboots == 1
    assert b.kinds.count("HELLO") == 2   # fetched with RESEND 0


def test_reboot_before_resend_reports_the_lost_frames():
    b = Bench()
    deal(b, DECK[:3])
    b.line.cut = True
    deal(b, DECK[3:5], pump=0)  # sent but lost, and no time for a RESEND ...
    b.line.cut = False
    b.shoe.card(DECK[5])
    b.shoe.reboot()             # ... the shoe's RAM is gone
    deal(b, DECK[6:])
    b.pump(20)
    lost = [n for n in b.notices if n.kind == "lost"]
    assert lost and lost[0].data["count"] == 2
    assert b.cards == DECK[:3] + DECK[5:]  # everything that could arrive did, once, in order


def test_stale_ack_from_before_a_reboot_is_ignored_by_the_shoe():
    shoe = VirtualShoe(lambda b: None)
    for c in DECK:
        shoe.card(c)
    shoe.reboot()
    shoe.card("HA")
    shoe.receive(P.encode_frame(Frame(MsgType.ACK, 0, 0, P.u16_payload(12))))
    assert len(shoe.ring) == 2     # HELLO and HA survive


def test_frames_the_shoe_no_longer_keeps_are_reported_lost():
    b = Bench(ring=4)
    deal(b, DECK[:2])
    b.line.cut = True
    deal(b, DECK[2:9], pump=0)     # 7 frames, the ring keeps 4
    b.line.cut = False
    deal(b, DECK[9:])
    b.pump(20)
    lost = [n for n in b.notices if n.kind == "lost"]
    n_lost = sum(n.data["count"] for n in lost)
    assert n_lost >= 3                      # at least the 3 that did not fit
    assert b.cards == DECK[:2] + DECK[2 + n_lost:]  # one gap, reported; the rest in order


def test_joining_a_running_shoe_gets_the_unacknowledged_frames():
    b = Bench()
    b.line.cut = True              # the host was not there for HELLO and 3 cards
    deal(b, DECK[:3], pump=0)
    b.line.cut = False
    deal(b, DECK[3:])
    b.pump(10)
    assert b.cards == DECK
    assert not [n for n in b.notices if n.kind == "lost"]


def test_sequence_numbers_wrap():
    b = Bench()
    b.wire.clear()                # a shoe that has been running a long time:
    b.shoe.ring.clear()           # everything so far acknowledged by an earlier host
    b.shoe.next_seq = 65530
    deal(b)
    b.pump()
    assert b.cards == DECK and b.link.stats.lost == 0


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def _deal_through_faults(seed: int, rate: float, reboot_at: int | None) -> Bench:
    """Sixty cards through a line with every fault at ``rate``, the shoe
    restarting after card ``reboot_at`` (None: never)."""
    b = Bench(Faults(bit_flip=rate, drop_byte=rate, duplicate=rate, garbage=rate), seed=seed)
    for i, c in enumerate((DECK * 5)[:60]):
        b.shoe.card(c)
        b.pump(1)
        if reboot_at == i:
            b.pump(30)               # a quiet moment, then the power goes
            b.shoe.reboot()
    b.pump(80)
    return b


# derandomized: CI runs the same 60 cases each time; the case below, found by a
# random run, is a known gap and is kept as its own (expected to fail) test
@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10_000), rate=st.floats(0.0, 0.3), reboot_at=st.one_of(st.none(), st.integers(1, 50)))
def test_any_mix_of_faults_delivers_every_card_once_in_order_or_reports_it(seed, rate, reboot_at):
    b = _deal_through_faults(seed, rate, reboot_at)
    lost = sum(n.data["count"] for n in b.notices if n.kind == "lost")
    assert lost == 0
    assert b.cards == (DECK * 5)[:60]


@pytest.mark.xfail(strict=True, reason="known gap: a restart whose HELLO and first frames are all lost, "
                   "with the new numbers meeting the old session's next one, is taken as its continuation")
def test_a_restart_whose_hello_and_first_card_are_lost_is_noticed():
    """Found by a random run of the test above (seed 8779, every fault at
    0.28, the shoe restarting after its second card): the new session's
    HELLO and first frames are lost, its jack of spades arrives with the
    seq the link expects next and a device time no earlier than the old
    session's last frame (no heartbeat got through before the restart),
    so the link delivers it as the old session's and the queen of spades
    is neither delivered nor reported lost.  Telling it would need the
    boot counter in every frame, or the heartbeat's dealt count checked
    against the cards delivered since the pack was loaded."""
    b = _deal_through_faults(8779, 0.28125, 1)
    lost = sum(n.data["count"] for n in b.notices if n.kind == "lost")
    assert lost > 0 or b.cards == (DECK * 5)[:60]


def test_pty_closed_under_the_driver_is_disconnected_and_retried():
    import os
    import time

    from tablecam.shoe.driver import Health, ShoeDriver
    from tablecam.shoe.sim import FdLink, open_pty

    master, path = open_pty()
    shoe = VirtualShoe(FdLink(master).write)
    d = ShoeDriver(path, heartbeat_timeout=0.3, reconnect_delay=0.05)
    states: list[str] = []
    t0 = time.monotonic()
    for m in d.messages(lambda: time.monotonic() - t0 > 1.5):
        if isinstance(m, Health):
            states.append(m.state)
            if m.state == "stale" and len(states) == 1:
                shoe.heartbeat()
            if m.state == "ok":
                os.close(master)     # the cable is pulled: the pty goes away
                for fd in getattr(open_pty, "keep", []):
                    try:
                        os.close(fd)
                    except OSError:
                        pass
                open_pty.keep = []
    assert states[:3] == ["stale", "ok", "disconnected"] or states[:4] == ["stale", "ok", "stale", "disconnected"]
