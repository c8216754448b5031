"""The real firmware image, cross-built for the ATmega2560, run under simavr.

``firmware/sim/simavr_bridge`` loads ``build/shoe.elf`` into simavr, puts the
AVR's USART0 on a pseudo-terminal and drives the slot beam, the KITTY button,
the pack switch and the card reader's USART1 from commands on stdin. The host
driver reads the pty exactly as it would read the board's USB-serial port.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time

import pytest

from tablecam.shoe.driver import ShoeDriver, ShoeMessage
from tablecam.shoe.link import Notice
from tablecam.shoe.protocol import MsgType
from tablecam.shoe.sim import shuffled_deal
from tablecam.shoe.tracker import DealTracker

FIRMWARE = os.path.join(os.path.dirname(__file__), "..", "firmware")

pytestmark = pytest.mark.firmware


def _missing_avr() -> str | None:
    for tool in ("avr-gcc", "avr-objcopy", "avr-size", "make"):
        if not shutil.which(tool):
            return f"{tool} not installed (Debian: gcc-avr avr-libc make)"
    if not os.path.exists("/usr/lib/avr/include/avr/io.h"):
        return "avr-libc not installed (Debian: avr-libc)"
    return None


def _missing_simavr() -> str | None:
    if not shutil.which("gcc"):
        return "gcc not installed"
    if not os.path.exists("/usr/include/simavr/sim_avr.h"):
        return "simavr headers not installed (Debian: simavr libsimavr-dev libelf-dev)"
    return None


def test_firmware_cross_builds_for_the_atmega2560():
    why = _missing_avr()
    if why:
        pytest.skip(why)
    r = subprocess.run(["make", "-s", "-C", FIRMWARE, "avr"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    size = subprocess.run(["avr-size", os.path.join(FIRMWARE, "build", "shoe.elf")],
                          capture_output=True, text=True).stdout.splitlines()[1].split()
    text, data, bss = int(size[0]), int(size[1]), int(size[2])
    assert text + data < 256 * 1024                 # ATmega2560 flash
    assert data + bss < 8 * 1024 - 1024             # RAM, leaving 1 KB for the stack
    assert os.path.getsize(os.path.join(FIRMWARE, "build", "shoe.hex")) > 0


@pytest.fixture(scope="module")
def built() -> str:
    why = _missing_avr() or _missing_simavr()
    if why:
        pytest.skip(why)
    r = subprocess.run(["make", "-s", "-C", FIRMWARE, "avr", "bridge"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return os.path.join(FIRMWARE, "build")


def test_firmware_host_unit_tests_pass():
    if not shutil.which("make") or not shutil.which("gcc"):
        pytest.skip("make/gcc not installed")
    r = subprocess.run(["make", "-s", "-C", FIRMWARE, "test"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 failures" in r.stdout


class Board:
    """The bridge process: firmware under simavr, UART on a pty."""

    def __init__(self, build: str) -> None:
        self.p = subprocess.Popen([os.path.join(build, "simavr_bridge"), os.path.join(build, "shoe.elf")],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.pty = ""
        for _ in range(10):
            line = self.p.stdout.readline()
            if line.startswith("PTY "):
                self.pty = line.split()[1]
                break
        assert self.pty, "simavr_bridge printed no PTY line"

    def send(self, *commands: str) -> None:
        self.p.stdin.write("".join(c + "\n" for c in commands))
        self.p.stdin.flush()

    def close(self) -> None:
        try:
            self.p.stdin.close()
        except OSError:
            pass
        try:
            self.p.wait(3)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def collect(driver: ShoeDriver, until, limit: float, board: "Board | None" = None, commands=()) -> list:
    """Read until ``until(items)``; ``commands`` go to the board once the port is open."""
    out: list = []
    t0 = time.monotonic()
    sent = False
    for m in driver.messages(lambda: until(out) or time.monotonic() - t0 > limit):
        out.append(m)
        if not sent and board is not None:
            board.send(*commands)
            sent = True
    return out


def cards_of(items) -> list[str]:
    return [m.fields["card"] for m in items if isinstance(m, ShoeMessage) and m.kind == "CARD"]


@pytest.mark.timeout(120)
def test_firmware_deals_a_bridge_board_end_to_end_through_a_pty(built):
    board = Board(built)
    try:
        driver = ShoeDriver(board.pty, heartbeat_timeout=1.5)
        deal = [c.card for c in shuffled_deal("bridge", seed=21)]
        cmds = ["wait 100"] + [f"card {c} 95 P1" for c in deal[:20]] + ["unreadable"] + \
               [f"card {c} 95 P1" for c in deal[21:]] + ["empty", "wait 600"]
        items = collect(driver, lambda out: any(isinstance(m, ShoeMessage) and m.kind == "SHOE_EMPTY" for m in out),
                        60, board, cmds)
        msgs = [m for m in items if isinstance(m, ShoeMessage)]
        assert msgs[0].kind == "HELLO" and msgs[0].seq == 0 and msgs[0].fields["protocol"] == 1
        assert cards_of(items) == deal[:20] + deal[21:]
        assert [m.fields["reason"] for m in msgs if m.kind == "CARD_UNREADABLE"] == [1]
        assert driver.health.state == "ok"
        assert driver.link.stats.corrupt == 0 and driver.link.stats.lost == 0
        seqs = [m.seq for m in msgs if m.kind != "HEARTBEAT"]
        assert seqs == list(range(len(seqs)))          # in order, exactly once
        # the same messages through the tracker: the misread keeps the order
        tracker = DealTracker("bridge", "S")
        out = [x for m in msgs for x in tracker.feed(m)]
        deals = [e for e in out if getattr(e, "type", None) == "deal"]
        misread = [f for f in out if getattr(f, "kind", None) == "shoe_misread"]
        assert len(deals) == 51 and len(misread) == 1 and misread[0].extra["to"] == "W"
        # RESEND from the start: the firmware replays byte-identical frames, all dropped as duplicates
        before = driver.link.stats.duplicates
        driver.link.send(MsgType.RESEND, (1).to_bytes(2, "little"))
        more = collect(driver, lambda out: driver.link.stats.duplicates > before + 3, 10)
        assert cards_of(more) == []
        assert driver.link.stats.duplicates > before
        driver.close()
    finally:
        board.close()


@pytest.mark.timeout(300)
def test_firmware_kitty_button_and_reset_are_seen_by_the_host(built):
    board = Board(built)
    try:
        driver = ShoeDriver(board.pty, heartbeat_timeout=1.5)
        items = collect(driver, lambda out: len(cards_of(out)) >= 3, 30, board,
                        ["wait 100", "card SA", "kitty", "card JK", "card HT"])
        msgs = [m for m in items if isinstance(m, ShoeMessage) and m.kind == "CARD"]
        assert [(m.fields["card"], m.fields["kitty"]) for m in msgs] == [("SA", False), ("JK", True), ("HT", False)]
        # RESET from the host: the watchdog restarts the AVR, a new HELLO with a new boot count follows.
        # The next card goes in once the host has seen the reboot (not after a fixed wait: under load
        # the RESET can reach the simulated AVR later than any wait in its own clock).
        boot = driver.link.hello["boot"]
        driver.link.send(MsgType.RESET)
        items = collect(driver, lambda out: any(isinstance(m, Notice) and m.kind == "reboot" for m in out), 60)
        assert any(isinstance(m, Notice) and m.kind == "reboot" for m in items)
        assert cards_of(items) == []
        assert driver.link.hello["boot"] == boot + 1
        assert driver.link.hello["reset_cause"] in (3, 4)
        board.send("card D5")
        items = collect(driver, lambda out: len(cards_of(out)) >= 1, 60)
        assert cards_of(items) == ["D5"]
        driver.close()
    finally:
        board.close()


@pytest.mark.timeout(120)
def test_firmware_clock_is_marked_and_a_power_cycle_shows_as_time_running_back(built):
    """PROTOCOL.md rule 8 against the real firmware: the host sets the AVR's
    clock past CLOCK_MARK with SET_TIME; a power cycle (EEPROM kept, RAM and
    clock lost) starts it at 0 again, the host sees the restart, and marks
    the new boot's clock too.  (Cards dealt before a SET_TIME lands carry the
    raw clock, so each card here waits for a marked heartbeat.)"""
    from tablecam.shoe.link import CLOCK_MARK

    def marked(out: list) -> bool:
        return any(isinstance(m, ShoeMessage) and m.kind == "HEARTBEAT" and m.time_ms >= CLOCK_MARK for m in out)

    def card_time(out: list) -> int:
        return next(m.time_ms for m in out if isinstance(m, ShoeMessage) and m.kind == "CARD")

    board = Board(built)
    try:
        driver = ShoeDriver(board.pty, heartbeat_timeout=1.5)
        items = collect(driver, marked, 30, board, ["wait 100"])
        hello = next(m for m in items if isinstance(m, ShoeMessage) and m.kind == "HELLO")
        assert hello.time_ms < CLOCK_MARK and marked(items) and driver.link._clock_marked
        board.send("card SA")
        items = collect(driver, lambda out: len(cards_of(out)) >= 1, 30)
        assert CLOCK_MARK <= card_time(items) < CLOCK_MARK + 60_000
        last = max(m.seq for m in items if isinstance(m, ShoeMessage) and m.kind != "HEARTBEAT")
        board.send("reset")
        items = collect(driver, lambda out: marked(out) and any(
            isinstance(m, Notice) and m.kind == "reboot" for m in out), 30)
        reboot = [m for m in items if isinstance(m, Notice) and m.kind == "reboot"]
        assert len(reboot) == 1 and reboot[0].data["last_seq"] == last
        board.send("card HA")
        items = collect(driver, lambda out: len(cards_of(out)) >= 1, 30)
        assert cards_of(items) == ["HA"] and card_time(items) >= CLOCK_MARK
        driver.close()
    finally:
        board.close()


class FaultyRelay:
    """Sit between the firmware's pty and a new pty for the driver, damaging
    the shoe -> host direction frame by frame (bit flips, dropped bytes,
    duplicates, garbage) with the simulator's FaultyLine."""

    def __init__(self, board_pty: str, faults, seed: int = 3) -> None:
        import threading
        import tty

        from tablecam.shoe.sim import FaultyLine, open_pty

        self.board_fd = os.open(board_pty, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(self.board_fd)
        self.master, self.path = open_pty()
        self.line = FaultyLine(lambda b: os.write(self.master, b), faults, seed, sleep=lambda s: None)
        self.running = True
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def _run(self) -> None:
        import select

        buf = b""
        while self.running:
            r, _, _ = select.select([self.board_fd, self.master], [], [], 0.05)
            try:
                if self.board_fd in r:
                    buf += os.read(self.board_fd, 4096)
                    while b"\x00" in buf:
                        frame, _, buf = buf.partition(b"\x00")
                        self.line.write(frame + b"\x00")
                if self.master in r:
                    os.write(self.board_fd, os.read(self.master, 4096))
            except OSError:
                return

    def close(self) -> None:
        self.running = False
        self.t.join(2)
        os.close(self.board_fd)
        os.close(self.master)


@pytest.mark.timeout(600)
def test_firmware_resends_through_a_faulty_line(built):
    from tablecam.shoe.sim import Faults

    board = Board(built)
    relay = FaultyRelay(board.pty, Faults(bit_flip=0.08, drop_byte=0.08, duplicate=0.08, garbage=0.08))
    try:
        driver = ShoeDriver(relay.path, heartbeat_timeout=1.5)
        deal = [c.card for c in shuffled_deal("bridge", seed=22)]
        # The cards go in batches well under the firmware's 32-slot ring, each once the host has
        # the one before: a RESEND that a loaded machine sends late still finds its frames there.
        batch = 8
        items = collect(driver, lambda out: len(cards_of(out)) >= batch, 90, board,
                        ["wait 100"] + [f"card {c}" for c in deal[:batch]])
        for at in range(batch, len(deal), batch):
            board.send(*[f"card {c}" for c in deal[at:at + batch]])
            want = min(at + batch, len(deal))
            items += collect(driver, lambda out: len(cards_of(items)) + len(cards_of(out)) >= want, 90)
        assert cards_of(items) == deal                 # exactly once, in order, from the C firmware's ring
        assert relay.line.counts.corrupted > 0 and driver.link.stats.corrupt > 0
        assert driver.link.stats.resend_requests > 0 and driver.link.stats.lost == 0
        driver.close()
    finally:
        relay.close()
        board.close()
