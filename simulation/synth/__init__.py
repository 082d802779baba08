"""The synthetic tray renderer: scenes of cubes, courtier pawns, coins and fingers in the clear
tray on the marker plate, seen by a pinhole camera under a colour cast, a soft shadow, noise and
JPEG. Used by unit tests of the counter and by the simulated camera.

Typical use::

    rng = np.random.default_rng(7)
    scene = Scene(pieces=scatter_cubes({"red": 5, "blue": 3}, rng), camera=CameraPose(tilt_deg=5))
    frame = render(scene, rng)                  # BGR uint8
    frame, truth = render_with_truth(scene, rng)  # plus visible counts
"""

from .exposure import colour_cast
from .motion import motion_scenes, render_motion
from .render import Truth, render, render_with_truth
from .scatter import (
    arm_shadow,
    cluster_of_cubes,
    coin,
    courtier,
    cube_on_cube,
    finger,
    random_camera,
    random_lighting,
    random_postfx,
    random_scene,
    row_of_cubes,
    scatter_cubes,
)
from .scene import TRAY_FLOOR_MM, CameraPose, Lighting, Piece, PostFX, Scene, Shadow

__all__ = [
    "TRAY_FLOOR_MM",
    "CameraPose",
    "Lighting",
    "Piece",
    "PostFX",
    "Scene",
    "Shadow",
    "Truth",
    "arm_shadow",
    "cluster_of_cubes",
    "coin",
    "colour_cast",
    "courtier",
    "cube_on_cube",
    "finger",
    "motion_scenes",
    "random_camera",
    "random_lighting",
    "random_postfx",
    "random_scene",
    "render",
    "render_motion",
    "render_with_truth",
    "row_of_cubes",
    "scatter_cubes",
]
