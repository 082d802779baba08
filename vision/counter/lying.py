"""Courtiers lying on their side: a tapered oblong of one courtier colour, read as a whole.

A courtier on its side shows its base, its waist and its head in a row, about 14 x 9 mm from above.
Its surfaces are curved, so the ring light shades it; the faces stage breaks it into pieces and
keeps the largest as a small face, and the courtier was counted as a cube of its colour (on the
tuning renders, 7 of the 13 courtiers still missed after the heads were found as balls lay on
their side).

So each connected patch of a courtier colour is measured whole: its area, the sides of its
minimum-area rectangle, its waist (the narrowest width across the middle three fifths of its
length, over its widest), how much of its convex hull it fills, and how shaded it is (its mean
lightness from the calibrated top's towards the calibrated pawn's). A patch inside every band of
``Tuning.LYING_*`` is a lying courtier: the cores of its colour centred in it are replaced by one
core marked ``lying``, read as a pawn. A patch touching the tray view's edge is cut by the wall
and never measured. A cube partly under another can show a tapered part too, but it borders the
cube over it: a lying courtier lies mostly on the floor (``LYING_MIN_FLOOR_SHARE`` of a 1 mm band
around it).

On a pile a courtier often lies against a cube of its own colour, and the two make one patch, too
large to be a courtier (tuning seeds 5410 and 5411, piles, 5411 with courtiers in every one: 8 of
the 19 courtiers lying or leaning there, more than 0.4 of each visible). Where a patch is not a
courtier whole, the cubes' whole faces in it (and any standing courtier's head found as a ball)
are cut out and what is left is measured with the same bands, the cut left out of the floor
around it.

A courtier's curved, speckled body can leave many of its pixels in no class at all: the faces stage
then keeps no piece of it, and its colour was left uncounted while the frame was trusted (tuning
5404 ``t0016s2``). So holes of unclassified pixels inside a courtier colour's patch, up to
``LYING_HOLE_MM`` across, are filled before it is measured, and a lying courtier found where no
core of its colour lies is added as a pawn of its own.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.colour import BACKGROUND, COLOUR_CODES, UNKNOWN, mean_lab
from vision.counter.frame import Core, Frame, Prepared, box_mask, largest_contour, replace_cores, roundness
from vision.counter.tuning import PPM


def lying_as_pawns(prep: Prepared, frame: Frame, cores: list[Core]) -> list[Core]:
    """``cores`` with the pieces of every lying courtier found replaced by one core (``lying``)."""
    out = list(cores)
    for colour in prep.pawn_l:
        for blob, x0, y0, core in lying_courtiers(prep, frame, colour, cores):
            height, width = blob.shape
            pieces = []
            for c in out:
                cx, cy = int(round(c.centre[0])) - x0, int(round(c.centre[1])) - y0
                if c.colour == colour and not c.ball and 0 <= cx < width and 0 <= cy < height and blob[cy, cx]:
                    pieces.append(c)
            if pieces:
                out = replace_cores(out, pieces, core)
            elif not any(c.colour == colour and _touches(c, blob, x0, y0) for c in out):
                out.append(core)  # nothing of it was kept as a face: found whole here, or not at all
    return out


def lying_courtiers(prep: Prepared, frame: Frame, colour: str, cores: list[Core] | None = None
                    ) -> list[tuple[NDArray[np.uint8], int, int, Core]]:
    """Per lying courtier of ``colour``: its pixels in its bounding box, the box's origin, its core.

    ``cores``: the frame's cores so far; where a patch is not a lying courtier whole, the whole
    cube faces of its colour in it (:func:`whole_faces`) are cut out of it and what is left is
    measured again (:func:`beside_faces`): a courtier lying against a cube of its colour, or against
    a standing courtier's head (a core marked ``ball``), cut out likewise."""
    assert frame.labels is not None
    t = prep.tuning
    if colour in frame.colour_boxes:  # the colour's pixels in its bounding box, from the faces stage
        is_colour, ox, oy = frame.colour_boxes[colour]
    else:
        is_colour, ox, oy = (frame.labels == COLOUR_CODES[colour]).view(np.uint8), 0, 0
        if not cv2.countNonZero(is_colour):
            return []  # no pixel of the colour in the tray: no courtier of it lies there
    mask = cv2.morphologyEx(holes_filled(prep, frame, is_colour, ox, oy), cv2.MORPH_OPEN, prep.k3)
    lo, hi = (a * PPM * PPM for a in t.LYING_AREA_MM2)
    height, width = frame.labels.shape
    mine = [c for c in cores or [] if c.colour == colour]
    faces = whole_faces(prep, mine) + [c for c in mine if c.ball]  # and standing courtiers' heads
    cut_hi = t.LYING_CUT_MAX_MM2 * PPM * PPM
    out: list[tuple[NDArray[np.uint8], int, int, Core]] = []
    # each patch by its outline (far cheaper than labelling components), its pixels drawn back
    for outline in cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0]:
        outline_area = cv2.contourArea(outline)
        if outline_area < 0.5 * lo or (outline_area > hi and (not faces or outline_area > cut_hi)):
            continue
        blob, bx, by = box_mask(outline)
        h, w = blob.shape
        x, y = bx + ox, by + oy
        if x == 0 or y == 0 or x + w >= width or y + h >= height:
            continue
        blob &= np.asarray(mask[by:by + h, bx:bx + w], np.uint8)
        whole = lying_courtier(prep, frame, colour, blob, x, y)
        if whole is not None:
            out.append((blob, x, y, whole))
            continue
        for part, cut in beside_faces(prep, blob, x, y, faces):
            found = lying_courtier(prep, frame, colour, part, x, y, cut)
            if found is not None:
                out.append((part, x, y, found))
    return out


def lying_courtier(prep: Prepared, frame: Frame, colour: str, blob: NDArray[np.uint8], x: int, y: int,
                   cut: NDArray[np.uint8] | None = None) -> Core | None:
    """The core of a lying courtier whose pixels are ``blob`` (its box from ``x, y`` in the tray
    view), or None where the patch is outside any band of ``Tuning.LYING_*``. ``cut``: pixels of the
    same box cut away from the patch (cube faces, heads), left out of the floor around it."""
    t = prep.tuning
    lo, hi = (a * PPM * PPM for a in t.LYING_AREA_MM2)
    area = int(cv2.countNonZero(blob))
    if not lo <= area <= hi:
        return None
    contour = largest_contour(blob)
    (_, _), sides, angle = cv2.minAreaRect(contour.astype(np.float32))
    length, wide = max(sides) / PPM, min(sides) / PPM
    if not (t.LYING_LENGTH_MM[0] <= length <= t.LYING_LENGTH_MM[1] and t.LYING_WIDTH_MM[0] <= wide <= t.LYING_WIDTH_MM[1]):
        return None
    hull = float(cv2.contourArea(cv2.convexHull(contour)))
    solidity = float(cv2.contourArea(contour)) / max(hull, 1.0)
    if solidity > t.LYING_MAX_SOLIDITY or waist(blob, angle if sides[0] >= sides[1] else angle + 90.0) > t.LYING_MAX_WAIST:
        return None
    h, w = blob.shape
    top, pawn = prep.top_l[colour], prep.pawn_l[colour]
    light = float(mean_lab(frame.tray[y:y + h, x:x + w], blob, frame.level)[0])
    if (top - light) < t.LYING_MIN_SHADE * max(top - pawn, 1e-3) or floor_share(frame, blob, x, y, cut) < t.LYING_MIN_FLOOR_SHARE:
        return None
    return Core(colour, area / PPM**2, float(cv2.distanceTransform(blob, cv2.DIST_L2, 3).max()) / PPM,
                area / max(sides[0] * sides[1], 1.0), roundness(contour), light, contour + (x, y),
                centre(blob, x, y), length_mm=length, width_mm=wide, lying=True)


def whole_faces(prep: Prepared, cores: list[Core]) -> list[Core]:
    """The cores that are a cube's whole top face: square, as large as a face's core, no longer
    than a face (``Tuning.LYING_CUT_FACE_*``)."""
    t = prep.tuning
    return [c for c in cores if not (c.ball or c.lying or c.strip or c.corner)
            and c.squareness >= t.LYING_CUT_FACE_SQUARENESS and c.length_mm <= t.MAX_FACE_LENGTH_MM
            and t.LYING_CUT_FACE_SHARE[0] * t.FACE_CORE_MM2 <= c.area_mm2 <= t.LYING_CUT_FACE_SHARE[1] * t.FACE_CORE_MM2]


def beside_faces(prep: Prepared, blob: NDArray[np.uint8], x: int, y: int, faces: list[Core]
                 ) -> list[tuple[NDArray[np.uint8], NDArray[np.uint8]]]:
    """What is left of a patch (``blob``, its box from ``x, y``) once the whole faces centred in it
    are cut out, each widened by ``LYING_CUT_MM`` (the seam its core lost, and a cube's edge), and
    the thin bits the cut leaves opened away: each piece left as large as a lying courtier, with
    the cut, both in the patch's box. A courtier lying against a cube of its colour joins it in
    one patch, too large for a courtier, though the courtier is plain to see beside the cube."""
    t = prep.tuning
    h, w = blob.shape
    inside = [f for f in faces if 0 <= int(f.centre[0]) - x < w and 0 <= int(f.centre[1]) - y < h
              and blob[int(f.centre[1]) - y, int(f.centre[0]) - x]]
    lo = t.LYING_AREA_MM2[0] * PPM * PPM
    # a core is smaller than its face (the seams), so this leaves at least what the cut leaves
    if not inside or cv2.countNonZero(blob) - sum(f.area_mm2 for f in inside) * PPM * PPM < lo:
        return []
    cut = np.zeros_like(blob)
    cv2.drawContours(cut, [(f.contour.reshape(-1, 1, 2) - (x, y)).astype(np.int32) for f in inside], -1, 1, -1)
    reach = int(round(t.LYING_CUT_MM * PPM))
    cut = np.asarray(cv2.dilate(cut, np.ones((2 * reach + 1, 2 * reach + 1), np.uint8)), np.uint8)
    left = np.asarray(cv2.morphologyEx(blob & (1 - cut), cv2.MORPH_OPEN, prep.k5), np.uint8)
    n, comp, stats, _ = cv2.connectedComponentsWithStats(left, connectivity=4)
    return [((comp == i).astype(np.uint8), cut) for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= lo]


def holes_filled(prep: Prepared, frame: Frame, is_colour: NDArray[np.uint8], ox: int, oy: int) -> NDArray[np.uint8]:
    """A colour's pixels (``is_colour``, its box from ``ox, oy`` in the tray view) with the holes of
    unclassified pixels that a closing by a ``LYING_HOLE_MM`` square bridges taken into it: a
    speckled courtier whole. Only pixels of no class are taken; the floor and other colours stay
    out. A square, not a disc: OpenCV closes by a square in two passes, by a disc row by row, at
    twice the cost for the same holes bridged on the tuning renders."""
    assert frame.labels is not None
    h, w = is_colour.shape
    unknown = frame.labels[oy:oy + h, ox:ox + w] == UNKNOWN
    if not unknown.any():
        return is_colour
    closed = cv2.morphologyEx(is_colour, cv2.MORPH_CLOSE, prep.hole_kernel)
    return np.asarray(is_colour | (unknown & (closed > 0)).view(np.uint8), np.uint8)


def _touches(core: Core, blob: NDArray[np.uint8], x0: int, y0: int) -> bool:
    """Whether any point of ``core``'s outline lies on ``blob`` (its pixels from ``x0, y0``)."""
    pts = core.contour.reshape(-1, 2).astype(np.int64) - (x0, y0)
    h, w = blob.shape
    inside = (pts[:, 0] >= 0) & (pts[:, 0] < w) & (pts[:, 1] >= 0) & (pts[:, 1] < h)
    return bool(blob[pts[inside, 1], pts[inside, 0]].any())


def centre(blob: NDArray[np.uint8], x: int, y: int) -> tuple[float, float]:
    """The centroid of a patch's pixels ``blob`` from ``x, y`` in the tray view."""
    m = cv2.moments(blob, binaryImage=True)
    return (m["m10"] / max(m["m00"], 1.0) + x, m["m01"] / max(m["m00"], 1.0) + y)


def floor_share(frame: Frame, blob: NDArray[np.uint8], x: int, y: int, cut: NDArray[np.uint8] | None = None) -> float:
    """Share of the tray floor in a 1 mm band around a patch (its pixels ``blob`` from ``x, y``);
    ``cut``: pixels of the same box left out of the band (cube faces cut away from the patch)."""
    assert frame.labels is not None
    pad = int(round(PPM))
    height, width = frame.labels.shape
    x0, y0 = max(x - pad, 0), max(y - pad, 0)
    x1, y1 = min(x + blob.shape[1] + pad, width), min(y + blob.shape[0] + pad, height)
    inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
    inside[y - y0:y - y0 + blob.shape[0], x - x0:x - x0 + blob.shape[1]] = blob
    band = np.asarray(cv2.dilate(inside, np.ones((2 * pad + 1, 2 * pad + 1), np.uint8)), np.uint8) & (1 - inside)
    if cut is not None:
        band[y - y0:y - y0 + cut.shape[0], x - x0:x - x0 + cut.shape[1]] &= 1 - cut
    labels = frame.labels[y0:y1, x0:x1][band > 0]
    return float(np.mean(labels == BACKGROUND)) if labels.size else 0.0


def waist(blob: NDArray[np.uint8], angle: float) -> float:
    """The narrowest width across the middle three fifths of a patch along its long side (rotated
    by ``angle`` degrees), over its widest width anywhere (a courtier's waist, a face's none)."""
    h, w = blob.shape
    pad = max(h, w)
    big = cv2.copyMakeBorder(blob, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    middle = (big.shape[1] / 2.0, big.shape[0] / 2.0)
    turned = cv2.warpAffine(big, cv2.getRotationMatrix2D(middle, angle, 1.0), (big.shape[1], big.shape[0]),
                            flags=cv2.INTER_NEAREST)
    widths = turned.sum(axis=0).astype(np.float32)
    widths = widths[widths > 0]
    if len(widths) < 5:
        return 1.0
    smooth = np.convolve(widths, np.ones(3, np.float32) / 3.0, mode="same")
    k = len(smooth) // 5
    return float(smooth[k:len(smooth) - k].min()) / max(float(smooth.max()), 1.0)
