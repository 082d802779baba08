"""The caption on top of an annotated tray photo: what was read, in the reader's language.

The words are made in English here and handed to ``say``, a translation the caller gives (the
controller passes its message catalogue's; vision knows none), so a German host reads "Rot 4" and
"UNBRAUCHBAR". German needs letters OpenCV's Hershey fonts do not have (ä, ö, ü, ß), so the caption
is drawn with Pillow in DejaVu Sans Bold, the TrueType font matplotlib ships (a dependency already),
falling back to Pillow's own font where it is missing.
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from PIL import Image, ImageDraw, ImageFont

from vision.reading import TrayReading

Say = Callable[[str], str]
"""A translation of an English text into the reader's language (``str``: English as it is)."""

_WHITE, _BLACK, _UNUSABLE = (255, 255, 255), (0, 0, 0), (80, 80, 255)  # BGR, as the frame


def caption_text(reading: TrayReading, say: Say = str) -> str:
    """The caption's words: the confidence and the counts, or why the frame is unusable."""
    if reading.usable:
        parts = [f"{c} {n}" for c, n in reading.cubes.items() if n]
        parts += [f"courtier {c} {n}" for c, n in reading.courtiers.items() if n]
        return say(f"conf {reading.confidence:.2f}: " + (", ".join(parts) or "empty tray"))
    return say(f"UNUSABLE: {reading.reason}")


@functools.cache
def caption_font(size_px: int) -> ImageFont.FreeTypeFont:
    """DejaVu Sans Bold at ``size_px`` pixels (every German letter), or Pillow's own TrueType font."""
    spec = importlib.util.find_spec("matplotlib")  # found without importing matplotlib itself
    if spec is not None and spec.origin:
        path = Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf" / "DejaVuSans-Bold.ttf"
        if path.is_file():
            return ImageFont.truetype(str(path), size_px)
    fallback = ImageFont.load_default(size=size_px)
    if not isinstance(fallback, ImageFont.FreeTypeFont):  # a Pillow built without FreeType
        raise RuntimeError("Pillow has no FreeType support, so the photo's caption cannot be drawn")
    return fallback


def draw_caption(out: NDArray[Any], text: str, usable: bool) -> NDArray[Any]:
    """``out`` with ``text`` drawn across its top, white (red when unusable) on a black rim.

    The caption is read on a phone, where the photo is shown a few hundred pixels wide: its size
    follows the photo's width (capitals about 1/30 of it high), and it wraps instead of running off
    the edge."""
    width = out.shape[1]
    font = caption_font(max(14, round(width / 22)))
    rim = max(2, round(font.size / 14))

    def measure(line: str) -> float:
        return float(font.getbbox(line, stroke_width=rim)[2])

    ascent, descent = font.getmetrics()
    step = ascent + descent + 2
    lines = caption_lines(text, width - 20, measure)
    band = min(out.shape[0], 4 + step * len(lines) + rim)  # only the rows the caption covers go through Pillow
    image = Image.fromarray(np.ascontiguousarray(out[:band]))
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((10, 4 + i * step), line, font=font, fill=_WHITE if usable else _UNUSABLE, stroke_width=rim,
                  stroke_fill=_BLACK)
    captioned = out.copy()
    captioned[:band] = np.asarray(image)
    return captioned


def caption_lines(text: str, width_px: int, measure: Callable[[str], float]) -> list[str]:
    """``text`` broken at spaces into lines no wider than ``width_px`` by ``measure`` (a single word
    too long for a line is cut into pieces that fit), so that no caption is cut off at the photo's edge."""
    def fits(candidate: str) -> bool:
        return measure(candidate) <= width_px

    lines: list[str] = []
    current = ""
    for word in text.split():
        candidate = f"{current} {word}".strip()
        if fits(candidate):
            current = candidate
            continue
        if current:
            lines.append(current)
        while not fits(word) and len(word) > 1:
            cut = len(word) - 1
            while cut > 1 and not fits(word[:cut]):
                cut -= 1
            lines.append(word[:cut])
            word = word[cut:]
        current = word
    if current:
        lines.append(current)
    return lines
