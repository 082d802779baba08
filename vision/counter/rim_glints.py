"""A polished coin's rim glint: a bright, thin, curved line the size of a coin's edge.

A polished coin tilted on cubes mirrors them: its face takes their colours and their grey, so no
circle stands out in the grey view and the faces stage reads it as cubes (tuning seed 5408: a
nickel coin read as part of a red pile, a brass one as a yellow and a red cube). What still shows
is its rim, turned to the ring light: a glint one or two pixels wide along an arc of the coin's
outline. Cubes draw bright lines too, along their bevels: mostly straight, but round a face's
corner the bevel's highlight curves over 80-135 degrees, as tight as a coin's rim seen tilted (a
radius of 3-5 mm). Painted wood glints less than polished metal, though: on the tuning renders
the corners stand 44-89 grey levels above their surroundings, the coins' rims 109-142. A
courtier's head shows a round highlight, not a line.

The glints are the grey view's white top-hat (what stands above its surroundings by ``GLINT_LEVEL``
within ``GLINT_KERNEL_PX``); each connected line long enough is fitted with a circle (least
squares), and one that fits a coin's curvature closely (``GLINT_RADIUS_MM``, ``GLINT_MAX_RMS_PX``)
over a long arc (``GLINT_MIN_DEG``), and as bright as metal (``GLINT_MIN_BRIGHT``), is a coin's rim. A
coin tilted far is an ellipse, curved more at the ends of its long axis than a 20 mm circle: the
radius range reaches down to 4 mm.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.counter.frame import Prepared
from vision.counter.tuning import PPM


class Glint(NamedTuple):
    """A bright line fitted with a circle: its centre (tray-view pixels), radius (mm), how far its
    pixels lie from that circle (root mean square, pixels), the arc it spans (degrees), and how
    far it stands above its surroundings (the top-hat's 90th percentile over its pixels)."""

    x: float
    y: float
    radius_mm: float
    rms_px: float
    arc_deg: float
    bright: float


def glints(prep: Prepared, gray: NDArray[Any], least_bright: float = 0.0) -> list[Glint]:
    """Every bright thin line of the grey tray view at least ``GLINT_MIN_LENGTH_MM`` long (its
    bounding box's longer side) and ``GLINT_MIN_PX`` pixels, fitted with a circle; with
    ``least_bright``, only the lines with a pixel standing that far above its surroundings (a line
    without one cannot be that bright at its 90th percentile: the others are not fitted)."""
    t = prep.tuning
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (t.GLINT_KERNEL_PX, t.GLINT_KERNEL_PX))
    above = cv2.morphologyEx(gray, cv2.MORPH_TOPHAT, kernel)
    if least_bright > 0 and float(above.max()) < least_bright:
        return []  # nothing glints like metal: the lines are not looked for
    n, labels, stats, _ = cv2.connectedComponentsWithStats((above >= t.GLINT_LEVEL).view(np.uint8), connectivity=8)
    wanted = ((stats[:, cv2.CC_STAT_AREA] >= t.GLINT_MIN_PX)
              & (np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]) >= t.GLINT_MIN_LENGTH_MM * PPM))
    wanted[0] = False  # the background
    if least_bright > 0:
        lit = np.zeros(n, bool)
        lit[labels[above >= least_bright]] = True
        wanted &= lit
    out = []
    for i in np.flatnonzero(wanted):  # most of a pile's bright specks are too short: left unread
        x, y, w, h, _ = (int(v) for v in stats[i])
        mine = labels[y:y + h, x:x + w] == i
        ys, xs = np.nonzero(mine)
        bright = float(np.percentile(above[y:y + h, x:x + w][mine], 90))
        out.append(_fitted(xs.astype(np.float64) + x, ys.astype(np.float64) + y, bright))
    return out


def _fitted(xs: NDArray[np.float64], ys: NDArray[np.float64], bright: float) -> Glint:
    """The circle through points by least squares (x^2 + y^2 = 2ax + 2by + c), how closely they
    lie on it, and the arc they span about its centre (360 less the widest gap between them)."""
    design = np.column_stack([2 * xs, 2 * ys, np.ones_like(xs)])
    (cx, cy, c), *_ = np.linalg.lstsq(design, xs * xs + ys * ys, rcond=None)
    radius = math.sqrt(max(c + cx * cx + cy * cy, 0.0))
    rms = float(np.sqrt(np.mean((np.hypot(xs - cx, ys - cy) - radius) ** 2)))
    angles = np.sort(np.degrees(np.arctan2(ys - cy, xs - cx)))
    widest_gap = float(np.diff(np.append(angles, angles[0] + 360.0)).max())
    return Glint(float(cx), float(cy), radius / PPM, rms, 360.0 - widest_gap, bright)


def rim_glints(prep: Prepared, gray: NDArray[Any]) -> list[Glint]:
    """The glints that are a coin's rim: a coin's curvature, closely fitted, over a long arc, as
    bright as polished metal is."""
    t = prep.tuning
    lo, hi = t.GLINT_RADIUS_MM
    return [g for g in glints(prep, gray, t.GLINT_MIN_BRIGHT)
            if lo <= g.radius_mm <= hi and g.rms_px <= t.GLINT_MAX_RMS_PX and g.arc_deg >= t.GLINT_MIN_DEG
            and g.bright >= t.GLINT_MIN_BRIGHT]
