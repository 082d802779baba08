"""Pinhole projection of plate coordinates (mm, x right, y down, z up) into a camera's image."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from vision import geometry as geo

from .scene import CameraPose


class Projector:
    """The camera's extrinsics and intrinsics, built once per pose.

    Internally points are taken to the right-handed frame (x, y, -z) in which a camera looking
    straight down has the identity rotation: image x along plate x, image y along plate y.
    """

    def __init__(self, pose: CameraPose) -> None:
        self.pose = pose
        aim = np.array([geo.PLATE_W_MM / 2 + pose.aim_x_mm, geo.PLATE_H_MM / 2 + pose.aim_y_mm, 0.0])
        t = math.radians(pose.tilt_deg)
        d = math.radians(pose.tilt_dir_deg)
        offset = pose.height_mm * math.tan(t)
        self.centre_up: npt.NDArray[np.float64] = np.array([aim[0] + offset * math.cos(d), aim[1] + offset * math.sin(d), pose.height_mm])
        c = np.array([self.centre_up[0], self.centre_up[1], -pose.height_mm])  # in the (x, y, -z) frame
        forward = np.array([aim[0], aim[1], 0.0]) - c
        forward /= np.linalg.norm(forward)
        right = np.array([1.0, 0.0, 0.0]) - forward[0] * forward
        right /= np.linalg.norm(right)
        down = np.cross(forward, right)
        r = math.radians(pose.roll_deg)
        right, down = math.cos(r) * right + math.sin(r) * down, -math.sin(r) * right + math.cos(r) * down
        self.rot: npt.NDArray[np.float64] = np.stack([right, down, forward])  # rows: camera axes in the world frame (world -> camera)
        self.t: npt.NDArray[np.float64] = -self.rot @ c
        f = pose.focal_px
        self.K: npt.NDArray[np.float64] = np.array([[f, 0.0, pose.width / 2], [0.0, f, pose.height / 2], [0.0, 0.0, 1.0]])
        # plate plane (z = 0) -> image homography
        self.H_plate = self.plane_homography(0.0)

    def plane_homography(self, z_mm: float) -> npt.NDArray[np.float64]:
        """Homography taking (x, y, 1) on the horizontal plane at height ``z_mm`` to image pixels."""
        m = np.column_stack([self.rot[:, 0], self.rot[:, 1], self.rot[:, 2] * (-z_mm) + self.t])
        h = self.K @ m
        homography: npt.NDArray[np.float64] = h / h[2, 2]
        return homography

    def to_camera(self, pts: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """(N, 3) plate points (z up) to (N, 3) camera coordinates (z = depth along the axis)."""
        p = np.asarray(pts, dtype=np.float64).reshape(-1, 3) * np.array([1.0, 1.0, -1.0])
        cam: npt.NDArray[np.float64] = p @ self.rot.T + self.t
        return cam

    def project(self, pts: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """(N, 3) plate points to ((N, 2) pixels, (N,) depths in mm)."""
        cam = self.to_camera(pts)
        z = cam[:, 2]
        f = self.K[0, 0]
        uv = np.column_stack([f * cam[:, 0] / z + self.K[0, 2], f * cam[:, 1] / z + self.K[1, 2]])
        return uv, z

    def view_dir(self, pts: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """Unit vectors (plate frame, z up) from points towards the camera."""
        v = self.centre_up[None, :] - np.asarray(pts, dtype=np.float64).reshape(-1, 3)
        unit: npt.NDArray[np.float64] = v / np.linalg.norm(v, axis=1, keepdims=True)
        return unit

    def px_per_mm(self, z_mm: float = 0.0) -> float:
        """Approximate scale at the aim point on the plane at ``z_mm``."""
        cam_dist = (self.pose.height_mm - z_mm) / math.cos(math.radians(self.pose.tilt_deg))
        return float(self.K[0, 0]) / cam_dist


@lru_cache(maxsize=64)
def projector(pose: CameraPose) -> Projector:
    return Projector(pose)
