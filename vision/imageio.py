"""Reading frames from disk with corruption detection.

OpenCV's ``imread`` silently decodes a truncated JPEG (the missing rows come out grey), which would
let the counter read a half image as a tray with fewer cubes. So a JPEG must end with its EOI marker
and a PNG with its IEND chunk before we decode it, and a decode failure is an error, never ``None``.

Damage inside a file that still ends properly (bytes lost or overwritten in the middle) decodes
without an error too: libjpeg resynchronises, fills what it lost with grey or shifted blocks and
only prints a warning ("Corrupt JPEG data: ...", "Premature end of JPEG file") on the process's
standard error. Neither OpenCV nor Pillow turns that into an exception, so the decode runs with file
descriptor 2 captured and those warnings make the image unreadable; anything else the decoder
printed is passed on to the real standard error.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from pathlib import Path

import cv2
import numpy as np

from vision.errors import UnreadableImage

_JPEG_SOI = b"\xff\xd8"
_JPEG_EOI = b"\xff\xd9"
_PNG_SIG = b"\x89PNG\r\n\x1a\n"
_PNG_IEND = b"IEND\xaeB`\x82"


def _check_complete(data: bytes, path: Path) -> None:
    """Refuse the truncated files that OpenCV would decode without complaint."""
    if data.startswith(_JPEG_SOI):
        # Trailing padding after EOI is allowed (some cameras add zeros); the EOI must be there.
        tail = data[-4096:].rstrip(b"\x00")
        if not tail.endswith(_JPEG_EOI):
            raise UnreadableImage(f"{path}: truncated JPEG (no end-of-image marker)")
    elif data.startswith(_PNG_SIG) and _PNG_IEND not in data[-64:]:
        raise UnreadableImage(f"{path}: truncated PNG (no IEND chunk)")


# libjpeg's warnings for damaged data (jerror.h: JWRN_JPEG_EOF and the "Corrupt JPEG data" family:
# extraneous bytes before a marker, premature end of a data segment, a bad Huffman code, a lost
# restart marker). Short damage (a flipped bit, a few dozen bytes) can decode to valid codes that end
# in step and go unnoticed: JPEG has no checksum to catch that.
_JPEG_DAMAGE = ("Corrupt JPEG data", "Premature end of JPEG file")
_STDERR_LOCK = threading.Lock()  # fd 2 is process-wide: one captured decode at a time


def _decode_capturing_warnings(buf: np.ndarray) -> tuple[np.ndarray | None, str]:
    """``cv2.imdecode`` with what the decoder printed on file descriptor 2 captured and returned."""
    with _STDERR_LOCK, tempfile.TemporaryFile() as sink:
        sys.stderr.flush()
        saved = os.dup(2)
        try:
            os.dup2(sink.fileno(), 2)
            try:
                image = cv2.imdecode(buf, cv2.IMREAD_COLOR)
            finally:
                os.dup2(saved, 2)
        finally:
            os.close(saved)
        sink.seek(0)
        return image, sink.read().decode("utf-8", errors="replace")


def decode_image(data: bytes, name: str | Path = "<bytes>") -> np.ndarray:
    """Decode encoded image bytes to a BGR uint8 array, refusing corrupt or truncated data."""
    path = Path(name)
    if not data:
        raise UnreadableImage(f"{path}: empty file")
    _check_complete(data, path)
    buf = np.frombuffer(data, dtype=np.uint8)
    if data.startswith(_JPEG_SOI):
        image, warnings = _decode_capturing_warnings(buf)
        damage = [line.strip() for line in warnings.splitlines() if line.strip().startswith(_JPEG_DAMAGE)]
        if damage:
            raise UnreadableImage(f"{path}: corrupt JPEG ({damage[0]})")
        if warnings.strip():
            sys.stderr.write(warnings)
    else:
        image = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if image is None or image.size == 0:
        raise UnreadableImage(f"{path}: not a decodable image")
    return image


def read_image(path: str | Path) -> np.ndarray:
    """Read an image file as a BGR uint8 array.

    Raises ``UnreadableImage`` (a ``ValueError`` and an ``OSError``) naming the file and the problem
    when it is missing, empty, corrupt or truncated.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UnreadableImage(f"{path}: cannot read ({exc.strerror or exc})") from exc
    return decode_image(data, path)
