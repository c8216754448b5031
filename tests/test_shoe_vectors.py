"""The Python codec against firmware/test-vectors.json (the C tests read the same file)."""

from __future__ import annotations

import json
import pathlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablecam.shoe import protocol as P
from tablecam.shoe.protocol import Frame, FrameError, MsgType

VECTORS = json.loads((pathlib.Path(__file__).resolve().parents[1] / "firmware" / "test-vectors.json").read_text())


def vectors(kind: str) -> list[dict]:
    return [v for v in VECTORS["vectors"] if v["kind"] == kind]


def test_vectors_cover_every_message_type_and_corruption():
    names = {v["type_name"] for v in vectors("frame") if v["valid"]}
    assert names == {t.name for t in MsgType}
    errors = {v["error"] for v in vectors("frame") if not v["valid"]}
    assert errors == {"crc", "cobs", "short", "long", "version", "length"}


@pytest.mark.parametrize("v", vectors("crc"), ids=lambda v: v["data"][:16] or "empty")
def test_crc16_ccitt_false(v):
    assert P.crc16(bytes.fromhex(v["data"])) == v["crc"]


@pytest.mark.parametrize("v", vectors("cobs"), ids=lambda v: v["raw"][:16] or "empty")
def test_cobs(v):
    raw, enc = bytes.fromhex(v["raw"]), bytes.fromhex(v["cobs"])
    assert P.cobs_encode(raw) == enc
    assert P.cobs_decode(enc) == raw


@pytest.mark.parametrize("v", [v for v in vectors("frame") if v["valid"]], ids=lambda v: v["name"])
def test_good_frame_decodes_and_reencodes_byte_for_byte(v):
    wire = bytes.fromhex(v["wire"])
    f = P.decode_frame(wire[:-1])
    assert (f.version, f.type, f.seq, f.time_ms, f.payload.hex()) == (
        v["version"], v["type"], v["seq"], v["time_ms"], v["payload"])
    assert P.parse_payload(f) == v["fields"]
    assert P.encode_frame(Frame(f.type, f.seq, f.time_ms, f.payload)) == wire


@pytest.mark.parametrize("v", [v for v in vectors("frame") if not v["valid"]], ids=lambda v: v["name"])
def test_corrupt_frame_is_rejected_with_its_reason(v):
    wire = bytes.fromhex(v["wire"])
    with pytest.raises(FrameError) as e:
        P.decode_frame(wire[:-1])
    assert e.value.reason == v["error"]
    # and the stream decoder reports it without raising
    out = P.StreamDecoder().feed(wire)
    assert len(out) == 1 and isinstance(out[0], FrameError)


@pytest.mark.parametrize("v", vectors("stream"))
def test_stream_resyncs_after_garbage(v):
    out = P.StreamDecoder().feed(bytes.fromhex(v["wire"]))
    frames = [x for x in out if isinstance(x, Frame)]
    assert [f.seq for f in frames] == v["seqs"]
    assert sum(isinstance(x, FrameError) for x in out) == v["errors"]


def test_stream_decoder_byte_by_byte_equals_all_at_once():
    wire = bytes.fromhex(vectors("stream")[0]["wire"])
    d = P.StreamDecoder()
    one = [x for b in wire for x in d.feed(bytes([b]))]
    assert [getattr(x, "seq", None) for x in one] == [getattr(x, "seq", None) for x in P.StreamDecoder().feed(wire)]


def test_overlong_run_without_delimiter_is_cut_and_resynced():
    d = P.StreamDecoder()
    out = d.feed(b"\x55" * 500)
    assert len(out) == 1 and out[0].reason == "long"
    good = P.encode_frame(Frame(MsgType.SHOE_LOADED, 9, 1, b"\x01"))
    assert d.feed(good) == []          # swallowed with the garbage up to its delimiter
    assert [f.seq for f in d.feed(good)] == [9]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(P._PAYLOAD_LEN)), st.integers(0, 65535), st.integers(0, 2**32 - 1), st.data())
def test_roundtrip_any_frame(t, seq, tms, data):
    payload = data.draw(st.binary(min_size=P._PAYLOAD_LEN[t], max_size=P._PAYLOAD_LEN[t]))
    f = Frame(t, seq, tms, payload)
    wire = P.encode_frame(f)
    assert wire.count(0) == 1 and wire[-1] == 0
    assert P.decode_frame(wire[:-1]) == f


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 51), st.integers(0, 65535), st.data())
def test_any_single_bit_flip_or_dropped_byte_is_detected(code, seq, data):
    f = Frame(MsgType.CARD, seq, 1234, P.card_payload(P.card_name(code), 90))
    wire = bytearray(P.encode_frame(f))
    if data.draw(st.booleans()):
        i = data.draw(st.integers(0, len(wire) - 2))
        wire[i] ^= 1 << data.draw(st.integers(0, 7))
    else:
        del wire[data.draw(st.integers(0, len(wire) - 2))]  # not the delimiter: see the merge test
    got = [x for x in P.StreamDecoder().feed(bytes(wire) + b"\x00") if isinstance(x, Frame)]
    assert got == []


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_decoder_never_raises_on_noise(noise):
    P.StreamDecoder().feed(noise)


def test_two_frames_merged_by_a_lost_delimiter_are_rejected():
    a = P.encode_frame(Frame(MsgType.CARD, 1, 10, P.card_payload("SA")))
    b = P.encode_frame(Frame(MsgType.CARD, 2, 20, P.card_payload("SK")))
    out = P.StreamDecoder().feed(a[:-1] + b)
    assert len(out) == 1 and isinstance(out[0], FrameError)
