"""Reading the tray: through the camera (settle, capture, count, annotate, save), or directly.

Both readers return a :class:`TrayReading`, so the drop cycle does not know which it has. The
camera reader is the station's: it waits until the tray is still, counts the frame with the vision
counter and writes the raw and the annotated photo into the data directory. The direct reader asks
the simulated world what lies in its tray (through the station, which alone knows it is simulated);
long crash and soak runs use it to test the cycle and the records without spending their time
rendering and counting photos.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

import cv2

from controller.i18n import LANGUAGES, translate
from vision.annotate import annotate
from vision.errors import UnreadableImage
from vision.imageio import check_frame, write_image
from vision.reading import TrayReading, guarded_count
from vision.settle import SettleDetector, settle_camera

_WRITER: ThreadPoolExecutor | None = None


def _raw_png() -> list[int]:
    """The raw photo: lossless PNG, the "sub" row filter and zlib's Huffman-only strategy (no
    search for repeated strings). Its encoding is the longest step between the settled frame and
    the result (docs/controller.md, Latency): on 1280 x 960 tray renders this takes about two thirds
    of the time of zlib's fast level 1 (about 32 against 48 ms) for files about 16 % larger."""
    return [cv2.IMWRITE_PNG_STRATEGY, cv2.IMWRITE_PNG_STRATEGY_HUFFMAN_ONLY, cv2.IMWRITE_PNG_FILTER,
            cv2.IMWRITE_PNG_FILTER_SUB]


def _writer() -> ThreadPoolExecutor:
    """One background thread that writes raw photos while the counter counts."""
    global _WRITER
    if _WRITER is None:
        _WRITER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tower-photo")
    return _WRITER


def _write_annotated(path: Path, frame: Any, reading: TrayReading, lang: str) -> None:
    """The annotated photo as a JPEG, its caption in ``lang`` (the message catalogue's words)."""
    write_image(path, annotate(frame, reading, lambda text: translate(text, lang)), [cv2.IMWRITE_JPEG_QUALITY, 90])


class TrayReader(Protocol):
    def read(self, tag: str, *, wait_settle: bool = True, save: bool = True) -> TrayReading: ...


class DirectReader:
    """The tray's true contents, as if the counter were perfect (crash and soak runs): ``truth`` is
    the station's ``tray_truth()``, which only a simulated station has."""

    def __init__(self, truth: Callable[[], dict[str, int]]) -> None:
        self.truth = truth

    def read(self, tag: str, *, wait_settle: bool = True, save: bool = True) -> TrayReading:
        return TrayReading(cubes=dict(self.truth()), source="direct")


class CameraReader:
    """Settle, capture, count with the vision counter, and save the raw and annotated frames."""

    def __init__(self, camera: Any, counter: Any, images_dir: Path, *, settle_frames: int = 3,
                 settle_timeout_s: float = 8.0, frame_interval_s: float = 0.0) -> None:
        self.camera = camera
        self._counter = counter
        self.images_dir = Path(images_dir)
        self.settle_frames = settle_frames
        self.settle_timeout_s = settle_timeout_s
        self.frame_interval_s = frame_interval_s

    @property
    def counter(self) -> Any:
        """The vision counter, built on first use (``counter`` may be a factory): commands that never
        read the tray (``tower status``, ``tower session new``) do not pay for preparing it."""
        if callable(self._counter) and not hasattr(self._counter, "count"):
            self._counter = self._counter()
        return self._counter

    def _settled_frame(self) -> tuple[Any, bool]:
        """Frames until the tray has been still for ``settle_frames`` frames (or the timeout)."""
        detector = SettleDetector(still_frames=self.settle_frames, timeout_s=self.settle_timeout_s)
        frame, state = settle_camera(self.camera.capture, detector, self.frame_interval_s)
        return frame, state.settled

    def read(self, tag: str, *, wait_settle: bool = True, save: bool = True) -> TrayReading:
        """Count the tray; with ``save`` the raw (lossless PNG: the evidence) and the annotated
        (JPEG: for people) photos are written as ``<tag>-raw.png`` and ``<tag>-annotated.jpg``; the
        annotated one once more for each other language of the catalogue, captioned in it
        (``<tag>-annotated-de.jpg``), so a German browser shows a German caption."""
        if wait_settle:
            frame, settled = self._settled_frame()
        else:
            frame, settled = self.camera.capture(), True
        raw = annotated = None
        raw_written = None
        if save:
            self.images_dir.mkdir(parents=True, exist_ok=True)
            raw = self.images_dir / f"{tag}-raw.png"
            annotated = self.images_dir / f"{tag}-annotated.jpg"
            # Encoding the lossless PNG is the slowest step between the settled frame and the result
            # (docs/controller.md, latency); OpenCV lets go of the GIL while it encodes, so it runs
            # beside the counting, and the record waits for it below.
            raw_written = _writer().submit(write_image, raw, frame, _raw_png())
        try:  # a camera gone grayscale or a cropped frame is unusable, never read as black cubes
            reading = guarded_count(self.counter, check_frame(frame, "the camera's frame"))
        except UnreadableImage as exc:
            reading = TrayReading.unusable(str(exc))
        annotated_in: dict[str, Path] = {}
        if save:
            assert raw_written is not None and annotated is not None
            annotated_in = {lang: self.images_dir / f"{tag}-annotated-{lang}.jpg" for lang in LANGUAGES if lang != "en"}
            # the other languages' captions are drawn on the writer's thread while this one is drawn here
            others = [_writer().submit(_write_annotated, path, frame, reading, lang) for lang, path in annotated_in.items()]
            _write_annotated(annotated, frame, reading, "en")
            raw_written.result()
            for written in others:
                written.result()
        reason = reading.reason
        if not settled:
            reason = (reason + "; " if reason else "") + "the tray did not settle before the timeout"
        settled_reading: TrayReading = dataclasses.replace(
            reading, cubes=dict(reading.cubes), courtiers=dict(reading.courtiers), usable=bool(reading.usable),
            reason=reason, confidence=float(reading.confidence), raw=raw, annotated=annotated,
            annotated_in=annotated_in, source="camera",
            settled=settled, trusted=bool(reading.usable and reading.trusted),
            alternatives={c: [(int(n), float(p)) for n, p in alts] for c, alts in reading.alternatives.items()})
        return settled_reading
