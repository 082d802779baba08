"""Faces (vision.counter.faces): one core per visible face, and what is not a face."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

import simulation.synthetic_profile as calibration_synthetic
from vision.colour import BACKGROUND, COLOUR_CODES, UNKNOWN, bgr_to_lab, lab_to_reflectance
from vision.counter import faces
from vision.counter.frame import Frame, Prepared
from vision.counter.tuning import PPM
from vision.plate import TRAY_VIEW

WIDTH, HEIGHT = TRAY_VIEW.size
LEVEL = np.array([200.0, 200.0, 200.0], np.float32)


@pytest.fixture(scope="module")
def prep() -> Prepared:
    return Prepared(calibration_synthetic.synthetic_profile())


def _box(x: float, y: float, w: float, h: float) -> tuple[slice, slice]:
    return slice(int(round(y * PPM)), int(round((y + h) * PPM))), slice(int(round(x * PPM)), int(round((x + w) * PPM)))


def _painted(prep: Prepared, colour: str, dl: float = 0.0, db: float = 0.0) -> np.ndarray:
    """A colour's calibrated mean as BGR, ``dl`` lighter (L*) and ``db`` yellower (b*)."""
    lab = np.array(prep.profile.colours[colour].mean_array, np.float32)
    lab[0] += dl
    lab[2] += db
    return np.clip(lab_to_reflectance(lab)[0] * LEVEL, 0, 255).astype(np.uint8)


def _black(prep: Prepared, lift_sd: float) -> np.ndarray:
    """Black's calibrated colour, ``lift_sd`` standard deviations of its lightness brighter, as BGR."""
    return _painted(prep, "black", dl=lift_sd * math.sqrt(prep.profile.colours["black"].cov[0][0]))


def _frame(patches: list[tuple[tuple[slice, slice], np.ndarray]], label: str = "black") -> Frame:
    """A floor with each box painted its colour and labelled ``label``, as the classifier would."""
    labels = np.full((HEIGHT, WIDTH), BACKGROUND, np.uint8)
    tray = np.full((HEIGHT, WIDTH, 3), 200, np.uint8)
    for box, bgr in patches:
        labels[box] = COLOUR_CODES[label]
        tray[box] = bgr
    frame = Frame(None, None, tray, LEVEL)  # type: ignore[arg-type]
    frame.labels = labels
    frame.gray = cv2.cvtColor(tray, cv2.COLOR_BGR2GRAY)
    return frame


def test_a_small_black_patch_brighter_than_any_black_top_is_floor_in_a_gap(prep) -> None:
    # The floor at the bottom of a narrow gap between cubes, in their shade, passes black's gate as
    # a small patch, a good deal brighter than a black top (tuning renders: seed 9494 t0072, 9393
    # t0017, seed 6060 t0011; 2.3-4.7 standard deviations up, no right black patch so small above 1).
    gap = _box(40, 40, 5, 5)
    frame = _frame([(gap, _black(prep, 3.0))])
    assert faces.cores(prep, frame) == []
    assert (frame.labels[gap] == BACKGROUND).all()  # floor, so no later stage takes it for a black piece
    assert not frame.colour_boxes["black"][0].any()


def test_a_small_black_patch_as_bright_as_a_black_top_is_still_a_piece_of_a_cube(prep) -> None:
    frame = _frame([(_box(40, 40, 5, 5), _black(prep, 0.5))])
    assert [c.colour for c in faces.cores(prep, frame)] == ["black"]


def test_a_whole_black_face_as_bright_is_still_a_face(prep) -> None:
    # The brightest right whole black faces on the tuning renders were 1.5 standard deviations up;
    # only small patches are tested.
    frame = _frame([(_box(40, 40, 9, 9), _black(prep, 3.0))])
    assert [c.colour for c in faces.cores(prep, frame)] == ["black"]


def test_a_face_whose_pixels_flip_between_two_colours_takes_one(prep) -> None:
    # A blue cube leaning away from the ring light: darker and more saturated than a blue top, its
    # pixels flipping between blue and purple at random (tuning render seed 5151 t0005, 0.97 visible,
    # counted as nothing before).
    rng = np.random.default_rng(5151)
    face = _box(40, 40, 10, 10)
    frame = _frame([])
    frame.tray[face] = _painted(prep, "blue", dl=-8.0, db=-6.0)
    flips = rng.random(frame.labels[face].shape) < 0.5
    frame.labels[face] = np.where(flips, COLOUR_CODES["blue"], COLOUR_CODES["purple"])
    assert faces.cores(prep, frame) == []  # neither colour keeps a core
    faces.one_colour_where_speckled(prep, frame, frame.labels)
    assert np.mean(frame.labels[face] == COLOUR_CODES["blue"]) > 0.8
    assert [c.colour for c in faces.cores(prep, frame)] == ["blue"]


def test_two_faces_of_two_colours_that_touch_keep_their_colours(prep) -> None:
    frame = _frame([])
    for colour, box in (("blue", _box(40, 40, 10, 10)), ("purple", _box(50, 40, 10, 10))):
        frame.tray[box] = _painted(prep, colour)
        frame.labels[box] = COLOUR_CODES[colour]
    before = frame.labels.copy()
    faces.one_colour_where_speckled(prep, frame, frame.labels)
    assert (frame.labels == before).all()


def _noisy_green_face(prep: Prepared, unclassed: float, dl: float = 0.0) -> tuple[Frame, tuple[slice, slice]]:
    """A green top 10 mm square, painted ``dl`` lighter than green's calibrated mean, a share
    ``unclassed`` of its pixels in no class at random (tuning 5411 t0019: a green cube by the
    wall, 40 % of its pixels in no class, counted as nothing)."""
    face = _box(40, 40, 10, 10)
    frame = _frame([])
    frame.tray[face] = _painted(prep, "green", dl=dl)
    noise = np.random.default_rng(5411).random(frame.labels[face].shape) < unclassed
    frame.labels[face] = np.where(noise, UNKNOWN, COLOUR_CODES["green"])
    return frame, face


def test_a_face_whose_pixels_flip_between_its_colour_and_none_takes_its_colour(prep) -> None:
    frame, face = _noisy_green_face(prep, 0.4)
    assert faces.cores(prep, frame) == []  # crumbs, no core
    faces.one_colour_where_noisy(prep, frame, frame.labels)
    # all but the face's edge, within half a window of the floor
    assert np.mean(frame.labels[face] == COLOUR_CODES["green"]) > 0.85
    assert [c.colour for c in faces.cores(prep, frame)] == ["green"]


def test_a_clean_face_and_its_rim_are_left_as_classed(prep) -> None:
    """A face with a line of unclassed pixels round it (its rim in the seam's shade): nothing
    changes, nor on a face with a few unclassed pixels only."""
    frame, face = _noisy_green_face(prep, 0.05)
    rim = _box(39.5, 39.5, 11, 11)
    ring = np.zeros(frame.labels.shape, bool)
    ring[rim] = True
    ring[face] = False
    frame.labels[ring] = UNKNOWN
    before = frame.labels.copy()
    faces.one_colour_where_noisy(prep, frame, frame.labels)
    assert (frame.labels == before).all()


def test_a_noisy_patch_whose_mean_is_no_face_of_the_colour_keeps_its_gaps(prep) -> None:
    """Far lighter than any green top (a coin's glint, a sleeve): its mean fails green's face gate."""
    frame, face = _noisy_green_face(prep, 0.4, dl=40.0)
    before = frame.labels.copy()
    faces.one_colour_where_noisy(prep, frame, frame.labels)
    assert (frame.labels == before).all()


def test_seam_bound_looked_up_is_the_float_bound(prep: Prepared) -> None:
    """The seam test in bytes (``Prepared.seam_limit``) marks the pixels the float32 bound did, for
    every pair of closed level and depth."""
    closed = np.repeat(np.arange(256), 256).astype(np.float32)
    depth = np.tile(np.arange(256), 256)
    t = prep.tuning
    expected = depth.astype(np.float32) <= t.SEAM_DEPTH * closed + t.SEAM_FLOOR
    assert np.array_equal(depth <= prep.seam_limit[closed.astype(np.uint8)], expected)


def _red_face_at(prep: Prepared, gate_distance: float) -> tuple[Frame, float]:
    """A floor with one whole red face (9 x 9 mm, labelled red), darkened until its mean colour lies
    at least ``gate_distance`` (Mahalanobis^2) from red's model; returns the frame and the distance."""
    model = prep.models["red"]
    for step in range(400):
        bgr = _painted(prep, "red", dl=-0.25 * step)
        lab = bgr_to_lab(bgr.astype(np.float32).reshape(1, 1, 3), LEVEL).reshape(1, 3)
        distance = float(model.mahalanobis2(lab)[0])
        if distance >= gate_distance:
            break
    return _frame([(_box(30, 30, 9, 9), bgr)], "red"), distance


def test_a_face_darker_than_any_calibrated_top_as_on_a_cube_standing_on_its_corner_is_a_face(prep) -> None:
    # A cube on its corner turns every face from the ring light: the hexagon's mean lies darker than
    # any calibrated top (tuning 5410 t0006: a red one 97 % visible at 13.3, dropped at the old gate
    # of 12 and read as no red at all).
    frame, distance = _red_face_at(prep, 13.3)
    assert 13.3 <= distance < prep.tuning.FACE_GATE
    assert [c.colour for c in faces.cores(prep, frame)] == ["red"]


def test_a_patch_far_darker_than_its_colour_is_no_face(prep) -> None:
    # The gate still holds: a patch's pixels may each pass a colour, its mean must be near it too.
    frame, distance = _red_face_at(prep, 1.5 * prep.tuning.FACE_GATE)
    assert distance >= prep.tuning.FACE_GATE
    assert faces.cores(prep, frame) == []
