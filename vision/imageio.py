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

Size before decoding. A PNG of a few hundred kilobytes can declare 30000 x 30000 pixels (2.7 GB
once decoded); so the header is read first (Pillow reads only the header when it opens a file) and
an image over :data:`MAX_FRAME_PIXELS` or :data:`MAX_FRAME_SIDE` is refused before a pixel is
decoded.

Frames to count (:func:`read_frame`, :func:`check_frame`) must also be big enough to hold the tray
(:data:`MIN_FRAME_SIZE`, 320 x 240 either way round) and in colour: a grayscale photo (or a colour
file of a grayscale picture) would read every cube as black, so it is refused with that reason.
Colour samples and crops go through :func:`read_image` alone.

Writing (:func:`write_image`): OpenCV's ``imwrite`` answers a full disk or a missing directory with
``False`` and no reason; so the image is encoded in memory (``imencode``, whose ``False`` is checked)
and written by Python into a temporary file renamed into place, and a failure raises
:class:`ImageWriteError` naming the file and the reason (a full disk is called so).
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import struct
import sys
import tempfile
import threading
import warnings
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray
from PIL import Image, UnidentifiedImageError

from vision.errors import UnreadableImage

_JPEG_SOI = b"\xff\xd8"
_JPEG_EOI = b"\xff\xd9"
_PNG_SIG = b"\x89PNG\r\n\x1a\n"
_PNG_IEND = b"IEND\xaeB`\x82"


#: The largest frame decoded: 50 megapixels (a 48 MP phone photo; the Pi cameras give 12 MP).
MAX_FRAME_PIXELS = 50_000_000
#: The longest side decoded, whatever the pixel count (a 100000 x 10 strip is no photo either).
MAX_FRAME_SIDE = 16_384
#: The smallest frame counted: the tray's markers and cubes are not resolvable below it.
MIN_FRAME_SIZE = (320, 240)
#: A frame whose 99th percentile of chroma (max - min of B, G, R, 0-255) is under this is grayscale.
COLOURLESS_CHROMA = 12


class ImageWriteError(OSError):
    """An image could not be written; ``str()`` names the file and the reason."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.errno = code
        self.strerror = message


def image_size(data: bytes) -> tuple[int, int] | None:
    """``(width, height)`` from the image's header without decoding it, or None where Pillow does not
    know the format (OpenCV may still; its own pixel limit then applies)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            with Image.open(io.BytesIO(data)) as image:
                width, height = image.size
        except Image.DecompressionBombError:
            return (1 << 30, 1 << 30)  # Pillow's own limit is far beyond ours
        except (UnidentifiedImageError, OSError, ValueError, SyntaxError, struct.error):
            return None
    return int(width), int(height)


def _check_size(data: bytes, path: Path) -> None:
    size = image_size(data)
    if size is None:
        return
    width, height = size
    if width * height > MAX_FRAME_PIXELS or max(width, height) > MAX_FRAME_SIDE:
        raise UnreadableImage(
            f"{path}: the image is too large ({_size_text(width, height)}); frames of at most "
            f"{MAX_FRAME_PIXELS // 1_000_000} megapixels and {MAX_FRAME_SIDE} pixels a side are read, and it "
            "was refused before decoding")


def _size_text(width: int, height: int) -> str:
    return "a size beyond Pillow's limit" if width >= 1 << 30 else f"{width} x {height} pixels"


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


def _decode_capturing_warnings(buf: NDArray[Any]) -> tuple[NDArray[Any] | None, str]:
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


def decode_image(data: bytes, name: str | Path = "<bytes>") -> NDArray[Any]:
    """Decode encoded image bytes to a BGR uint8 array, refusing corrupt or truncated data."""
    path = Path(name)
    if not data:
        raise UnreadableImage(f"{path}: empty file")
    _check_size(data, path)
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


def read_image(path: str | Path) -> NDArray[Any]:
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


def colourless(image: NDArray[Any]) -> bool:
    """True for a grayscale picture (in a colour file or not): almost no pixel has any chroma."""
    if image.ndim < 3 or image.shape[2] < 3:
        return True
    height, width = image.shape[:2]
    scale = min(1.0, 320.0 / max(width, 1))
    small = cv2.resize(image[:, :, :3], (max(1, int(width * scale)), max(1, int(height * scale))),
                       interpolation=cv2.INTER_AREA) if scale < 1.0 else image[:, :, :3]
    chroma = small.max(axis=2).astype(np.int16) - small.min(axis=2)
    return float(np.percentile(chroma, 99)) < COLOURLESS_CHROMA


def check_frame(image: NDArray[Any], name: str | Path = "<frame>") -> NDArray[Any]:
    """Refuse a frame the counter cannot read: too small to hold the tray, or without colour.

    Raises :class:`UnreadableImage` naming the problem; returns the frame otherwise."""
    path = Path(name)
    if image is None or image.ndim < 2:
        raise UnreadableImage(f"{path}: not an image")
    height, width = image.shape[:2]
    small, large = sorted((width, height)), sorted(MIN_FRAME_SIZE)
    if small[0] < large[0] or small[1] < large[1]:
        raise UnreadableImage(f"{path}: the frame is {width} x {height} pixels, smaller than "
                              f"{MIN_FRAME_SIZE[0]} x {MIN_FRAME_SIZE[1]}: too small to hold the tray")
    if colourless(image):
        raise UnreadableImage(f"{path}: the photo has no colour (grayscale): the cubes' colours cannot be told "
                              "apart, so it is not counted")
    return image


def read_frame(path: str | Path) -> NDArray[Any]:
    """A frame to count: :func:`read_image` (size checked before decoding, damage refused), then
    :func:`check_frame` (big enough, in colour)."""
    return check_frame(read_image(path), path)


def write_image(path: str | Path, image: NDArray[Any], params: list[int] | tuple[int, ...] = ()) -> Path:
    """Write ``image`` to ``path`` (format from the suffix) whole or not at all.

    Raises :class:`ImageWriteError` naming the file and the reason: OpenCV could not encode it, the
    directory is missing or read-only, or the disk is full."""
    path = Path(path)
    try:
        ok, encoded = cv2.imencode(path.suffix or ".png", image, list(params))
    except cv2.error:  # no encoder for the suffix, an image OpenCV cannot store
        ok = False
    if not ok:
        raise ImageWriteError(errno.EINVAL, f"cannot write the image {path}: OpenCV could not encode it "
                                            f"as {path.suffix or '.png'}")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(encoded.tobytes())
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        reason = "the disk is full" if exc.errno == errno.ENOSPC else (exc.strerror or str(exc))
        raise ImageWriteError(exc.errno or errno.EIO, f"cannot write the image {path}: {reason}") from exc
    return path
