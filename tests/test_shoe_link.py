"""Recovery rules of the shoe link (firmware/PROTOCOL.md, "Recovery"), in memory.

A VirtualShoe and a ShoeLink talk through a FaultyLine with a fake clock, so
each rule is checked exactly and fast; tests/test_shoe_pty.py runs the same
through a real pseudo-terminal.
"""

from __future__ import annotations

import os

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
        self.sent_times: list[int] = []   # SET_TIME values the host sent

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
            for raw in self.link.outbox:
                for f in P.StreamDecoder().feed(raw):
                    if isinstance(f, Frame) and f.type == MsgType.SET_TIME:
                        self.sent_times.append(P.parse_payload(f)["time_ms"])
            out = b"".join(self.link.outbox)
            self.link.outbox.clear()
            if out:
                self.shoe.receive(out)
            self.shoe.pump(1000)
            self.now += dt
            if self.now % 0.5 < dt:
                self.shoe.heartbeat()


DECK = ["SA", "SK", "SQ", "SJ", "ST", "S9", "S8", "S7", "S6", "S5", "S4", "S3", "S2"]


def _heard(link: ShoeLink, frame: Frame, now: float) -> list:
    return link.on_frame(P.decode_frame(P.encode_frame(frame)[:-1]), now)


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
    b.pump(12)                 # a heartbeat naming the last card is heard
    b.shoe.reboot()
    deal(b, DECK[5:])
    b.pump()
    assert b.cards == DECK
    assert b.link.stats.reboots == 1
    assert [n.data for n in b.notices if n.kind == "reboot"] == [{"last_seq": 5, "tail_unconfirmed": False}]
    assert b.kinds.count("HELLO") == 2


def test_reboot_right_after_a_card_cannot_vouch_for_the_tail():
    """No heartbeat came between the last card heard and the restart: a card
    dealt in that moment would have died with the ring, so the notice says so."""
    b = Bench()
    deal(b, DECK[:5])
    b.pump(5)
    b.shoe.reboot()
    deal(b, DECK[5:])
    b.pump()
    assert b.cards == DECK
    assert [n.data for n in b.notices if n.kind == "reboot"] == [{"last_seq": 5, "tail_unconfirmed": True}]


def test_a_card_read_with_the_next_boots_hello_keeps_its_own_boot():
    """One read of the port can hold the old boot's last card and the new
    boot's HELLO.  The card's message names the boot it was dealt in - the
    link's state once the whole read is decoded names the new one - so a
    node restarted on it takes the shoe up at the right boot
    (``ShoeReader._resume``).  After a restart whose HELLO was lost the
    replayed HELLO comes before the new boot's cards; before any HELLO in
    this run, a card is of the boot the link was resumed at."""
    from tablecam.node.sources import ShoeReader
    from tablecam.events import make_event
    from tablecam.shoe.driver import ShoeDriver, ShoeMessage

    wire: list[bytes] = []
    shoe = VirtualShoe(wire.append, boot=7, clock=lambda: 0.0)
    drv = ShoeDriver("loop://")

    def read() -> list[ShoeMessage]:
        out: list = []
        drv._feed(b"".join(wire), 0.0, out)
        wire.clear()
        shoe.receive(b"".join(drv.link.outbox))     # what the driver writes back at once
        drv.link.outbox.clear()
        shoe.pump(100)
        return [m for m in out if isinstance(m, ShoeMessage)]

    shoe.card("SA")
    assert [(m.kind, m.boot) for m in read()] == [("HELLO", 7), ("CARD", 7)]
    shoe.card("HK")
    shoe.reboot()                      # the shoe restarts before the host reads the king
    shoe.card("D2")
    got = read()
    assert [(m.kind, m.boot) for m in got] == [("CARD", 7), ("HELLO", 8), ("CARD", 8)]
    assert drv.link.hello["boot"] == 8
    king = make_event("deal", to="N", card="HK", source="shoe", shoe_seq=got[0].seq)
    assert ShoeReader._deal_dict(king, got[0])["shoe_boot"] == 7     # what the node stores

    # a restart whose HELLO is lost: the link asks for the new boot's frames
    # from 0, the HELLO comes first, and the cards after it are of boot 9
    shoe.card("S4")
    read()
    shoe.reboot()
    wire.clear()                       # the HELLO of boot 9 is lost on the line
    shoe.card("C5")
    shoe.card("C6")
    assert read() == []                # seen as a restart: a RESEND from frame 0 goes out
    assert [(m.kind, m.boot) for m in read()] == [("HELLO", 9), ("CARD", 9), ("CARD", 9)]

    wire.clear()
    resumed = ShoeDriver("loop://")
    resumed.link.resume(2, 9)          # a restarted node: the last card stored was #2 of boot 9
    shoe.card("C3")
    out: list = []
    resumed._feed(b"".join(wire), 0.0, out)
    assert [(m.kind, m.seq, m.boot) for m in out if isinstance(m, ShoeMessage)] == [("CARD", 3, 9)]


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


# derandomized: CI runs the same 60 cases each time; the case a random run
# found (below) has its own test
# TABLECAM_SHOE_CASES=20000 runs a long sweep (docs/benchmarks.md); CI runs the fixed 60
@settings(max_examples=int(os.environ.get("TABLECAM_SHOE_CASES", "60")), deadline=None, derandomize=True)
@given(seed=st.integers(0, 10_000), rate=st.floats(0.0, 0.3), reboot_at=st.one_of(st.none(), st.integers(1, 50)))
def test_any_mix_of_faults_delivers_every_card_once_in_order_or_reports_it(seed, rate, reboot_at):
    b = _deal_through_faults(seed, rate, reboot_at)
    _assert_every_card_once_in_order_or_reported(b, reboot_at)


def _assert_every_card_once_in_order_or_reported(b: Bench, reboot_at: int | None) -> None:
    """Every card arrives once, in order, or its loss is reported: frames
    lost (counted), or - for cards that died with an old boot's RAM ring
    before they got through, which nothing can count - an unconfirmed tail
    at the restart, or damaged frames before a new boot's HELLO."""
    dealt = (DECK * 5)[:60]
    lost = sum(n.data["count"] for n in b.notices if n.kind == "lost")
    if b.cards == dealt:
        assert lost == 0
        return
    at = 0                                   # the cards that came are in order, once each
    for c in b.cards:
        while at < len(dealt) and dealt[at] != c:
            at += 1
        assert at < len(dealt)
        at += 1
    if len(dealt) - len(b.cards) <= lost:
        return
    assert reboot_at is not None             # uncounted losses: only an old boot's cards
    assert b.cards[-(len(dealt) - reboot_at - 1):] == dealt[reboot_at + 1:]
    assert (any(n.kind == "unheard" for n in b.notices)
            or any(n.kind == "reboot" and n.data["tail_unconfirmed"] for n in b.notices))


def test_a_restart_that_takes_the_last_unsent_card_with_it_says_so():
    """Found by a random run (seed 4519, faults at 0.27, restart after card
    48): the six of spades and every heartbeat after it are lost, then the
    power goes.  The card died with the shoe's RAM ring, so no RESEND can
    fetch it; the restart notice says the old boot's tail is unconfirmed and
    the deal tracker turns that into a shoe_link warning to count the cards."""
    from tablecam.shoe.tracker import DealTracker

    b = _deal_through_faults(4519, 0.27372084863965357, 47)
    _assert_every_card_once_in_order_or_reported(b, 47)
    notice = next(n for n in b.notices if n.kind == "reboot")
    assert notice.data["tail_unconfirmed"] and "may be lost" in notice.message
    findings = DealTracker("bridge", "N").feed(notice)
    assert findings[0].kind == "shoe_link" and findings[0].status != "info"


def test_cards_of_a_boot_the_host_never_heard_are_reported():
    """Found by a random run (seed 3394, faults at 0.24, restart after card
    5): every frame of the first boot is damaged, so the first frame heard
    is the second boot's HELLO.  Those cards died with the first boot's
    ring; the damaged frames before the HELLO are reported, not taken as
    line noise before a fresh start."""
    from tablecam.shoe.tracker import DealTracker

    b = _deal_through_faults(3394, 0.2365315548024835, 4)
    _assert_every_card_once_in_order_or_reported(b, 4)
    unheard = [n for n in b.notices if n.kind == "unheard"]
    assert unheard and unheard[0].data["damaged"] > 0 and unheard[0].data["boot"] == 2
    assert DealTracker("bridge", "N").feed(unheard[0])[0].kind == "shoe_link"


def test_a_resumed_link_takes_replayed_frames_for_duplicates():
    """A restarted host resumes from its log (the last card it stored was
    frame 3 of boot 7): the shoe's replay of its unacknowledged frames, the
    HELLO of that boot among them, deals nothing twice; frame 4 is new."""
    link = ShoeLink(set_clock=False)
    link.resume(3, boot=7)
    out = _heard(link, Frame(MsgType.HELLO, 0, 0, P.hello_payload(0x5A0E5111, 7)), 0.0)
    for seq in (1, 2, 3):
        out += _heard(link, Frame(MsgType.CARD, seq, 50 * seq, P.card_payload(DECK[seq - 1])), 0.1)
    out += _heard(link, Frame(MsgType.CARD, 4, 200, P.card_payload("SJ")), 0.2)
    assert [P.parse_payload(f)["card"] for f in out if isinstance(f, Frame)] == ["SJ"]
    assert not [n for n in out if isinstance(n, Notice)] and link.stats.duplicates == 4


def test_a_resumed_link_meeting_another_boot_reports_the_restart():
    link = ShoeLink(set_clock=False)
    link.resume(3, boot=7)
    out = _heard(link, Frame(MsgType.HELLO, 0, 0, P.hello_payload(0x5A0E5111, 8)), 0.0)
    out += _heard(link, Frame(MsgType.CARD, 1, 40, P.card_payload("SJ")), 0.1)
    notices = [n for n in out if isinstance(n, Notice)]
    assert [n.kind for n in notices] == ["reboot", "session"]
    assert notices[0].data == {"last_seq": 3, "tail_unconfirmed": True} and "boot 7 -> 8" in notices[0].message
    assert [f.name for f in out if isinstance(f, Frame)] == ["HELLO", "CARD"]


def test_a_resumed_link_takes_a_late_replay_of_old_frames_for_duplicates():
    """Found by the pty restart test under load: the earlier run's RESEND 0
    was answered after the new run had started, so frames stamped seconds
    before the new run's first card arrived behind it.  They are not in
    this run's memory, and their age does not make them a new boot's."""
    link = ShoeLink(set_clock=False)
    link.resume(21, boot=1)
    out = _heard(link, Frame(MsgType.CARD, 22, 9_000, P.card_payload("HT")), 0.0)
    for seq in range(1, 22):                                  # the late replay, stamped long before
        out += _heard(link, Frame(MsgType.CARD, seq, 100 * seq, P.card_payload("S2")), 0.1)
    out += _heard(link, Frame(MsgType.CARD, 23, 9_100, P.card_payload("C7")), 0.2)
    assert [P.parse_payload(f)["card"] for f in out if isinstance(f, Frame)] == ["HT", "C7"]
    assert link.stats.reboots == 0 and link.stats.duplicates == 21


def test_a_heartbeat_behind_the_last_frame_delivered_is_a_restart():
    """Rule 4(e): a shoe cannot have stamped fewer frames than the host
    received.  A resumed host whose shoe restarted meanwhile (its HELLO
    lost) hears it from the first heartbeat, and fetches the new boot."""
    link = ShoeLink(set_clock=False)
    link.resume(21, boot=1)
    out = _heard(link, Frame(MsgType.HEARTBEAT, 2, 900, P.heartbeat_payload(2, 0, 3)), 0.0)
    assert [n.kind for n in out if isinstance(n, Notice)] == ["reboot"] and link.expected == 0
    sent = [(f.type, P.parse_payload(f)["seq"]) for raw in link.outbox for f in P.StreamDecoder().feed(raw)]
    assert sent == [(MsgType.RESEND, 0)]


def test_a_frame_sent_after_a_heartbeat_but_stamped_before_it_is_a_restart():
    """Rule 4(d): a heartbeat names the last frame the shoe had stamped, so
    a later frame of the same boot is stamped no earlier.  Found by a random
    run (seed 4970): the old session's next frame never came, the shoe
    restarted, and its new frame #4 met the seq the host was waiting for -
    stamped 0.9 s before the old boot's last heartbeat."""
    link = ShoeLink(set_clock=False)
    _heard(link, Frame(MsgType.HELLO, 0, 0, P.hello_payload(0x5A0E5111, 1)), 0.0)
    for seq in (1, 2, 3):
        _heard(link, Frame(MsgType.CARD, seq, 50 * seq, P.card_payload(DECK[seq - 1])), 0.05 * seq)
    _heard(link, Frame(MsgType.HEARTBEAT, 3, 1000, P.heartbeat_payload(3)), 1.0)
    out = _heard(link, Frame(MsgType.CARD, 4, 100, P.card_payload("S9")), 1.8)
    assert [o.kind for o in out if isinstance(o, Notice)] == ["reboot"]
    assert not [o for o in out if isinstance(o, Frame)]      # held until the new HELLO is fetched
    assert link.expected == 0 and link.stats.reboots == 1
    # the same frame stamped after the heartbeat is the old boot's next card
    link = ShoeLink(set_clock=False)
    _heard(link, Frame(MsgType.HELLO, 0, 0, P.hello_payload(0x5A0E5111, 1)), 0.0)
    _heard(link, Frame(MsgType.HEARTBEAT, 0, 1000, P.heartbeat_payload(0)), 1.0)
    out = _heard(link, Frame(MsgType.CARD, 1, 1400, P.card_payload("S9")), 1.4)
    assert [o.name for o in out if isinstance(o, Frame)] == ["CARD"] and link.stats.reboots == 0


def test_a_restart_whose_hello_and_first_card_are_lost_is_noticed():
    """Found by a random run of the test above (seed 8779, every fault at
    0.28, the shoe restarting after its second card): the new session's
    HELLO and first frames are lost and its jack of spades arrives with the
    seq the link expects next.  Before the clock mark its device time was no
    earlier than the old session's last frame, so the link took it as the
    old session's and the queen of spades was neither delivered nor reported
    lost.  With the shoe's clock set past CLOCK_MARK the restart shows as
    time running back by days: the link asks RESEND 0 and gets every card."""
    b = _deal_through_faults(8779, 0.28125, 1)
    assert [n.kind for n in b.notices].count("reboot") == 1
    assert not [n for n in b.notices if n.kind == "lost"]
    assert b.cards == (DECK * 5)[:60]


def test_a_fresh_shoes_clock_is_set_past_the_mark_once_and_only_forward():
    from tablecam.shoe.link import CLOCK_MARK

    b = Bench()
    b.now = 3.0                       # the host opens the port 3 s after boot
    deal(b, DECK[:3])
    b.pump(30)
    # one SET_TIME, from the HELLO (stamped at boot, so the mark plus 0)
    assert b.sent_times == [CLOCK_MARK]
    # later frames carry the marked clock; delivered times never run back
    assert b.link._clock_marked
    b.shoe.card("SJ")
    b.pump(5)
    assert b.cards[-1] == "SJ" and b.link.stats.reboots == 0


def test_a_clock_set_by_an_earlier_host_is_never_moved_back():
    """A host that restarts meets a shoe whose clock an earlier host marked.
    The first frame it hears may be a kept copy stamped before that mark,
    and its own SET_TIME values count from its own start: the shoe
    (firmware 1.1, and the simulator) takes a SET_TIME forward only, so
    the new host cannot move the clock back - which rule 4(d) would take
    for a restart."""
    from tablecam.shoe.link import CLOCK_MARK

    b = Bench()
    b.now = 2.0
    deal(b, DECK[:3])
    b.pump(20)
    marked = b.shoe.now_ms()
    assert b.link._clock_marked and marked >= CLOCK_MARK + 1000
    b.link, b.dec = ShoeLink(), P.StreamDecoder()      # the host restarts: a later epoch, smaller values
    n = len(b.sent_times)
    _heard(b.link, Frame(MsgType.CARD, 1, 0, P.card_payload(DECK[0])), b.now)   # an old, unmarked copy
    b.shoe.card(DECK[3])
    b.pump(20)
    assert b.sent_times[n:] and all(v < marked for v in b.sent_times[n:])   # it asked to go back ...
    assert b.shoe.now_ms() >= marked and b.link.stats.reboots == 0           # ... and the shoe did not
    assert b.cards[-1] == DECK[3]


def test_the_clock_mark_can_be_turned_off():
    b = Bench()
    b.link.set_clock = False
    deal(b, DECK[:2])
    b.pump(20)
    assert b.sent_times == []


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
