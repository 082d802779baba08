"""Counting many image files with one counter (what ``tower count`` does).

Everything heavy (marker detector, colour lookup table) lives in the ``TrayCounter`` built once;
each file is read, counted and, on request, annotated. An unreadable file (damaged, too large to
decode, too small to hold the tray, grayscale: ``vision.imageio.read_frame``) becomes an unusable
reading naming the problem, and the others are still counted; so does an annotated image that
cannot be written (``write_error``), and a photo the counter itself fails on
(:func:`vision.reading.guarded_count`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vision.annotate import annotate
from vision.caption import Say
from vision.counter import TrayCounter
from vision.errors import UnreadableImage
from vision.imageio import read_frame, write_image
from vision.reading import TrayReading, guarded_count


@dataclass
class FileResult:
    path: str
    reading: TrayReading
    unreadable: bool
    annotated: Path | None = None
    write_error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return self.reading.to_json(self.path)


def count_files(counter: TrayCounter, paths: Iterable[str], annotate_dir: Path | None = None,
                say: Say = str) -> Iterator[FileResult]:
    """Yield one result per path, in order; annotated images are captioned in the words ``say`` gives
    (the caller's language; English by default)."""
    if annotate_dir is not None:
        annotate_dir.mkdir(parents=True, exist_ok=True)
    for i, path in enumerate(paths):
        try:
            frame = read_frame(path)
        except UnreadableImage as exc:
            yield FileResult(path, TrayReading.unusable(f"unreadable image: {exc}"), True)
            continue
        reading = guarded_count(counter, frame)
        out: Path | None = None
        error = None
        if annotate_dir is not None:
            try:
                out = write_image(annotate_dir / f"{i:04d}_{Path(path).stem}.png", annotate(frame, reading, say))
            except OSError as exc:
                out, error = None, str(exc)
        yield FileResult(path, reading, False, out, error)
