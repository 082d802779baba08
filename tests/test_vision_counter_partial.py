"""Partly hidden cubes (vision.counter.partial): strips of a lower cube that have no core."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import simulation.synthetic_profile as calibration_synthetic
from vision.colour import BACKGROUND, COLOUR_CODES, lab_to_reflectance
from vision.counter.frame import Core, Frame, Prepared, near_cores
from vision.counter.partial import visible_parts
from vision.counter.tuning import PPM
from vision.plate import TRAY_VIEW

WIDTH, HEIGHT = TRAY_VIEW.size
LEVEL = np.array([200.0, 200.0, 200.0], np.float32)


class _Overhead:
    """A camera straight above the middle of the tray, 400 mm up (plate millimetres)."""

    def camera_position_mm(self) -> np.ndarray:
        return np.array([TRAY_VIEW.x0 + WIDTH / PPM / 2, TRAY_VIEW.y0 + HEIGHT / PPM / 2, 400.0])


@pytest.fixture(scope="module")
def prep() -> Prepared:
    return Prepared(calibration_synthetic.synthetic_profile())


def _px(mm: float) -> int:
    return int(round(mm * PPM))


def _box(x: float, y: float, w: float, h: float) -> tuple[slice, slice]:
    return slice(_px(y), _px(y + h)), slice(_px(x), _px(x + w))


def _view(prep: Prepared, painted: dict[str, np.ndarray]) -> Frame:
    """A tray view of the floor with each mask painted its colour's calibrated top."""
    labels = np.full((HEIGHT, WIDTH), BACKGROUND, np.uint8)
    tray = np.full((HEIGHT, WIDTH, 3), 200, np.uint8)
    for colour, mask in painted.items():
        labels[mask > 0] = COLOUR_CODES[colour]
        lab = np.array(prep.profile.colours[colour].mean_array, np.float32)
        tray[mask > 0] = np.clip(lab_to_reflectance(lab)[0] * LEVEL, 0, 255).astype(np.uint8)
    frame = Frame(_Overhead(), None, tray, LEVEL)  # type: ignore[arg-type]
    frame.labels = labels
    frame.gray = cv2.cvtColor(tray, cv2.COLOR_BGR2GRAY)
    frame.colour_boxes = {c: ((labels == COLOUR_CODES[c]).astype(np.uint8), 0, 0) for c in painted}
    return frame


def _top(x: float, y: float) -> tuple[np.ndarray, Core]:
    """A red cube's 10 mm top at (x, y) mm, as a mask and as the core faces would give."""
    mask = np.zeros((HEIGHT, WIDTH), np.uint8)
    mask[_box(x, y, 10, 10)] = 1
    contour = max(cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0], key=cv2.contourArea)
    return mask, Core("red", 100.0, 5.0, 1.0, 0.8, 45.0, contour.reshape(-1, 2), (_px(x + 5), _px(y + 5)))


def test_a_strip_turning_the_corner_of_the_cube_over_it_is_a_cube(prep) -> None:
    # A blue cube under a red one shows a 3 mm band along the red top's lower edge and up past its
    # right edge: an L about 14 mm long, 6.5 mm wide in its rectangle (tuning renders: seed 9393
    # t0020, 9494 t0017, and three more, each a real cube a third visible or more).
    red, core = _top(60, 40)
    blue = np.zeros((HEIGHT, WIDTH), np.uint8)
    blue[_box(59, 50.5, 14.5, 3)] = 1
    blue[_box(70.5, 47, 3, 6.5)] = 1
    strips = visible_parts(prep, _view(prep, {"red": red, "blue": blue}), [core])
    assert [(s.colour, s.strip) for s in strips] == [("blue", True)]
    assert 13.0 < strips[0].length_mm < 15.6


def test_a_straight_band_as_long_is_a_crevice_not_a_cube(prep) -> None:
    red, core = _top(60, 40)
    blue = np.zeros((HEIGHT, WIDTH), np.uint8)
    blue[_box(59, 50.5, 14.5, 3)] = 1  # the same band without its turn: longer than an edge
    assert visible_parts(prep, _view(prep, {"red": red, "blue": blue}), [core]) == []
    short = np.zeros((HEIGHT, WIDTH), np.uint8)
    short[_box(60, 50.5, 11, 3)] = 1  # no longer than an edge: a lower cube's strip
    assert [s.colour for s in visible_parts(prep, _view(prep, {"red": red, "blue": short}), [core])] == ["blue"]


def test_near_cores_is_the_whole_box_dilated(prep: Prepared) -> None:
    """The cores' reach dilated over their own bounding box only is the box's dilation, also where
    an outline runs past the box's edge or lies wholly outside it."""
    def core(points: list[tuple[int, int]]) -> Core:
        return Core("red", 1.0, 1.0, 1.0, 1.0, 50.0, np.array(points, np.int32), (0.0, 0.0))

    shape, origin = (60, 80), (100, 40)
    cores = [core([(110, 50), (125, 50), (125, 62), (110, 62)]), core([(170, 90), (190, 90), (185, 110)]),
             core([(95, 35), (104, 35), (104, 44)]), core([(300, 300), (310, 300), (310, 310)])]
    for some in ([], cores[:1], cores[1:3], cores[3:], cores):
        whole = np.zeros(shape, np.uint8)
        if some:
            cv2.drawContours(whole, [c.contour.reshape(-1, 1, 2) for c in some], -1, 1, -1, offset=(-origin[0], -origin[1]))
        assert np.array_equal(near_cores(some, shape, origin, prep.reach_kernel), cv2.dilate(whole, prep.reach_kernel))
