#!/usr/bin/env python3
"""Regenerate firmware/test-vectors.json from the Python encoder.

The C tests (``make -C firmware test``) and the Python tests
(``tests/test_shoe_vectors.py``) both check this file, so a change to either
implementation that breaks byte compatibility fails one of them. Run it only
when the protocol changes on purpose, then commit the new file:

    .venv/bin/python firmware/tools/gen_vectors.py
"""

from __future__ import annotations

import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tablecam.shoe import protocol as P  # noqa: E402
from tablecam.shoe.protocol import Frame, MsgType  # noqa: E402


def frame_vec(name: str, frame: Frame, note: str = "") -> dict:
    wire = P.encode_frame(frame)
    v = {
        "kind": "frame", "name": name, "valid": True, "wire": wire.hex(),
        "version": frame.version, "type": frame.type, "type_name": MsgType(frame.type).name,
        "seq": frame.seq, "time_ms": frame.time_ms, "payload": frame.payload.hex(),
        "fields": P.parse_payload(frame),
    }
    if note:
        v["note"] = note
    return v


def bad_vec(name: str, wire_body: bytes, error: str, note: str) -> dict:
    # Check our own claim before writing it down.
    try:
        P.decode_frame(wire_body)
    except P.FrameError as e:
        assert e.reason == error, (name, e.reason, error)
    else:  # pragma: no cover
        raise AssertionError(f"{name} decodes")
    return {"kind": "frame", "name": name, "valid": False, "wire": (wire_body + b"\x00").hex(),
            "error": error, "note": note}


def main() -> None:
    vecs: list[dict] = []
    for data in (b"", b"123456789", b"\x00", bytes(range(32)), b"\xff" * 8):
        vecs.append({"kind": "crc", "data": data.hex(), "crc": P.crc16(data)})
    for data in (b"", b"\x00", b"\x00\x00", b"\x11\x22\x00\x33", b"\x11\x22\x33\x44",
                 bytes(range(1, 255)), bytes(range(1, 256)), bytes(range(0, 256))):
        vecs.append({"kind": "cobs", "raw": data.hex(), "cobs": P.cobs_encode(data).hex()})

    good = [
        ("hello", Frame(MsgType.HELLO, 0, 12, P.hello_payload(0x5A0E0001, boot=7, pack=1, fw=(1, 2))),
         "first frame after boot: seq 0"),
        ("card_SA", Frame(MsgType.CARD, 1, 1000, P.card_payload("SA", 97, 0, 1)), ""),
        ("card_C2_pack2", Frame(MsgType.CARD, 2, 1250, P.card_payload("C2", 88, 0, 2)), "second pack (Vira)"),
        ("card_HT_kitty", Frame(MsgType.CARD, 3, 1500, P.card_payload("HT", 90, P.FLAG_KITTY, 1)),
         "dealer pressed KITTY before this card"),
        ("card_joker", Frame(MsgType.CARD, 4, 1750, P.card_payload("JK", 99, 0, 1)), "es-makker whist joker"),
        ("unreadable", Frame(MsgType.CARD_UNREADABLE, 5, 2000, P.unreadable_payload(P.Unreadable.NO_READ, 1)), ""),
        ("double_feed", Frame(MsgType.CARD_UNREADABLE, 6, 2100,
                              P.unreadable_payload(P.Unreadable.DOUBLE_FEED, 2)), "two cards passed as one"),
        ("shoe_empty", Frame(MsgType.SHOE_EMPTY, 7, 60000, P.u16_payload(52)), ""),
        ("shoe_loaded", Frame(MsgType.SHOE_LOADED, 8, 61000, bytes([2])), ""),
        ("heartbeat", Frame(MsgType.HEARTBEAT, 8, 62000, P.heartbeat_payload(0, 0, 3)),
         "unsequenced: seq is the last sequenced frame"),
        ("error_jam", Frame(MsgType.ERROR, 9, 63000, P.error_payload(P.ErrorCode.JAM, 1500)), ""),
        ("error_resend_unavailable", Frame(MsgType.ERROR, 10, 63001,
                                           P.error_payload(P.ErrorCode.RESEND_UNAVAILABLE, 3)), ""),
        ("ack", Frame(MsgType.ACK, 1, 0, P.u16_payload(10)), "host -> shoe"),
        ("resend", Frame(MsgType.RESEND, 2, 0, P.u16_payload(4)), "host -> shoe"),
        ("reset", Frame(MsgType.RESET, 3, 0, b""), "host -> shoe"),
        ("set_time", Frame(MsgType.SET_TIME, 4, 0, P.u32_payload(123456789)), "host -> shoe"),
        ("seq_wrap", Frame(MsgType.CARD, 65535, 0xFFFFFFFF, P.card_payload("DQ", 100, 0, 1)), "largest seq/time"),
        ("zeros_inside", Frame(MsgType.SHOE_EMPTY, 256, 0, P.u16_payload(0)), "several zero bytes for COBS"),
    ]
    for name, f, note in good:
        vecs.append(frame_vec(name, f, note))

    card = P.pack_frame(Frame(MsgType.CARD, 1, 1000, P.card_payload("SA", 97, 0, 1)))
    flipped = bytearray(card)
    flipped[5] ^= 0x10
    vecs.append(bad_vec("bit_flip_time", P.cobs_encode(bytes(flipped)), "crc", "one bit flipped in time_ms"))
    flipped = bytearray(card)
    flipped[-1] ^= 0x01
    vecs.append(bad_vec("bit_flip_crc", P.cobs_encode(bytes(flipped)), "crc", "one bit flipped in the CRC"))
    vecs.append(bad_vec("dropped_byte", P.cobs_encode(card[:6] + card[7:]), "crc", "one byte lost on the line"))
    enc = bytearray(P.cobs_encode(card))
    enc[0] = 0x30
    vecs.append(bad_vec("cobs_overrun", bytes(enc), "cobs", "COBS code points past the end"))
    vecs.append(bad_vec("short", P.cobs_encode(b"\x01\x02\x03"), "short", "fewer than 10 bytes"))
    v2 = bytearray(card)
    v2[0] = 2
    v2[-2:] = P.crc16(bytes(v2[:-2])).to_bytes(2, "little")
    vecs.append(bad_vec("version_2", P.cobs_encode(bytes(v2)), "version", "unknown protocol version"))
    trunc = P.pack_frame(Frame(MsgType.CARD, 1, 1000, b"\x00\x61"))
    vecs.append(bad_vec("card_payload_short", P.cobs_encode(trunc), "length", "CARD needs 4 payload bytes"))
    vecs.append(bad_vec("long", P.cobs_encode(bytes(range(1, 60))), "long", "more than the longest frame"))

    # A stream: garbage, a frame, a doubled delimiter, a corrupt frame, a frame.
    f1 = P.encode_frame(Frame(MsgType.CARD, 1, 1000, P.card_payload("SA", 97)))
    f2 = P.encode_frame(Frame(MsgType.CARD, 2, 1100, P.card_payload("SK", 97)))
    bad = bytearray(f2)
    bad[3] ^= 0x04
    stream = b"\x13\x37\xff\x00" + f1 + b"\x00" + bytes(bad) + f2
    vecs.append({"kind": "stream", "wire": stream.hex(), "frames": 2, "errors": 2,
                 "seqs": [1, 2], "note": "garbage, frame, idle delimiter, corrupt frame, frame"})

    doc = {
        "about": "Shoe protocol test vectors (firmware/PROTOCOL.md). Generated by "
                 "firmware/tools/gen_vectors.py; checked by firmware/tests (C) and tests/test_shoe_vectors.py.",
        "protocol_version": P.PROTOCOL_VERSION,
        "vectors": vecs,
    }
    out = ROOT / "firmware" / "test-vectors.json"
    out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {len(vecs)} vectors to {out}")


if __name__ == "__main__":
    main()
