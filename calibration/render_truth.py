"""Which counted patch shows which rendered piece: the ground truth the doubt model is fitted on.

A render's ground truth gives every piece's centre, rotation, size and visible fraction, not which
pixels it shows. Two ways to match pieces with the counted patches:

``"centre"`` (the fit's default): a piece belongs to the patch of its colour that holds its top's
centre, or lies nearest to it within a few millimetres. In a pile a cube partly under another has
its centre under the upper cube's face while what shows of it may be a sliver beside that face,
counted as a patch of its own: matched by centre, the face reads "one short" and the sliver "one
too many", though the colour's count is right (on 207 tuning scenes 35 of the 89 patches so marked
off were such pairs or parts of them).

``"shown"``: each piece is first drawn as the camera sees it (:func:`owners`: every piece's
outline, projected through the rendered camera onto the tray view, painted lowest first, so that
what a higher piece covers is not the lower one's), and matched to the patch of its colour that
overlaps most of what it shows; a piece overlapping no patch of its colour falls back to its top's
centre. This is the truer account of each patch, the one to study the stages' failures by.

The fit keeps ``"centre"``. Fitted on ``"shown"``, the decision model learned that a large face
beside a same-coloured cube partly under it is safe (the sliver counts that cube), and trusted a
wrong reading of a new tuning pile where the sliver had merged into the face (seed 9292,
``t0013``, stated 0.930 against a bar of 0.926); fitted on ``"centre"`` it keeps doubt on such faces,
trusted as many tuning scenes in cross-validation, and none of them wrongly
(``docs/counter-figures.md``, *The shipped fit*).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision import geometry as g
from vision.counter.frame import Core
from vision.counter.merged import Count
from vision.geometry import ALL_COLOURS
from vision.plate import TRAY_VIEW

PPM = TRAY_VIEW.ppm
MATCH_MM = 2.0  # a piece's top this far outside a patch still belongs to it
PARTIAL_MATCH_MM = 7.0  # ... and a partly hidden one's top this far (its visible part is off-centre)
MIN_OVERLAP_PX = 5  # what a piece shows must overlap a patch by this much (about 0.5 mm2) to match it
_SUBPIXEL = 4  # fillPoly's fixed-point scale (2 bits)


def rotation(quaternion: list[float]) -> NDArray[np.float64]:
    """The rotation matrix of a render's quaternion (w, x, y, z; Blender's order)."""
    w, x, y, z = quaternion
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def to_view_px(points: NDArray[np.float64], camera: dict[str, Any]) -> NDArray[np.float64]:
    """Render points (mm; the plate's centre at the origin, y up, z up) to tray-view pixels: the
    camera's central projection onto the plane of the view (one cube edge above the plate),
    whatever the camera's tilt; plate coordinates start at its top-left corner with y down."""
    cx, cy = g.PLATE_W_MM / 2, g.PLATE_H_MM / 2
    cam_x, cam_y, height = camera["position_mm"]
    s = (height - TRAY_VIEW.plane_mm) / np.maximum(height - points[:, 2], 1.0)
    vx = cx + cam_x + (points[:, 0] - cam_x) * s
    vy = cy - (cam_y + (points[:, 1] - cam_y) * s)
    return np.stack([(vx - TRAY_VIEW.x0) * PPM - 0.5, (vy - TRAY_VIEW.y0) * PPM - 0.5], axis=1)


def top_centre_px(piece: dict[str, Any], camera: dict[str, Any]) -> tuple[float, float]:
    """Where a piece's top centre lies in the tray view."""
    x, y, z = piece["center_mm"]
    px = to_view_px(np.array([[x, y, z + g.CUBE_EDGE_MM / 2]]), camera)[0]
    return float(px[0]), float(px[1])


def _corners(piece: dict[str, Any]) -> NDArray[np.float64]:
    """A piece's box corners (mm, render coordinates): a cube's own size; a courtier as its base
    square up to its height (its ball and body lie within)."""
    centre = np.asarray(piece["center_mm"], np.float64)
    if piece.get("type") == "cube":
        sx, sy, sz = piece.get("size_mm") or [g.CUBE_EDGE_MM] * 3
        box = [(a * sx / 2, b * sy / 2, c * sz / 2) for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)]
    else:
        r = g.COURTIER_BASE_MM / 2
        box = [(a * r, b * r, z) for a in (-1, 1) for b in (-1, 1) for z in (-centre[2], g.COURTIER_HEIGHT_MM - centre[2])]
    return centre + np.asarray(box, np.float64) @ rotation(piece["quaternion"]).T


def owners(meta: dict[str, Any], shape: tuple[int, int]) -> NDArray[np.int32]:
    """Per tray-view pixel, the index (in ``meta["pieces"]``) of the piece the camera sees there,
    -1 where none: each piece's projected outline (the hull of its box), painted from the lowest
    top to the highest, so that a piece lying on another covers it."""
    out = np.full(shape, -1, np.int32)
    drawn = []
    for k, piece in enumerate(meta["pieces"]):
        corners = _corners(piece)
        hull = cv2.convexHull(np.round(to_view_px(corners, meta["camera"]) * _SUBPIXEL).astype(np.int32))
        drawn.append((float(corners[:, 2].max()), k, hull))
    for _, k, hull in sorted(drawn, key=lambda d: d[0]):
        cv2.fillPoly(out, [hull], k, shift=2)
    return out


MATCHES = ("centre", "shown")


def match(patches: list[tuple[Core, Count]], meta: dict[str, Any], by: str = "centre") -> tuple[list[int], dict[str, int]]:
    """Each patch's off-by (the truth minus its count; 0 when its count lies between the pieces
    matched to it at least a quarter visible and all of them), and the visible cubes no patch
    holds, per colour; ``by``: one of ``MATCHES`` (see the module)."""
    held, missed = cubes_held(patches, meta, by)
    deltas = []
    for (lo, hi), (_, count) in zip(held, patches, strict=True):
        n = count.n
        deltas.append(lo - n if n < lo else (hi - n if n > hi else 0))
    return deltas, missed


def cubes_held(patches: list[tuple[Core, Count]], meta: dict[str, Any], by: str = "centre") -> tuple[list[tuple[int, int]], dict[str, int]]:
    """The cubes each patch truly holds, as a range: (the pieces matched to it at least a quarter
    visible, all the pieces matched to it), whatever the stages counted; and the visible cubes no
    patch holds, per colour. What the patch net learns (:mod:`calibration.train_counter_net`)."""
    if by not in MATCHES:
        raise ValueError(f"pieces are matched by one of {', '.join(MATCHES)}, not {by!r}")
    width, height = TRAY_VIEW.size
    shape = (height, width)
    shown = owners(meta, shape) if by == "shown" else None
    masks = [_filled(core, shape) for core, _ in patches] if shown is not None else []
    assigned: dict[int, list[float]] = defaultdict(list)
    missed = {c: 0 for c in ALL_COLOURS}
    for k, piece in enumerate(meta["pieces"]):
        if piece.get("type") != "cube":
            continue
        mine = [i for i, (core, _) in enumerate(patches) if core.colour == piece["colour"]]
        overlapped = _most_overlapped(shown == k, [masks[i] for i in mine]) if shown is not None else None
        best = mine[overlapped] if overlapped is not None else _holding_top(piece, meta["camera"], patches, mine)
        if best is not None:
            assigned[best].append(piece["visible_fraction"])
        elif piece["visible_fraction"] >= 0.25:
            missed[piece["colour"]] += 1
    held = []
    for i in range(len(patches)):
        fracs = assigned.get(i, [])
        held.append((sum(f >= 0.25 for f in fracs), len(fracs)))
    return held, missed


def _filled(core: Core, shape: tuple[int, int]) -> NDArray[np.bool_]:
    """A patch's pixels in the whole tray view."""
    mask = np.zeros(shape, np.uint8)
    cv2.drawContours(mask, [core.contour.reshape(-1, 1, 2).astype(np.int32)], -1, 1, -1)
    return mask > 0


def _most_overlapped(piece: NDArray[np.bool_], masks: list[NDArray[np.bool_]]) -> int | None:
    """The index of the mask that overlaps the piece's pixels most, by at least ``MIN_OVERLAP_PX``."""
    if not piece.any():
        return None
    overlaps = [int(np.count_nonzero(piece & m)) for m in masks]
    if not overlaps or max(overlaps) < MIN_OVERLAP_PX:
        return None
    return int(np.argmax(overlaps))


def _holding_top(piece: dict[str, Any], camera: dict[str, Any], patches: list[tuple[Core, Count]], mine: list[int]) -> int | None:
    """The patch of the piece's colour whose outline holds its top's centre or lies nearest to it,
    within ``MATCH_MM`` (``PARTIAL_MATCH_MM`` for a partly hidden piece, whose visible part lies off
    its centre)."""
    pt = top_centre_px(piece, camera)
    best, best_d = None, -(MATCH_MM if piece["visible_fraction"] >= 0.9 else PARTIAL_MATCH_MM) * PPM
    for i in mine:
        d = cv2.pointPolygonTest(patches[i][0].contour.reshape(-1, 1, 2).astype(np.float32), pt, True)
        if d >= best_d:
            best, best_d = i, d
    return best
