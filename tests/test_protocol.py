"""The shared link codec (firmware/tray_protocol.py) on CPython: the pinned test vectors, and
Hypothesis properties: every frame round-trips, and no corrupted frame is ever accepted."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware import tray_protocol as tp

VECTORS = json.loads((Path(tp.__file__).parent / "test_vectors.json").read_text(encoding="utf-8"))

# No per-example deadline: a loaded 2-core CI machine must not turn slowness into failures.
relaxed = settings(deadline=None)
thorough = settings(deadline=None, max_examples=300)

seqs = st.integers(0, 255)
cmds = st.integers(0, 255)
payloads = st.binary(max_size=tp.MAX_PAYLOAD)


@st.composite
def frames(draw):
    seq, cmd, payload = draw(seqs), draw(cmds), draw(payloads)
    return seq, cmd, payload, tp.encode_frame(seq, cmd, payload)


# -- pinned vectors ------------------------------------------------------------------------------


def test_vectors_match_this_protocol_version() -> None:
    assert VECTORS["protocol_version"] == tp.PROTOCOL_VERSION


@pytest.mark.parametrize("case", VECTORS["crc32"], ids=lambda c: c["data"][:16] or "empty")
def test_crc32_vectors(case: dict) -> None:
    data = bytes.fromhex(case["data"])
    assert tp.crc32(data) == case["crc"] == zlib.crc32(data)
    assert tp.crc32_pure(data) == case["crc"]


@pytest.mark.parametrize("case", VECTORS["frames"], ids=lambda c: c["name"])
def test_frame_vectors_encode_and_decode(case: dict) -> None:
    payload = bytes.fromhex(case["payload"])
    wire = bytes.fromhex(case["hex"])
    assert tp.encode_frame(case["seq"], case["cmd"], payload) == wire
    assert tp.decode_all(wire) == [(case["seq"], case["cmd"], payload)]
    if "args" in case:
        assert tp.pack_request(case["cmd"], *case["args"]) == payload
        assert list(tp.unpack_request(case["cmd"], payload)) == case["args"]


@pytest.mark.parametrize("case", VECTORS["bad"], ids=lambda c: c["why"])
def test_bad_vectors_are_rejected(case: dict) -> None:
    assert tp.decode_all(bytes.fromhex(case["hex"])) == []


def test_stream_vector_resynchronises() -> None:
    stream = VECTORS["stream"]
    expected = [(s, c, bytes.fromhex(p)) for s, c, p in stream["frames"]]
    assert tp.decode_all(bytes.fromhex(stream["hex"])) == expected


# -- payload layouts -------------------------------------------------------------------------------


def test_results_round_trip_and_hello_carries_the_firmware_name() -> None:
    data = tp.pack_result(tp.HELLO, 1, 0xCAFEF00D) + b"tray-fw 1.0"
    assert tp.unpack_result(tp.HELLO, data) == (1, 0xCAFEF00D, "tray-fw 1.0")
    status = tp.pack_result(tp.STATUS, 0x1F, 9000, 1000, 3, 2, 12345, 1, 4)
    assert tp.unpack_result(tp.STATUS, status) == (0x1F, 9000, 1000, 3, 2, 12345, 1, 4)
    count = tp.pack_result(tp.RELEASE_COUNT, 70000, 0xCAFEF00D, 2, tp.COUNT_PERSISTENT)
    assert tp.unpack_result(tp.RELEASE_COUNT, count) == (70000, 0xCAFEF00D, 2, tp.COUNT_PERSISTENT)


def test_each_command_is_one_row_and_its_results_are_read_by_name() -> None:
    codes = [row[0] for row in tp.COMMANDS]
    assert len(set(codes)) == len(codes) and set(tp.REQUEST_FORMATS) == set(codes) == set(tp.RESULT_FORMATS)
    for code, name, _request, _result in tp.COMMANDS:
        assert tp.command_name(code) == name == tp.command_name(code | tp.RESPONSE_BIT)
        for formats, fields in ((tp.REQUEST_FORMATS, tp.REQUEST_FIELDS), (tp.RESULT_FORMATS, tp.RESULT_FIELDS)):
            assert len(formats[code].lstrip("<")) == len(fields[code])  # one name per struct field
    hello = tp.read_result(tp.HELLO, tp.pack_result(tp.HELLO, 2, 0xCAFEF00D) + b"tray-fw 2.0")
    assert hello == {"version": 2, "boot_id": 0xCAFEF00D, "firmware": "tray-fw 2.0"}
    status = tp.read_result(tp.STATUS, tp.pack_result(tp.STATUS, 0x1F, 9000, 1000, 3, 2, 12345, 1, 4))
    assert (status["flags"], status["servo_cdeg"], status["beam_count"], status["faults"]) == (0x1F, 9000, 3, 4)
    assert tp.read_result(tp.SERVO, b"") == {}


def test_wrong_payload_sizes_name_the_command() -> None:
    with pytest.raises(tp.ProtocolError, match="SERVO needs 4 payload bytes, got 3") as err:
        tp.unpack_request(tp.SERVO, b"\x00\x01\x02")
    assert err.value.status == tp.BAD_LENGTH
    with pytest.raises(tp.ProtocolError, match="unknown command 0x55") as err:
        tp.unpack_request(0x55, b"")
    assert err.value.status == tp.UNKNOWN_COMMAND
    with pytest.raises(tp.ProtocolError, match="do not fit"):
        tp.pack_request(tp.LEDS, 70000)
    with pytest.raises(tp.ProtocolError, match="exceeds the 48-byte limit"):
        tp.encode_frame(0, tp.PING, bytes(49))


def test_decoder_expires_a_stale_partial_frame() -> None:
    good = tp.encode_frame(7, tp.PING, b"")
    decoder = tp.FrameDecoder()
    # a header that promises a 40-byte payload which never comes, then nothing more for a while
    assert decoder.feed(bytes((tp.SYNC, 40, 40 ^ 0xFF, 1, 2)) + good) == []
    assert decoder.pending() > 0
    assert decoder.expire() == [(7, tp.PING, b"")]
    assert decoder.pending() == 0


# -- properties ------------------------------------------------------------------------------------


@relaxed
@given(frames())
def test_round_trip(frame) -> None:
    seq, cmd, payload, wire = frame
    assert len(wire) == 9 + len(payload)
    assert tp.decode_all(wire) == [(seq, cmd, payload)]


@relaxed
@given(st.lists(frames(), max_size=8), st.lists(st.integers(1, 7), min_size=1, max_size=20))
def test_round_trip_whatever_the_chunking(batch, cuts) -> None:
    """Bytes arrive in arbitrary pieces over a serial port; the frames come out all the same."""
    wire = b"".join(f[3] for f in batch)
    decoder = tp.FrameDecoder()
    out, i, k = [], 0, 0
    while i < len(wire):
        step = cuts[k % len(cuts)]
        out += decoder.feed(wire[i : i + step])
        i, k = i + step, k + 1
    assert out == [(s, c, p) for s, c, p, _ in batch]


@relaxed
@given(frames(), st.data())
def test_any_single_byte_corruption_is_rejected(frame, data) -> None:
    _, _, _, wire = frame
    i = data.draw(st.integers(0, len(wire) - 1))
    mask = data.draw(st.integers(1, 255))
    bad = bytearray(wire)
    bad[i] ^= mask
    assert tp.decode_all(bytes(bad)) == []


@thorough
@given(frames(), st.data())
def test_any_multi_byte_corruption_is_rejected(frame, data) -> None:
    _, _, _, wire = frame
    positions = data.draw(st.sets(st.integers(0, len(wire) - 1), min_size=2, max_size=len(wire)))
    bad = bytearray(wire)
    for i in positions:
        bad[i] ^= data.draw(st.integers(1, 255))
    # CRC-32 catches every burst of up to 32 bits and lets one other corruption in 2**32 through
    assert tp.decode_all(bytes(bad)) == []


@relaxed
@given(frames(), st.data())
def test_truncated_frames_are_rejected(frame, data) -> None:
    _, _, _, wire = frame
    cut = data.draw(st.integers(0, len(wire) - 1))
    assert tp.decode_all(wire[:cut]) == []  # the tail is missing
    assert tp.decode_all(wire[cut + 1 :]) == []  # the head is missing


@relaxed
@given(st.binary(max_size=300))
def test_garbage_never_decodes_into_a_frame_by_accident(noise) -> None:
    for seq, cmd, payload in tp.decode_all(noise):
        # only possible if the noise happens to contain a complete, valid frame
        assert tp.encode_frame(seq, cmd, payload) in noise


@relaxed
@given(st.binary(max_size=100), frames(), st.binary(max_size=100))
def test_a_frame_survives_surrounding_garbage(before, frame, after) -> None:
    seq, cmd, payload, wire = frame
    assert (seq, cmd, payload) in tp.decode_all(before + wire + after)


@relaxed
@given(frames(), frames(), st.data())
def test_a_lost_byte_costs_only_the_damaged_frame(first, second, data) -> None:
    wire = first[3]
    i = data.draw(st.integers(0, len(wire) - 1))
    decoder = tp.FrameDecoder()
    out = decoder.feed(wire[:i] + wire[i + 1 :] + second[3])
    while decoder.pending():  # the receiver's stale-frame timeout, fired as often as needed
        out += decoder.expire()
    assert out == [second[:3]]


@relaxed
@given(st.binary(max_size=200))
def test_crc32_matches_zlib(data) -> None:
    assert tp.crc32(data) == zlib.crc32(data)
    assert tp.crc32_pure(data) == zlib.crc32(data)
    assert struct.pack("<I", tp.crc32(data)) == struct.pack("<I", zlib.crc32(data))
