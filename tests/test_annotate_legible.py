"""Issue 13 item 7: the annotated photo is read on a phone: a caption big enough and never cut off,
and the count on a multi-cube patch legible on a black cube."""

from __future__ import annotations

import numpy as np

from vision.annotate import annotate
from vision.caption import caption_font, caption_lines
from vision.reading import Detection, TrayReading


def test_a_long_unusable_caption_wraps_inside_the_photo() -> None:
    reason = "a hand or a foreign object covers markers 1 and 3 and the tray cannot be located reliably"
    font = caption_font(32)

    def width(line: str) -> float:
        return float(font.getbbox(line)[2])

    lines = caption_lines(f"UNUSABLE: {reason}", 620, width)
    assert len(lines) > 1 and " ".join(lines) == f"UNUSABLE: {reason}"
    assert all(width(line) <= 620 for line in lines)
    assert caption_lines("x" * 200, 100, width) and "".join(caption_lines("x" * 200, 100, width)) == "x" * 200


def test_the_caption_grows_with_the_photo_and_reaches_its_last_line() -> None:
    frame = np.full((480, 640, 3), 128, np.uint8)
    out = annotate(frame, TrayReading.unusable("a hand covers the tray and markers 1, 2 and 3 cannot be seen at all"))
    changed_rows = np.where(np.any(out != frame, axis=(1, 2)))[0]
    assert changed_rows.max() - changed_rows.min() >= 40  # two lines of about 20 px, not one of 9 px
    changed_cols = np.where(np.any(out != frame, axis=(0, 2)))[0]
    assert changed_cols.max() < 640 - 5  # nothing runs off the right edge


def test_the_count_on_a_black_patch_is_black_on_white() -> None:
    frame = np.full((480, 640, 3), 20, np.uint8)
    square = np.array([[280, 200], [360, 200], [360, 280], [280, 280]], float)
    det = Detection("cube", "black", square, (0.0, 0.0), count=3)
    out = annotate(frame, TrayReading(True, None, {"black": 3}, {}, 1.0, [det]))
    patch = out[225:255, 305:335]
    assert (patch.min(axis=2) > 200).mean() > 0.3  # a white disc behind the digit
    assert (patch.max(axis=2) < 60).mean() > 0.05  # and the digit itself, dark on it
