"""Render a scene into a camera frame (BGR uint8), with optional ground truth (the exposure, from the
light on, is ``exposure.py``).

Order of work, as light and a camera would do it: the cached static background (table, plate,
markers, tray floor), the pieces in depth order (painter's algorithm), the tray's translucent
walls, anything reaching in over the walls (a finger), then the light (colour cast, brightness,
arm shadow), the lens (vignette, blur) and the sensor (noise, JPEG).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, cast

import cv2
import numpy as np
import numpy.typing as npt

from vision import geometry as geo

from .background import background
from .camera import projector
from .exposure import FloatMap, Image, Points, distort_points, expose
from .pieces import Drawn, draw_list
from .scene import Scene

_SHIFT = 4  # sub-pixel bits for OpenCV's polygon filling
VISIBLE_FRACTION_MIN = 0.25  # a piece at least this visible "can be asked to be counted"


@dataclass
class Truth:
    """What the renderer knows about the frame it drew (positions include lens distortion).

    ``visible_fraction[i]`` is the share of piece i's silhouette not hidden by other pieces (or a
    finger), as this camera sees it. ``visible_cubes`` / ``visible_courtiers`` count those at least
    a quarter visible, in all colours, as in the development set's JSON.
    """

    visible_fraction: list[float]
    cubes: dict[str, int]
    courtiers: dict[str, int]
    visible_cubes: dict[str, int]
    visible_courtiers: dict[str, int]
    foreign_object: bool
    marker_corners_px: dict[int, Points] = field(default_factory=dict)
    piece_centres_px: list[Points] = field(default_factory=list)  # rough centre of each drawn piece


def _fill(img: npt.NDArray[Any], poly: Points, colour: float | tuple[float, ...], aa: bool = True) -> None:
    """Fill a convex polygon (sub-pixel positions) into an image or mask of any dtype."""
    pts = np.round(poly * (1 << _SHIFT)).astype(np.int32)
    cv2.fillConvexPoly(img, pts, colour, cv2.LINE_AA if aa else cv2.LINE_8, _SHIFT)


# OpenCV's anti-aliased fill covers about 0.7 px beyond a polygon's true edge; pieces are shrunk
# by that much about their centre so that their silhouettes keep their true size in pixels
_AA_GROWTH_PX = 0.7


def inset_polygon(poly: Points, d: float) -> Points | None:
    """A convex polygon with every edge moved ``d`` px inwards, or None when nothing is left."""
    e = np.roll(poly, -1, axis=0) - poly
    length = np.linalg.norm(e, axis=1)
    if (length < 1e-9).any():
        return None
    n = np.column_stack([-e[:, 1], e[:, 0]]) / length[:, None]
    if float(n[0] @ (poly.mean(axis=0) - poly[0])) < 0:
        n = -n
    p = poly + d * n  # a point on each moved edge; edge i runs along e[i]
    pp, ep = np.roll(p, 1, axis=0), np.roll(e, 1, axis=0)  # the previous edge
    # p_prev + t e_prev = p + s e  ->  solve for t
    det = ep[:, 0] * (-e[:, 1]) - ep[:, 1] * (-e[:, 0])
    if (np.abs(det) < 1e-9).any():
        return None
    rhs = p - pp
    t = (rhs[:, 0] * (-e[:, 1]) - rhs[:, 1] * (-e[:, 0])) / det
    out: Points = pp + t[:, None] * ep
    # past the inradius the edges cross over and come out reversed: then nothing is left
    if (np.einsum("ij,ij->i", np.roll(out, -1, axis=0) - out, e) <= 0).any():
        return None
    return out


# A cube's edges are rounded: seen from above, each face has a darker rim, and two touching cubes
# show a dark groove between them (as in the rendered development set). Two steps of shading.
BEVEL_MM = (0.3, 0.6)
BEVEL_SHADE = (0.7, 0.86)


def _draw_piece(img: Image, drawn: Drawn) -> None:
    allp = np.vstack([p for p, _ in drawn.polys])
    hull = cv2.convexHull(allp.astype(np.float32))
    half = math.sqrt(max(cv2.contourArea(hull), 1e-6)) / 2
    centre = allp.mean(axis=0)
    k = max(0.0, 1.0 - _AA_GROWTH_PX / half)
    polys = [(centre + (p - centre) * k, c) for p, c in drawn.polys]
    if drawn.edge_mm is None:
        for poly, colour in polys:
            _fill(img, poly, colour)
        return
    top = polys[-1][0]  # the nearest face: px per mm from its size
    px_per_mm = math.sqrt(max(abs(cv2.contourArea(top.astype(np.float32))), 1e-6)) / drawn.edge_mm
    for poly, colour in polys:
        _fill(img, poly, tuple(BEVEL_SHADE[0] * c for c in colour))
        inner = inset_polygon(poly, BEVEL_MM[0] * px_per_mm)
        if inner is None:
            continue
        _fill(img, inner, tuple(BEVEL_SHADE[1] * c for c in colour))
        inner = inset_polygon(poly, BEVEL_MM[1] * px_per_mm)
        if inner is not None:
            _fill(img, inner, colour)


CONTACT_SHADOW = 0.35  # how much the floor darkens right at a resting piece's foot
CONTACT_SHADOW_MM = 1.6  # and over how far that fades


def _contact_shadows(img: Image, drawn: list[Drawn], px_per_mm: float) -> None:
    """Darken the floor softly around where pieces rest (light is occluded near their feet), at
    quarter resolution over the region the pieces cover."""
    feet = [d.footprint for d in drawn if d.footprint is not None]
    if not feet:
        return
    pts = np.vstack(feet)
    pad = 4 * CONTACT_SHADOW_MM * px_per_mm
    h, w = img.shape[:2]
    x0 = int(max(0, pts[:, 0].min() - pad)) // 4 * 4
    y0 = int(max(0, pts[:, 1].min() - pad)) // 4 * 4
    x1 = min(w, int(pts[:, 0].max() + pad + 4))
    y1 = min(h, int(pts[:, 1].max() + pad + 4))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return
    sw, sh = (x1 - x0 + 3) // 4, (y1 - y0 + 3) // 4
    mask: FloatMap = np.zeros((sh, sw), np.float32)
    for foot in feet:
        c = foot.mean(axis=0)
        grown = c + (foot - c) * 1.08
        _fill(mask, (grown - np.array([x0, y0])) / 4, 1.0, aa=False)
    mask = cast(FloatMap, cv2.GaussianBlur(mask, (0, 0), max(CONTACT_SHADOW_MM * px_per_mm / 4, 0.5)))
    gain = cv2.resize(mask, (sw * 4, sh * 4), interpolation=cv2.INTER_LINEAR)[: y1 - y0, : x1 - x0]
    gain8 = cv2.convertScaleAbs(gain, alpha=-255.0 * CONTACT_SHADOW, beta=255.0)  # 255 * (1 - k * mask)
    roi = img[y0:y1, x0:x1]
    roi[:] = cv2.multiply(roi, cv2.merge([gain8, gain8, gain8]), scale=1.0 / 255)


def draw_scene(scene: Scene) -> tuple[Image, list[Drawn]]:
    """The frame under neutral light, before any camera effect, and what was drawn."""
    cam = scene.camera
    proj = projector(cam)
    bg = background(cam, round(scene.lighting.ring_reflection, 3))
    img = bg.image.copy()
    drawn = [draw_list(p, proj) for p in scene.pieces]
    _contact_shadows(img, drawn, proj.px_per_mm())
    order = sorted(range(len(drawn)), key=lambda i: (drawn[i].overlay, -drawn[i].depth))
    walls_done = False
    for i in order:
        if drawn[i].overlay and not walls_done:
            for w in bg.walls:
                w.apply(img)
            walls_done = True
        _draw_piece(img, drawn[i])
    if not walls_done:
        for w in bg.walls:
            w.apply(img)
    return img, drawn


def render(scene: Scene, rng: np.random.Generator) -> Image:
    """Render ``scene`` as the camera would capture it: an ``H x W x 3`` BGR ``uint8`` frame.

    ``rng`` drives only the sensor noise; the same scene and seed give the same frame."""
    img, _ = draw_scene(scene)
    return expose(img, scene, rng)


def _silhouette_counts(scene: Scene, drawn: list[Drawn]) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.int64]]:
    """Visible and total silhouette pixels per piece, at half resolution."""
    cam = scene.camera
    scale = 0.5
    h, w = int(cam.height * scale), int(cam.width * scale)
    ids = np.zeros((h, w), np.int32)
    order = sorted(range(len(drawn)), key=lambda i: (drawn[i].overlay, -drawn[i].depth))
    total = np.zeros(len(drawn) + 1, np.int64)
    for i in order:
        polys = [p * scale for p, _ in drawn[i].polys]
        allp = np.vstack(polys)
        x0 = int(max(np.floor(allp[:, 0].min()) - 1, 0))
        y0 = int(max(np.floor(allp[:, 1].min()) - 1, 0))
        x1 = int(min(np.ceil(allp[:, 0].max()) + 2, w))
        y1 = int(min(np.ceil(allp[:, 1].max()) + 2, h))
        if x1 <= x0 or y1 <= y0:
            continue
        solo = np.zeros((y1 - y0, x1 - x0), np.uint8)
        for p in polys:
            _fill(solo, p - np.array([x0, y0]), 1, aa=False)
            _fill(ids, p, i + 1, aa=False)
        total[i + 1] = int(solo.sum())
    visible = np.bincount(ids.ravel(), minlength=len(drawn) + 1)
    return visible[1:], total[1:]


def render_with_truth(scene: Scene, rng: np.random.Generator) -> tuple[Image, Truth]:
    """``render`` plus the ground truth of what a camera above can be asked to count."""
    img, drawn = draw_scene(scene)
    frame = expose(img, scene, rng)
    visible, total = _silhouette_counts(scene, drawn)
    frac = [float(v / t) if t else 0.0 for v, t in zip(visible, total, strict=True)]
    cubes = dict.fromkeys(geo.ALL_COLOURS, 0)
    courtiers = dict.fromkeys(geo.PLAYER_COLOURS, 0)
    vis_cubes = dict.fromkeys(geo.ALL_COLOURS, 0)
    vis_courtiers = dict.fromkeys(geo.PLAYER_COLOURS, 0)
    foreign = False
    for piece, f in zip(scene.pieces, frac, strict=True):
        if piece.kind == "cube":
            cubes[piece.colour] += 1  # type: ignore[index]
            vis_cubes[piece.colour] += f >= VISIBLE_FRACTION_MIN  # type: ignore[index]
        elif piece.kind == "courtier":
            courtiers[piece.colour] += 1  # type: ignore[index]
            vis_courtiers[piece.colour] += f >= VISIBLE_FRACTION_MIN  # type: ignore[index]
        else:
            foreign = True
    proj = projector(scene.camera)
    k1 = scene.postfx.lens_k1
    corners = {
        mid: distort_points(scene.camera, k1,
                            proj.project(np.column_stack([np.array(geo.marker_corners_mm(mid)), np.zeros(4)]))[0])
        for mid in geo.MARKER_IDS
    }
    centres = [distort_points(scene.camera, k1, np.vstack([p for p, _ in d.polys]).mean(axis=0)) for d in drawn]
    return frame, Truth(frac, cubes, courtiers, vis_cubes, vis_courtiers, foreign, corners, centres)
