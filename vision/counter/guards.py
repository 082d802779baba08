"""Guards: what makes a frame unusable rather than counted -- a hand over the walls, something
large of no colour (a coin, a finger), a flat disc the size of a coin that looks like the plate or,
leaning on cubes, mirrors them (its outline a nearly perfect circle, or its rim one round edge), a
round patch of a cube colour wider than any face."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.colour import BACKGROUND, UNKNOWN, bgr_to_lab
from vision.counter.coin_circles import (
    coin_sized_circles,
    ellipse_rim,
    is_plain_disc,
    rim_arc,
)
from vision.counter.frame import (
    Core,
    Frame,
    Prepared,
    enclosing_radius,
    grey_spread,
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


FLAT_DISC = "a flat disc"  # how a flat coin's detection note begins (coin_refusal tells the two refusals apart)


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
    (``DISC_ANY_FACE_PERFECTNESS``). A coin tilted among cubes and partly hidden by them is found
    only at the search's loosest bar, neither plain nor near-perfect there; it is refused where its
    rim is an edge across the circle over a long unbroken arc (:func:`rim_arc_degrees`,
    ``DISC_OUTLINE_RIM_DEG``) that stays across the radius as a round rim does
    (:func:`rim_arc`, ``DISC_RIM_MAX_TURN_DEG``), which the straight edges of cubes do not
    draw, even where several of them follow a circle; or, a coin tilted so
    far that a circle fits it only at its ends, where its rim is an ellipse of a coin's size over
    as long an arc (:func:`ellipse_rim`)."""
    assert frame.gray is not None
    found = coin_sized_circles(prep, frame, perfectness)
    t = prep.tuning
    pending: list[tuple[str, str | None, NDArray[Any], int, float, str | None]] = []
    taken: list[tuple[float, float, float]] = []

    def refuse(x: float, y: float, r: float, note: str) -> None:
        taken.append((x, y, r))
        pending.append(("foreign", None, _disc_outline(x, y, r), 1, 1.0, note))

    for x, y, r in found.flat:
        if is_plain_disc(prep, frame, (x, y), r):
            refuse(x, y, r, f"{FLAT_DISC} {2 * r / PPM:.0f} mm across")
    for x, y, r in found.perfect:
        refuse(x, y, r, f"a round object {2 * r / PPM:.0f} mm across with a near-perfect outline")
    for x, y, r in found.outlined:
        if any(np.hypot(x - f[0], y - f[1]) < max(r, f[2]) for f in taken):
            continue  # the same coin, refused already
        rim = rim_arc(frame.gray, (x, y), r, t.DISC_RIM_GRADIENT)
        if rim.degrees >= t.DISC_OUTLINE_RIM_DEG and rim.turn <= t.DISC_RIM_MAX_TURN_DEG:
            refuse(x, y, r, f"a round object {2 * r / PPM:.0f} mm across, its rim unbroken over {rim.degrees} degrees")
            continue
        tilted = ellipse_rim(frame.gray, (x, y), r, t.DISC_RIM_GRADIENT)
        if tilted.arc >= t.DISC_OUTLINE_RIM_DEG and tilted.coin_sized(t):
            refuse(x, y, r, f"a round object seen tilted ({tilted.major_px / PPM:.0f} x {tilted.minor_px / PPM:.0f} mm), "
                            f"its rim unbroken over {tilted.arc} degrees")
    return frame.detections(pending)


def coin_refusal(discs: list[Detection]) -> str:
    """Why a frame with coins found by :func:`flat_discs` is refused, in the user's words: a flat
    disc where every one lies flat, else a round object (a coin leaning or tilted among cubes)."""
    if all((d.note or "").startswith(FLAT_DISC) for d in discs):
        return "a flat round object the size of a coin is in the tray: it is not a cube; remove it and count again"
    return "a round object the size of a coin is in the tray (a coin, tilted?): it is not a cube; remove it and count again"


def _disc_outline(x: float, y: float, r: float) -> NDArray[Any]:
    """A found circle's outline (tray-view pixels), for its detection on the annotated photo."""
    return np.asarray(cv2.ellipse2Poly((int(round(x)), int(round(y))), (int(r), int(r)), 0, 0, 360, 10))


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
