"""Cube patches where a reader that sees each cube would report them (tests of joined reads)."""

from __future__ import annotations

import numpy as np

from vision.reading import Detection


def laid_out(truth: dict[str, int], shift_mm: float) -> list[Detection]:
    """One cube patch per cube, in rows 12 mm apart, moved ``shift_mm`` along the tray: what a reader
    that sees where each cube lies reports (a shake moves them; a still tray does not). Two shifts
    that differ by about 12 mm put each patch where its neighbour lay: to the station, an unmoved tray."""
    out, i = [], 0
    for colour, n in sorted(truth.items()):
        for _ in range(n):
            x, y = -60.0 + 12.0 * (i % 10) + shift_mm, -40.0 + 12.0 * (i // 10)
            square = np.array([[x - 5, y - 5], [x + 5, y - 5], [x + 5, y + 5], [x - 5, y + 5]], np.float32)
            out.append(Detection("cube", colour, square, (x, y)))
            i += 1
    return out
