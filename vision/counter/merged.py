"""Merged faces: how many cubes one core stands for.

Up to the largest silhouette one cube can show from above (a tilted cube: its face times about
1.7), a core that fills its bounding rectangle and is no longer than a face's diagonal is one cube,
seen tilted (two flat cubes side by side fill a 10 x 20 rectangle). Beyond that, faces merged where
seams were missed: the area gives a bracket (every face whole: area over a face's core; faces
partly hidden by their neighbours, as in a pile: a first face and then about a face per extra
cube), and the faces counted part by part once the core is cut at its necks pick inside it. Where
the brightest part of touching faces is one clean top square, each piece of them beyond it large
enough to be a cube is one (:func:`pieces_beyond_top`): two cubes partly under a third.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.counter.frame import Core, Prepared, largest_contour
from vision.counter.tuning import PPM

# How sure each kind of reading is (multiplied into the frame's ``confidence``, kept as before; the
# decision model in vision.counter.doubt says how often each kind is actually wrong).
SMALL_FACE_SCORE = 0.9
TILTED_SCORE = 0.95
MERGED_SCORE = 0.9


@dataclass(frozen=True)
class Count:
    """What one core was read as: ``n`` cubes, read the way ``kind`` says, within ``lo..hi``."""

    n: int
    kind: str  # face | big_face | tilted | stacked | merged | touching | small | strip | corner | quarter
    score: float = 1.0
    doubt: str | None = None  # the doubt in words, for the reading's reason
    lo: int = 0
    hi: int = 0
    faces: float = 0.0  # the core's area in whole faces' cores (what the doubt model bins by)
    shade: float = 1.0  # its lightness over a flat top's of its colour (a leaning face is dimmer)
    steps: int = 0  # touching faces: the faces told apart by brightness steps (0: not measured)


def cubes_in(prep: Prepared, core: Core, gray: NDArray[Any] | None = None, side_band_mm: float = 0.0) -> Count:
    """How many cubes one core stands for, the kind of reading, and the doubt if any. ``gray`` (the
    frame's grey tray view) tells a whole top square from a lower cube beside it; ``side_band_mm``
    is how far a flat cube where the core lies shows its sides beyond its top
    (:func:`vision.counter.partial.side_band_mm`)."""
    dimmed = shade(prep, core)
    count = _cubes_in(prep, core, gray, side_band_mm, dimmed)
    return replace(count, faces=core.area_mm2 / prep.tuning.FACE_CORE_MM2, shade=dimmed)


def shade(prep: Prepared, core: Core) -> float:
    """A core's lightness over a flat top's of its colour (``Count.shade``; 1.0 where the colour has
    no calibrated top): a face leaning from the ring light is dimmer."""
    top = prep.top_l.get(core.colour, 0.0)
    return core.lightness / top if top > 0 else 1.0


def _cubes_in(prep: Prepared, core: Core, gray: NDArray[Any] | None, side_band_mm: float, dimmed: float) -> Count:
    t = prep.tuning
    a, face = core.area_mm2, t.FACE_CORE_MM2
    if core.corner:
        return Count(1, "corner", TILTED_SCORE, f"a patch {2 * core.radius_mm:.0f} mm across read as one cube "
                     "standing on an edge or a corner", 0, 1)
    if core.strip:
        return Count(1, "strip", SMALL_FACE_SCORE, f"a strip of {a:.0f} mm2 around other cubes taken for a cube under them", 0, 1)
    if a < t.SMALL_FACE_MM2:
        return Count(1, "small", SMALL_FACE_SCORE, f"a small patch {a:.0f} mm2 taken for a partly hidden cube", 0, 1)
    if a <= t.SINGLE_MAX_MM2 and core.squareness >= t.SINGLE_SQUARENESS and core.length_mm <= t.MAX_FACE_LENGTH_MM:
        big = a > face * 1.4
        return Count(1, "big_face" if big else "face", TILTED_SCORE if big else 1.0, None, 1, 1 + big)
    if a <= t.SINGLE_MAX_MM2 and core.length_mm <= t.TILTED_MAX_LENGTH_MM and core.width_mm <= t.TILTED_MAX_WIDTH_MM:
        # It fits in what one tilted cube shows: one cube whose outline noise made ragged.
        big = a > 1.4 * face
        return Count(1, "tilted" if big else "face", TILTED_SCORE,
                     f"a patch of {a:.0f} mm2, not square, read as one tilted cube" if big else None, 1, 1 + big)
    if (a <= t.SINGLE_MAX_MM2 and core.squareness >= t.FLAT_SIDES_SQUARENESS
            and core.length_mm - side_band_mm <= t.FLAT_SIDES_MAX_LENGTH_MM
            and core.width_mm - side_band_mm <= t.FLAT_SIDES_MAX_WIDTH_MM):
        # One flat cube and the sides it turns to the camera (TILTED_MAX_* allow no such band).
        big = a > 1.4 * face
        return Count(1, "tilted" if big else "face", TILTED_SCORE,
                     f"a patch of {a:.0f} mm2 read as one cube showing its sides" if big else None, 1, 1 + big)
    whole = max(1, int(round(a / face)))
    if a <= t.SINGLE_MAX_MM2 and whole == 1 and gray is not None and beyond_top_square(prep, gray, core) >= t.BEYOND_TOP_MM2:
        # Neither a flat nor a tilted cube's outline, yet a whole, clean top square: the colour
        # beyond it is another cube's top, of the same colour, partly under this one.
        return Count(2, "stacked", MERGED_SCORE, f"a patch of {a:.0f} mm2 read as a cube's top and a cube under it", 1, 2)
    if a <= t.SINGLE_MAX_MM2:
        if whole == 1:
            return Count(1, "face", 1.0, None, 1, 2)
        return Count(whole, "merged", MERGED_SCORE,
                     f"a patch of {a:.0f} mm2 taken for {whole} cubes, one partly on another", whole - 1, whole)
    piled = max(1, 1 + int(round((a - t.PILE_FIRST_MM2) / t.PILE_NEXT_MM2)))
    lo, hi = min(whole, piled), max(whole, piled)
    guess = sum(cubes_in_part(prep, *p) for p in core.parts) if core.parts else core.summits
    n = int(min(max(guess, lo), hi))
    cut = step_cells(prep, core, gray) if gray is not None else 0
    if cut > n:
        # More faces told apart by their brightness than the area and necks give: on the tuning
        # renders such a patch held one cube more every time (a cube partly hidden in a pile).
        n = n + 1
        hi = max(hi, n)
    if piled < whole and n == whole and cut < whole and dimmed < t.PILE_DARK_SHADE:
        # Leaning faces (darker than flat tops) each show a side too: the pile's area per cube.
        n = piled
    if n < hi and gray is not None:
        # Each piece beyond a clean top square is another cube's top or side: a cube partly under it.
        n = min(hi, max(n, 1 + sum(a >= t.PEEL_PIECE_MM2 for a in pieces_beyond_top(prep, gray, core))))
    if lo == hi:
        return Count(n, "touching", MERGED_SCORE, None, lo, hi, steps=cut)
    return Count(n, "touching", MERGED_SCORE ** (hi - lo + 1),
                 f"touching faces of {a:.0f} mm2 read as {n} cubes ({lo} to {hi} possible)", lo, hi, steps=cut)


def step_cells(prep: Prepared, core: Core, gray: NDArray[Any]) -> int:
    """Faces in touching faces of one colour told apart by brightness steps. No two cubes are
    painted alike (the paint's value varies by several per cent) nor lit alike (a higher one is
    nearer the ring light), so where two faces meet without a seam the grey level steps: pixels
    whose grey gradient exceeds ``STEP_SHARE`` of the patch's median level are cut, and each calm
    cell left of at least ``STEP_CELL_MM2`` is a face, unless it is darker than ``STEP_MIN_LIT`` of
    the brightest cell: that is a side turned away from the ring light (a pale colour keeps its
    colour there), and all tops are lit about alike."""
    t = prep.tuning
    contour = core.contour.reshape(-1, 1, 2).astype(np.int32)
    x, y, w, h = cv2.boundingRect(contour)
    x0, y0 = max(x - 1, 0), max(y - 1, 0)
    patch: NDArray[Any] = cv2.medianBlur(np.ascontiguousarray(gray[y0:y + h + 1, x0:x + w + 1]), 3)
    mask = np.zeros(patch.shape, np.uint8)
    cv2.drawContours(mask, [contour - [x0, y0]], -1, 1, -1)
    grad = cv2.magnitude(cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3)) / 8.0
    level = max(float(np.median(np.asarray(patch, np.float64)[mask > 0])), 1.0)
    calm: NDArray[Any] = ((mask > 0) & (grad < t.STEP_SHARE * level)).astype(np.uint8)
    calm = cv2.morphologyEx(calm, cv2.MORPH_OPEN, prep.k3)
    n, comp, stats, _ = cv2.connectedComponentsWithStats(calm, connectivity=4)
    big = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= t.STEP_CELL_MM2 * PPM**2]
    if len(big) < 2:
        return len(big)
    levels = [float(np.median(patch[comp == i])) for i in big]
    return sum(1 for v in levels if v >= t.STEP_MIN_LIT * max(levels))


def beyond_top_square(prep: Prepared, gray: NDArray[Any], core: Core) -> float:
    """How much of a core lies beyond the top face of the cube it shows (mm2); 0 when its
    brightest part is not one whole, clean top face.

    The ring light sits by the camera, so a cube's top is the brightest part of its colour there; a
    lower cube's top beside it lies in its contact shadow. The top is the pixels within
    ``TOP_SHARE`` of the core's bright quartile; when they make one face-sized square filling its
    rectangle, what of the core lies outside that square is not this cube."""
    beyond = _beyond_top(prep, gray, core, prep.tuning.TOP_SHARE)
    return float(np.count_nonzero(beyond)) / PPM**2 if beyond is not None else 0.0


def pieces_beyond_top(prep: Prepared, gray: NDArray[Any], core: Core) -> list[float]:
    """The areas (mm2) of the pieces of a core beyond its top square, the top found at
    ``PEEL_TOP_SHARE`` of its bright quartile; none where it has no clean top square. Touching faces
    where two cubes lie partly under a third show as its top and a piece of each around it."""
    beyond = _beyond_top(prep, gray, core, prep.tuning.PEEL_TOP_SHARE)
    if beyond is None:
        return []
    n, _, stats, _ = cv2.connectedComponentsWithStats(beyond, connectivity=4)
    return [float(a) / PPM**2 for a in stats[1:n, cv2.CC_STAT_AREA]]


def _beyond_top(prep: Prepared, gray: NDArray[Any], core: Core, share: float) -> NDArray[Any] | None:
    """The pixels of a core beyond the square of its top (in the core's box, a pixel around it;
    opened by 3 pixels), the top being the pixels within ``share`` of its bright quartile; None
    where those do not make one face-sized square filling its rectangle."""
    t = prep.tuning
    height, width = gray.shape
    x, y, w, h = cv2.boundingRect(core.contour.astype(np.int32))
    x0, y0 = max(x - 2, 0), max(y - 2, 0)
    x1, y1 = min(x + w + 2, width), min(y + h + 2, height)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.drawContours(mask, [(core.contour - [x0, y0]).reshape(-1, 1, 2).astype(np.int32)], -1, 1, -1)
    grey = cv2.medianBlur(np.ascontiguousarray(gray[y0:y1, x0:x1]), 3).astype(np.float32)
    bright_level = float(np.percentile(grey[mask > 0], 75))
    top: NDArray[Any] = ((mask > 0) & (grey >= share * bright_level)).astype(np.uint8)
    top = cv2.morphologyEx(top, cv2.MORPH_OPEN, prep.k3)
    n, comp, stats, _ = cv2.connectedComponentsWithStats(top, connectivity=4)
    if n <= 1:
        return None
    top = (comp == 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))).astype(np.uint8)
    rect = cv2.minAreaRect(largest_contour(top).astype(np.float32))
    side_lo, side_hi = sorted(v / PPM for v in rect[1])
    if (np.count_nonzero(top) / max(rect[1][0] * rect[1][1], 1.0) < t.TOP_SQUARE_FILL
            or side_lo < t.TOP_SQUARE_SIDES_MM[0] or side_hi > t.TOP_SQUARE_SIDES_MM[1]):
        return None
    square = np.zeros_like(mask)
    cv2.fillPoly(square, [cv2.boxPoints(rect).round().astype(np.int32)], 1)
    return np.asarray(cv2.morphologyEx(((mask > 0) & (square == 0)).astype(np.uint8), cv2.MORPH_OPEN, prep.k3))


def cubes_in_part(prep: Prepared, area_mm2: float, length_mm: float, cells: int) -> int:
    """Cubes in one part of a merged core: one when no larger than one cube can show and no longer
    than a face's diagonal; else whole faces flush in a block where grooves split it into
    ``cells``, each with half a groove around it; else faces partly hidden by each other (a pile),
    each about a face's core."""
    t = prep.tuning
    if area_mm2 <= t.SINGLE_MAX_MM2 and length_mm <= t.MAX_FACE_LENGTH_MM:
        return 1
    if cells >= 2:
        return max(cells, int(round(area_mm2 / t.GROOVED_FACE_MM2)))
    return max(1, int(round(area_mm2 / t.FACE_CORE_MM2)))


def cells(prep: Prepared, part: NDArray[Any], gray: NDArray[Any]) -> int:
    """Faces in a part of a core that no neck divides, told apart by the grooves between them: any
    pixel darker than ``GROOVE_SHARE`` of the part's median brightness is groove; each cell left
    that is at least a quarter face's core is a face."""
    t = prep.tuning
    smooth = cv2.medianBlur(gray, 3)
    level = float(np.median(np.asarray(smooth, dtype=np.float64)[part > 0]))
    inside = (part > 0) & (smooth.astype(np.float32) >= t.GROOVE_SHARE * level)
    inside8 = cv2.morphologyEx(inside.astype(np.uint8), cv2.MORPH_OPEN, prep.k3)
    _, _, stats, _ = cv2.connectedComponentsWithStats(inside8, connectivity=4)
    return int(np.count_nonzero(stats[1:, cv2.CC_STAT_AREA] >= t.MIN_FACE_AREA_MM2 * PPM**2))


def parts(prep: Prepared, sub: NDArray[Any], gray: NDArray[Any]) -> tuple[tuple[float, float, int], ...]:
    """A core that merged several faces, cut at its necks: the part deeper than ``NECK_MM`` inside
    it falls apart into one piece per face, and every pixel goes to its nearest piece. ``sub``: the
    core's pixels (bool). Per part (area mm2, length mm, cells); empty when it does not fall apart."""
    t = prep.tuning
    contours, _ = cv2.findContours(sub.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros(sub.shape, np.uint8)
    cv2.drawContours(filled, contours, -1, 1, -1)  # holes punched by noise are no necks
    inside = filled > 0
    dist = cv2.distanceTransform(filled, cv2.DIST_L2, 3)
    seeds = (dist >= t.NECK_MM * PPM).astype(np.uint8)
    n, pieces, stats, _ = cv2.connectedComponentsWithStats(seeds, connectivity=8)
    small = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] < t.NECK_SEED_MM2 * PPM**2)
    small = small[small > 0]
    if small.size:
        seeds[np.isin(pieces, small)] = 0
    if n - 1 - small.size <= 1:
        return ()
    _, nearest = cv2.distanceTransformWithLabels(1 - seeds, cv2.DIST_L2, 3, labelType=cv2.DIST_LABEL_CCOMP)
    out = []
    for piece in np.unique(nearest[seeds > 0]):
        part = (inside & (nearest == piece)).astype(np.uint8)
        px = int(np.count_nonzero(part))
        if px == 0:
            continue
        area_mm2 = px / PPM**2
        if area_mm2 > t.SINGLE_MAX_MM2:  # more than one face whatever its length
            out.append((area_mm2, math.inf, cells(prep, part, gray)))
            continue
        (w, h) = cv2.minAreaRect(largest_contour(part).astype(np.float32))[1]
        out.append((area_mm2, max(w, h) / PPM, 1))
    return tuple(out) if len(out) > 1 else ()


def summits(prep: Prepared, dist: NDArray[Any]) -> int:
    """Separate summits of a core's distance transform: faces merged through missed seams."""
    t = prep.tuning
    summit = (dist >= cv2.dilate(dist, prep.summit_kernel)) & (dist >= t.SUMMIT_MIN_MM * PPM)
    n, _ = cv2.connectedComponents(summit.astype(np.uint8))
    return max(1, n - 1)
