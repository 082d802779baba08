"""Pieces as projected, shaded polygons.

Every piece becomes a list of ``(polygon_px, bgr)`` drawn in order (far parts first, e.g. a cube's
side faces then its top), plus one depth used to sort pieces for the painter's algorithm. The same
polygons, filled with a piece's index instead of a colour, give the ground-truth visibility.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from . import palette as pal
from .camera import Projector
from .scene import TRAY_FLOOR_MM, Piece

Poly = tuple[npt.NDArray[np.float64], tuple[float, float, float]]

_CUBE_VERTS = np.array([[x, y, z] for z in (-0.5, 0.5) for y in (-0.5, 0.5) for x in (-0.5, 0.5)])
# faces as vertex indices (counter-clockwise seen from outside does not matter: we test normals)
_CUBE_FACES = (
    ((4, 5, 7, 6), (0.0, 0.0, 1.0)),  # top
    ((0, 1, 3, 2), (0.0, 0.0, -1.0)),  # bottom
    ((0, 1, 5, 4), (0.0, -1.0, 0.0)),
    ((2, 3, 7, 6), (0.0, 1.0, 0.0)),
    ((0, 2, 6, 4), (-1.0, 0.0, 0.0)),
    ((1, 3, 7, 5), (1.0, 0.0, 0.0)),
)


@dataclass(frozen=True)
class Drawn:
    depth: float
    polys: tuple[Poly, ...]
    overlay: bool = False  # drawn above the tray walls (a finger)
    footprint: npt.NDArray[np.float64] | None = None  # where it touches the floor (px): a soft contact shadow
    edge_mm: float | None = None  # a cube's edge: its faces get bevelled, darker rims


def rotation(piece: Piece) -> npt.NDArray[np.float64]:
    """Yaw about the vertical, then tilt about a horizontal axis."""
    y = math.radians(piece.yaw_deg)
    rz: npt.NDArray[np.float64] = np.array([[math.cos(y), -math.sin(y), 0.0], [math.sin(y), math.cos(y), 0.0], [0.0, 0.0, 1.0]])
    if not piece.tilt_deg:
        return rz
    a = math.radians(piece.tilt_axis_deg)
    u = np.array([math.cos(a), math.sin(a), 0.0])
    t = math.radians(piece.tilt_deg)
    k: npt.NDArray[np.float64] = np.array([[0.0, -u[2], u[1]], [u[2], 0.0, -u[0]], [-u[1], u[0], 0.0]])
    rt = np.eye(3) + math.sin(t) * k + (1 - math.cos(t)) * (k @ k)
    return rt @ rz


def _shade(bgr: tuple[int, int, int] | npt.NDArray[np.float64], k: float) -> tuple[float, float, float]:
    c = np.clip(np.asarray(bgr, np.float64) * k, 0, 255)
    return (float(c[0]), float(c[1]), float(c[2]))


# The ring light sits around the lens, so light and view directions coincide: a face's shade is
# AMBIENT + (1 - AMBIENT) * cos(angle between its normal and the direction to the camera). The
# room light fills in the sides: in the rendered set side faces are about 0.55-0.65 of the top.
AMBIENT = 0.5


def cube_geometry(piece: Piece) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """World vertices (8, 3) and the rotation, resting on its lowest corner."""
    rot = rotation(piece)
    verts = (_CUBE_VERTS * piece.size) @ rot.T
    base = TRAY_FLOOR_MM + piece.z_mm - verts[:, 2].min()
    return verts + np.array([piece.x_mm, piece.y_mm, base]), rot


_FACE_IDX = np.array([f for f, _ in _CUBE_FACES])
_FACE_NORMALS = np.array([n for _, n in _CUBE_FACES])


def _cube(piece: Piece, proj: Projector) -> Drawn:
    """The faces turned towards the camera, farthest first, shaded by their angle to it."""
    verts, rot = cube_geometry(piece)
    uv, depth = proj.project(verts)
    albedo = np.asarray(pal.PIECE_BGR[piece.colour or "black"], np.float64) * piece.shade
    normals = _FACE_NORMALS @ rot.T
    centres = verts[_FACE_IDX].mean(axis=1)
    view = proj.centre_up[None, :] - centres
    view /= np.linalg.norm(view, axis=1, keepdims=True)
    facing = np.einsum("ij,ij->i", normals, view)
    face_depth = depth[_FACE_IDX].mean(axis=1)
    order = [i for i in np.argsort(-face_depth) if facing[i] > 1e-6]
    shades = AMBIENT + (1 - AMBIENT) * np.clip(facing, 0.0, 1.0)
    colours = np.clip(albedo[None, :] * shades[:, None], 0, 255)
    polys = tuple((uv[_FACE_IDX[i]], (float(colours[i, 0]), float(colours[i, 1]), float(colours[i, 2])))
                  for i in order)
    foot = None
    if piece.z_mm == 0:
        foot = uv[_FACE_IDX[1]] if not piece.tilt_deg else _hull(uv[np.argsort(verts[:, 2])[:4]])
    return Drawn(float(depth.mean()), polys, footprint=foot, edge_mm=piece.size)


def _circle(cx: npt.NDArray[np.float64], r: float, axis_rot: npt.NDArray[np.float64], n: int = 24) -> npt.NDArray[np.float64]:
    """Points of a horizontal (in the piece's frame) circle around ``cx``."""
    a = np.linspace(0, 2 * math.pi, n, endpoint=False)
    local = np.column_stack([r * np.cos(a), r * np.sin(a), np.zeros(n)])
    return cx + local @ axis_rot.T


def _hull(uv: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    return cv2.convexHull(uv.astype(np.float32)).reshape(-1, 2).astype(np.float64)


def _courtier(piece: Piece, proj: Projector) -> Drawn:
    """A pawn: round base, tapering body, collar, round head (10 mm base, 14 mm tall)."""
    rot = rotation(piece)
    k = piece.size / 10.0
    # a tipped pawn rests on the rim of its base: lift it so that nothing dips into the floor
    lift = 5.0 * k * abs(math.sin(math.radians(piece.tilt_deg)))
    origin = np.array([piece.x_mm, piece.y_mm, TRAY_FLOOR_MM + piece.z_mm + lift])
    axis = rot @ np.array([0.0, 0.0, 1.0])
    albedo = np.asarray(pal.PIECE_BGR[piece.colour or "black"], np.float64) * piece.shade
    view = proj.view_dir(origin + axis * 7 * k)[0]
    facing = max(0.0, float(axis @ view))

    def ring(z: float, r: float) -> npt.NDArray[np.float64]:
        return proj.project(_circle(origin + axis * z * k, r * k, rot))[0]

    polys: list[Poly] = []
    polys.append((_hull(np.vstack([ring(0, 5.0), ring(1.8, 5.0), ring(8.6, 2.3)])), _shade(albedo, 0.45)))
    polys.append((ring(1.8, 5.0), _shade(albedo, 0.45 + 0.35 * facing)))
    polys.append((_hull(np.vstack([ring(2.6, 4.0), ring(8.6, 2.3)])), _shade(albedo, 0.5 + 0.2 * facing)))
    polys.append((ring(9.2, 3.1), _shade(albedo, 0.55 + 0.3 * facing)))
    head_c = origin + axis * 10.8 * k
    uv_c, d_c = proj.project(head_c[None, :])
    r_px = 3.2 * k * proj.K[0, 0] / d_c[0]
    a = np.linspace(0, 2 * math.pi, 28, endpoint=False)
    circ = np.column_stack([np.cos(a), np.sin(a)])
    polys.append((uv_c[0] + r_px * circ, _shade(albedo, 0.62)))
    polys.append((uv_c[0] + 0.78 * r_px * circ, _shade(albedo, 0.85)))
    polys.append((uv_c[0] + 0.42 * r_px * circ, _shade(albedo, 1.05)))
    depth = float(proj.to_camera((origin + axis * 7 * k)[None, :])[0, 2])
    return Drawn(depth, tuple(polys), footprint=ring(0, 5.0))


def _coin(piece: Piece, proj: Projector) -> Drawn:
    rot = rotation(piece)
    r = piece.size / 2
    origin = np.array([piece.x_mm, piece.y_mm, TRAY_FLOOR_MM + piece.z_mm])
    top_c = origin + rot @ np.array([0.0, 0.0, 2.0])
    bottom = proj.project(_circle(origin, r, rot, 40))[0]
    top = proj.project(_circle(top_c, r, rot, 40))[0]
    inner = proj.project(_circle(top_c, 0.82 * r, rot, 40))[0]
    albedo = np.asarray(pal.COIN_BGR, np.float64) * piece.shade
    polys: tuple[Poly, ...] = (
        (_hull(np.vstack([bottom, top])), _shade(albedo, 0.55)),
        (top, _shade(albedo, 0.92)),
        (inner, _shade(albedo, 1.02)),
    )
    return Drawn(float(proj.to_camera(top_c[None, :])[0, 2]), polys, footprint=bottom)


FINGER_LENGTH_MM = 140.0


def _finger(piece: Piece, proj: Projector) -> Drawn:
    """A capsule reaching in along ``yaw_deg`` with its tip at (x, y), rising towards the hand."""
    r = piece.size
    y = math.radians(piece.yaw_deg)
    d = np.array([math.cos(y), math.sin(y), 0.0])
    z_tip = TRAY_FLOOR_MM + (piece.z_mm if piece.z_mm else 20.0)
    tip = np.array([piece.x_mm, piece.y_mm, z_tip])
    root = tip - d * FINGER_LENGTH_MM + np.array([0.0, 0.0, 25.0])
    skin = np.asarray(pal.SKIN_BGR[piece.colour or "medium"], np.float64) * piece.shade

    def capsule(radius: float, lift: float) -> npt.NDArray[np.float64]:
        pts = []
        for c in (tip, root):
            uv, dep = proj.project((c + np.array([0.0, 0.0, lift]))[None, :])
            rp = radius * proj.K[0, 0] / dep[0]
            a = np.linspace(0, 2 * math.pi, 24, endpoint=False)
            pts.append(uv[0] + rp * np.column_stack([np.cos(a), np.sin(a)]))
        return _hull(np.vstack(pts))

    nail_c = tip - d * 0.45 * r + np.array([0.0, 0.0, 0.7 * r])
    uv_n, dep_n = proj.project(nail_c[None, :])
    rn = 0.5 * r * proj.K[0, 0] / dep_n[0]
    a = np.linspace(0, 2 * math.pi, 20, endpoint=False)
    # the nail is a little longer along the finger than across it
    along = np.array(proj.project((nail_c + d)[None, :])[0][0] - uv_n[0])
    along /= max(np.linalg.norm(along), 1e-9)
    across = np.array([-along[1], along[0]])
    nail = uv_n[0] + rn * (1.3 * np.outer(np.cos(a), along) + np.outer(np.sin(a), across))
    polys: tuple[Poly, ...] = (
        (capsule(r, 0.0), _shade(skin, 0.72)),
        (capsule(0.75 * r, 0.25 * r), _shade(skin, 0.9)),
        (capsule(0.4 * r, 0.6 * r), _shade(skin, 1.02)),
        (nail, _shade(pal.NAIL_BGR, 1.0)),
    )
    return Drawn(float(proj.to_camera(tip[None, :])[0, 2]), polys, overlay=True)


def draw_list(piece: Piece, proj: Projector) -> Drawn:
    return {"cube": _cube, "courtier": _courtier, "coin": _coin, "finger": _finger}[piece.kind](piece, proj)
