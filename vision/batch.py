"""Counting many image files with one counter (what ``tower count`` does).

Everything heavy (marker detector, colour lookup table) lives in the ``TrayCounter`` built once;
each file is read, counted and, on request, annotated. An unreadable file becomes an unusable
reading naming the problem, and the others are still counted.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2

from vision.annotate import annotate
from vision.counter import TrayCounter
from vision.errors import UnreadableImage
from vision.imageio import read_image
from vision.reading import TrayReading


@dataclass
class FileResult:
    path: str
    reading: TrayReading
    unreadable: bool
    annotated: Path | None = None

    def to_json(self) -> dict:
        return self.reading.to_json(self.path)


def count_files(counter: TrayCounter, paths: Iterable[str], annotate_dir: Path | None = None) -> Iterator[FileResult]:
    """Yield one result per path, in order."""
    if annotate_dir is not None:
        annotate_dir.mkdir(parents=True, exist_ok=True)
    for i, path in enumerate(paths):
        try:
            frame = read_image(path)
        except UnreadableImage as exc:
            yield FileResult(path, TrayReading.unusable(f"unreadable image: {exc}"), True)
            continue
        reading = counter.count(frame)
        out = None
        if annotate_dir is not None:
            out = annotate_dir / f"{i:04d}_{Path(path).stem}.png"
            cv2.imwrite(str(out), annotate(frame, reading))
        yield FileResult(path, reading, False, out)
