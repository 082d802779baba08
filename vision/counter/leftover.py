"""Colour that no counted patch explains: where a whole cube may have gone uncounted.

A visible cube that no patch stands for (its face dropped as a sliver, taken for a pawn's ball,
lost in a pile's shadow) leaves its colour's pixels behind. Per colour, the pixels of that colour
beyond reach of every counted patch (``FACE_REACH_MM``, the seam band) are the leftover; its widest
piece (inscribed radius, mm) and largest piece (mm2) tell the decision model how likely it is that a
cube of that colour was missed (:mod:`vision.counter.doubt`).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.counter.frame import Core, Frame, Prepared
from vision.counter.tuning import PPM


def leftover(prep: Prepared, frame: Frame, counted: list[Core]) -> dict[str, tuple[float, float]]:
    """Per colour with pixels in the tray: (largest leftover piece's area mm2, its widest
    inscribed radius mm)."""
    out: dict[str, tuple[float, float]] = {}
    for colour, (box, ox, oy) in frame.colour_boxes.items():
        mask = cv2.morphologyEx(box, cv2.MORPH_OPEN, prep.k3)
        covered = np.zeros(mask.shape, np.uint8)
        cv2.drawContours(covered, [(c.contour - np.array([ox, oy])).reshape(-1, 1, 2).astype(np.int32)
                                   for c in counted], -1, 1, -1)
        rest = cv2.subtract(mask, cv2.dilate(covered, prep.reach_kernel))
        n, comp, stats, _ = cv2.connectedComponentsWithStats(rest, connectivity=4)
        if n <= 1:
            out[colour] = (0.0, 0.0)
            continue
        big = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        dist = cv2.distanceTransform(rest, cv2.DIST_L2, 3)
        out[colour] = (float(stats[big, cv2.CC_STAT_AREA]) / PPM**2, float(dist.max()) / PPM)
    return out
