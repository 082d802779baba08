"""Pawns: a courtier's head is a ball, a cube's top a flat square.

A ball's surface turns away from the ring light, so it is darker than a flat top of its colour, and
its outline is round. A pawn lying on its side shows a tapered oblong about 14 x 10 mm. A pawn's
head touching a face of its colour can merge with it into one core; it is split off by fitting the
face's square.
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision import geometry as g
from vision.colour import mean_lab
from vision.counter.frame import Core, Frame, Prepared, largest_contour, roundness
from vision.counter.tuning import FACE_AREA_MM2, PPM


def looks_like_pawn(prep: Prepared, core: Core) -> bool:
    """Darker than a flat top of its colour (nearer the calibrated pawn's lightness) and round, or
    a lying pawn's long, tapered, rounded outline. A black ball hardly shades, so black needs the
    round outline of an unbroken core. A core that fills its bounding rectangle is a face; one as long
    as a face and not round is a shaded face, unless it is far darker than a pawn and narrower than a
    face (a courtier seen from aside: its head and its body's shaded side). Nothing far darker than
    any pawn's curve makes it (``PAWN_MAX_SHADE``) is a pawn: a face in a pile's deep shadow.

    A black core must be longer to pass for a lying pawn (``LYING_PAWN_MIN_LENGTH_BLACK_MM``):
    "darker than its top" says little where the top and the pawn are a few grey levels apart, and
    every core this outline took for a black courtier on the tuning renders was a cube 11.5-12.7 mm
    long (tilted, or partly under another: seed 5410 ``t0001``, 5411 ``t0037``, and the wider ones
    of 9494 and ``tray_train`` before the width bar), while each black courtier lying there was
    found whole by :mod:`vision.counter.lying`. The simulated station's lying courtiers (13.2 mm
    cores, too full for the lying stage's bands) are still read by this outline."""
    t = prep.tuning
    if core.colour not in prep.pawn_l:
        return False
    top, pawn = prep.top_l[core.colour], prep.pawn_l[core.colour]
    darker = abs(core.lightness - pawn) < abs(core.lightness - top)
    depth, gap = top - core.lightness, top - pawn  # how far it is from its top, and the pawn is
    if depth > t.PAWN_MAX_SHADE * gap:
        return False  # far darker than any pawn's curve makes it: a face in a pile's deep shadow
    if not darker or core.area_mm2 >= 0.9 * FACE_AREA_MM2 or core.squareness >= t.PAWN_MAX_SQUARENESS:
        return False
    longest = t.LYING_PAWN_MIN_LENGTH_BLACK_MM if core.colour == "black" else t.LYING_PAWN_MIN_LENGTH_MM
    if (core.length_mm >= longest and core.squareness < t.LYING_PAWN_MAX_SQUARENESS
            and t.LYING_PAWN_MIN_WIDTH_MM <= core.width_mm <= t.LYING_PAWN_MAX_WIDTH_MM and core.area_mm2 >= t.LYING_PAWN_MIN_MM2
            and core.roundness >= t.LYING_PAWN_MIN_ROUNDNESS):
        return True
    if (core.colour != "black" and core.width_mm <= t.PAWN_DEEP_MAX_WIDTH_MM and core.area_mm2 >= t.PAWN_DEEP_MIN_MM2
            and depth >= t.PAWN_DEEP_SHADE * gap):
        return True  # far darker than a pawn's calibrated shade, narrower than a face: a pawn seen from aside
    if core.length_mm >= t.PAWN_FACE_LENGTH_MM and core.roundness < t.PAWN_FACE_ROUNDNESS:
        return False  # a shaded whole face
    roundness = t.PAWN_ROUNDNESS_BLACK if core.colour == "black" else t.PAWN_ROUNDNESS
    return core.roundness > roundness


def top_of_a_pawn(prep: Prepared, core: Core, heads: list[tuple[float, float]]) -> bool:
    """The top of a pawn's ball faces the ring light and can come out as a small bright disc of its
    own inside the ball's shaded ring; a part of a square face is never that round."""
    t = prep.tuning
    if core.area_mm2 >= t.SMALL_FACE_MM2 or core.roundness < t.PAWN_TOP_ROUNDNESS:
        return False
    reach = 0.5 * g.COURTIER_BASE_MM * PPM
    return any(math.hypot(core.centre[0] - x, core.centre[1] - y) <= reach for x, y in heads)


def pawns_beside_faces(prep: Prepared, frame: Frame, cores: list[Core]) -> list[Core]:
    """Pawns standing against a cube of their colour, split off the cube's face (the core keeps the
    face alone, modified in place). Returns the pawns as cores."""
    t = prep.tuning
    pawns: list[Core] = []
    for core in cores:
        if (core.colour not in prep.pawn_l or core.strip or not (FACE_AREA_MM2 < core.area_mm2 <= t.SINGLE_MAX_MM2)
                or (core.squareness >= t.SINGLE_SQUARENESS and core.length_mm <= t.MAX_FACE_LENGTH_MM)):
            continue
        # The shaded ball darkens the merged core's mean: a third of it or more is the pawn's.
        top, pawn = prep.top_l[core.colour], prep.pawn_l[core.colour]
        if core.lightness > top - t.PAWN_SHARE_MIN * (top - pawn):
            continue
        x, y, w, h = cv2.boundingRect(core.contour.reshape(-1, 1, 2).astype(np.int32))
        origin = np.array([x - 1, y - 1])
        mask = np.zeros((h + 2, w + 2), np.uint8)
        cv2.drawContours(mask, [(core.contour - origin).reshape(-1, 1, 2).astype(np.int32)], -1, 1, -1)
        dist = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
        # The face's centre is one of the core's two deepest points (the pawn's base is as wide).
        _, r_max, _, peak = cv2.minMaxLoc(dist)
        other = dist.copy()
        cv2.circle(other, peak, int(round(0.7 * g.CUBE_EDGE_MM * PPM)), 0, -1)
        _, r_next, _, peak_next = cv2.minMaxLoc(other)
        found = None
        for centre, r in ((peak, r_max), (peak_next, r_next)):
            if r <= 0:
                continue
            found = _pawn_beside(prep, frame, core, mask, origin, (int(centre[0]), int(centre[1])), r)
            if found is not None:
                break
        if found is None:
            continue
        head, blob = found
        core.contour = largest_contour(mask & (1 - blob)) + origin
        core.area_mm2 -= head.area_mm2
        core.squareness = max(core.squareness, t.SINGLE_SQUARENESS)  # what is left is the square face
        core.length_mm = min(core.length_mm, t.MAX_FACE_LENGTH_MM)
        pawns.append(head)
    return pawns


def _pawn_beside(prep: Prepared, frame: Frame, core: Core, mask: NDArray[Any], origin: NDArray[Any],
                 centre: tuple[int, int], r: float) -> tuple[Core, NDArray[Any]] | None:
    """The pawn beside a face centred at ``centre`` (in ``mask``, a core's pixels from ``origin`` in
    the tray view) with inscribed radius ``r`` px, as a core and its pixels; or None."""
    t = prep.tuning
    cx, cy = centre
    half = min(r, 0.5 * g.CUBE_EDGE_MM * PPM)
    best, best_poly = -1, None
    for angle in range(0, 90, 10):
        box = cv2.boxPoints(((cx, cy), (2 * half, 2 * half), angle)).astype(np.int32)
        poly = np.zeros_like(mask)
        cv2.fillConvexPoly(poly, box, 1)
        cover = int(np.count_nonzero(poly & mask))
        if cover > best:
            best, best_poly = cover, poly
    assert best_poly is not None
    rest = mask & (1 - cv2.dilate(best_poly, prep.k3))
    rest = cv2.morphologyEx(rest, cv2.MORPH_OPEN, prep.pawn_open_kernel)
    n, comp, stats, cents = cv2.connectedComponentsWithStats(rest, connectivity=4)
    if n <= 1:
        return None
    i = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    blob = (comp == i).astype(np.uint8)
    area_mm2 = float(stats[i, cv2.CC_STAT_AREA]) / PPM**2
    contour = largest_contour(blob)
    rect_w, rect_h = cv2.minAreaRect(contour.astype(np.float32))[1]
    bx, by = int(origin[0]), int(origin[1])
    sub = frame.tray[by:by + blob.shape[0], bx:bx + blob.shape[1]]
    light = float(mean_lab(sub, blob[:sub.shape[0], :sub.shape[1]], frame.level)[0])
    r_in = float(cv2.distanceTransform(blob, cv2.DIST_L2, 3).max()) / PPM
    head = Core(core.colour, area_mm2, r_in, float(stats[i, cv2.CC_STAT_AREA]) / max(rect_w * rect_h, 1.0),
                roundness(contour), light, contour + origin,
                (float(cents[i][0] + origin[0]), float(cents[i][1] + origin[1])),
                length_mm=max(rect_w, rect_h) / PPM, width_mm=min(rect_w, rect_h) / PPM)
    if area_mm2 < t.PAWN_HEAD_MIN_MM2 or r_in < t.PAWN_HEAD_MIN_RADIUS_MM or not looks_like_pawn(prep, head):
        return None
    return head, blob
