"""Courtiers' heads found as balls: a shaded disc of one courtier colour, standing clear.

Seen from above, a standing courtier is its head: a ball about 9-10 mm across, lit by the ring
light at its top and turning away from it towards its rim, with a glossy highlight. At the tray
view's 3 pixels a millimetre the highlight and the rim's shade break its colour into ragged pieces
that the faces stage reads as a small face, a quarter face, or a square one, and a courtier is then
counted as a cube of its colour (on the tuning renders, 26 of 55 courtiers were missed so).

The ball's outline is still a circle in the grey view. Circles 7-12 mm across (OpenCV's
``HOUGH_GRADIENT_ALT``) are kept as heads when their inside is mostly one courtier colour
(``BALL_MIN_COLOUR_SHARE``), shaded as a ball is (grey level's spread over its mean at least
``BALL_MIN_SHADING``: a flat face under the ring light is even, 0.09 in the median) and clear of
that colour around it (at most ``BALL_MAX_RING_SHARE`` of a ring 1.2-1.6 radii out: a circle
fitted into a face or a pile of one colour has its colour all round). A head standing against a
cube of its colour has that cube in its ring, but the ball's colour stops at its circle, while a
face's corners go on past a circle fitted to it: so a circle whose ring holds its colour is still a
head when at most ``BALL_MAX_RIM_SHARE`` of the rim just outside it (1.0-1.15 radii) is that colour,
or ``BALL_MAX_RIM_SHARE_DEEP`` where it is shaded as deeply as no face is (``BALL_DEEP_SHADING``,
``BALL_DEEP_SHADING_BLACK``: cubes of its colour on two or three sides). A head whose colour stops at its circle all
round (ring clear, at most ``BALL_CLEAR_RIM_SHARE`` of the rim) needs less shading
(``BALL_MIN_SHADING_CLEAR``, ``BALL_MIN_SHADING_CLEAR_BLACK``): no square face has a rim so clear,
its corners lie there, and some lights shade a head standing alone hardly more than a face. The
cores of its colour that lie mostly inside the circle are its pieces: they are replaced by one core
marked ``ball``. A core the head covers in good part without lying mostly inside it is the head and
the cube it stands against read as one patch: the cube keeps what lies beyond the head.
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.colour import CODE_COLOUR, COLOUR_CODES, UNKNOWN
from vision.counter.frame import Core, Frame, Prepared, box_mask, largest_contour, replace_cores, roundness
from vision.counter.merged import parts, summits
from vision.counter.tuning import PPM


def heads_as_pawns(prep: Prepared, frame: Frame, cores: list[Core]) -> list[Core]:
    """``cores`` with the pieces of every ball found replaced by one core per ball (``ball``). A core
    of its colour the head covers in good part without lying mostly inside it (``BALL_MERGED_SHARE``
    of the head's area) is a cube the courtier stands against, read with its head as one patch: it
    keeps what lies beyond the head. So does a piece, where what lies beyond is face-sized."""
    assert frame.gray is not None and frame.labels is not None
    t = prep.tuning
    out = list(cores)
    for x, y, r, colour in balls(prep, frame):
        disc = np.zeros(frame.gray.shape, np.uint8)
        cv2.circle(disc, (int(round(x)), int(round(y))), int(round(t.BALL_PIECE_REACH * r)), 1, -1)
        pieces, merged = [], []
        for c in out:
            if c.colour != colour or c.strip:
                continue
            inside, total = _pixels_inside(c, disc)
            if inside / max(total, 1) >= t.BALL_PIECE_SHARE:
                pieces.append(c)
            elif inside >= t.BALL_MERGED_SHARE * math.pi * r * r:
                merged.append(c)
        beyond = [rest for c in pieces + merged for rest in _beyond(prep, frame, c, disc)]
        lightness = (sum(c.lightness * c.area_mm2 for c in pieces) / sum(c.area_mm2 for c in pieces)
                     if pieces else prep.pawn_l[colour])
        outline = np.asarray(cv2.ellipse2Poly((int(round(x)), int(round(y))), (int(round(r)), int(round(r))), 0, 0, 360, 15))
        # a head by the view's edge: its outline stops there, as a core found in the view does (the
        # stages after cut each core's box out of the view by its outline)
        outline = np.clip(outline, 0, (frame.gray.shape[1] - 1, frame.gray.shape[0] - 1))
        r_mm = r / PPM
        out = replace_cores(out, pieces + merged, Core(colour, math.pi * r_mm * r_mm, r_mm, math.pi / 4, 1.0, lightness,
                                                       outline, (x, y), length_mm=2 * r_mm, width_mm=2 * r_mm, ball=True))
        out += beyond
    return out


def balls(prep: Prepared, frame: Frame) -> list[tuple[float, float, float, str]]:
    """The heads in the tray view: ``(x, y, radius px, colour)``."""
    assert frame.gray is not None and frame.labels is not None
    t = prep.tuning
    lo, hi = (int(round(v * PPM)) for v in t.BALL_RADIUS_MM)
    found = cv2.HoughCircles(cv2.GaussianBlur(frame.gray, (3, 3), 0), cv2.HOUGH_GRADIENT_ALT, 1.5, 2 * lo,
                             param1=t.BALL_EDGE_THRESHOLD, param2=t.BALL_PERFECTNESS, minRadius=lo, maxRadius=hi)
    if found is None:
        return []
    out = []
    height, width = frame.gray.shape
    for x, y, r in found.reshape(-1, 3):
        x0, y0 = max(int(x - 1.7 * r), 0), max(int(y - 1.7 * r), 0)
        x1, y1 = min(int(x + 1.7 * r) + 1, width), min(int(y + 1.7 * r) + 1, height)
        yy, xx = np.mgrid[y0:y1, x0:x1]
        d = np.hypot(xx - x, yy - y) / r
        labels = frame.labels[y0:y1, x0:x1]
        inner = d <= 0.8
        codes = labels[inner]
        counts = np.bincount(codes[(codes >= 1) & (codes <= len(COLOUR_CODES))], minlength=len(COLOUR_CODES) + 1)
        code = int(np.argmax(counts))
        colour = CODE_COLOUR.get(code)
        classified = np.count_nonzero(codes != UNKNOWN)
        if (colour is None or colour not in prep.pawn_l or counts[code] < t.BALL_MIN_COLOUR_SHARE * classified
                or counts[code] < t.BALL_MIN_PAINTED_SHARE * inner.sum()):
            continue
        grey = frame.gray[y0:y1, x0:x1][inner].astype(np.float32)
        shading = float(grey.std()) / max(float(grey.mean()), 1.0)
        black = colour == "black"
        least = t.BALL_MIN_SHADING_BLACK if black else t.BALL_MIN_SHADING
        least_alone = t.BALL_MIN_SHADING_CLEAR_BLACK if black else t.BALL_MIN_SHADING_CLEAR
        if shading < min(least, least_alone):
            continue
        ring = (d >= 1.2) & (d <= 1.6)
        rim = (d >= 1.0) & (d <= 1.15)
        rim_share = np.count_nonzero(labels[rim] == code) / max(np.count_nonzero(rim), 1)
        clear_ring = np.count_nonzero(labels[ring] == code) <= t.BALL_MAX_RING_SHARE * max(np.count_nonzero(ring), 1)
        if clear_ring and rim_share <= t.BALL_CLEAR_RIM_SHARE and shading >= least_alone:
            # its colour stops at the circle all round, as a square face's corners do not
            out.append((float(x), float(y), float(r), colour))
            continue
        if shading < least:
            continue
        if not clear_ring:
            deep = t.BALL_DEEP_SHADING_BLACK if black else t.BALL_DEEP_SHADING
            most = t.BALL_MAX_RIM_SHARE_DEEP if shading >= deep else t.BALL_MAX_RIM_SHARE
            if rim_share > most:
                continue
        out.append((float(x), float(y), float(r), colour))
    return out


def _in_disc(core: Core, disc: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any], int, int]:
    """A core's pixels in its box (``box_mask``) and the disc mask over that box, cut alike to the
    view, with the box's corner ``(x, y)``."""
    mask, x, y = box_mask(core.contour)
    inside = disc[y:y + mask.shape[0], x:x + mask.shape[1]]
    return mask[:inside.shape[0], :inside.shape[1]], inside, x, y


def _pixels_inside(core: Core, disc: NDArray[Any]) -> tuple[int, int]:
    """How many of a core's pixels lie inside a disc mask, and how many it has."""
    mask, inside, _, _ = _in_disc(core, disc)
    return int(np.count_nonzero(mask & inside)), int(np.count_nonzero(mask))


def _beyond(prep: Prepared, frame: Frame, core: Core, disc: NDArray[Any]) -> list[Core]:
    """What of ``core`` lies beyond a head (outside ``disc``), each piece left after a 1-pixel opening
    that is at least a face's smallest (``MIN_FACE_AREA_MM2``) as a core of its own: a head standing
    between two cubes of its colour, read with both as one patch, leaves one on each side. Each
    piece's lightness is the core's; where it is larger than one cube shows, it is cut at its necks
    or its summits counted as the faces stage does (:mod:`vision.counter.merged`)."""
    mask, inside, x, y = _in_disc(core, disc)
    rest = cv2.morphologyEx(mask & (1 - inside), cv2.MORPH_OPEN, prep.k3)
    n, comp, stats, cents = cv2.connectedComponentsWithStats(rest, connectivity=4)
    out = []
    for i in range(1, n):
        area_mm2 = float(stats[i, cv2.CC_STAT_AREA]) / PPM**2
        if area_mm2 < prep.tuning.MIN_FACE_AREA_MM2:
            continue
        part = (comp == i).astype(np.uint8)
        contour = largest_contour(part)
        rect_w, rect_h = cv2.minAreaRect(contour.astype(np.float32))[1]
        dist = cv2.distanceTransform(part, cv2.DIST_L2, 3)
        cut: tuple[tuple[float, float, int], ...] = ()
        peaks = 1
        if area_mm2 > prep.tuning.SINGLE_MAX_MM2:
            assert frame.gray is not None
            cut = parts(prep, part > 0, frame.gray[y:y + part.shape[0], x:x + part.shape[1]])
            peaks = 1 if cut else summits(prep, dist)
        out.append(Core(core.colour, area_mm2, float(dist.max()) / PPM,
                        float(stats[i, cv2.CC_STAT_AREA]) / max(rect_w * rect_h, 1.0), roundness(contour), core.lightness,
                        contour + np.array([x, y]), (float(cents[i][0] + x), float(cents[i][1] + y)), peaks,
                        max(rect_w, rect_h) / PPM, width_mm=min(rect_w, rect_h) / PPM, parts=cut))
    return out
