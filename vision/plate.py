"""The standard views of the station and the plate measurements taken in them.

Two views are warped from every frame (``vision.rectify``):

- the *tray view*: the tray interior on the plane of the cube tops (one cube edge above the plate),
  at ``TRAY_PPM`` pixels per millimetre, where a lying cube's top face is a 10 mm square;
- the *plate view*: the whole plate on its own plane at a coarse scale, for the plate's grey level
  (white balance) and for anything reaching over the tray's walls (a hand).
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision import geometry as g
from vision.rectify import View

TRAY_PPM = 3.0
PLATE_PPM = 1.0

_l, _t, _r, _b = g.TRAY_INNER_MM
TRAY_VIEW = View(_l, _t, _r - _l, _b - _t, TRAY_PPM, g.CUBE_EDGE_MM)
PLATE_VIEW = View(0.0, 0.0, g.PLATE_W_MM, g.PLATE_H_MM, PLATE_PPM, 0.0)

# The walls are 18 mm high; seen from ~300 mm their tops lean outwards by up to ~6 mm at the
# corners of the tray, so the plate band keeps that much plus a margin away from the tray.
WALL_LEAN_MM = 8.0
PLATE_EDGE_MARGIN_MM = 4.0
MARKER_CLEAR_MM = g.MARKER_SIZE_MM / 2 + g.MARKER_QUIET_ZONE_MM + 2.0


def _plate_mask(view: View, exclude_tray_mm: float) -> NDArray[Any]:
    w, h = view.size
    mask = np.zeros((h, w), np.uint8)
    ppm = view.ppm

    def rect(x0: float, y0: float, x1: float, y1: float, value: int) -> None:
        p0 = (int(round((x0 - view.x0) * ppm)), int(round((y0 - view.y0) * ppm)))
        p1 = (int(round((x1 - view.x0) * ppm)) - 1, int(round((y1 - view.y0) * ppm)) - 1)
        cv2.rectangle(mask, p0, p1, value, thickness=-1)

    m = PLATE_EDGE_MARGIN_MM
    rect(m, m, g.PLATE_W_MM - m, g.PLATE_H_MM - m, 255)
    e = exclude_tray_mm
    rect(_l - g.TRAY_WALL_THICKNESS_MM - e, _t - g.TRAY_WALL_THICKNESS_MM - e,
         _r + g.TRAY_WALL_THICKNESS_MM + e, _b + g.TRAY_WALL_THICKNESS_MM + e, 0)
    c = MARKER_CLEAR_MM
    for x, y in g.MARKER_CENTRES_MM.values():
        rect(x - c, y - c, x + c, y + c, 0)
    return mask


# The plate band for the white balance: plate only, clear of the tray, its leaning walls and markers.
PLATE_BAND_MASK = _plate_mask(PLATE_VIEW, WALL_LEAN_MM)
# The plate ring right around the tray, where an arm or finger reaching in must cross.
_ring_outer = _plate_mask(PLATE_VIEW, WALL_LEAN_MM)
_ring_inner = _plate_mask(PLATE_VIEW, WALL_LEAN_MM + 16.0)
HAND_RING_MASK = cv2.subtract(_ring_outer, _ring_inner)
_BAND_SAMPLE = PLATE_BAND_MASK > 0
_BAND_INDEX = np.flatnonzero(_BAND_SAMPLE.ravel())  # the band's pixels in a flattened plate view


def plate_level(plate_bgr: NDArray[Any]) -> NDArray[Any]:
    """The grey plate's level per channel (B, G, R) in this frame: a robust median over the band.

    The median tolerates an arm's shadow or a hand over part of the band; the brightest quarter is
    not used so that a shadow covering up to half the band only shifts the level a little.

    Computed from histograms of the 8-bit values (the same numbers as ``np.percentile`` and
    ``np.median`` on the pixels, without sorting them: this runs on every frame).
    """
    px = plate_bgr.reshape(-1, 3).take(_BAND_INDEX, axis=0)
    n = len(px)
    if n == 0:
        raise ValueError("the plate band is empty: the plate view is malformed")
    lum = px[:, 0].astype(np.uint16) + px[:, 1] + px[:, 2]
    cum = np.cumsum(np.bincount(lum, minlength=766))
    pos = 0.25 * (n - 1)  # np.percentile's linear interpolation between order statistics
    lo, hi = _kth(cum, int(np.floor(pos))), _kth(cum, int(np.ceil(pos)))
    keep = px[lum >= lo + (hi - lo) * (pos - np.floor(pos))]
    m = len(keep)
    level = np.empty(3, np.float32)
    for ch in range(3):
        c = np.cumsum(np.bincount(keep[:, ch], minlength=256))
        if m % 2:
            level[ch] = _kth(c, (m - 1) // 2)
        else:  # np.median: the mean of the two middle values
            level[ch] = (np.float32(_kth(c, m // 2 - 1)) + np.float32(_kth(c, m // 2))) / np.float32(2)
    return np.maximum(level, 1.0)


def _kth(cumulative: NDArray[Any], k: int) -> int:
    """The k-th smallest value (0-based) of the samples whose histogram's cumulative sum is given."""
    return int(np.searchsorted(cumulative, k, side="right"))
