"""Cubes whose faces all turn away from the light: a cube standing on an edge or a corner.

A cube leaning on a pile shows two or three faces, none facing the ring light: darker and more
saturated than any flat top the profile learned, so most of their pixels match no colour and the
cube leaves no core (on the tuning piles, such cubes over 95 % visible were most of the visible
cubes that no patch held). Pixels of no colour that lie in a solid patch (not a seam's thin line)
are classified again at a wider gate (:data:`vision.colour.GATE_COLOUR_RELAXED`), each solid patch
of them taking one colour (:func:`one_colour_per_patch`); a patch of one colour so found, with the
pixels of that colour around it, as large as a cube shows and clear of the counted patches of its
colour (whose own shaded sides it would otherwise be), is a cube: a core marked ``corner``, read as
one cube in doubt. Black is left out: its unlit faces are still black, and no-colour pixels beside
it are shadow.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.colour import COLOUR_CODES, UNKNOWN, bgr_to_lab
from vision.counter.frame import Core, Frame, Prepared, largest_contour, roundness
from vision.counter.tuning import PPM


def unlit_cubes(prep: Prepared, frame: Frame, cores: list[Core]) -> list[Core]:
    """Cubes with no core of their own, each as a core marked ``corner`` (see the module)."""
    t = prep.tuning
    lab = frame.labels
    assert lab is not None
    holes = lab == UNKNOWN
    if not holes.any():
        return []
    share = cv2.boxFilter(holes.astype(np.float32), -1, (prep.unlit_box, prep.unlit_box))
    solid = holes & (share >= t.UNLIT_SOLID_SHARE)
    if not solid.any():
        return []
    second = np.zeros(lab.shape, np.uint8)
    second[solid] = prep.classifier.classify(frame.tray[solid].reshape(-1, 1, 3), frame.level, relaxed=True).reshape(-1)
    second = one_colour_per_patch(prep, lab, solid, second)
    min_px = t.UNLIT_MIN_MM2 * PPM * PPM
    out: list[Core] = []
    for colour, code in COLOUR_CODES.items():
        found = second == code
        if colour == "black" or colour not in prep.top_l or np.count_nonzero(found) < 0.5 * min_px:
            continue
        counted = np.zeros(lab.shape, np.uint8)
        cv2.drawContours(counted, [c.contour.reshape(-1, 1, 2).astype(np.int32) for c in cores if c.colour == colour], -1, 1, -1)
        near = cv2.dilate(counted, prep.k3, iterations=prep.unlit_clear)
        region = ((found | (lab == code)) & (near == 0)).astype(np.uint8)
        region = cv2.morphologyEx(region, cv2.MORPH_OPEN, prep.k3)
        n, comp, stats, centres = cv2.connectedComponentsWithStats(region, connectivity=8)
        for i in range(1, n):
            if stats[i, cv2.CC_STAT_AREA] < min_px:
                continue
            core = _core(prep, frame, colour, (comp == i).astype(np.uint8), (float(centres[i][0]), float(centres[i][1])))
            if core is not None:
                out.append(core)
    return out


def one_colour_per_patch(prep: Prepared, lab: NDArray[np.uint8], solid: NDArray[np.bool_],
                         second: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """``second`` with every solid patch of no colour given one colour: the one that most of its
    pixels take at the wider gate and most of the pixels bordering it have. The wider gates
    overlap, and a leaning face's pixels fall on both sides: a dark green face lit warm is as near
    yellow's widened model as its own, so half its pixels read yellow and neither half is as large
    as a cube shows (tuning seed 9494 t0005, a green cube 0.96 visible counted as nothing)."""
    n, comp = cv2.connectedComponents(solid.astype(np.uint8), connectivity=8)
    if n <= 1:
        return second
    colours = len(COLOUR_CODES) + 1  # codes 1..6; 0 and UNKNOWN take no part
    grown = cv2.dilate(comp.astype(np.float32), prep.k3, iterations=2).astype(np.int32)
    border = (grown > 0) & ~solid & (lab >= 1) & (lab < colours)
    inside = solid & (second >= 1) & (second < colours)
    votes = np.bincount(comp[inside] * colours + second[inside], minlength=n * colours)
    votes += np.bincount(grown[border] * colours + lab[border], minlength=n * colours)
    votes = votes.reshape(n, colours)
    winner = np.argmax(votes, axis=1).astype(np.uint8)
    out = second.copy()
    out[inside] = winner[comp[inside]]
    return out


def _core(prep: Prepared, frame: Frame, colour: str, blob: NDArray[np.uint8], centre: tuple[float, float]) -> Core | None:
    """The patch as a core, if it is as wide as a quarter face's corner (its outline filled: a
    cube's unlit faces keep specks of no colour even at the wider gate)."""
    contour = largest_contour(blob)
    filled = np.zeros_like(blob)
    cv2.drawContours(filled, [contour.reshape(-1, 1, 2).astype(np.int32)], -1, 1, -1)
    radius = float(cv2.distanceTransform(filled, cv2.DIST_L2, 3).max()) / PPM
    if radius < prep.tuning.UNLIT_MIN_RADIUS_MM:
        return None
    rect_w, rect_h = cv2.minAreaRect(contour.astype(np.float32))[1]
    area_px = float(np.count_nonzero(blob))
    mean_bgr = np.array(cv2.mean(frame.tray, blob), np.float32)[:3]
    lightness = float(bgr_to_lab(mean_bgr.reshape(1, 1, 3), frame.level).reshape(3)[0])
    return Core(colour, area_px / PPM**2, radius, area_px / max(rect_w * rect_h, 1.0),
                roundness(contour), lightness, contour, centre,
                length_mm=max(rect_w, rect_h) / PPM, width_mm=min(rect_w, rect_h) / PPM, corner=True)
