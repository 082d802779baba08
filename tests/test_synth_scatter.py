"""Scene generators: cubes lie inside the tray without interpenetrating, touch where they pile up,
stack now and then, and the same seed gives the same scene."""

from __future__ import annotations

import numpy as np
import pytest

from simulation.synth.scatter import (
    cluster_of_cubes,
    cube_on_cube,
    finger,
    random_camera,
    random_scene,
    row_of_cubes,
    scatter_cubes,
    squares_overlap,
)
from vision import geometry as geo

COUNTS = {"red": 10, "blue": 8, "yellow": 7, "purple": 8, "black": 6, "green": 6}


def _floor(pieces):  # type: ignore[no-untyped-def]
    return [p for p in pieces if p.kind == "cube" and p.z_mm == 0]


def _gaps(pieces) -> np.ndarray:  # type: ignore[no-untyped-def]
    """For each floor cube, the smallest clearance (mm, capped at 1) at which it would touch another."""
    fl = _floor(pieces)
    xs = np.array([p.x_mm for p in fl])
    ys = np.array([p.y_mm for p in fl])
    yaws = np.array([p.yaw_deg for p in fl])
    out = []
    for i, p in enumerate(fl):
        others = np.arange(len(fl)) != i
        gap = 0.0
        while gap < 1.0 and not squares_overlap(p.x_mm, p.y_mm, p.yaw_deg, xs[others], ys[others], yaws[others],
                                               gap=gap).any():
            gap += 0.05
        out.append(gap)
    return np.array(out)


@pytest.mark.parametrize("mode", ["pile", "flat"])
def test_forty_five_cubes_fit_without_overlap_inside_the_tray(mode: str) -> None:
    pieces = scatter_cubes(COUNTS, np.random.default_rng(3), mode=mode, stack_prob=0.0)
    assert len(pieces) == 45
    for colour, n in COUNTS.items():
        assert sum(p.colour == colour for p in pieces) == n
    x0, y0, x1, y1 = geo.TRAY_INNER_MM
    for p in pieces:
        e = 5 * (abs(np.cos(np.radians(p.yaw_deg))) + abs(np.sin(np.radians(p.yaw_deg))))
        assert x0 + e - 1e-6 <= p.x_mm <= x1 - e + 1e-6 and y0 + e - 1e-6 <= p.y_mm <= y1 - e + 1e-6
    gaps = _gaps(pieces)
    assert (gaps > 0).all(), "two floor cubes overlap"
    if mode == "pile":
        # a pile is mostly cubes touching their neighbours (within 0.15 mm)
        assert (gaps <= 0.15).mean() > 0.6


def test_stacking_puts_cubes_on_supported_tops() -> None:
    pieces = scatter_cubes({"red": 12}, np.random.default_rng(8), stack_prob=1.0, spread_mm=6)
    top = [p for p in pieces if p.z_mm > 0]
    floor = _floor(pieces)
    assert top, "with stack_prob=1 some cubes rest on others"
    for t in top:
        assert t.z_mm == geo.CUBE_EDGE_MM
        nearest = min(np.hypot(t.x_mm - f.x_mm, t.y_mm - f.y_mm) for f in floor)
        assert nearest <= 3.5 + 1e-9


def test_scatter_is_reproducible_and_rejects_bad_input() -> None:
    a = scatter_cubes(COUNTS, np.random.default_rng(1))
    b = scatter_cubes(COUNTS, np.random.default_rng(1))
    assert a == b
    assert a != scatter_cubes(COUNTS, np.random.default_rng(2))
    with pytest.raises(ValueError, match="unknown cube colour"):
        scatter_cubes({"orange": 1}, np.random.default_rng(0))
    with pytest.raises(ValueError, match="could not fit"):
        scatter_cubes({"red": 200}, np.random.default_rng(0), mode="flat")


def test_hard_case_helpers_touch_exactly() -> None:
    row = row_of_cubes("red", 4, 60, 70, direction_deg=0)
    assert [round(p.x_mm - row[0].x_mm, 6) for p in row] == [0, 10, 20, 30]
    assert _gaps(row).max() <= 0.05
    block = cluster_of_cubes("blue", 6, 100, 90, yaw_deg=20, columns=3)
    assert len(block) == 6 and _gaps(block).max() <= 0.05
    bottom, top = cube_on_cube("red", "yellow", 100, 90)
    assert bottom.z_mm == 0 and top.z_mm == 10
    f = finger(np.random.default_rng(0), side="left", reach_mm=30)
    assert f.kind == "finger" and f.x_mm == pytest.approx(geo.TRAY_INNER_MM[0] + 30)


def test_random_cameras_stay_in_the_spec() -> None:
    rng = np.random.default_rng(4)
    for _ in range(50):
        cam = random_camera(rng)
        assert geo.CAMERA_HEIGHT_MM[0] <= cam.height_mm <= geo.CAMERA_HEIGHT_MM[1]
        assert cam.tilt_deg <= geo.CAMERA_MAX_TILT_DEG and abs(cam.roll_deg) <= geo.CAMERA_MAX_ROLL_DEG
        assert (cam.width, cam.height) in geo.FRAME_SIZES
    scene = random_scene(np.random.default_rng(9))
    assert sum(p.kind == "cube" for p in scene.pieces) <= geo.MAX_CUBES_IN_TRAY


def test_stacked_cubes_sometimes_lean_and_pawns_can_lie() -> None:
    from simulation.synth import courtier

    pieces = scatter_cubes({"red": 14}, np.random.default_rng(8), stack_prob=1.0, spread_mm=7)
    assert any(p.z_mm > 0 and p.tilt_deg > 0 for p in pieces)
    lying = courtier("blue", 100, 90, yaw_deg=30, lying=True)
    assert lying.tilt_deg > 45 and not courtier("blue", 100, 90).tilt_deg
