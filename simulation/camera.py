"""The simulated camera: renders the simulated tray with the vision package's synthetic renderer.

The station's camera does not move, so the camera pose (height, tilt, roll within the limits of
``../shared/spec/tray.md``) is drawn once from the seed; noise changes from frame to frame. Right
after a release the ``SimWorld`` hands out scenes with cubes still rolling towards where they come
to rest, so the controller's settle detection sees real motion. The LED ring's level (set through
the tray board) changes the brightness. Faults: ``camera_timeout`` raises ``CameraTimeout``;
``camera_black`` returns a black frame (a lens cap, a dead ribbon cable).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from hardware.errors import CameraError, CameraTimeout
from hardware.interfaces import Camera
from simulation import synth
from simulation.tray import FrameScene
from simulation.world import SimWorld
from vision import geometry as g

Renderer = Callable[[FrameScene, int, int, int], npt.NDArray[np.uint8]]


def camera_pose_for(seed: int, width: int, height: int) -> dict[str, float]:
    """A fixed, plausible camera pose for a simulated station (the same for every frame)."""
    rng = random.Random(f"camera-{seed}")
    return {"height_mm": rng.uniform(285.0, 315.0), "tilt_deg": rng.uniform(0.0, 4.0),
            "tilt_dir_deg": rng.uniform(0.0, 360.0), "roll_deg": rng.uniform(-2.5, 2.5)}


def synth_renderer(seed: int) -> Renderer:
    """A renderer that draws a ``FrameScene`` with ``simulation.synth``."""
    room = random.Random(f"room-{seed}")
    kelvin = room.uniform(3000.0, 6000.0)

    def render(scene: FrameScene, width: int, height: int, frame_seed: int) -> npt.NDArray[np.uint8]:
        pose = synth.CameraPose(width=width, height=height, **camera_pose_for(seed, width, height))
        pieces = tuple(
            synth.Piece("cube", p.colour, p.x_mm, p.y_mm, yaw_deg=p.angle_deg, z_mm=g.CUBE_EDGE_MM * p.level)
            for p in scene.pieces)
        lighting = synth.Lighting(kelvin=kelvin, brightness=max(0.15, 0.3 + 0.7 * scene.led_level))
        frame = synth.render(synth.Scene(pieces=pieces, camera=pose, lighting=lighting),
                             np.random.default_rng(frame_seed))
        return np.asarray(frame)

    return render


class SimCamera(Camera):
    def __init__(self, table: SimWorld, *, width: int = 1280, height: int = 960, timeout_s: float = 3.0,
                 seed: int = 1, renderer: Renderer | None = None, sleep: Callable[[float], None] = time.sleep) -> None:
        self.table = table
        self.width, self.height = width, height
        self.timeout_s = timeout_s
        self.seed = seed
        self._renderer = renderer
        self._sleep = sleep
        self.frames = 0

    def capture(self) -> npt.NDArray[np.uint8]:
        faults = self.table.faults
        if faults.strikes("camera_timeout"):
            self._sleep(min(self.timeout_s, 0.05))
            raise CameraTimeout(f"simulated camera delivered no frame within {self.timeout_s:g} s (injected)")
        scene = self.table.frame_scene()
        self.frames += 1
        if faults.strikes("camera_black"):
            return np.zeros((self.height, self.width, 3), np.uint8)
        if self._renderer is None:
            self._renderer = synth_renderer(self.seed)
        frame = self._renderer(scene, self.width, self.height, self.seed * 1_000_003 + self.frames)
        if frame.shape != (self.height, self.width, 3) or frame.dtype != np.uint8:
            raise CameraError(f"renderer returned {frame.shape} {frame.dtype}, expected "
                              f"({self.height}, {self.width}, 3) uint8")
        return frame

    def describe(self) -> str:
        return f"simulated camera {self.width}x{self.height}"
