"""The tray-board link codec, shared by the firmware (MicroPython) and the host (CPython).

This one module is the executable form of ``docs/protocol.md``: frame layout, CRC-32, the stream
decoder that resynchronises after corruption, and the payload layouts of every command. It is
written in the common subset of CPython and MicroPython (no typing, no dataclasses, ``struct`` and
``binascii`` only) so that both ends of the wire run the very same code; the firmware imports it as
``tray_protocol``, the host as ``firmware.tray_protocol``. ``firmware/test_vectors.json`` pins its
bytes and is checked under both interpreters.
"""

import struct

TYPE_CHECKING = False  # MicroPython has no typing module: the imports below are for mypy only
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_native_crc32: "Callable[[Any, int], int] | None"
try:
    from binascii import crc32 as _native_crc32
except ImportError:  # a MicroPython build without binascii.crc32
    _native_crc32 = None

PROTOCOL_VERSION = 2  # 2: release count kept across resets (RELEASE_COUNT), FAULT status

SYNC = 0xA5
HEADER_SIZE = 5  # SYNC, LEN, NLEN, SEQ, CMD
CRC_SIZE = 4
MAX_PAYLOAD = 48
MAX_FRAME = HEADER_SIZE + MAX_PAYLOAD + CRC_SIZE
MAX_REJECTED = 8  # rejected sequence bytes kept for NAKs between two pop_rejected() calls
STALE_WINDOW = 127  # a command frame whose SEQ is 1..127 behind the last one is a late copy: dropped
STALE_MS = 50  # a partial frame untouched this long is abandoned (see docs/protocol.md)

# Commands (host -> board). Responses use CMD | RESPONSE_BIT.
HELLO = 0x01
PING = 0x02
SERVO = 0x03
RELEASE = 0x04
BEAM_RESET = 0x05
BEAM_COUNT = 0x06
LEDS = 0x07
VIBRATE = 0x08
STATUS = 0x09
RELEASE_COUNT = 0x0A
SIM_BEAM = 0x70
NAK = 0x7F
RESPONSE_BIT = 0x80

# Status codes: the first payload byte of every response.
OK = 0
UNKNOWN_COMMAND = 1
BAD_LENGTH = 2
BAD_VALUE = 3
BUSY = 4
NO_SESSION = 5
UNSUPPORTED = 6
VERSION = 7
FAULT = 8

STATUS_NAMES = {
    OK: "OK",
    UNKNOWN_COMMAND: "UNKNOWN_COMMAND",
    BAD_LENGTH: "BAD_LENGTH",
    BAD_VALUE: "BAD_VALUE",
    BUSY: "BUSY",
    NO_SESSION: "NO_SESSION",
    UNSUPPORTED: "UNSUPPORTED",
    VERSION: "VERSION",
    FAULT: "FAULT",
}

NAK_CRC = 1

# FAULT's one data byte: what went wrong on the board (the traceback stays on the board's fault log)
FAULT_MEMORY = 1  # MemoryError
FAULT_INTERNAL = 2  # any other exception in the firmware
FAULT_STORAGE = 3  # the release count could not be saved: the release was refused, nothing moved

FAULT_NAMES = {FAULT_MEMORY: "out of memory", FAULT_INTERNAL: "internal error", FAULT_STORAGE: "storage"}

# RELEASE_COUNT flags
COUNT_PERSISTENT = 0x01  # the count survives a board reset (kept in flash / the simulated flash file)
COUNT_RELEASING = 0x02  # a release is running now

# STATUS flags
FLAG_RELEASING = 0x01
FLAG_VIBRATING = 0x02
FLAG_SERVO_ATTACHED = 0x04
FLAG_SESSION = 0x08
FLAG_SAFE = 0x10
FLAG_FAULT = 0x20  # a fault happened since the last STATUS (reported once)

# Board-side limits (docs/protocol.md, "Safe defaults and limits on the board").
MAX_ANGLE_CDEG = 18000
NO_SERVO = 0xFFFF  # HELLO's closed angle when no funnel servo hangs on the board
MAX_SERVO_HOLD_MS = 10000
MAX_VIBRATE_MS = 5000
MAX_DWELL_MS = 10000
MAX_TRAVEL_MS = 2000
MAX_LEVEL = 1000
MIN_SILENCE_MS = 500
MAX_SILENCE_MS = 60000
MAX_SIM_PULSES = 1000

# Every command in one row: code, name, request fields, OK-result fields. A field is ``name:code``
# with a little-endian ``struct`` code; ``name:text`` (HELLO's firmware name) is the rest of the data
# as text. The struct formats, the field names and the command names below are all derived from it.
COMMANDS = (
    (HELLO, "HELLO", "version:B silence_ms:I closed_cdeg:H", "version:B boot_id:I firmware:text"),
    (PING, "PING", "", "boot_id:I uptime_ms:I"),
    (SERVO, "SERVO", "cdeg:H hold_ms:H", ""),
    (RELEASE, "RELEASE", "open_cdeg:H closed_cdeg:H dwell_ms:H travel_ms:H", "number:I"),
    (BEAM_RESET, "BEAM_RESET", "", "before:I"),
    (BEAM_COUNT, "BEAM_COUNT", "", "count:I"),
    (LEDS, "LEDS", "level:H", ""),
    (VIBRATE, "VIBRATE", "ms:H", "applied_ms:H"),
    (STATUS, "STATUS", "",
     "flags:B servo_cdeg:H leds:H beam_count:I releases:I uptime_ms:I safe_trips:I faults:H"),
    (RELEASE_COUNT, "RELEASE_COUNT", "", "count:I boot_id:I since_boot:I flags:B"),
    (SIM_BEAM, "SIM_BEAM", "pulses:H", "count:I"),
)


def _layout(spec: str) -> tuple[str, tuple[str, ...], str | None]:
    """``(struct format, field names, trailing text field or None)`` of one side of a row."""
    codes = ""
    names: list[str] = []
    text = None
    for field in spec.split():
        name, code = field.split(":")
        if code == "text":
            text = name
        else:
            codes += code
            names.append(name)
    return ("<" + codes) if codes else "", tuple(names), text


COMMAND_NAMES: dict[int, str] = {NAK: "NAK"}
REQUEST_FORMATS: dict[int, str] = {}
REQUEST_FIELDS: dict[int, tuple[str, ...]] = {}
RESULT_FORMATS: dict[int, str] = {}
RESULT_FIELDS: dict[int, tuple[str, ...]] = {}
TRAILING_TEXT: dict[int, str] = {}  # command -> the name of the text that follows its result's fixed part
for _code, _name, _request, _result in COMMANDS:
    COMMAND_NAMES[_code] = _name
    REQUEST_FORMATS[_code], REQUEST_FIELDS[_code], _ = _layout(_request)
    RESULT_FORMATS[_code], RESULT_FIELDS[_code], _text = _layout(_result)
    if _text is not None:
        TRAILING_TEXT[_code] = _text
del _code, _name, _request, _result, _text


class ProtocolError(ValueError):
    """A payload that does not fit its command's layout; ``status`` is the code to answer with."""

    def __init__(self, message: str, status: int = BAD_LENGTH) -> None:
        super().__init__(message)
        self.status = status


def _crc32_table() -> list[int]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE: list[int] | None = None


def crc32_pure(data: bytes | bytearray | memoryview, crc: int = 0) -> int:
    """Table-driven CRC-32 (IEEE 802.3), for MicroPython builds without ``binascii.crc32``."""
    global _TABLE
    if _TABLE is None:
        _TABLE = _crc32_table()
    table = _TABLE
    crc = crc ^ 0xFFFFFFFF
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def crc32(data: bytes | bytearray | memoryview, crc: int = 0) -> int:
    """CRC-32 as ``zlib.crc32`` computes it, always as an unsigned 32-bit integer."""
    if _native_crc32 is not None:
        return _native_crc32(data, crc) & 0xFFFFFFFF
    return crc32_pure(data, crc)


def encode_frame(seq: int, cmd: int, payload: bytes = b"") -> bytes:
    """The bytes of one frame. Raises ``ProtocolError`` for an oversized payload or bad field."""
    n = len(payload)
    if n > MAX_PAYLOAD:
        raise ProtocolError(f"payload of {n} bytes exceeds the {MAX_PAYLOAD}-byte limit")
    if not 0 <= seq <= 255 or not 0 <= cmd <= 255:
        raise ProtocolError(f"seq {seq!r} / cmd {cmd!r} must each fit one byte")
    head = bytes((SYNC, n, n ^ 0xFF, seq, cmd)) + bytes(payload)
    return head + struct.pack("<I", crc32(head[1:]))


class FrameDecoder:
    """Turns a byte stream into frames, dropping anything corrupt and resynchronising.

    ``feed(data)`` returns the list of valid frames as ``(seq, cmd, payload)`` tuples. Frames whose
    header was plausible but whose CRC failed are counted in ``bad_crc`` and their sequence byte is
    queued for ``pop_rejected()`` (the board answers those with a NAK). ``expire()`` abandons a
    partial frame that has gone stale (its owner calls it after ``STALE_MS`` without new bytes).
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self.frames = 0
        self.bad_header = 0
        self.bad_crc = 0
        self.skipped = 0
        self._rejected: list[int] = []  # at most MAX_REJECTED: a NAK only hurries a retransmission

    def reset(self) -> None:
        """Forget any buffered partial frame."""
        self.skipped += len(self._buf)
        self._buf = bytearray()

    def pending(self) -> int:
        """How many bytes are buffered (a partial frame, or garbage not yet scanned)."""
        return len(self._buf)

    def pop_rejected(self) -> list[int]:
        """Sequence bytes of frames rejected for their CRC since the last call."""
        rejected = self._rejected
        self._rejected = []
        return rejected

    def feed(self, data: bytes | None) -> list[tuple[int, int, bytes]]:
        if data:
            self._buf.extend(data)
        return self._parse()

    def expire(self) -> list[tuple[int, int, bytes]]:
        """Give up on a stale partial frame: drop its sync byte and look for the next one."""
        if not self._buf:
            return []
        self._buf = self._buf[1:]
        self.skipped += 1
        return self._parse()

    def _parse(self) -> list[tuple[int, int, bytes]]:
        out: list[tuple[int, int, bytes]] = []
        buf = self._buf
        i = 0
        end = len(buf)
        while i < end:
            if buf[i] != SYNC:
                i += 1
                self.skipped += 1
                continue
            if end - i < HEADER_SIZE:
                break
            n = buf[i + 1]
            if n > MAX_PAYLOAD or buf[i + 2] != n ^ 0xFF:
                self.bad_header += 1
                self.skipped += 1
                i += 1
                continue
            total = HEADER_SIZE + n + CRC_SIZE
            if end - i < total:
                break
            body_end = i + HEADER_SIZE + n
            expected = struct.unpack_from("<I", buf, body_end)[0]
            if crc32(memoryview(buf)[i + 1 : body_end]) != expected:
                self.bad_crc = (self.bad_crc + 1) & 0x3FFFFFFF
                self.skipped = (self.skipped + 1) & 0x3FFFFFFF
                if len(self._rejected) < MAX_REJECTED:
                    self._rejected.append(buf[i + 3])
                i += 1
                continue
            out.append((buf[i + 3], buf[i + 4], bytes(buf[i + HEADER_SIZE : body_end])))
            self.frames = (self.frames + 1) & 0x3FFFFFFF
            i += total
        if i:
            self._buf = buf[i:]
        return out


def decode_all(data: bytes) -> list[tuple[int, int, bytes]]:
    """Every valid frame in ``data`` (a convenience for tests and tools)."""
    return FrameDecoder().feed(data)


def _check_length(fmt: str, payload: bytes, what: str) -> None:
    size = struct.calcsize(fmt) if fmt else 0
    if len(payload) != size:
        raise ProtocolError(f"{what} needs {size} payload bytes, got {len(payload)}")


def command_name(cmd: int) -> str:
    return COMMAND_NAMES.get(cmd & ~RESPONSE_BIT & 0xFF, f"0x{cmd:02X}")


def pack_request(cmd: int, *args: int) -> bytes:
    """The payload of a command from its arguments, in the order of ``REQUEST_FORMATS``."""
    fmt = REQUEST_FORMATS.get(cmd)
    if fmt is None:
        raise ProtocolError(f"unknown command 0x{cmd:02X}", UNKNOWN_COMMAND)
    if not fmt:
        if args:
            raise ProtocolError(f"{command_name(cmd)} takes no arguments", BAD_VALUE)
        return b""
    try:
        return struct.pack(fmt, *args)
    except Exception as exc:  # struct.error on CPython (MicroPython truncates silently)
        raise ProtocolError(
            f"{command_name(cmd)} arguments {args!r} do not fit {fmt}: {exc}", BAD_VALUE
        ) from exc


def unpack_request(cmd: int, payload: bytes) -> tuple[int, ...]:
    """The arguments of a command frame; ``ProtocolError`` names what is wrong."""
    fmt = REQUEST_FORMATS.get(cmd)
    if fmt is None:
        raise ProtocolError(f"unknown command 0x{cmd:02X}", UNKNOWN_COMMAND)
    _check_length(fmt, payload, command_name(cmd))
    return struct.unpack(fmt, payload) if fmt else ()


def pack_response(cmd: int, status: int, data: bytes = b"") -> tuple[int, bytes]:
    """``(response_cmd, payload)`` for a reply to ``cmd``: the status byte, then the data."""
    return cmd | RESPONSE_BIT, bytes((status,)) + bytes(data)


def pack_result(cmd: int, *values: int) -> bytes:
    """The OK data of a command's response, laid out as ``RESULT_FORMATS`` says."""
    fmt = RESULT_FORMATS[cmd]
    return struct.pack(fmt, *values) if fmt else b""


def split_response(payload: bytes) -> tuple[int, bytes]:
    """``(status, data)`` of a response payload."""
    if not payload:
        raise ProtocolError("a response needs at least its status byte")
    return payload[0], bytes(payload[1:])


def unpack_result(cmd: int, data: bytes) -> "tuple[Any, ...]":
    """The values of a command's OK data; HELLO gets its firmware name appended as ``str``."""
    fmt = RESULT_FORMATS.get(cmd)
    if fmt is None:
        raise ProtocolError(f"unknown command 0x{cmd:02X}", UNKNOWN_COMMAND)
    size = struct.calcsize(fmt) if fmt else 0
    if cmd in TRAILING_TEXT:
        if len(data) < size:
            raise ProtocolError(f"{command_name(cmd)} result needs at least {size} bytes, got {len(data)}")
        return struct.unpack(fmt, data[:size]) + (bytes(data[size:]).decode(),)
    _check_length(fmt, data, command_name(cmd) + " result")
    return struct.unpack(fmt, data) if fmt else ()


def read_result(cmd: int, data: bytes) -> "dict[str, Any]":
    """A command's OK data as a dict keyed by its field names (``COMMANDS``)."""
    values = unpack_result(cmd, data)
    names = RESULT_FIELDS[cmd]
    out: dict[str, Any] = {}
    for i in range(len(names)):
        out[names[i]] = values[i]
    if cmd in TRAILING_TEXT:
        out[TRAILING_TEXT[cmd]] = values[-1]
    return out
