"""Guards: what makes a frame unusable rather than counted -- a hand over the walls, something
large of no colour (a coin, a finger), a flat disc the size of a coin that looks like the plate or,
leaning on cubes, mirrors them (its outline a nearly perfect circle), a round patch of a cube colour
wider than any face."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.colour import BACKGROUND, UNKNOWN, bgr_to_lab
from vision.counter.frame import (
    Core,
    Frame,
    Prepared,
    enclosing_radius,
    grey_spread,
    grey_spread_under,
    largest_contour,
)
from vision.counter.tuning import PPM
from vision.plate import HAND_RING_MASK, PLATE_VIEW
from vision.reading import Detection


def hand_over_walls(prep: Prepared, frame: Frame) -> str | None:
    """A hand or finger reaching in crosses the plate right around the tray. Anything there that
    the classifier does not take for the grey plate (which it accepts under a shadow or another
    tint of light), that is coloured beyond what any light could tint the plate, and that is warmer
    than the plate, as skin is, is a hand.

    Skin of every tone is orange to brown, warmer than the grey plate (on the tuning renders the
    fingers' hue lies at 43-59 degrees, b* 11-19). The plate in the shade of a strong warm room
    light, lit by the ring light alone, is blue against a white balance taken in the warm light
    (held-out seed 4719 t0008: b* -15, 171 mm2 of it by the walls refused a clean tray): no hand."""
    labels = prep.classifier.classify(frame.plate, frame.level)
    odd = (labels != BACKGROUND) & (HAND_RING_MASK > 0)
    if odd.any():
        lab = bgr_to_lab(frame.plate[odd].reshape(-1, 1, 3), frame.level).reshape(-1, 3)
        beyond_light = np.hypot(lab[:, 1], lab[:, 2]) > dimmed_tint(prep, lab[:, 0], prep.hand_chroma)
        odd[odd] = beyond_light & (lab[:, 2] > prep.plate_b)
    # At the plate view's 1 px/mm a dark finger's pixels alternate between "no class" and "plate":
    # closed first, so that the opening keeps the finger and still drops lone pixels.
    odd8 = cv2.morphologyEx(cv2.morphologyEx(odd.astype(np.uint8), cv2.MORPH_CLOSE, prep.k3), cv2.MORPH_OPEN, prep.k3)
    area = float(cv2.countNonZero(odd8)) / (PLATE_VIEW.ppm**2)
    frame.debug["hand_area_mm2"] = area
    if area >= prep.tuning.HAND_AREA_MM2:
        return f"a hand or finger is over the tray ({area:.0f} mm2 of it on the plate by the walls)"
    return None


def colourless_objects(prep: Prepared, frame: Frame) -> list[Detection]:
    """Patches that match no colour and are wider than any cube face (inscribed radius)."""
    assert frame.labels is not None
    unknown = cv2.morphologyEx((frame.labels == UNKNOWN).astype(np.uint8), cv2.MORPH_OPEN, prep.k3)
    dist = cv2.distanceTransform(unknown, cv2.DIST_L2, 3)
    limit = prep.tuning.FOREIGN_RADIUS_MM
    frame.debug["foreign_radius_mm"] = float(dist.max()) / PPM
    if dist.max() < limit * PPM:
        return []
    n, comp = cv2.connectedComponents(unknown)
    pending: list[tuple[str, str | None, NDArray[Any], int, float, str | None]] = []
    for i in range(1, n):
        blob = comp == i
        r = float(dist[blob].max()) / PPM
        if r > prep.tuning.FOREIGN_MAX_RADIUS_MM and floor_in_other_light(prep, frame, blob):
            continue
        if r >= limit:
            pending.append(("foreign", None, largest_contour(blob.astype(np.uint8)), 1, 1.0,
                            f"{r * 2:.0f} mm wide, no colour"))
    return frame.detections(pending)


def floor_in_other_light(prep: Prepared, frame: Frame, blob: NDArray[Any]) -> bool:
    """Whether a patch of no colour (``blob``, a mask of the tray view) is the tray's floor in a
    light the profile never saw rather than an object: its median colour a tint of the plate that
    the room's light can give (``FLOOR_TINT``, as dim as it is: a shadow under a strong warm cast,
    lit by the ring light alone, is blue against a white balance set in the warm light)."""
    lab = bgr_to_lab(frame.tray[blob].reshape(-1, 1, 3), frame.level).reshape(-1, 3)
    light, chroma = float(np.median(lab[:, 0])), float(np.median(np.hypot(lab[:, 1], lab[:, 2])))
    return bool(chroma <= dimmed_tint(prep, light, prep.floor_chroma))


def dimmed_tint(prep: Prepared, lightness: Any, chroma: float) -> Any:
    """The chroma a tint that gives the plate ``chroma`` reaches at ``lightness`` (L*, one or many):
    a shadow dims the plate's tint with its light, so the bound shrinks with lightness, down to
    ``HAND_MIN_DIMMING`` of it: a dark brown finger (chroma 7-16 at L* 20-40) is no plate in shadow."""
    return chroma * np.clip(lightness / prep.plate_lightness, prep.tuning.HAND_MIN_DIMMING, 1.0)


def flat_discs(prep: Prepared, frame: Frame, perfectness: float | None = None) -> list[Detection]:
    """Coins: circles 17-22 mm across (:func:`coin_sized_circles`) whose inside is mostly of no
    cube's colour and evenly lit (:func:`is_plain_disc`), and circles 15-22 mm across whose middle
    is not plain but whose outline is nearly perfect. A nickel (or a pale brass) coin lying flat
    under the ring light is about as bright and grey as the plate, so the classifier takes its face
    for the plate and :func:`colourless_objects` never sees it; its dark rim or its shadow then
    reads as a sliver of a black cube, or it hides part of a cube. A polished coin leaning on cubes
    mirrors them instead: its face takes their colours (a tuning render's nickel coin read half red
    and half black, and the black half was counted as a cube), but its outline stays a smooth,
    nearly perfect ellipse, which no cube, pile or courtier draws at that size
    (``DISC_ANY_FACE_PERFECTNESS``)."""
    plain, perfect = coin_sized_circles(prep, frame, perfectness)
    pending: list[tuple[str, str | None, NDArray[Any], int, float, str | None]] = []
    for x, y, r in plain:
        if is_plain_disc(prep, frame, (x, y), r):
            pending.append(("foreign", None, _disc_outline(x, y, r), 1, 1.0,
                            f"a flat disc {2 * r / PPM:.0f} mm across"))
    for x, y, r in perfect:
        pending.append(("foreign", None, _disc_outline(x, y, r), 1, 1.0,
                        f"a round object {2 * r / PPM:.0f} mm across with a near-perfect outline"))
    return frame.detections(pending)


def _disc_outline(x: float, y: float, r: float) -> NDArray[Any]:
    """A found circle's outline (tray-view pixels), for its detection on the annotated photo."""
    return np.asarray(cv2.ellipse2Poly((int(round(x)), int(round(y))), (int(r), int(r)), 0, 0, 360, 10))


def coin_sized_circles(prep: Prepared, frame: Frame, perfectness: float | None = None
                       ) -> tuple[list[tuple[float, float, float]], list[tuple[float, float, float]]]:
    """Circles the size of a coin in the grey tray view, ``(x, y, radius)`` in its pixels (OpenCV's
    ``HOUGH_GRADIENT_ALT``), in two lists: those 17-22 mm across whose middle may be a coin's
    face lying flat (mostly of no cube colour), found at ``perfectness`` (0..1,
    ``DISC_PERFECTNESS`` unless given); and those whose middle is not plain but whose outline is
    nearly perfect (``DISC_ANY_FACE_PERFECTNESS``), their radius down to
    ``DISC_LEANING_MIN_RADIUS_MM`` (a leaning coin is seen as an ellipse, narrower one way than it
    is). A leaning coin whose middle mirrors the plate goes the flat coin's way, and is refused only
    if its inside passes :func:`is_plain_disc`.

    The search over the whole view costs 3-4 ms on a pile, where cube edges give it many circles
    to weigh. It is made in two steps: a coarse one on the view scaled by ``DISC_COARSE_SCALE``,
    less strict (``DISC_COARSE_PERFECTNESS``), then the full-scale one only in a window around each
    coarse circle: with the flat coin's radius range and perfectness where the circle's middle is
    mostly of no cube colour (``DISC_COARSE_MIN_PLAIN``), as a flat coin's is; with the near-perfect
    bar elsewhere."""
    assert frame.gray is not None and frame.labels is not None
    t = prep.tuning
    lo, hi = (int(r * PPM) for r in t.DISC_RADIUS_MM)
    leaning_lo = int(t.DISC_LEANING_MIN_RADIUS_MM * PPM)
    strict = t.DISC_PERFECTNESS if perfectness is None else perfectness
    scale = t.DISC_COARSE_SCALE
    coarse = circles(cv2.resize(frame.gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA),
                     (int(lo * scale) - 1, int(hi * scale) + 1), t.DISC_EDGE_THRESHOLD,
                     min(t.DISC_COARSE_PERFECTNESS, strict))
    height, width = frame.gray.shape
    reach = hi + lo + 8  # the window holds every edge that a circle near the coarse one could use
    plain: list[tuple[float, float, float]] = []
    perfect: list[tuple[float, float, float]] = []
    for cx, cy, _ in coarse:
        x, y = (cx + 0.5) / scale, (cy + 0.5) / scale
        flat = plain_share_in_disc(frame.labels, (int(x), int(y)), lo // 2) >= t.DISC_COARSE_MIN_PLAIN
        x0, y0 = max(int(x - reach), 0), max(int(y - reach), 0)
        x1, y1 = min(int(x + reach) + 1, width), min(int(y + reach) + 1, height)
        if flat:
            radii, bar, found = (lo, hi), strict, plain
        else:
            radii, bar, found = (leaning_lo, hi), t.DISC_ANY_FACE_PERFECTNESS, perfect
        for fx, fy, fr in circles(frame.gray[y0:y1, x0:x1], radii, t.DISC_EDGE_THRESHOLD, bar):
            circle = (fx + x0, fy + y0, fr)
            # windows overlap, and one coin may give a coarse circle of either kind: one circle each
            if all(np.hypot(circle[0] - f[0], circle[1] - f[1]) > 3 for f in plain + perfect):
                found.append(circle)
    return plain, perfect


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

    A cube lying over the rim of a coin is not the coin's face, yet spreads the disc's grey level
    (tuning seed 5408 ``t0007``: a green cube over a quarter of a flat brass coin, counted as nothing
    while the cubes beside it were misread). Such a disc passes where its pixels of no cube colour
    alone are evenly lit and its rim is an edge across the circle over a long unbroken arc
    (:func:`rim_arc_degrees`, ``DISC_COVERED_RIM_DEG``): a coin's rim is round, the edges of cubes
    around a gap of bare plate are straight and meet the circle only here and there."""
    assert frame.gray is not None and frame.labels is not None
    t = prep.tuning
    at = (int(round(centre[0])), int(round(centre[1])))
    inside = np.zeros(frame.gray.shape, np.uint8)
    cv2.circle(inside, at, int(0.8 * radius), 1, -1)
    if (plain_share(frame.labels[inside > 0]) < t.DISC_MIN_PLAIN_SHARE
            or plain_share_in_disc(frame.labels, at, int(0.5 * radius)) < t.DISC_MIN_MIDDLE_PLAIN_SHARE):
        return False
    if grey_spread_under(frame.gray, inside) <= t.DISC_MAX_SHADING:
        return True
    plain = inside & plain_pixels(frame.labels).view(np.uint8)
    return (grey_spread_under(frame.gray, plain) <= t.DISC_MAX_SHADING
            and rim_arc_degrees(frame.gray, centre, radius, t.DISC_RIM_GRADIENT) >= t.DISC_COVERED_RIM_DEG)


RIM_BAND_PX = np.arange(-1.5, 1.6, 0.5)  # how far off the circle an edge may lie (the circle search's error)
RIM_ALONG_RADIUS = 0.85  # cosine of the largest angle between the edge's gradient and the radius


def rim_arc_degrees(gray: NDArray[Any], centre: tuple[float, float], radius: float, min_gradient: float) -> int:
    """The longest unbroken arc of a circle (tray-view pixels), in whole degrees, along which the
    grey view has an edge across the circle: within ``RIM_BAND_PX`` of it, a gradient of at least
    ``min_gradient`` (3 x 3 Sobel on a lightly blurred view) pointing along the radius."""
    reach = int(radius + RIM_BAND_PX[-1]) + 3
    x0, y0 = int(centre[0]) - reach, int(centre[1]) - reach
    height, width = gray.shape
    window = gray[max(y0, 0):min(y0 + 2 * reach + 1, height), max(x0, 0):min(x0 + 2 * reach + 1, width)]
    window = cv2.copyMakeBorder(window, max(-y0, 0), max(y0 + 2 * reach + 1 - height, 0), max(-x0, 0),
                                max(x0 + 2 * reach + 1 - width, 0), cv2.BORDER_REPLICATE)
    smooth = cv2.GaussianBlur(window.astype(np.float32), (3, 3), 0)
    gx, gy = cv2.Sobel(smooth, cv2.CV_32F, 1, 0), cv2.Sobel(smooth, cv2.CV_32F, 0, 1)
    angle = np.radians(np.arange(360))
    cos, sin = np.cos(angle), np.sin(angle)
    cx, cy = centre[0] - x0, centre[1] - y0
    hit = np.zeros(360, bool)
    for dr in RIM_BAND_PX:
        px = np.clip(np.round(cx + (radius + dr) * cos).astype(int), 0, 2 * reach)
        py = np.clip(np.round(cy + (radius + dr) * sin).astype(int), 0, 2 * reach)
        ex, ey = gx[py, px], gy[py, px]
        strength = np.hypot(ex, ey)
        hit |= (strength >= min_gradient) & (np.abs(ex * cos + ey * sin) >= RIM_ALONG_RADIUS * strength)
    if hit.all():
        return 360
    runs = np.diff(np.concatenate([[0], np.roll(hit, -int(np.argmin(hit))).astype(np.int8), [0]]))
    return int((np.flatnonzero(runs == -1) - np.flatnonzero(runs == 1)).max(initial=0))


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


def coloured_objects(prep: Prepared, frame: Frame, cores: list[Core]) -> list[Core]:
    """Round patches of a cube colour wider than any face of a 10 mm cube that are evenly lit, as
    a flat disc is: a coin (a brass one looks yellow). Returned, to refuse the frame.

    A cube standing on a corner or an edge on a pile has a top-down outline about as wide and as
    round (a hexagon), but shows two or three faces turned differently to the light, and is
    narrower than a coin (``COIN_MIN_DIAMETER_MM`` across its enclosing circle: a pale yellow
    cube's faces may be lit nearly alike): such a patch is marked ``corner`` (in place) and read
    as one cube in doubt, so that the drop cycle settles it with the break-beam and the tower's
    ledger instead of refusing a clean tray."""
    assert frame.gray is not None
    t = prep.tuning
    odd = [c for c in cores if (c.radius_mm > t.FOREIGN_COLOURED_RADIUS_MM and c.roundness > 0.6)
           or (c.radius_mm > t.FOREIGN_ROUND_RADIUS_MM and c.roundness > t.FOREIGN_ROUNDNESS)]
    coins = []
    for c in odd:
        if grey_spread(frame.gray, c) <= t.COIN_MAX_SHADING and enclosing_diameter_mm(c) >= t.COIN_MIN_DIAMETER_MM:
            coins.append(c)
        else:
            c.corner = True
    return coins


def enclosing_diameter_mm(core: Core) -> float:
    """How wide a patch is across its smallest enclosing circle, in millimetres."""
    return 2.0 * enclosing_radius(core.contour) / PPM
