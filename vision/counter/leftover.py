"""Colour that no counted patch explains: where a whole cube may have gone uncounted.

A visible cube that no patch stands for (its face dropped as a sliver, taken for a pawn's ball,
lost in a pile's shadow) leaves its colour's pixels behind. Per colour, the pixels of that colour
beyond reach of every counted patch (``FACE_REACH_MM``, the seam band) are the leftover; its widest
piece (inscribed radius, mm) tells the decision model how likely it is that a
cube of that colour was missed (:mod:`vision.counter.doubt`).
"""

from __future__ import annotations

from typing import Any

import cv2
from numpy.typing import NDArray

from vision.counter.frame import Core, Frame, Prepared, ringed_box
from vision.counter.tuning import PPM


def leftover(prep: Prepared, frame: Frame, counted: list[Core]) -> dict[str, tuple[float, float]]:
    """Per colour with pixels in the tray: (leftover area mm2, its widest inscribed radius mm)."""
    out: dict[str, tuple[float, float]] = {}
    by_colour: dict[str, list[Core]] = {}
    for core in counted:
        by_colour.setdefault(core.colour, []).append(core)
    for colour, (box, ox, oy) in frame.colour_boxes.items():
        near = frame.near_cores(by_colour.get(colour, []), box.shape, (ox, oy), prep.reach_kernel)
        rest = cv2.morphologyEx(cv2.subtract(box, near), cv2.MORPH_OPEN, prep.k3)
        area = cv2.countNonZero(rest)
        if area == 0:
            out[colour] = (0.0, 0.0)
            continue
        out[colour] = (area / PPM**2, widest_radius_px(rest) / PPM)
    return out


def widest_radius_px(mask: NDArray[Any]) -> float:
    """The largest inscribed radius (px) of a 0/1 mask's pieces: its distance transform's maximum,
    worked out over the pieces' box with a pixel round it only (:func:`ringed_box`), where every
    distance is as over the whole mask; 0 for an empty mask."""
    ringed = ringed_box(mask)
    if ringed is None:
        return 0.0
    return float(cv2.distanceTransform(ringed[0], cv2.DIST_L2, 3).max())
