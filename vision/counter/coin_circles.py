"""Circles the size of a coin in the grey tray view, and what their inside and rim show: the
measures the coin guard (:func:`vision.counter.guards.flat_discs`) decides on. A coin is round, so
the search is OpenCV's circle transform; what a circle holds (plate-like pixels, an even face, an
edge all along its rim) tells a coin from the circles that cubes around bare plate draw."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.colour import BACKGROUND, UNKNOWN
from vision.counter.frame import Frame, Prepared, grey_spread_under
from vision.counter.tuning import PPM, Tuning


class CoinCircles(NamedTuple):
    """The coin-sized circles of a frame (:func:`coin_sized_circles`), ``(x, y, radius)`` in
    tray-view pixels, by how they were found."""

    flat: list[tuple[float, float, float]]  # 17-22 mm, their middle plain: a coin's face lying flat?
    perfect: list[tuple[float, float, float]]  # their middle not plain, the outline nearly perfect
    outlined: list[tuple[float, float, float]]  # every circle at the loosest bar: judged by its rim


def coin_sized_circles(prep: Prepared, frame: Frame, perfectness: float | None = None) -> CoinCircles:
    """Circles the size of a coin in the grey tray view (OpenCV's ``HOUGH_GRADIENT_ALT``), in three
    lists: those 17-22 mm across whose middle may be a coin's face lying flat (mostly of no cube
    colour), found at ``perfectness`` (0..1, ``DISC_PERFECTNESS`` unless given); those whose middle
    is not plain but whose outline is nearly perfect (``DISC_ANY_FACE_PERFECTNESS``), their radius
    down to ``DISC_LEANING_MIN_RADIUS_MM`` (a leaning coin is seen as an ellipse, narrower one way
    than it is); and every circle of that range found at the loosest bar
    (``DISC_OUTLINE_PERFECTNESS``), for :func:`flat_discs` to judge by its rim alone. A leaning
    coin whose middle mirrors the plate goes the flat coin's way, and is refused only if its inside
    passes :func:`is_plain_disc` or its rim is long enough.

    The search over the whole view costs 3-4 ms on a pile, where cube edges give it many circles
    to weigh. It is made in two steps: a coarse one on the view scaled by ``DISC_COARSE_SCALE``,
    less strict (``DISC_COARSE_PERFECTNESS``), then the full-scale one only in a window around each
    coarse circle: first at the loosest bar, and where that finds a circle, again with the flat
    coin's radius range and perfectness where the circle's middle is mostly of no cube colour
    (``DISC_COARSE_MIN_PLAIN``), as a flat coin's is, with the near-perfect bar elsewhere. A
    window where the loosest search finds nothing holds nothing for the stricter ones."""
    assert frame.gray is not None and frame.labels is not None
    t = prep.tuning
    lo, hi = (int(r * PPM) for r in t.DISC_RADIUS_MM)
    leaning_lo = int(t.DISC_LEANING_MIN_RADIUS_MM * PPM)
    strict = t.DISC_PERFECTNESS if perfectness is None else perfectness
    loosest = min(t.DISC_OUTLINE_PERFECTNESS, strict)
    scale = t.DISC_COARSE_SCALE
    coarse = circles(cv2.resize(frame.gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA),
                     (int(lo * scale) - 1, int(hi * scale) + 1), t.DISC_EDGE_THRESHOLD,
                     min(t.DISC_COARSE_PERFECTNESS, strict))
    height, width = frame.gray.shape
    reach = hi + lo + 8  # the window holds every edge that a circle near the coarse one could use
    found = CoinCircles([], [], [])
    for cx, cy, _ in coarse:
        x, y = (cx + 0.5) / scale, (cy + 0.5) / scale
        x0, y0 = max(int(x - reach), 0), max(int(y - reach), 0)
        x1, y1 = min(int(x + reach) + 1, width), min(int(y + reach) + 1, height)
        window = frame.gray[y0:y1, x0:x1]
        loose = circles(window, (leaning_lo, hi), t.DISC_EDGE_THRESHOLD, loosest)
        if not loose:
            continue
        # windows overlap, and one coin may give a coarse circle of either kind: one circle each
        for fx, fy, fr in loose:
            _add_new(found.outlined, (fx + x0, fy + y0, fr), found.outlined)
        if plain_share_in_disc(frame.labels, (int(x), int(y)), lo // 2) >= t.DISC_COARSE_MIN_PLAIN:
            radii, bar, into = (lo, hi), strict, found.flat
        else:
            radii, bar, into = (leaning_lo, hi), t.DISC_ANY_FACE_PERFECTNESS, found.perfect
        for fx, fy, fr in circles(window, radii, t.DISC_EDGE_THRESHOLD, bar):
            _add_new(into, (fx + x0, fy + y0, fr), found.flat + found.perfect)
    return found


def _add_new(into: list[tuple[float, float, float]], circle: tuple[float, float, float],
             among: list[tuple[float, float, float]]) -> None:
    """``circle`` added to ``into`` unless one of ``among`` lies within 3 px of its centre."""
    if all(np.hypot(circle[0] - f[0], circle[1] - f[1]) > 3 for f in among):
        into.append(circle)


def circles(gray: NDArray[Any], radius_px: tuple[int, int], edge_threshold: float,
            perfectness: float) -> list[tuple[float, float, float]]:
    """Circles in a grey image, ``(x, y, radius)`` in its pixels, with radii in ``radius_px``, at
    least the smallest radius apart (OpenCV's ``HOUGH_GRADIENT_ALT``: the edge threshold, and how
    perfect a circle must be, 0..1)."""
    lo, hi = radius_px
    found = cv2.HoughCircles(np.ascontiguousarray(gray), cv2.HOUGH_GRADIENT_ALT, 1.5, max(lo, 1),
                             param1=edge_threshold, param2=perfectness, minRadius=lo, maxRadius=hi)
    return [] if found is None else [(float(x), float(y), float(r)) for x, y, r in found[0]]


def is_plain_disc(prep: Prepared, frame: Frame, centre: tuple[float, float], radius: float) -> bool:
    """Whether the inside of a circle (tray-view pixels) is a coin's face: mostly of no cube's
    colour (plate or nothing), its middle almost all of it, and evenly lit. A ring of cubes around
    a gap of bare plate makes a circle too, but half of its inside is cubes, cut by their edges and
    shadows; where a pale cube (yellow is about as grey as the plate) lies in the gap, it lies in
    the middle of the circle.

    A gap of bare plate can be all plate and even, too, where a bright patch of light falls
    between cubes (tuning seed 5416 ``t0005``: a clean pile refused as a flat coin). A coin's rim
    is still an edge across the circle over a long arc (``DISC_PLAIN_RIM_DEG``); the gap's edges
    are the cubes' straight sides and a shadow's, which meet the circle over short arcs.

    A cube lying over the rim of a coin is not the coin's face, yet spreads the disc's grey level
    (tuning seed 5408 ``t0007``: a green cube over a quarter of a flat brass coin, counted as nothing
    while the cubes beside it were misread). Such a disc passes where its pixels of no cube colour
    alone are evenly lit and its rim is an edge across the circle over a long unbroken arc
    (:func:`rim_arc_degrees`, ``DISC_COVERED_RIM_DEG``): a coin's rim is round, the edges of cubes
    around a gap of bare plate are straight and meet the circle only here and there."""
    face = plain_face(prep, frame, centre, radius)
    if face is None:
        return False
    assert frame.gray is not None
    t = prep.tuning
    rim = rim_arc_degrees(frame.gray, centre, radius, t.DISC_RIM_GRADIENT)
    return rim >= (t.DISC_PLAIN_RIM_DEG if face == EVEN_FACE else t.DISC_COVERED_RIM_DEG)


EVEN_FACE, COVERED_FACE = "even", "covered"


def plain_face(prep: Prepared, frame: Frame, centre: tuple[float, float], radius: float) -> str | None:
    """What the inside of a circle is of the faces :func:`is_plain_disc` takes for a coin's, before
    its rim is looked at: ``EVEN_FACE`` (mostly of no cube colour, its middle almost all of it, the
    whole disc evenly lit), ``COVERED_FACE`` (so, but even only on its pixels of no cube colour: a
    cube over the coin's rim), or None."""
    assert frame.gray is not None and frame.labels is not None
    t = prep.tuning
    at = (int(round(centre[0])), int(round(centre[1])))
    inside = np.zeros(frame.gray.shape, np.uint8)
    cv2.circle(inside, at, int(0.8 * radius), 1, -1)
    if (plain_share(frame.labels[inside > 0]) < t.DISC_MIN_PLAIN_SHARE
            or plain_share_in_disc(frame.labels, at, int(0.5 * radius)) < t.DISC_MIN_MIDDLE_PLAIN_SHARE):
        return None
    if grey_spread_under(frame.gray, inside) <= t.DISC_MAX_SHADING:
        return EVEN_FACE
    plain = inside & plain_pixels(frame.labels).view(np.uint8)
    return COVERED_FACE if grey_spread_under(frame.gray, plain) <= t.DISC_MAX_SHADING else None


RIM_BAND_PX = np.arange(-1.5, 1.6, 0.5)  # how far off the circle an edge may lie (the circle search's error)
RIM_ALONG_RADIUS = 0.85  # cosine of the largest angle between the edge's gradient and the radius
ELLIPSE_SPAN = (0.6, 1.4)  # where, in radii of the circle found, a tilted coin's rim is looked for
ELLIPSE_ALONG_RAY = 0.7  # cosine of the largest angle between the edge's gradient and the ray
ELLIPSE_FIT_PX = 1.5  # how far off the fitted ellipse a rim point may lie
_DEGREES = np.radians(np.arange(360))
_COS, _SIN = np.cos(_DEGREES), np.sin(_DEGREES)  # one ray a degree, for every rim measured


class EllipseRim(NamedTuple):
    """A tilted coin's rim (:func:`ellipse_rim`): the longest unbroken arc, in whole degrees seen
    from the circle's centre, and the fitted ellipse's axes in tray-view pixels."""

    arc: int
    major_px: float
    minor_px: float

    def coin_sized(self, tuning: Tuning) -> bool:
        """Whether the ellipse is a coin's seen tilted: its long axis within
        ``DISC_ELLIPSE_MAJOR_MM``, its short one at least ``DISC_ELLIPSE_MIN_ASPECT`` of it."""
        major, minor = self.major_px / PPM, self.minor_px / PPM
        low, high = tuning.DISC_ELLIPSE_MAJOR_MM
        return low <= major <= high and minor >= tuning.DISC_ELLIPSE_MIN_ASPECT * major


class RimArc(NamedTuple):
    """A circle's rim (:func:`rim_arc`): the longest unbroken arc along which an edge crosses the
    circle, in whole degrees, and how far on average its edges turn from the radius there."""

    degrees: int
    turn: float


def _gradients(gray: NDArray[Any], centre: tuple[float, float], reach: int
               ) -> tuple[NDArray[Any], NDArray[Any], float, float]:
    """The grey view's gradient (3 x 3 Sobel on a lightly blurred view) in a window ``reach``
    pixels around ``centre``, the view's edges replicated; and the centre in the window."""
    x0, y0 = int(centre[0]) - reach, int(centre[1]) - reach
    height, width = gray.shape
    window = gray[max(y0, 0):min(y0 + 2 * reach + 1, height), max(x0, 0):min(x0 + 2 * reach + 1, width)]
    window = cv2.copyMakeBorder(window, max(-y0, 0), max(y0 + 2 * reach + 1 - height, 0), max(-x0, 0),
                                max(x0 + 2 * reach + 1 - width, 0), cv2.BORDER_REPLICATE)
    smooth = cv2.GaussianBlur(window.astype(np.float32), (3, 3), 0)
    return (cv2.Sobel(smooth, cv2.CV_32F, 1, 0), cv2.Sobel(smooth, cv2.CV_32F, 0, 1),
            centre[0] - x0, centre[1] - y0)


def _longest_run(hit: NDArray[np.bool_]) -> tuple[int, int]:
    """Where the longest run of True in a ring of 360 degrees starts, and its length (the first of
    the longest, counted from the ring's first False)."""
    if hit.all():
        return 0, 360
    shift = int(np.argmin(hit))
    runs = np.diff(np.concatenate([[0], np.roll(hit, -shift).astype(np.int8), [0]]))
    starts, ends = np.flatnonzero(runs == 1), np.flatnonzero(runs == -1)
    if not len(starts):
        return 0, 0
    i = int(np.argmax(ends - starts))
    return (int(starts[i]) + shift) % 360, int(ends[i] - starts[i])


def rim_arc_degrees(gray: NDArray[Any], centre: tuple[float, float], radius: float, min_gradient: float) -> int:
    """The longest unbroken arc of a circle (tray-view pixels), in whole degrees, along which the
    grey view has an edge across the circle: within ``RIM_BAND_PX`` of it, a gradient of at least
    ``min_gradient`` (3 x 3 Sobel on a lightly blurred view) pointing along the radius."""
    return rim_arc(gray, centre, radius, min_gradient).degrees


def _rim_edges(gray: NDArray[Any], centre: tuple[float, float], radius: float,
               min_gradient: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per degree round a circle, the strongest edge across it within ``RIM_BAND_PX``: its
    gradient (0 where none is at least ``min_gradient`` and within ``RIM_ALONG_RADIUS`` of the
    radius) and how far it turns from the radius, in degrees (90 where there is none)."""
    reach = int(radius + RIM_BAND_PX[-1]) + 3
    gx, gy, cx, cy = _gradients(gray, centre, reach)
    cos, sin = _COS, _SIN
    strongest = np.zeros(360)
    turn = np.full(360, 90.0)
    for dr in RIM_BAND_PX:
        px = np.clip(np.round(cx + (radius + dr) * cos).astype(int), 0, 2 * reach)
        py = np.clip(np.round(cy + (radius + dr) * sin).astype(int), 0, 2 * reach)
        ex, ey = gx[py, px], gy[py, px]
        strength = np.hypot(ex, ey)
        along = np.abs(ex * cos + ey * sin)
        better = (strength >= min_gradient) & (along >= RIM_ALONG_RADIUS * strength) & (strength > strongest)
        strongest[better] = strength[better]
        turn[better] = np.degrees(np.arccos(np.clip(along[better] / strength[better], 0.0, 1.0)))
    return strongest, turn


def rim_arc(gray: NDArray[Any], centre: tuple[float, float], radius: float, min_gradient: float) -> RimArc:
    """A circle's longest rim arc (as :func:`rim_arc_degrees`), and how far, on average, its edges
    turn away from the radius along it, in degrees (per degree of the arc, the strongest edge in the
    band; 90 for a circle with no rim). A coin's rim is round, so its gradient points along the
    radius all the way (5-9 degrees on the tuning renders, noise); a chain of straight cube edges
    that happens to follow a coin-sized circle turns away from it along each edge, by up to 19
    degrees where an edge crosses the band's middle and 9.4 on average there (tuning seed 5417
    ``t0045``: two cubes leaning together, 174 degrees of arc, 13.3 degrees of turn)."""
    strongest, turn = _rim_edges(gray, centre, radius, min_gradient)
    start, length = _longest_run(strongest > 0)
    if length == 0:
        return RimArc(0, 90.0)
    return RimArc(length, float(turn[(start + np.arange(length)) % 360].mean()))


def ellipse_rim(gray: NDArray[Any], centre: tuple[float, float], radius: float, min_gradient: float) -> EllipseRim:
    """The rim of a coin seen tilted, an ellipse about a coin-sized circle found on it: along each
    ray from the circle's centre, the strongest edge across the ray (gradient at least
    ``min_gradient``, within ``ELLIPSE_ALONG_RAY`` of the ray) between ``ELLIPSE_SPAN`` radii; an
    ellipse fitted to those edges, three times over, each time without the edges more than
    ``ELLIPSE_FIT_PX`` off the last fit; and the longest unbroken run of rays whose edge lies on
    it. A circle fits a coin tilted far only at its ends (tuning seed 5414 ``t0009``: a nickel coin
    on its side, 20 x 14 mm, its circle's rim 96 degrees, its ellipse's 187); the edges of cubes
    near a circle lie on no one ellipse for long."""
    reach = int(ELLIPSE_SPAN[1] * radius) + 3
    gx, gy, cx, cy = _gradients(gray, centre, reach)
    cos, sin = _COS, _SIN
    rho = np.arange(ELLIPSE_SPAN[0] * radius, ELLIPSE_SPAN[1] * radius, 0.5)[:, None]  # one row per distance
    px = np.clip(np.round(cx + rho * cos).astype(int), 0, 2 * reach)
    py = np.clip(np.round(cy + rho * sin).astype(int), 0, 2 * reach)
    ex, ey = gx[py, px], gy[py, px]
    strength, across = np.hypot(ex, ey), np.abs(ex * cos + ey * sin)
    across[(strength < min_gradient) | (across < ELLIPSE_ALONG_RAY * strength)] = 0
    strongest = across.argmax(axis=0)  # per ray, the nearest of its strongest edges
    rays = np.flatnonzero(across[strongest, np.arange(360)] > 0)
    at = rho[strongest, 0]
    points = np.stack([cx + at[rays] * cos[rays], cy + at[rays] * sin[rays]], axis=1).astype(np.float32)
    kept = np.ones(len(rays), bool)
    for _ in range(3):
        if kept.sum() < 10:
            return EllipseRim(0, 0.0, 0.0)
        (ex0, ey0), (width, height), angle = cv2.fitEllipse(points[kept])
        if min(width, height) <= 1:
            return EllipseRim(0, 0.0, 0.0)
        c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        dx, dy = points[:, 0] - ex0, points[:, 1] - ey0
        u, v = (dx * c + dy * s) / (width / 2), (-dx * s + dy * c) / (height / 2)
        # how far off the ellipse, in pixels, roughly: the normalised radius's error at its scale
        kept = np.abs(np.hypot(u, v) - 1) * min(width, height) / 2 < ELLIPSE_FIT_PX
    hit = np.zeros(360, bool)
    hit[rays[kept]] = True
    return EllipseRim(_longest_run(hit)[1], max(width, height), min(width, height))


def plain_share_in_disc(labels: NDArray[Any], centre: tuple[int, int], radius: int) -> float:
    """Share of the plate or no colour at all in a disc of the tray view's class codes (pixels)."""
    disc = np.zeros(labels.shape, np.uint8)
    cv2.circle(disc, centre, radius, 1, -1)
    return plain_share(labels[disc > 0])


def plain_pixels(labels: NDArray[Any]) -> NDArray[np.bool_]:
    """Where class codes are the plate or no colour at all."""
    return np.asarray((labels == BACKGROUND) | (labels == UNKNOWN))


def plain_share(labels: NDArray[Any]) -> float:
    """Share of class codes that are the plate or no colour at all."""
    return float(np.count_nonzero(plain_pixels(labels))) / max(len(labels), 1)
