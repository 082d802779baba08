"""Faces, not blobs: every pixel's colour class, and one core per visible top face.

Under the ring light a cube's top face is bright and even, its bevelled edges and the gaps to its
neighbours thin dark seams. Removing seam pixels (a black-hat filter, relative to the local
brightness so it works for black cubes as for yellow) splits touching cubes of one colour into one
*core* per visible face; dark side faces are thin slivers and are dropped by their inscribed radius.
Three corrections to the pixel classes: a zone whose pixels flip between two cube colours (an unlit
face between two colours' gates) takes one colour (:func:`one_colour_where_speckled`), a zone whose
pixels flip between one colour and none takes that colour (:func:`one_colour_where_noisy`), and a
small black patch brighter than any black top is the floor in a gap's shade (:func:`cores`).
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.colour import BACKGROUND, CODE_COLOUR, COLOUR_CODES, UNKNOWN, bgr_to_lab, mean_lab
from vision.counter.frame import (
    Core,
    Frame,
    Prepared,
    centroid_in_wider_box,
    largest_contour,
    ringed_box,
    roundness,
)
from vision.counter.merged import parts, summits
from vision.counter.tuning import FACE_AREA_MM2, PPM


def labels(prep: Prepared, frame: Frame) -> NDArray[Any]:
    """Class codes of the tray view. A pixel that sensor noise threw out of every class takes the
    class of its 3 x 3 median colour; every pixel that did match a class keeps its own."""
    out = prep.classifier.classify(frame.tray, frame.level)
    holes = out == UNKNOWN
    if holes.any():
        smooth = cv2.medianBlur(frame.tray, 3)[holes]
        out[holes] = prep.classifier.classify(smooth.reshape(-1, 1, 3), frame.level).reshape(-1)
    one_colour_where_speckled(prep, frame, out)
    one_colour_where_noisy(prep, frame, out)
    return out


def one_colour_where_noisy(prep: Prepared, frame: Frame, lab: NDArray[Any]) -> None:
    """Give a face whose pixels flip between one colour and no class that colour (edits ``lab``).
    A top whose mean colour lies near the edge of its colour's gate (lit from the wall beside it, or
    from an angle the calibration never saw) loses pixel after pixel to noise, a 3 x 3 median
    cannot win them back, and the seam filter's opening then breaks what is left into crumbs
    with no core: a wholly visible cube goes uncounted (tuning 5411 t0019, a green cube by the
    wall, 0.84 visible, 40 % of its pixels in no class). Where, in a ``SPECKLE_WINDOW_MM`` window,
    at least ``NOISY_MIN_UNKNOWN`` of the pixels are in no class and ``NOISY_MIN_COLOUR`` in one
    colour, together ``NOISY_MIN_BOTH``, over a zone with an inscribed radius of
    ``SPECKLE_MIN_RADIUS_MM``, and the zone's mean colour passes the colour's face gate
    (``FACE_GATE``), its unclassed pixels take the colour. A face's rim or a seam is a line of
    unclassed pixels, too thin for such a zone; a coin or a hand's mean colour is no cube's."""
    t = prep.tuning
    unknown = lab == UNKNOWN
    if not unknown.any():
        return
    k = max(3, int(round(t.SPECKLE_WINDOW_MM * PPM)) | 1)
    unknown_share = cv2.boxFilter(unknown.view(np.uint8), cv2.CV_32F, (k, k), borderType=cv2.BORDER_CONSTANT)
    radius = t.SPECKLE_MIN_RADIUS_MM * PPM
    # Every colour's zone lies where enough pixels are in no class: most frames have no such
    # place wide enough (a face's rim is a line), and the colours need not be looked at.
    noisy = unknown_share >= t.NOISY_MIN_UNKNOWN
    if reaching(noisy.view(np.uint8), radius) is None:
        return
    for colour, code in COLOUR_CODES.items():
        is_colour = lab == code
        if not is_colour.any():
            continue
        share = cv2.boxFilter(is_colour.view(np.uint8), cv2.CV_32F, (k, k), borderType=cv2.BORDER_CONSTANT)
        zone = (noisy & (share >= t.NOISY_MIN_COLOUR) & (unknown_share + share >= t.NOISY_MIN_BOTH)
                & (is_colour | unknown)).view(np.uint8)
        for inside in wide_zones(zone, radius):
            colour_lab = mean_lab(frame.tray, inside.view(np.uint8), frame.level).reshape(1, 3)
            if float(prep.models[colour].mahalanobis2(colour_lab)[0]) <= t.FACE_GATE:
                lab[inside & unknown] = code


def one_colour_where_speckled(prep: Prepared, frame: Frame, lab: NDArray[Any]) -> None:
    """Give each speckled zone one colour (edits ``lab``). The faces of a cube leaning away from
    the ring light are darker and more saturated than any calibrated top, and can fall between two
    colours' gates (a dark blue between blue and purple): sensor noise then flips pixel after pixel
    between the two, and neither keeps a core, so a wholly visible cube goes uncounted. Where two
    cubes of different colours meet, the pixels with a neighbour of another cube colour form a line;
    in such a zone they are most of it. A zone where they are at least ``SPECKLE_DENSITY`` of a
    ``SPECKLE_WINDOW_MM`` window, wider than the band along a line can be (an inscribed radius of
    ``SPECKLE_MIN_RADIUS_MM``), takes whichever of its two main colours' calibrated models its mean
    colour lies nearer to."""
    t = prep.tuning
    cube = (lab - np.uint8(1)) < len(COLOUR_CODES)  # codes 1..6 (the floor's 0 wraps to 255)
    h = (lab[:, 1:] != lab[:, :-1]) & cube[:, 1:] & cube[:, :-1]
    v = (lab[1:, :] != lab[:-1, :]) & cube[1:, :] & cube[:-1, :]
    mixed = np.zeros(lab.shape, np.bool_)
    mixed[:, 1:] |= h
    mixed[:, :-1] |= h
    mixed[1:, :] |= v
    mixed[:-1, :] |= v
    k = max(3, int(round(t.SPECKLE_WINDOW_MM * PPM)) | 1)
    near = cv2.boxFilter(mixed.view(np.uint8), cv2.CV_16U, (k, k), normalize=False, borderType=cv2.BORDER_CONSTANT)
    zone = ((near >= t.SPECKLE_DENSITY * k * k) & cube).view(np.uint8)
    radius = t.SPECKLE_MIN_RADIUS_MM * PPM
    if cv2.countNonZero(zone) < math.pi * radius * radius:  # too few for one zone wide enough (most frames)
        return
    for inside in wide_zones(cv2.morphologyEx(zone, cv2.MORPH_CLOSE, prep.k3), radius):
        region = inside & cube
        votes = np.bincount(lab[region], minlength=len(COLOUR_CODES) + 1)
        main = [int(c) for c in np.argsort(votes)[::-1][:2] if votes[c] > 0]  # cube codes only: region is cube
        colour = mean_lab(frame.tray, region.astype(np.uint8), frame.level).reshape(1, 3)
        best = min(main, key=lambda c: float(prep.profile.colours[CODE_COLOUR[c]].mahalanobis2(colour)[0]))
        lab[region] = best  # the zone's rim, less dense, keeps its flips: the core is in the zone


def wide_zones(zone: NDArray[Any], radius: float) -> list[NDArray[np.bool_]]:
    """The connected parts of ``zone`` (0/1) whose inscribed radius is ``radius`` pixels or more: a
    face's worth of flipping pixels, not a band along a line. Most frames have none, and leave after
    a count of the zone's pixels."""
    dist = reaching(zone, radius)
    if dist is None:
        return []
    n, comp = cv2.connectedComponents(zone)
    return [inside for inside in (comp == i for i in range(1, n)) if dist[inside].max() >= radius]


def reaching(zone: NDArray[Any], radius: float) -> NDArray[np.float32] | None:
    """The distance transform of ``zone`` (0/1) where some place in it is ``radius`` pixels from
    its edge, else None: first by its pixel count alone, which settles most frames."""
    if cv2.countNonZero(zone) < math.pi * radius * radius:
        return None
    dist = np.asarray(cv2.distanceTransform(zone, cv2.DIST_L2, 3), np.float32)
    return dist if float(dist.max()) >= radius else None


def shadow_is_not_black(prep: Prepared, frame: Frame) -> None:
    """Floor in an arm's shadow can be as dark as a black cube, but not next to the floor around
    it: "black" pixels brighter than ``prep.black_ratio`` of the local floor level are floor.
    Twice, so floor won back from the shadow informs the level inside it. Edits ``frame.labels``."""
    lab, gray = frame.labels, frame.gray
    assert lab is not None and gray is not None
    black = COLOUR_CODES["black"]
    if not (lab == black).any():
        return
    small_size = (max(1, int(round(gray.shape[1] / PPM / 2))), max(1, int(round(gray.shape[0] / PPM / 2))))
    sigma = prep.tuning.FLOOR_LEVEL_SIGMA_MM / 2
    small = cv2.resize(gray, small_size, interpolation=cv2.INTER_AREA).astype(np.float32)
    grey = gray.astype(np.float32)
    for _ in range(2):
        is_black = lab == black
        floor = cv2.resize((lab == BACKGROUND).astype(np.float32), small_size, interpolation=cv2.INTER_AREA)
        num = cv2.GaussianBlur(small * floor, (0, 0), sigma)
        den = cv2.GaussianBlur(floor, (0, 0), sigma)
        if float(den.max()) <= 1e-3:
            return
        wide_num = cv2.GaussianBlur(num, (0, 0), 2 * sigma)
        wide_den = cv2.GaussianBlur(den, (0, 0), 2 * sigma)
        level = np.where(den > 0.05, num / np.maximum(den, 1e-6), wide_num / np.maximum(wide_den, 1e-6))
        level = cv2.resize(level, (gray.shape[1], gray.shape[0]), interpolation=cv2.INTER_LINEAR)
        lit = is_black & (grey > prep.black_ratio * level)
        if not lit.any():
            return
        lab[lit] = BACKGROUND


def _not_seam(prep: Prepared, gray: NDArray[Any]) -> NDArray[Any]:
    """1 where a pixel lies less than ``SEAM_DEPTH`` of the local level (plus ``SEAM_FLOOR``) below
    it, else 0. The bound per level is looked up (``Prepared.seam_limit``), where it was worked out
    in float32 for every pixel: the same comparison, in bytes."""
    smooth = cv2.GaussianBlur(gray, (5, 5), 0)  # a black top's sensor noise is as deep as its seams
    closed = cv2.morphologyEx(smooth, cv2.MORPH_CLOSE, prep.seam_kernel)
    depth = cv2.subtract(closed, smooth)
    return (depth <= cv2.LUT(closed, prep.seam_limit)).view(np.uint8)


def cores(prep: Prepared, frame: Frame) -> list[Core]:
    """One core per visible face (or faces merged where a seam was missed), per colour."""
    t = prep.tuning
    lab, gray, tray = frame.labels, frame.gray, frame.tray
    assert lab is not None and gray is not None
    not_seam = _not_seam(prep, gray)
    out: list[Core] = []
    height, width = lab.shape
    frame.colour_boxes = {}
    for colour, code in COLOUR_CODES.items():
        is_colour = (lab == code).view(np.uint8)
        bx, by, bw, bh = cv2.boundingRect(is_colour)
        if bw == 0 or bh == 0:
            continue
        # Work in the colour's bounding box (padded): the same result, a fraction of the pixels.
        ox, oy = max(bx - 3, 0), max(by - 3, 0)
        box = (slice(oy, min(by + bh + 3, height)), slice(ox, min(bx + bw + 3, width)))
        frame.colour_boxes[colour] = (is_colour[box], ox, oy)
        mask = cv2.morphologyEx(is_colour[box] & not_seam[box], cv2.MORPH_OPEN, prep.k3)
        # Components and distances over the opened mask's own box and a pixel round it: the
        # colour's box also spans its stray pixels, mostly empty yet as costly to label. The ring
        # of 0 keeps every distance; the centroids are given as over the colour's box.
        ringed = ringed_box(mask)
        if ringed is None:
            continue
        mask, cx, cy = ringed
        n, comp, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=4)
        box_x, box_y = ox, oy
        ox, oy = ox + cx, oy + cy
        dist = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
        means: list[NDArray[Any]] = []
        found: list[tuple[Any, ...]] = []
        # The components of a face's size or more, their statistics as Python numbers (indexing
        # OpenCV's arrays element by element costs more than the arithmetic done with them).
        kept = np.flatnonzero(stats[1:, cv2.CC_STAT_AREA] / PPM**2 >= 0.1 * FACE_AREA_MM2) + 1
        rows: list[list[int]] = np.asarray(stats, np.int32).tolist()
        for i in kept.tolist():
            lx, ly, w, h, px = rows[i]
            area_mm2 = px / PPM**2
            x, y = lx + ox, ly + oy
            sub = comp[ly:ly + h, lx:lx + w] == i
            sub8 = sub.view(np.uint8)  # the same pixels as 0/1 bytes, for OpenCV, without a copy
            r = float(cv2.minMaxLoc(dist[ly:ly + h, lx:lx + w], sub8)[1]) / PPM
            contour = None
            if r < t.HOLED_RADIUS_MM:
                # Sensor noise punches holes into a dark face: a hole is not an edge, measure filled.
                local = largest_contour(sub8)
                filled = np.zeros((h + 2, w + 2), np.uint8)
                cv2.drawContours(filled, [(local + 1).reshape(-1, 1, 2)], -1, 1, -1)
                r = float(cv2.distanceTransform(filled, cv2.DIST_L2, 3).max()) / PPM
                contour = local + np.array([x, y])
            if r < t.MIN_FACE_RADIUS_MM:
                continue
            if contour is None:
                contour = largest_contour(sub8) + np.array([x, y])
            rect_w, rect_h = cv2.minAreaRect(contour.astype(np.float32))[1]
            px_area = float(px)
            hull_area = max(cv2.contourArea(cv2.convexHull(contour.astype(np.int32, copy=False))), 1.0)
            small = area_mm2 < 1.5 * t.FACE_CORE_MM2
            if px_area / hull_area < t.MIN_SOLIDITY and small:
                continue
            # No part of one face is longer than its diagonal: a long thin sliver is a crevice. A
            # patch as wide as a quarter face is not thin: a face and a tilted cube beside it.
            if small and max(rect_w, rect_h) / PPM > t.MAX_FACE_LENGTH_MM and r < t.SLIVER_MAX_RADIUS_MM:
                continue
            means.append(np.asarray(cv2.mean(tray[y:y + h, x:x + w], sub8))[:3])
            found.append((i, area_mm2, r, px_area / max(rect_w * rect_h, 1.0),
                          roundness(contour), contour, rect_w, rect_h, sub, x, y, w, h))
        if not found:
            continue
        # Each pixel passed the colour's gate; the face's mean must pass it too (a dark crevice
        # only brushes black's edge pixel by pixel). One conversion for all of a colour's faces.
        labs = bgr_to_lab(np.array(means, np.float32).reshape(-1, 1, 3), frame.level).reshape(-1, 3)
        gated = prep.models[colour].mahalanobis2(labs) <= t.FACE_GATE
        for (i, area_mm2, r, square, rnd, contour, rect_w, rect_h, sub, x, y, w, h), lab_i, ok in zip(
                found, labs, gated, strict=True):
            if not ok:
                continue
            if colour == "black" and area_mm2 < t.GAP_MAX_MM2 and lab_i[0] > prep.black_gap_l:
                _to_floor(prep, lab, is_colour, sub, (x, y))  # floor in a gap's shade (Tuning.GAP_MAX_MM2)
                continue
            cut = parts(prep, sub, gray[y:y + h, x:x + w]) if area_mm2 > t.SINGLE_MAX_MM2 else ()
            # A face's distance transform, its own pixels only: where it has summits to count.
            peaks = (summits(prep, np.where(sub, dist[y - oy:y - oy + h, x - ox:x - ox + w], np.float32(0)))
                     if area_mm2 > t.SINGLE_MAX_MM2 and not cut else 1)
            centre = (centroid_in_wider_box(cents[i][0], rows[i][4], cx) + box_x,
                      centroid_in_wider_box(cents[i][1], rows[i][4], cy) + box_y)
            out.append(Core(colour, area_mm2, r, square, rnd, float(lab_i[0]), contour, centre, peaks,
                            max(rect_w, rect_h) / PPM, width_mm=min(rect_w, rect_h) / PPM, parts=cut))
    return out


def _to_floor(prep: Prepared, lab: NDArray[Any], is_colour: NDArray[Any], sub: NDArray[Any],
              origin: tuple[int, int]) -> None:
    """Relabel as floor a core (``sub`` at ``origin`` in the tray view) and the pixels of its colour
    within ``FACE_REACH_MM`` of it (its seam band), in the labels and in its colour's mask, so that
    no later stage reads them as an uncounted piece of a cube."""
    x, y = origin
    h, w = sub.shape
    pad = prep.reach_kernel.shape[0] // 2
    x0, y0 = max(x - pad, 0), max(y - pad, 0)
    x1, y1 = min(x + w + pad, lab.shape[1]), min(y + h + pad, lab.shape[0])
    near = np.zeros((y1 - y0, x1 - x0), np.uint8)
    near[y - y0:y - y0 + h, x - x0:x - x0 + w] = sub
    band = (cv2.dilate(near, prep.reach_kernel) > 0) & (is_colour[y0:y1, x0:x1] > 0)
    lab[y0:y1, x0:x1][band] = BACKGROUND
    is_colour[y0:y1, x0:x1][band] = 0
