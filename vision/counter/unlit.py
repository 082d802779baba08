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

import math
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.colour import CODE_COLOUR, COLOUR_CODES, UNKNOWN, bgr_to_lab, mean_lab
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
    second = one_colour_per_patch(prep, lab, solid, second, frame.tray, frame.level)
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
                         second: NDArray[np.uint8], tray: NDArray[np.uint8], level: NDArray[np.float32]) -> NDArray[np.uint8]:
    """``second`` with every solid patch of no colour given one colour: the one that most of its
    pixels take at the wider gate and most of the pixels bordering it have. The wider gates
    overlap, and a leaning face's pixels fall on both sides: a dark green face lit warm is as near
    yellow's widened model as its own, so half its pixels read yellow and neither half is as large
    as a cube shows (tuning seed 9494 t0005, a green cube 0.96 visible counted as nothing).

    Where two colours share a patch's votes (the runner-up has at least ``UNLIT_HUE_RIVAL_SHARE``
    of the leader's), the patch's mean hue in the tray view (``tray``, BGR, under its white
    ``level``) decides between them (:func:`nearer_in_hue`): an unlit face is darker than
    any calibrated top, and a colour model wide in lightness (yellow's) can then be nearer than
    the face's own, though its hue is far (tuning seed 5405 t0016: a green cube on its corner,
    mean L*a*b* 32, -28, 22, two thirds of its pixels yellow at the wider gate)."""
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
    winner = nearer_in_hue(prep, comp[solid], tray[solid], level, votes, np.argmax(votes, axis=1).astype(np.uint8))
    out = second.copy()
    out[inside] = winner[comp[inside]]
    return out


def nearer_in_hue(prep: Prepared, comp: NDArray[Any], bgr: NDArray[np.uint8], level: NDArray[np.float32],
                  votes: NDArray[np.int64], winner: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """``winner`` with each patch whose two leading colours are close in votes given the one whose
    calibrated top lies nearer its mean colour in hue (the angle of a*, b*). ``comp``: each solid
    pixel's patch; ``bgr``: its colour. Black (no hue) and a patch of little chroma keep their vote."""
    t = prep.tuning
    n = len(votes)
    size = np.maximum(np.bincount(comp, minlength=n), 1).astype(np.float32)
    mean = np.stack([np.bincount(comp, weights=bgr[:, k], minlength=n) for k in range(3)], axis=1) / size[:, None]
    lab = bgr_to_lab(mean.astype(np.float32).reshape(-1, 1, 3), level).reshape(-1, 3)
    out = winner.copy()
    black = COLOUR_CODES["black"]
    for i in range(1, n):
        ranked = np.argsort(votes[i])[::-1][:2]
        leader, rival = int(ranked[0]), int(ranked[1])
        if (votes[i, rival] == 0 or votes[i, rival] < t.UNLIT_HUE_RIVAL_SHARE * votes[i, leader]
                or black in (leader, rival) or float(np.hypot(lab[i, 1], lab[i, 2])) < t.UNLIT_HUE_MIN_CHROMA):
            continue
        hue = math.atan2(float(lab[i, 2]), float(lab[i, 1]))
        out[i] = min((leader, rival), key=lambda code: _angle(hue, prep.hue[CODE_COLOUR[code]]))
    return out


def _angle(a: float, b: float) -> float:
    """The angle between two hues (radians, 0..pi)."""
    return abs(math.remainder(a - b, math.tau))


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
    lightness = float(mean_lab(frame.tray, blob, frame.level)[0])
    return Core(colour, area_px / PPM**2, radius, area_px / max(rect_w * rect_h, 1.0),
                roundness(contour), lightness, contour, centre,
                length_mm=max(rect_w, rect_h) / PPM, width_mm=min(rect_w, rect_h) / PPM, corner=True)
