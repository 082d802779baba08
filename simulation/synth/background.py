"""The static part of a frame, built once per camera pose (and reflection strength) and cached:
the wooden table, the grey plate with its four ArUco markers and quiet zones, the clear tray's
floor (with the ring light's reflection), and the tray's translucent walls as an overlay."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
import numpy.typing as npt

from vision import geometry as geo

from . import palette as pal
from .camera import Projector, projector
from .scene import TRAY_FLOOR_MM, CameraPose

PLATE_PX_PER_MM = 6  # plate texture resolution: markers stay crisp after the warp
TABLE_PX_PER_MM = 1
TABLE_MARGIN_MM = 600.0


def aruco_dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, geo.MARKER_DICT))


@lru_cache(maxsize=1)
def plate_texture() -> npt.NDArray[np.uint8]:
    """The plate seen from straight above at ``PLATE_PX_PER_MM``: grey, quiet zones, markers."""
    s = PLATE_PX_PER_MM
    tex = np.empty((int(geo.PLATE_H_MM * s), int(geo.PLATE_W_MM * s), 3), np.uint8)
    tex[:] = pal.PLATE_BGR
    # a faint, smooth unevenness so the plate is not a perfectly flat colour
    rng = np.random.default_rng(1234)
    low = cv2.resize(rng.normal(0.0, 1.5, (9, 11)).astype(np.float32), (tex.shape[1], tex.shape[0]),
                     interpolation=cv2.INTER_CUBIC)
    tex = np.clip(tex.astype(np.float32) + low[..., None], 0, 255).astype(np.uint8)
    dictionary = aruco_dictionary()
    side = int(round(geo.MARKER_SIZE_MM * s))
    q = int(round(geo.MARKER_QUIET_ZONE_MM * s))
    for marker_id, (cx, cy) in geo.MARKER_CENTRES_MM.items():
        img = cv2.aruco.generateImageMarker(dictionary, marker_id, side)
        x0 = int(round(cx * s)) - side // 2
        y0 = int(round(cy * s)) - side // 2
        tex[y0 - q:y0 + side + q, x0 - q:x0 + side + q] = pal.QUIET_ZONE_BGR
        patch = np.where(img[..., None] > 127, np.array(pal.QUIET_ZONE_BGR, np.uint8),
                         np.array(pal.MARKER_BLACK_BGR, np.uint8))
        tex[y0:y0 + side, x0:x0 + side] = patch
    return tex


@lru_cache(maxsize=1)
def table_texture() -> npt.NDArray[np.uint8]:
    """Wood grain around the plate (1 px/mm over the plate +- ``TABLE_MARGIN_MM``)."""
    w = int(geo.PLATE_W_MM + 2 * TABLE_MARGIN_MM)
    h = int(geo.PLATE_H_MM + 2 * TABLE_MARGIN_MM)
    rng = np.random.default_rng(99)
    yy = np.arange(h, dtype=np.float32)[:, None]
    xx = np.arange(w, dtype=np.float32)[None, :]
    warp = cv2.resize(rng.normal(0, 1, (8, 40)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    grain = np.sin((yy + 0.18 * xx) * 0.35 + 6.0 * warp) * 0.5 + 0.5
    fine = cv2.resize(rng.normal(0, 1, (h // 3, w // 40)).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    k = 0.82 + 0.16 * grain + 0.05 * fine
    return np.clip(np.array(pal.TABLE_BGR, np.float32)[None, None, :] * k[..., None], 0, 255).astype(np.uint8)


@dataclass(frozen=True)
class Overlay:
    """A translucent layer over a region of interest: out = img * (1 - alpha) + colour * alpha."""

    y0: int
    y1: int
    x0: int
    x1: int
    alpha: npt.NDArray[np.float32]  # (h, w, 1) float32
    colour: npt.NDArray[np.float32]  # (h, w, 3) float32, premultiplied by alpha

    def apply(self, img: npt.NDArray[np.uint8]) -> None:
        roi = img[self.y0:self.y1, self.x0:self.x1]
        out = roi.astype(np.float32) * (1.0 - self.alpha) + self.colour
        roi[:] = np.clip(out, 0, 255).astype(np.uint8)


@dataclass(frozen=True)
class Background:
    image: npt.NDArray[np.uint8]  # uint8 BGR, neutral light, no post-processing
    walls: tuple[Overlay, ...]
    floor_mask: npt.NDArray[np.bool_]  # bool, the tray floor in the image


def _tray_floor_corners() -> npt.NDArray[np.float64]:
    x0, y0, x1, y1 = geo.TRAY_INNER_MM
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)


def _ring_reflection(proj: Projector, shape: tuple[int, int], strength: float) -> npt.NDArray[np.float32]:
    """Levels added to the tray floor by the ring light's reflection: a bright annulus around the
    point under the camera, with the camera's own dark hole in the middle (as in the renders)."""
    h, w = shape
    if strength <= 0:
        return np.zeros((h, w), np.float32)
    hinv = np.linalg.inv(proj.plane_homography(TRAY_FLOOR_MM))
    step = 8  # the reflection is smooth: compute coarse, then resize
    ys, xs = np.mgrid[0:h:step, 0:w:step].astype(np.float64)
    pts = np.stack([xs.ravel(), ys.ravel(), np.ones(xs.size)])
    m = hinv @ pts
    mx, my = m[0] / m[2], m[1] / m[2]
    r = np.hypot(mx - proj.centre_up[0], my - proj.centre_up[1])
    ring = np.exp(-0.5 * ((r - 45.0) / 16.0) ** 2)
    ring = ring.reshape(xs.shape).astype(np.float32)
    levels: npt.NDArray[np.float32] = cv2.resize(ring, (w, h), interpolation=cv2.INTER_LINEAR) * (
        pal.RING_REFLECTION_GAIN * strength)
    return levels


def _wall_overlays(proj: Projector, shape: tuple[int, int]) -> tuple[Overlay, ...]:
    """The four clear walls as translucent boxes with faint edges, one ROI each."""
    h, w = shape
    x0, y0, x1, y1 = geo.TRAY_INNER_MM
    t = geo.TRAY_WALL_THICKNESS_MM
    top = geo.TRAY_WALL_HEIGHT_MM
    boxes = [
        (x0 - t, y0 - t, x1 + t, y0),  # top wall (as the camera sees the plate)
        (x0 - t, y1, x1 + t, y1 + t),  # bottom
        (x0 - t, y0, x0, y1),  # left
        (x1, y0, x1 + t, y1),  # right
    ]
    overlays = []
    for bx0, by0, bx1, by1 in boxes:
        corners = np.array([[bx0, by0], [bx1, by0], [bx1, by1], [bx0, by1]], np.float64)
        low = np.column_stack([corners, np.zeros(4)])
        high = np.column_stack([corners, np.full(4, top)])
        uv_low, _ = proj.project(low)
        uv_high, _ = proj.project(high)
        allp = np.vstack([uv_low, uv_high])
        rx0 = max(int(np.floor(allp[:, 0].min())) - 3, 0)
        ry0 = max(int(np.floor(allp[:, 1].min())) - 3, 0)
        rx1 = min(int(np.ceil(allp[:, 0].max())) + 4, w)
        ry1 = min(int(np.ceil(allp[:, 1].max())) + 4, h)
        if rx1 <= rx0 or ry1 <= ry0:
            continue
        off = np.array([rx0, ry0], np.float64)
        alpha = np.zeros((ry1 - ry0, rx1 - rx0), np.float32)
        col = np.zeros((ry1 - ry0, rx1 - rx0, 3), np.float32)

        def poly(points: npt.NDArray[np.float64], a: float, bgr: tuple[int, int, int],
                 alpha: npt.NDArray[np.float32] = alpha, col: npt.NDArray[np.float32] = col,
                 off: npt.NDArray[np.float64] = off) -> None:
            p = np.round((points - off) * 16).astype(np.int32)
            cv2.fillConvexPoly(alpha, p, a, lineType=cv2.LINE_AA, shift=4)
            cv2.fillConvexPoly(col, p, tuple(float(c) * a for c in bgr), lineType=cv2.LINE_AA, shift=4)

        # side faces of the wall (vertical quads), then its top, then edge lines
        for i in range(4):
            j = (i + 1) % 4
            quad = np.array([uv_low[i], uv_low[j], uv_high[j], uv_high[i]])
            poly(cv2.convexHull(quad.astype(np.float32)).reshape(-1, 2).astype(np.float64), 0.10, pal.TRAY_WALL_BGR)
        poly(uv_high, 0.30, pal.TRAY_WALL_BGR)
        for a_pt, b_pt in zip(uv_high, np.roll(uv_high, -1, axis=0), strict=True):
            pa = tuple(int(v) for v in np.round((a_pt - off) * 16))
            pb = tuple(int(v) for v in np.round((b_pt - off) * 16))
            cv2.line(alpha, pa, pb, 0.45, 1, cv2.LINE_AA, 4)
            cv2.line(col, pa, pb, tuple(0.45 * c for c in pal.TRAY_EDGE_BGR), 1, cv2.LINE_AA, 4)
        overlays.append(Overlay(ry0, ry1, rx0, rx1, alpha[..., None], col))
    return tuple(overlays)


@lru_cache(maxsize=8)
def background(pose: CameraPose, ring_reflection: float) -> Background:
    """Render (once) the static scene for a camera pose."""
    proj = projector(pose)
    size = (pose.width, pose.height)
    s_t = TABLE_PX_PER_MM
    # texture pixel i covers [i, i + 1) / s mm: its centre is at (i + 0.5) / s
    a_table = np.array([[1 / s_t, 0, 0.5 / s_t - TABLE_MARGIN_MM], [0, 1 / s_t, 0.5 / s_t - TABLE_MARGIN_MM], [0, 0, 1]])
    img = cv2.warpPerspective(table_texture(), proj.H_plate @ a_table, size, flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
    s_p = PLATE_PX_PER_MM
    a_plate = np.array([[1 / s_p, 0, 0.5 / s_p], [0, 1 / s_p, 0.5 / s_p], [0, 0, 1]])
    h_plate = proj.H_plate @ a_plate
    tex = plate_texture()
    plate = cv2.warpPerspective(tex, h_plate, size, flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.full(tex.shape[:2], 255, np.uint8), h_plate, size, flags=cv2.INTER_LINEAR)
    a = (mask.astype(np.float32) / 255.0)[..., None]
    img = (img * (1 - a) + plate * a).astype(np.uint8)
    # the tray floor: the plate seen through clear plastic, plus the ring light's reflection
    floor_uv, _ = proj.project(np.column_stack([_tray_floor_corners(), np.full(4, TRAY_FLOOR_MM)]))
    floor = np.zeros(img.shape[:2], np.uint8)
    cv2.fillConvexPoly(floor, np.round(floor_uv * 16).astype(np.int32), 255, cv2.LINE_AA, 4)
    fa = (floor.astype(np.float32) / 255.0)
    refl = _ring_reflection(proj, (img.shape[0], img.shape[1]), ring_reflection)
    floor_img = np.array(pal.TRAY_FLOOR_BGR, np.float32)[None, None, :] + refl[..., None]
    image = np.clip(img * (1 - fa[..., None]) + floor_img * fa[..., None], 0, 255).astype(np.uint8)
    image.setflags(write=False)
    return Background(image, _wall_overlays(proj, (image.shape[0], image.shape[1])), floor > 127)
