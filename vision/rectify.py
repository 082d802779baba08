"""From a camera frame to metric, top-down views of the tray, using the plate's ArUco markers
(found by :mod:`vision.markers`).

The markers give the homography of the plate plane. The pieces, though, are 3-D: a cube's top face
is 10 mm above the plate and a stacked cube's 20 mm, so seen from about 300 mm they are magnified
by a few per cent about the camera's nadir and shifted outwards. To place them correctly we recover
the camera pose (``solvePnP``) from the marker corners, with a focal length that makes the camera
sit at the spec's nominal height (the near-vertical view cannot pin the focal length down on its own,
and an error of 10 % in height moves a cube top by well under a millimetre). From the pose we build
the homography of any horizontal plane, and warp the frame at the height of the cube tops.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision import geometry as g

Array = NDArray[Any]
NO_DISTORTION = np.zeros(0, np.float64)  # the renders and the Pi camera module are rectilinear enough

NOMINAL_CAMERA_HEIGHT_MM = sum(g.CAMERA_HEIGHT_MM) / 2
class NoMarkers(Exception):
    """Too few of the plate's markers were found to rectify the frame (the reason is the message)."""


@dataclass(frozen=True, eq=False)
class PlatePose:
    """Where the plate is in one frame: the camera matrix and pose relative to plate millimetres.

    Compared by identity: the locator hands the same pose out again while the markers stay put."""

    camera_matrix: Array  # 3x3
    rvec: Array
    tvec: Array
    marker_ids: tuple[int, ...]
    reprojection_px: float  # RMS error of the marker corners under the fitted pose
    px_per_mm: float  # image scale at the plate's centre

    @property
    def rotation(self) -> Array:
        return np.asarray(cv2.Rodrigues(self.rvec)[0])

    def camera_position_mm(self) -> Array:
        """The camera centre in plate coordinates (z negative: above the plate)."""
        r = self.rotation
        out: Array = (-r.T @ self.tvec.reshape(3)).astype(np.float64)
        return out

    def plane_homography(self, height_mm: float) -> Array:
        """Homography from plate millimetres (x, y) on the horizontal plane ``height_mm`` above the
        plate to image pixels."""
        r = self.rotation
        # Plate z points into the plate (x right, y down), so "above" is negative z.
        col3 = self.tvec.reshape(3) - height_mm * r[:, 2]
        m = np.column_stack([r[:, 0], r[:, 1], col3])
        h: Array = self.camera_matrix @ m
        out: Array = h / h[2, 2]
        return out

    def project(self, points_mm: Array) -> Array:
        """Project 3-D plate points (x, y, height above plate) to image pixels."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 3).copy()
        pts[:, 2] = -pts[:, 2]
        img, _ = cv2.projectPoints(pts, self.rvec, self.tvec, self.camera_matrix, NO_DISTORTION)
        return np.asarray(img).reshape(-1, 2)


def fit_pose(found: dict[int, Array], width: int, height: int) -> PlatePose:
    """Camera pose from detected marker corners (at least three markers)."""
    ids = sorted(found)
    obj = np.array([c for i in ids for c in g.marker_corners_mm(i)], dtype=np.float64)
    img = np.concatenate([found[i] for i in ids]).astype(np.float64)
    found_hom, _ = cv2.findHomography(obj, img, 0)
    if found_hom is None:
        raise NoMarkers("the plate markers are in an impossible arrangement")
    hom: NDArray[np.float64] = np.asarray(found_hom, np.float64)
    # Scale at the plate centre: the Jacobian of the homography there.
    cx, cy = g.PLATE_W_MM / 2, g.PLATE_H_MM / 2
    p = hom @ np.array([cx, cy, 1.0])
    w = p[2]
    jac = (hom[:2, :2] * w - np.outer(p[:2], hom[2, :2])) / (w * w)
    px_per_mm = float(np.sqrt(abs(np.linalg.det(jac))))
    f = px_per_mm * NOMINAL_CAMERA_HEIGHT_MM
    k = np.array([[f, 0, width / 2.0], [0, f, height / 2.0], [0, 0, 1]], dtype=np.float64)
    obj3 = np.column_stack([obj, np.zeros(len(obj))])
    ok, rvec, tvec = cv2.solvePnP(obj3, img, k, NO_DISTORTION, flags=cv2.SOLVEPNP_ITERATIVE)
    if not ok:
        raise NoMarkers("could not fit the camera pose to the plate markers")
    proj, _ = cv2.projectPoints(obj3, rvec, tvec, k, NO_DISTORTION)
    rms = float(np.sqrt(np.mean(np.sum((np.asarray(proj).reshape(-1, 2) - img) ** 2, axis=1))))
    return PlatePose(k, np.asarray(rvec).reshape(3), np.asarray(tvec).reshape(3), tuple(ids), rms, px_per_mm)


@dataclass(frozen=True)
class View:
    """A rectified, top-down view of a plate rectangle at a given height, ``ppm`` pixels per mm.

    Pixel (u, v) of the view is plate point (x0 + (u + 0.5) / ppm, y0 + (v + 0.5) / ppm).
    """

    x0: float
    y0: float
    width_mm: float
    height_mm: float
    ppm: float
    plane_mm: float

    @property
    def size(self) -> tuple[int, int]:
        return int(round(self.width_mm * self.ppm)), int(round(self.height_mm * self.ppm))

    def view_to_plate(self) -> Array:
        s = 1.0 / self.ppm
        return np.array([[s, 0, self.x0 + 0.5 * s], [0, s, self.y0 + 0.5 * s], [0, 0, 1]])

    def view_to_image(self, pose: PlatePose) -> Array:
        return pose.plane_homography(self.plane_mm) @ self.view_to_plate()

    def warp(self, frame: Array, pose: PlatePose, interpolation: int = cv2.INTER_LINEAR) -> Array:
        """The frame seen through this view. A still camera's frames share one pose (the locator
        keeps it), so the pixel maps are worked out once per pose and view and kept: remapping
        through ready maps takes about half the time of ``warpPerspective``."""
        map1, map2 = _view_maps(self, pose)
        return np.asarray(cv2.remap(frame, map1, map2, interpolation, borderMode=cv2.BORDER_REPLICATE))

    def to_image(self, pose: PlatePose, pts_view: Array) -> Array:
        """View pixel coordinates (N x 2) to image pixel coordinates."""
        pts = np.asarray(pts_view, dtype=np.float64).reshape(-1, 1, 2)
        return np.asarray(cv2.perspectiveTransform(pts, self.view_to_image(pose))).reshape(-1, 2)


@functools.lru_cache(maxsize=8)
def _view_maps(view: View, pose: PlatePose) -> tuple[Array, Array]:
    """Fixed-point pixel maps (``cv2.convertMaps``) from ``view``'s pixels to the frame's."""
    width, height = view.size
    u, v = np.meshgrid(np.arange(width, dtype=np.float64), np.arange(height, dtype=np.float64))
    h = view.view_to_image(pose)
    w = h[2, 0] * u + h[2, 1] * v + h[2, 2]
    x = ((h[0, 0] * u + h[0, 1] * v + h[0, 2]) / w).astype(np.float32)
    y = ((h[1, 0] * u + h[1, 1] * v + h[1, 2]) / w).astype(np.float32)
    map1, map2 = cv2.convertMaps(x, y, cv2.CV_16SC2)
    return np.asarray(map1), np.asarray(map2)
