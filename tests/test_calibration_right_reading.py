"""Issue 9's measure of a right reading, written once (calibration/right_reading.py)."""

from __future__ import annotations

from calibration.right_reading import colours_outside, courtiers_outside


def test_a_colour_is_right_between_the_cubes_a_camera_must_see_and_the_cubes_in_the_tray() -> None:
    meta = {"visible_cubes": {"red": 2, "blue": 0}, "cubes": {"red": 3, "blue": 1}}
    assert colours_outside(meta, {"red": 2}) == {}
    assert colours_outside(meta, {"red": 3, "blue": 1}) == {}  # the hidden ones may be counted
    assert colours_outside(meta, {"red": 1}) == {"red": (1, 2, 3)}
    assert colours_outside(meta, {"red": 4, "green": 1}) == {"red": (4, 2, 3), "green": (1, 0, 0)}


def test_courtiers_are_wrong_outside_those_visible_and_those_in_the_tray() -> None:
    meta = {"visible_courtiers": {"red": 1, "blue": 0}, "courtiers": {"red": 1, "blue": 1}}
    assert courtiers_outside(meta, {"red": 1, "blue": 0}) == {}
    assert courtiers_outside(meta, {"red": 1, "blue": 1}) == {}  # the hidden one may be found
    assert courtiers_outside(meta, {"red": 0, "blue": 0}) == {"red": (0, 1, 1)}
    assert courtiers_outside(meta, {"red": 1, "yellow": 1}) == {"yellow": (1, 0, 0)}
