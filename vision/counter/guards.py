"""Guards: what makes a frame unusable rather than counted -- a hand over the walls, something
large of no colour (a coin, a finger), a flat disc the size of a coin that looks like the plate,
a round patch of a cube colour wider than any face."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.colour import BACKGROUND, UNKNOWN, bgr_to_lab
from vision.counter.frame import Core, Frame, Prepared, grey_spread, largest_contour
from vision.counter.tuning import PPM
from vision.plate import HAND_RING_MASK, PLATE_VIEW
from vision.reading import Detection


def hand_over_walls(prep: Prepared, frame: Frame) -> str | None:
    """A hand or finger reaching in crosses the plate right around the tray. Anything there that
    the classifier does not take for the grey plate (which it accepts under a shadow or another
    tint of light) and that is coloured beyond what any light could tint the plate is a hand."""
    labels = prep.classifier.classify(frame.plate, frame.level)
    odd = (labels != BACKGROUND) & (HAND_RING_MASK > 0)
    if odd.any():
        lab = bgr_to_lab(frame.plate[odd].reshape(-1, 1, 3), frame.level).reshape(-1, 3)
        # A shadow dims the plate's tint with its light, so the chroma a pixel must pass shrinks
        # with its lightness: a dark brown finger (chroma 7-16 at L* 20-40) is no plate in shadow.
        dim = np.clip(lab[:, 0] / prep.plate_lightness, prep.tuning.HAND_MIN_DIMMING, 1.0)
        odd[odd] = np.hypot(lab[:, 1], lab[:, 2]) > prep.hand_chroma * dim
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
        if r >= limit:
            pending.append(("foreign", None, largest_contour(blob.astype(np.uint8)), 1, 1.0,
                            f"{r * 2:.0f} mm wide, no colour"))
    return frame.detections(pending)


def flat_discs(prep: Prepared, frame: Frame, perfectness: float | None = None) -> list[Detection]:
    """Coins lying flat: circles 17-22 mm across (:func:`coin_sized_circles`) whose inside is mostly
    of no cube's colour and evenly lit (:func:`is_plain_disc`). A nickel (or a pale brass) coin under
    the ring light is about as bright and grey as the plate, so the classifier takes its face for the
    plate and :func:`colourless_objects` never sees it; its dark rim or its shadow then reads as a
    sliver of a black cube, or it hides part of a cube."""
    pending: list[tuple[str, str | None, NDArray[Any], int, float, str | None]] = []
    for x, y, r in coin_sized_circles(prep, frame, perfectness):
        if is_plain_disc(prep, frame, (x, y), r):
            centre = (int(round(x)), int(round(y)))
            outline = np.asarray(cv2.ellipse2Poly(centre, (int(r), int(r)), 0, 0, 360, 10))
            pending.append(("foreign", None, outline, 1, 1.0, f"a flat disc {2 * r / PPM:.0f} mm across"))
    return frame.detections(pending)


def coin_sized_circles(prep: Prepared, frame: Frame, perfectness: float | None = None) -> list[tuple[float, float, float]]:
    """Circles 17-22 mm across in the grey tray view, ``(x, y, radius)`` in its pixels (OpenCV's
    ``HOUGH_GRADIENT_ALT``). ``perfectness``: how perfect a circle must be to be found (0..1,
    ``DISC_PERFECTNESS`` unless given)."""
    assert frame.gray is not None
    t = prep.tuning
    lo, hi = (int(r * PPM) for r in t.DISC_RADIUS_MM)
    circles = cv2.HoughCircles(frame.gray, cv2.HOUGH_GRADIENT_ALT, 1.5, lo, param1=t.DISC_EDGE_THRESHOLD,
                               param2=t.DISC_PERFECTNESS if perfectness is None else perfectness,
                               minRadius=lo, maxRadius=hi)
    return [] if circles is None else [(float(x), float(y), float(r)) for x, y, r in circles[0]]


def is_plain_disc(prep: Prepared, frame: Frame, centre: tuple[float, float], radius: float) -> bool:
    """Whether the inside of a circle (tray-view pixels) is a coin's face: mostly of no cube's
    colour (plate or nothing), its middle almost all of it, and evenly lit. A ring of cubes around
    a gap of bare plate makes a circle too, but half of its inside is cubes, cut by their edges and
    shadows; where a pale cube (yellow is about as grey as the plate) lies in the gap, it lies in
    the middle of the circle."""
    assert frame.gray is not None and frame.labels is not None
    t = prep.tuning
    at = (int(round(centre[0])), int(round(centre[1])))
    inside = np.zeros(frame.gray.shape, np.uint8)
    cv2.circle(inside, at, int(0.8 * radius), 1, -1)
    middle = np.zeros(frame.gray.shape, np.uint8)
    cv2.circle(middle, at, int(0.5 * radius), 1, -1)
    mean, std = cv2.meanStdDev(frame.gray, mask=inside)
    spread = float(std[0, 0]) / max(float(mean[0, 0]), 1.0)
    return (plain_share(frame.labels[inside > 0]) >= t.DISC_MIN_PLAIN_SHARE
            and plain_share(frame.labels[middle > 0]) >= t.DISC_MIN_MIDDLE_PLAIN_SHARE
            and spread <= t.DISC_MAX_SHADING)


def plain_share(labels: NDArray[Any]) -> float:
    """Share of class codes that are the plate or no colour at all."""
    return float(np.count_nonzero((labels == BACKGROUND) | (labels == UNKNOWN))) / max(len(labels), 1)


def coloured_objects(prep: Prepared, frame: Frame, cores: list[Core]) -> list[Core]:
    """Round patches of a cube colour wider than any face of a 10 mm cube that are evenly lit, as
    a flat disc is: a coin (a brass one looks yellow). Returned, to refuse the frame.

    A cube standing on a corner or an edge on a pile has a top-down outline about as wide and as
    round (a hexagon), but shows two or three faces turned differently to the light: such a patch
    is marked ``corner`` (in place) and read as one cube in doubt, so that the drop cycle settles
    it with the break-beam and the tower's ledger instead of refusing a clean tray."""
    assert frame.gray is not None
    t = prep.tuning
    odd = [c for c in cores if (c.radius_mm > t.FOREIGN_COLOURED_RADIUS_MM and c.roundness > 0.6)
           or (c.radius_mm > t.FOREIGN_ROUND_RADIUS_MM and c.roundness > t.FOREIGN_ROUNDNESS)]
    coins = []
    for c in odd:
        if grey_spread(frame.gray, c) <= t.COIN_MAX_SHADING:
            coins.append(c)
        else:
            c.corner = True
    return coins
