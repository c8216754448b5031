"""The shoe's wire protocol: COBS-framed binary frames with a CRC-16.

This module is the Python half of ``firmware/PROTOCOL.md`` (the C half is
``firmware/src/proto.c``); both are checked against the same
``firmware/test-vectors.json`` so they stay byte-compatible.

A frame before framing::

    ver u8 | type u8 | seq u16 LE | time_ms u32 LE | payload (0..32) | crc u16 LE

The CRC is CRC-16/CCITT-FALSE over everything before it. The frame is then
COBS-encoded (so it holds no zero byte) and followed by one ``0x00``
delimiter, which is what lets a receiver resynchronise after garbage: it
simply waits for the next zero.

>>> hex(crc16(b"123456789"))
'0x29b1'
>>> cobs_encode(b"\\x11\\x00\\x22")
b'\\x02\\x11\\x02"'
>>> cobs_decode(cobs_encode(b"\\x00" * 3))
b'\\x00\\x00\\x00'
>>> f = Frame(MsgType.CARD, seq=7, time_ms=1000, payload=card_payload("SA", 97))
>>> wire = encode_frame(f)
>>> wire.hex()
'0401020703e803010102610401de3100'
>>> decode_frame(wire[:-1]) == f
True
>>> parse_payload(f)["card"]
'SA'
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass, field
from typing import Any, Iterator

PROTOCOL_VERSION = 1
MAX_PAYLOAD = 32
HEADER_LEN = 8  # ver, type, seq(2), time(4)
CRC_LEN = 2
MIN_RAW = HEADER_LEN + CRC_LEN
MAX_RAW = HEADER_LEN + MAX_PAYLOAD + CRC_LEN
MAX_ENCODED = MAX_RAW + MAX_RAW // 254 + 1
"""Longest COBS body a receiver will buffer before declaring the line garbage."""

BAUD = 115200
BITS_PER_BYTE = 10  # 8N1: start + 8 data + stop


class MsgType(enum.IntEnum):
    """Message types. Shoe -> host below 0x80, host -> shoe from 0x80."""

    HELLO = 0x01
    CARD = 0x02
    CARD_UNREADABLE = 0x03
    SHOE_EMPTY = 0x04
    SHOE_LOADED = 0x05
    HEARTBEAT = 0x06
    ERROR = 0x07
    ACK = 0x81
    RESEND = 0x82
    RESET = 0x83
    SET_TIME = 0x84


SHOE_TYPES = frozenset(t for t in MsgType if t < 0x80)
HOST_TYPES = frozenset(t for t in MsgType if t >= 0x80)

UNSEQUENCED = frozenset({MsgType.HEARTBEAT})
"""A HEARTBEAT does not take a sequence number of its own: its ``seq`` is the
last sequenced frame the shoe sent, so a lost tail frame shows up as a gap at
the next heartbeat. Everything else the shoe sends is sequenced and kept in
its retransmit ring."""


class ErrorCode(enum.IntEnum):
    """ERROR payload codes (shoe -> host)."""

    JAM = 1                  # a card stuck in the exit slot
    DOUBLE_FEED = 2          # two cards left the slot as one
    SENSOR_FAULT = 3         # reader not answering / LED dead
    RX_CRC = 4               # a host frame failed its CRC (detail: count)
    RESEND_UNAVAILABLE = 5   # RESEND asked for a frame no longer kept (detail: oldest seq kept)
    RING_OVERFLOW = 6        # unacknowledged frames overwritten (detail: seq lost)
    BAD_FRAME = 7            # host frame with wrong version / type / length


class Unreadable(enum.IntEnum):
    """CARD_UNREADABLE reasons."""

    NO_READ = 1
    LOW_CONFIDENCE = 2
    DOUBLE_FEED = 3


class ResetCause(enum.IntEnum):
    POWER_ON = 0
    EXTERNAL = 1
    BROWN_OUT = 2
    WATCHDOG = 3
    HOST = 4


FLAG_KITTY = 0x01
"""CARD / CARD_UNREADABLE flag: the dealer pressed the KITTY button before
this card, so it goes to the kitty (es-makker whist) and not to a player."""
FLAG_FACE_UP = 0x02
"""The reader saw the face on the top side (a card dealt face up)."""

STATUS_EMPTY = 0x01
STATUS_JAMMED = 0x02
STATUS_KITTY_ARMED = 0x04

NO_PACK = 0
"""Pack id 0: the card carries no pack mark (unknown pack)."""


class FrameError(ValueError):
    """A frame that cannot be trusted. ``reason`` is one of
    ``cobs``, ``short``, ``long``, ``crc``, ``version``, ``length``, and, from
    :class:`StreamDecoder` only, ``partial`` (the bytes before the first
    delimiter it saw, when they do not decode: the end of a frame that began
    before the receiver started listening)."""

    def __init__(self, reason: str, detail: str = "", raw: bytes = b"") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.raw = raw


# --- CRC and COBS -----------------------------------------------------------------

def _crc_table() -> list[int]:
    table = []
    for i in range(256):
        c = i << 8
        for _ in range(8):
            c = ((c << 1) ^ 0x1021) if c & 0x8000 else (c << 1)
        table.append(c & 0xFFFF)
    return table


_CRC_TABLE = _crc_table()


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor."""
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ _CRC_TABLE[((crc >> 8) ^ b) & 0xFF]
    return crc


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: the result holds no zero byte."""
    out = bytearray(b"\x00")
    code_at = 0
    code = 1
    for b in data:
        if b == 0:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
        else:
            out.append(b)
            code += 1
            if code == 0xFF:
                out[code_at] = code
                code_at = len(out)
                out.append(0)
                code = 1
    out[code_at] = code
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Inverse of :func:`cobs_encode`; raises :class:`FrameError` ('cobs')."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise FrameError("cobs", "zero byte inside a frame", data)
        end = i + code
        if end > n:
            raise FrameError("cobs", "block runs past the end", data)
        out += data[i + 1:end]
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


# --- frames -----------------------------------------------------------------------

@dataclass(frozen=True)
class Frame:
    """One decoded frame. ``raw`` (the unframed bytes) is kept for duplicate checks."""

    type: int
    seq: int = 0
    time_ms: int = 0
    payload: bytes = b""
    version: int = PROTOCOL_VERSION
    raw: bytes = field(default=b"", compare=False, repr=False)

    @property
    def name(self) -> str:
        try:
            return MsgType(self.type).name
        except ValueError:
            return f"TYPE_{self.type:02X}"


def pack_frame(frame: Frame) -> bytes:
    """The unframed bytes (header, payload, CRC) of a frame."""
    if len(frame.payload) > MAX_PAYLOAD:
        raise ValueError(f"payload longer than {MAX_PAYLOAD} bytes")
    body = struct.pack("<BBHI", frame.version & 0xFF, frame.type & 0xFF, frame.seq & 0xFFFF,
                       frame.time_ms & 0xFFFFFFFF) + bytes(frame.payload)
    return body + struct.pack("<H", crc16(body))


def encode_frame(frame: Frame) -> bytes:
    """Bytes on the wire: COBS(frame) followed by the 0x00 delimiter."""
    return cobs_encode(pack_frame(frame)) + b"\x00"


def unpack_frame(raw: bytes) -> Frame:
    """Check and split unframed bytes; raises :class:`FrameError`."""
    if len(raw) < MIN_RAW:
        raise FrameError("short", f"{len(raw)} bytes", raw)
    if len(raw) > MAX_RAW:
        raise FrameError("long", f"{len(raw)} bytes", raw)
    (crc,) = struct.unpack_from("<H", raw, len(raw) - 2)
    if crc16(raw[:-2]) != crc:
        raise FrameError("crc", f"crc {crc:04x} != {crc16(raw[:-2]):04x}", raw)
    ver, typ, seq, t = struct.unpack_from("<BBHI", raw)
    if ver != PROTOCOL_VERSION:
        raise FrameError("version", f"version {ver}", raw)
    frame = Frame(typ, seq, t, bytes(raw[HEADER_LEN:-2]), ver, bytes(raw))
    if typ in _PAYLOAD_LEN and len(frame.payload) != _PAYLOAD_LEN[typ]:
        raise FrameError("length", f"{frame.name} payload {len(frame.payload)} bytes", raw)
    return frame


def decode_frame(body: bytes) -> Frame:
    """Decode one COBS body (without its 0x00); raises :class:`FrameError`."""
    if len(body) > MAX_ENCODED:
        raise FrameError("long", f"{len(body)} bytes", body)
    return unpack_frame(cobs_decode(body))


# --- payloads ---------------------------------------------------------------------

_SUITS = "SHDC"
_RANKS = "AKQJT98765432"
JOKER_CODES = (52, 53, 54)
NO_CARD = 0xFF

_PAYLOAD_LEN = {
    MsgType.HELLO: 11, MsgType.CARD: 4, MsgType.CARD_UNREADABLE: 3, MsgType.SHOE_EMPTY: 2,
    MsgType.SHOE_LOADED: 1, MsgType.HEARTBEAT: 4, MsgType.ERROR: 3, MsgType.ACK: 2,
    MsgType.RESEND: 2, MsgType.RESET: 0, MsgType.SET_TIME: 4,
}
"""Exact payload length per type in protocol version 1. Being strict costs
nothing (a later revision that adds fields bumps the version byte) and makes
every single dropped byte, and every pair of frames merged by a lost
delimiter, fail the length check even in the 1 in 65536 case where the CRC
would happen to match."""


def card_code(card: Any) -> int:
    """Card -> one byte: ``suit*13 + rank`` (S H D C, A..2); jokers 52..54.

    >>> card_code("SA"), card_code("C2"), card_code("HT"), card_code("JK")
    (0, 51, 17, 52)
    """
    text = str(card).upper()
    if text == "JK":
        return JOKER_CODES[0]
    if len(text) != 2 or text[0] not in _SUITS or text[1] not in _RANKS:
        from ..cards import parse_card
        text = str(parse_card(card))
        if text == "JK":
            return JOKER_CODES[0]
    return _SUITS.index(text[0]) * 13 + _RANKS.index(text[1])


def card_name(code: int) -> str | None:
    """One byte -> canonical card text, or ``None`` for a code no card has.

    >>> card_name(0), card_name(51), card_name(53), card_name(99)
    ('SA', 'C2', 'JK', None)
    """
    if 0 <= code < 52:
        return _SUITS[code // 13] + _RANKS[code % 13]
    if code in JOKER_CODES:
        return "JK"
    return None


def card_payload(card: Any, confidence: int = 100, flags: int = 0, pack: int = 1) -> bytes:
    return bytes([card_code(card), confidence & 0xFF, flags & 0xFF, pack & 0xFF])


def hello_payload(shoe_id: int, boot: int, pack: int = 1, fw: tuple[int, int] = (1, 0),
                  cause: int = ResetCause.POWER_ON) -> bytes:
    return struct.pack("<BBBIHB", PROTOCOL_VERSION, fw[0], fw[1], shoe_id & 0xFFFFFFFF,
                       boot & 0xFFFF, pack & 0xFF) + bytes([cause & 0xFF])


def unreadable_payload(reason: int = Unreadable.NO_READ, count: int = 1, flags: int = 0) -> bytes:
    return bytes([reason & 0xFF, count & 0xFF, flags & 0xFF])


def heartbeat_payload(dealt: int, status: int = 0, unacked: int = 0) -> bytes:
    return struct.pack("<HBB", dealt & 0xFFFF, status & 0xFF, unacked & 0xFF)


def error_payload(code: int, detail: int = 0) -> bytes:
    return struct.pack("<BH", code & 0xFF, detail & 0xFFFF)


def u16_payload(v: int) -> bytes:
    return struct.pack("<H", v & 0xFFFF)


def u32_payload(v: int) -> bytes:
    return struct.pack("<I", v & 0xFFFFFFFF)


def parse_payload(frame: Frame) -> dict[str, Any]:
    """The payload's fields by name (see PROTOCOL.md); unknown types give ``{}``."""
    p = frame.payload
    t = frame.type
    if t == MsgType.HELLO:
        proto, fw_major, fw_minor, shoe_id, boot, pack = struct.unpack_from("<BBBIHB", p)
        return {"protocol": proto, "firmware": f"{fw_major}.{fw_minor}", "shoe_id": shoe_id,
                "boot": boot, "pack": pack, "reset_cause": p[10]}
    if t == MsgType.CARD:
        return {"card": card_name(p[0]), "code": p[0], "confidence": p[1], "flags": p[2],
                "kitty": bool(p[2] & FLAG_KITTY), "face_up": bool(p[2] & FLAG_FACE_UP), "pack": p[3]}
    if t == MsgType.CARD_UNREADABLE:
        return {"reason": p[0], "count": p[1], "flags": p[2], "kitty": bool(p[2] & FLAG_KITTY)}
    if t == MsgType.SHOE_EMPTY:
        return {"dealt": struct.unpack_from("<H", p)[0]}
    if t == MsgType.SHOE_LOADED:
        return {"pack": p[0]}
    if t == MsgType.HEARTBEAT:
        dealt, status, unacked = struct.unpack_from("<HBB", p)
        return {"dealt": dealt, "status": status, "empty": bool(status & STATUS_EMPTY),
                "jammed": bool(status & STATUS_JAMMED), "unacked": unacked}
    if t == MsgType.ERROR:
        code, detail = struct.unpack_from("<BH", p)
        return {"code": code, "detail": detail}
    if t in (MsgType.ACK, MsgType.RESEND):
        return {"seq": struct.unpack_from("<H", p)[0]}
    if t == MsgType.SET_TIME:
        return {"time_ms": struct.unpack_from("<I", p)[0]}
    return {}


# --- stream decoding --------------------------------------------------------------

class StreamDecoder:
    """Split a byte stream into frames at 0x00 and decode each.

    Never raises: corrupt input comes out as :class:`FrameError` items, in
    stream order with the frames, and decoding resumes at the next zero byte.
    An over-long run without a zero (a stuck line, a baud-rate mismatch) is
    cut off at :data:`MAX_ENCODED` bytes and reported once.

    >>> d = StreamDecoder()
    >>> wire = encode_frame(Frame(MsgType.SHOE_LOADED, 1, 5, b"\\x02"))
    >>> [type(x).__name__ for x in d.feed(b"\\xff\\xfe\\x00" + wire)]
    ['FrameError', 'Frame']
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._overlong = False
        self._first = True
        self.frames = 0
        self.errors = 0

    def feed(self, data: bytes) -> list[Frame | FrameError]:
        out: list[Frame | FrameError] = []
        start = 0
        while True:
            z = data.find(b"\x00", start)
            if z < 0:
                chunk = data[start:]
                if not self._overlong:
                    self._buf += chunk
                    if len(self._buf) > MAX_ENCODED:
                        out.append(FrameError("long", f"no delimiter after {len(self._buf)} bytes",
                                              bytes(self._buf[:64])))
                        self.errors += 1
                        self._buf.clear()
                        self._overlong = True
                break
            chunk = data[start:z]
            start = z + 1
            if self._overlong:
                self._overlong = False
                self._buf.clear()
                continue
            self._buf += chunk
            body = bytes(self._buf)
            self._buf.clear()
            if not body:
                continue  # back-to-back delimiters: idle line / resync padding
            first, self._first = self._first, False
            try:
                out.append(decode_frame(body))
                self.frames += 1
            except FrameError as e:
                if first:
                    # We started listening in the middle of a frame (a port just
                    # opened): the tail of that frame is not a line fault.
                    e = FrameError("partial", f"{e.reason} before the first delimiter", e.raw)
                self.errors += 1
                out.append(e)
        return out

    def pending(self) -> int:
        """Bytes of an unfinished frame held back."""
        return len(self._buf)


def iter_frames(data: bytes) -> Iterator[Frame | FrameError]:
    """Decode a complete capture (convenience for tests and tools)."""
    yield from StreamDecoder().feed(data)
