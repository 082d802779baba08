"""The counter's hard cases on frames from the synthetic tray renderer (``simulation.synth``).

Each case is a scene built on purpose (positions, light, camera tilt and roll within the spec),
rendered with camera effects, and counted with a profile learned from the renderer's own
calibration shots (``simulation.synthetic_profile``). The truth is the renderer's ``visible_cubes``.
"""

from __future__ import annotations

import numpy as np
import pytest

import simulation.synthetic_profile as calibration_synthetic
from simulation import synth
from vision import geometry as geo

X0, Y0, X1, Y1 = geo.TRAY_INNER_MM
CX, CY = (X0 + X1) / 2, (Y0 + Y1) / 2


@pytest.fixture(scope="module")
def counter():
    from vision.counter import TrayCounter

    return TrayCounter(calibration_synthetic.synthetic_profile())


def _camera(i: int):
    return synth.CameraPose(height_mm=285 + 10 * (i % 4), tilt_deg=2.0 + 1.5 * (i % 4), tilt_dir_deg=40.0 * i,
                            roll_deg=(-4, -1, 2, 4)[i % 4])


def _read(counter, pieces, lighting=None, i: int = 0):
    scene = synth.Scene(tuple(pieces), _camera(i), lighting or synth.Lighting(), synth.PostFX())
    rng = np.random.default_rng(1000 + i)
    frame, truth = synth.render_with_truth(scene, rng)
    return counter.count(frame), truth


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_touching_row(counter, n: int) -> None:
    reading, truth = _read(counter, synth.row_of_cubes("red", n, CX - 5 * n + 5, CY, 15.0 * n), i=n)
    assert reading.usable and reading.cubes == truth.visible_cubes and truth.visible_cubes["red"] == n


@pytest.mark.parametrize("colour", ["green", "black"])
def test_touching_cluster(counter, colour: str) -> None:
    reading, truth = _read(counter, synth.cluster_of_cubes(colour, 7, CX, CY, 20.0), i=2)
    assert reading.usable and reading.cubes == truth.visible_cubes


def test_cube_on_another(counter) -> None:
    reading, truth = _read(counter, synth.cube_on_cube("yellow", "blue", CX, CY, (3.0, 2.0)), i=1)
    assert reading.cubes == truth.visible_cubes == {**dict.fromkeys(geo.ALL_COLOURS, 0), "yellow": 1, "blue": 1}


@pytest.mark.parametrize(("lower", "upper", "i", "offset", "at"), [
    ("green", "red", 0, (2.5, 0.0), (45, 30)),     # a strip and a side face, far from the nadir
    ("green", "red", 0, (4.0, 1.0), (0, 0)),       # an L of top face, under the camera
    ("blue", "purple", 3, (2.5, 0.0), (45, 30)),   # purple on blue: side faces of both are dark
    ("red", "red", 2, (5.5, 2.0), (-40, -25)),     # one colour: the strip is not part of the face
    ("yellow", "black", 1, (1.0, 0.5), (-40, -25)),  # a sliver: not a quarter visible
    ("red", "red", 2, (1.0, 0.5), (0, 0)),         # a sliver beside a face of its colour
])
def test_a_cube_mostly_under_another(counter, lower: str, upper: str, i: int, offset: tuple[float, float],
                                     at: tuple[float, float]) -> None:
    """The lower cube counts when a quarter of its silhouette is visible (its top strip and the side
    faces turned to the camera), not when less is; cases well clear of the quarter."""
    pieces = synth.cube_on_cube(lower, upper, CX + at[0], CY + at[1], offset, 20.0 * i, 35.0)
    reading, truth = _read(counter, pieces, i=i)
    assert abs(truth.visible_fraction[0] - 0.25) >= 0.09, "the case must not sit on the quarter"
    assert reading.cubes == truth.visible_cubes


def test_red_under_a_warm_cast(counter) -> None:
    pieces = synth.row_of_cubes("red", 3, CX - 30, CY - 15, 0.0) + synth.row_of_cubes("yellow", 2, CX, CY + 20, 0.0)
    pieces += [synth.Piece("cube", "purple", CX + 30, CY - 10, 30.0)]
    reading, truth = _read(counter, pieces, synth.Lighting(kelvin=2700, cast_strength=0.85, brightness=0.8), i=3)
    assert reading.cubes == truth.visible_cubes


def test_black_in_an_arm_shadow(counter) -> None:
    shadow = synth.arm_shadow(np.random.default_rng(5), strength=0.6)
    pieces = [synth.Piece("cube", "black", CX + dx, CY + dy, 17.0 * k)
              for k, (dx, dy) in enumerate([(-40, -20), (-20, 15), (0, -10), (25, 20), (45, -25)])]
    reading, truth = _read(counter, pieces, synth.Lighting(kelvin=3200, cast_strength=0.7, shadow=shadow), i=0)
    assert reading.usable and reading.cubes == truth.visible_cubes


def test_purple_beside_blue(counter) -> None:
    pieces = synth.row_of_cubes("purple", 2, CX - 20, CY, 0.0) + synth.row_of_cubes("blue", 2, CX, CY, 0.0)
    reading, truth = _read(counter, pieces, i=1)
    assert reading.cubes == truth.visible_cubes


def test_a_standing_pawn_beside_a_cube(counter) -> None:
    pieces = [synth.Piece("cube", "red", CX, CY, 20.0), synth.courtier("red", CX + 12, CY + 1)]
    reading, truth = _read(counter, pieces, i=2)
    assert reading.cubes == truth.visible_cubes
    assert reading.courtiers["red"] == 1


@pytest.mark.parametrize(("colour", "i", "yaw"), [("red", 0, 25.0), ("red", 0, 45.0), ("blue", 1, 45.0),
                                                  ("yellow", 2, 0.0), ("purple", 3, 70.0)])
def test_a_pawn_standing_against_a_cube_of_its_colour(counter, colour: str, i: int, yaw: float) -> None:
    """The pawn touches the face (no seam between them, and a face's corner can point at it): one
    cube and one courtier, not two or three cubes."""
    pieces = [synth.Piece("cube", colour, CX, CY, yaw), synth.courtier(colour, CX + 11.5, CY + i - 1.5)]
    reading, truth = _read(counter, pieces, i=i)
    assert truth.visible_cubes[colour] == 1 and truth.visible_courtiers[colour] == 1
    assert reading.cubes == truth.visible_cubes
    assert reading.courtiers == truth.visible_courtiers


@pytest.mark.parametrize(("colour", "i"), [("yellow", 0), ("black", 1), ("blue", 2), ("purple", 3)])
def test_a_pawn_lying_on_its_side_is_not_a_cube(counter, colour: str, i: int) -> None:
    """From above a lying pawn is a tapered, shaded outline about 14 x 10 mm: a courtier, not a cube,
    whether it lies alone or beside a cube of its colour."""
    pieces = [synth.Piece("cube", colour, CX, CY, 10.0 * i),
              synth.courtier(colour, CX + 12.5, CY + 1, yaw_deg=30.0 * i, lying=True),
              synth.courtier(colour, CX - 35, CY - 25, yaw_deg=45.0 + 20 * i, lying=True)]
    reading, truth = _read(counter, pieces, i=i)
    assert truth.visible_courtiers[colour] == 2
    assert reading.cubes == truth.visible_cubes
    assert reading.courtiers == truth.visible_courtiers


def test_a_finger_makes_the_frame_unusable(counter) -> None:
    pieces = [synth.Piece("cube", "green", CX - 30, CY, 0.0), synth.finger(side="bottom", reach_mm=35)]
    reading, _ = _read(counter, pieces, i=1)
    assert not reading.usable and "finger" in reading.reason


def test_a_coin_is_never_a_cube(counter) -> None:
    pieces = [synth.coin(CX - 20, CY), synth.Piece("cube", "yellow", CX + 25, CY, 10.0)]
    reading, truth = _read(counter, pieces, i=3)
    assert not reading.usable or reading.cubes == truth.visible_cubes
