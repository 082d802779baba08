"""A cube on its corner read as one cube (vision.counter.corners): its broken-off pieces go."""

from __future__ import annotations

import numpy as np
import pytest

import simulation.synthetic_profile as calibration_synthetic
from vision.counter.corners import pieces_of_corners
from vision.counter.frame import Core, Prepared
from vision.counter.tuning import PPM


@pytest.fixture(scope="module")
def prep() -> Prepared:
    return Prepared(calibration_synthetic.synthetic_profile())


def _core(colour: str, x_mm: float, y_mm: float, area_mm2: float, corner: bool = False) -> Core:
    x, y = x_mm * PPM, y_mm * PPM
    half = 0.5 * np.sqrt(area_mm2) * PPM
    contour = np.array([[x - half, y - half], [x + half, y - half], [x + half, y + half], [x - half, y + half]])
    return Core(colour, area_mm2, 0.5 * np.sqrt(area_mm2), 1.0, 0.78, 40.0, contour.astype(np.int32), (x, y), corner=corner)


def test_a_shaded_piece_beside_a_corner_cube_is_part_of_it(prep) -> None:
    """A small green piece 5.5 mm from a green corner cube's centre (tuning seed 5151 `t0030`: the
    cube's face in deepest shade, broken off) is that cube's; it is not counted again."""
    corner = _core("green", 50, 40, 107.0, corner=True)
    piece = _core("green", 44.5, 40, 18.6)
    assert pieces_of_corners(prep, [corner, piece]) == [corner]


def test_a_cube_beside_a_corner_cube_and_other_colours_stay(prep) -> None:
    """A whole face of the colour next to the corner, a small piece of it farther than the reach,
    a small piece of another colour, and pieces with no corner in the tray are all kept."""
    t = prep.tuning
    corner = _core("green", 50, 40, 107.0, corner=True)
    face = _core("green", 61, 40, 95.0)
    far = _core("green", 50, 40 + t.CORNER_PIECE_REACH_MM + 1, 18.0)
    other = _core("yellow", 45, 40, 18.0)
    assert pieces_of_corners(prep, [corner, face, far, other]) == [corner, face, far, other]
    alone = [_core("green", 50, 40, 95.0), _core("green", 55, 40, 18.0)]
    assert pieces_of_corners(prep, alone) == alone
