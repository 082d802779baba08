"""Partly hidden cubes: how much of each partial face is visible, and the quarter rule.

A cube counts when a quarter of its silhouette is visible (the spec's rule). A cube half under
another shows its top as a strip or an L around the upper cube; its core has lost its seam band on
every side, so its area understates what is visible, and a strip under about 4 mm wide loses its
core entirely. Per colour, every pixel of the colour goes to the nearest core within
``FACE_REACH_MM`` (a Voronoi split of the colour's mask): a partial face's visible area is what it
gets. Pixels no core reaches are strips of faces with no core of their own.
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision import geometry as g
from vision.colour import COLOUR_CODES, mean_lab
from vision.counter.frame import Core, Frame, Prepared, largest_contour
from vision.counter.tuning import FACE_AREA_MM2, PPM, TUNING, Tuning
from vision.plate import TRAY_VIEW


def visible_parts(prep: Prepared, frame: Frame, cores: list[Core]) -> list[Core]:
    """Sets ``visible_mm2`` and ``quarter_mm2`` on the small cores (in place) and returns the strips
    that could be a quarter of a face as cores of their own (``strip``)."""
    t = prep.tuning
    strips: list[Core] = []
    camera = frame.camera_mm
    by_colour: dict[str, list[Core]] = {}
    for core in cores:
        by_colour.setdefault(core.colour, []).append(core)
    for colour in COLOUR_CODES:
        if colour not in frame.colour_boxes:
            continue
        box, ox, oy = frame.colour_boxes[colour]
        mask = cv2.morphologyEx(box, cv2.MORPH_OPEN, prep.k3)
        own = by_colour.get(colour, [])
        if own:
            rest = cv2.subtract(mask, frame.near_cores(own, mask.shape, (ox, oy), prep.reach_kernel))
            for core in own:
                if core.area_mm2 < t.SMALL_FACE_MM2:
                    core.visible_mm2 = owned_mm2(core, own, mask, (ox, oy), t)
                    core.quarter_mm2 = quarter_mm2(core.centre, camera, t)
        else:
            rest = mask
        # A strip has a pixel at least STRIP_MIN_RADIUS_MM from its edge: most colours have none.
        if cv2.countNonZero(rest) < t.QUARTER_FACE_MM2 * PPM**2 or not cv2.countNonZero(
                cv2.erode(rest, prep.strip_kernel)):
            continue
        strips += _strips(prep, frame, colour, rest, (ox, oy), camera)
    return strips


def _strips(prep: Prepared, frame: Frame, colour: str, rest: NDArray[Any], origin: tuple[int, int],
            camera: NDArray[Any]) -> list[Core]:
    t = prep.tuning
    ox, oy = origin
    out = []
    n, comp, stats, cents = cv2.connectedComponentsWithStats(rest, connectivity=8)
    rdist: NDArray[Any] | None = None
    for i in range(1, n):
        area_mm2 = stats[i, cv2.CC_STAT_AREA] / PPM**2
        centre = (float(cents[i][0] + ox), float(cents[i][1] + oy))
        quarter = quarter_mm2(centre, camera, t)
        if area_mm2 < quarter:
            continue
        if rdist is None:
            rdist = cv2.distanceTransform(rest, cv2.DIST_L2, 3)
        lx, ly, w, h = stats[i, :4]
        sub = comp[ly:ly + h, lx:lx + w] == i
        r = float(rdist[ly:ly + h, lx:lx + w][sub].max()) / PPM
        if r < t.STRIP_MIN_RADIUS_MM:
            continue
        contour = largest_contour(sub.astype(np.uint8)) + np.array([lx + ox, ly + oy])
        rect_w, rect_h = cv2.minAreaRect(contour.astype(np.float32))[1]
        # Part of one face: no longer than its diagonal, and a band narrower than half a face runs
        # along one edge, so no longer than an edge (a dark crevice between cubes can be), unless
        # it turns the corner of the cube over it: an L, as wide as half a face in its rectangle.
        wide = r >= t.THIN_STRIP_RADIUS_MM or min(rect_w, rect_h) / PPM >= t.L_STRIP_MIN_WIDTH_MM
        longest = t.MAX_FACE_LENGTH_MM if wide else t.THIN_STRIP_MAX_LENGTH_MM
        if max(rect_w, rect_h) / PPM > longest:
            continue
        x, y = lx + ox, ly + oy
        med = mean_lab(frame.tray[y:y + h, x:x + w], sub.astype(np.uint8), frame.level)
        if float(prep.models[colour].mahalanobis2(med)[0]) > t.FACE_GATE:
            continue
        out.append(Core(colour, area_mm2, r, 0.0, 0.0, float(med[0]), contour, centre,
                        length_mm=max(rect_w, rect_h) / PPM, visible_mm2=area_mm2, strip=True, quarter_mm2=quarter))
    return out


def quarter_mm2(centre_px: tuple[float, float], cam: NDArray[Any], tuning: Tuning = TUNING) -> float:
    """The visible top area (mm2) that makes a partly hidden cube at ``centre_px`` (tray view)
    count. A cube d mm from the camera's nadir shows, beside its top, the two side faces turned
    towards the camera, each about ``edge * d / (H - edge)`` wide (H the camera's height); averaged
    over the cube's turn their area is ``edge * (4 / pi) * d * edge / (H - edge)``. A quarter of
    that silhouette must be visible, ``TOP_SHARE_OF_VISIBLE`` of it as top. ``cam``: plate mm."""
    sides = g.CUBE_EDGE_MM * (4 / math.pi) * side_band_mm(centre_px, cam)
    return tuning.VISIBLE_FRACTION * tuning.TOP_SHARE_OF_VISIBLE * (FACE_AREA_MM2 + sides)


def side_band_mm(centre_px: tuple[float, float], cam: NDArray[Any]) -> float:
    """How far beyond its top a flat cube at ``centre_px`` (tray view) shows the sides turned
    towards the camera, in mm: ``edge * d / (H - edge)``, d its distance from the camera's nadir and
    H the camera's height (the view lies on the plane of the tops). ``cam``: plate mm."""
    x = TRAY_VIEW.x0 + (centre_px[0] + 0.5) / PPM
    y = TRAY_VIEW.y0 + (centre_px[1] + 0.5) / PPM
    d = math.hypot(x - cam[0], y - cam[1])
    edge = g.CUBE_EDGE_MM
    return edge * d / max(abs(float(cam[2])) - edge, edge)


def owned_mm2(core: Core, others: list[Core], mask: NDArray[Any], origin: tuple[int, int],
              tuning: Tuning = TUNING) -> float:
    """The pixels of ``mask`` (a colour's, offset by ``origin`` in the tray view) within
    ``FACE_REACH_MM`` of ``core`` and no nearer to another core of the colour, in mm2."""
    reach = tuning.FACE_REACH_MM * PPM
    pad = int(math.ceil(reach)) + 1
    x, y, w, h = cv2.boundingRect(core.contour.reshape(-1, 1, 2).astype(np.int32))
    x0, y0 = max(x - origin[0] - pad, 0), max(y - origin[1] - pad, 0)
    x1, y1 = min(x - origin[0] + w + pad, mask.shape[1]), min(y - origin[1] + h + pad, mask.shape[0])
    if x1 <= x0 or y1 <= y0:
        return 0.0
    shift = np.array([origin[0] + x0, origin[1] + y0])
    mine = np.ones((y1 - y0, x1 - x0), np.uint8)
    cv2.drawContours(mine, [(core.contour - shift).reshape(-1, 1, 2).astype(np.int32)], -1, 0, -1)
    theirs = np.ones_like(mine)
    cv2.drawContours(theirs, [(c.contour - shift).reshape(-1, 1, 2).astype(np.int32) for c in others
                              if c is not core], -1, 0, -1)
    d_mine = cv2.distanceTransform(mine, cv2.DIST_L2, 3)
    d_theirs = cv2.distanceTransform(theirs, cv2.DIST_L2, 3)
    owned = (mask[y0:y1, x0:x1] > 0) & (d_mine <= reach) & (d_mine <= d_theirs)
    return float(np.count_nonzero(owned)) / PPM**2
