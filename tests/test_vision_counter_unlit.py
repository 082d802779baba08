"""Cubes with every face unlit (vision.counter.unlit): one colour per patch of no colour."""

from __future__ import annotations

import numpy as np
import pytest

import simulation.synthetic_profile as calibration_synthetic
from vision.colour import BACKGROUND, COLOUR_CODES, UNKNOWN, lab_to_reflectance
from vision.counter.frame import Prepared
from vision.counter.tuning import PPM
from vision.counter.unlit import one_colour_per_patch
from vision.plate import TRAY_VIEW

WIDTH, HEIGHT = TRAY_VIEW.size
GREEN, YELLOW = COLOUR_CODES["green"], COLOUR_CODES["yellow"]


@pytest.fixture(scope="module")
def prep() -> Prepared:
    return Prepared(calibration_synthetic.synthetic_profile())


def _patch(x_mm: float, y_mm: float, side_mm: float = 10.0) -> tuple[slice, slice]:
    x, y, s = int(x_mm * PPM), int(y_mm * PPM), int(side_mm * PPM)
    return slice(y, y + s), slice(x, x + s)


LEVEL = np.array([200.0, 200.0, 200.0], np.float32)  # the plate's white level in the tests' tray views


def _tray_of(lab_colour: tuple[float, float, float], level: np.ndarray = LEVEL) -> np.ndarray:
    """A tray view (BGR) all of one L*a*b* colour under the white ``level``."""
    refl = lab_to_reflectance(np.array(lab_colour, np.float64).reshape(1, 3)).reshape(3)
    bgr = np.clip(np.round(refl * level), 0, 255).astype(np.uint8)
    return np.broadcast_to(bgr, (HEIGHT, WIDTH, 3)).copy()


def _grey_tray() -> np.ndarray:
    """A tray view of no hue: every patch keeps its vote."""
    return _tray_of((30.0, -3.0, 3.0))


def test_a_patch_split_between_two_wide_gates_takes_the_colour_of_most_of_it_and_its_border(prep) -> None:
    lab = np.full((HEIGHT, WIDTH), BACKGROUND, np.uint8)
    solid = np.zeros((HEIGHT, WIDTH), bool)
    second = np.zeros((HEIGHT, WIDTH), np.uint8)
    # A leaning green cube: its faces of no colour at the usual gate, a thin rim of green around
    # them; at the wider gate a little more than half of them read yellow.
    rows, cols = _patch(40, 30, 14)
    lab[rows, cols] = GREEN
    inner = _patch(42, 32, 10)
    lab[inner] = UNKNOWN
    solid[inner] = True
    second[inner] = GREEN
    ys, xs = inner
    second[ys, xs.start:xs.start + 16] = YELLOW  # 16 of 30 columns
    # A patch of no colour far from it, all yellow at the wider gate, with nothing around it.
    far = _patch(90, 60)
    lab[far] = UNKNOWN
    solid[far] = True
    second[far] = YELLOW
    second[_patch(90, 60, 2)] = BACKGROUND  # the plate's colour at the wider gate stays the plate's

    out = one_colour_per_patch(prep, lab, solid, second, _grey_tray(), LEVEL)

    assert np.count_nonzero(out[inner] == GREEN) == 30 * 30
    far_out = out[far]
    assert np.count_nonzero(far_out == YELLOW) == 30 * 30 - 6 * 6
    assert np.count_nonzero(far_out == BACKGROUND) == 6 * 6
    assert np.array_equal(out[~solid], second[~solid])  # nothing outside the patches changes


def test_no_patch_of_no_colour_changes_nothing(prep) -> None:
    lab = np.full((HEIGHT, WIDTH), GREEN, np.uint8)
    second = np.zeros((HEIGHT, WIDTH), np.uint8)
    out = one_colour_per_patch(prep, lab, np.zeros((HEIGHT, WIDTH), bool), second, _grey_tray(), LEVEL)
    assert np.array_equal(out, second)




def _split_patch(lead: int, rival: int, rival_columns: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[slice, slice]]:
    """A patch of no colour on the plate, ``rival_columns`` of its 30 columns ``rival`` at the
    wider gate and the rest ``lead``: (labels, solid, second, the patch)."""
    lab = np.full((HEIGHT, WIDTH), BACKGROUND, np.uint8)
    solid = np.zeros((HEIGHT, WIDTH), bool)
    second = np.zeros((HEIGHT, WIDTH), np.uint8)
    patch = _patch(40, 30)
    lab[patch] = UNKNOWN
    solid[patch] = True
    second[patch] = lead
    ys, xs = patch
    second[ys, xs.start:xs.start + rival_columns] = rival
    return lab, solid, second, patch


def test_a_dark_patch_split_between_two_colours_takes_the_one_nearer_its_hue(prep) -> None:
    # A green cube on its corner (tuning seed 5405 t0016): its faces darker than any green top,
    # two thirds of its pixels yellow at the wider gate, its mean colour a dark green.
    lab, solid, second, patch = _split_patch(YELLOW, GREEN, 10)

    by_votes = one_colour_per_patch(prep, lab, solid, second, _grey_tray(), LEVEL)
    by_hue = one_colour_per_patch(prep, lab, solid, second, _tray_of((32.0, -28.0, 22.0)), LEVEL)

    assert np.all(by_votes[patch] == YELLOW)  # the votes alone: yellow
    assert np.all(by_hue[patch] == GREEN)


def test_a_clear_majority_or_a_grey_patch_keeps_its_vote(prep) -> None:
    lab, solid, second, patch = _split_patch(YELLOW, GREEN, 5)  # green: 5 of 30 columns, under a quarter of yellow's
    assert np.all(one_colour_per_patch(prep, lab, solid, second, _tray_of((32.0, -28.0, 22.0)), LEVEL)[patch] == YELLOW)
    lab, solid, second, patch = _split_patch(YELLOW, GREEN, 10)  # split, but grey: no hue to go by
    assert np.all(one_colour_per_patch(prep, lab, solid, second, _grey_tray(), LEVEL)[patch] == YELLOW)
