"""Courtiers lying on their side (vision.counter.lying), on drawn tray views and on a render."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import simulation.synthetic_profile as calibration_synthetic
from vision.colour import BACKGROUND, COLOUR_CODES, UNKNOWN, lab_to_reflectance
from vision.counter.frame import Core, Frame, Prepared
from vision.counter.lying import floor_share, holes_filled, lying_as_pawns, lying_courtiers, waist
from vision.counter.pawns import looks_like_pawn
from vision.counter.tuning import PPM
from vision.plate import TRAY_VIEW

WIDTH, HEIGHT = TRAY_VIEW.size
LEVEL = np.array([200.0, 200.0, 200.0], np.float32)  # the plate's white level


@pytest.fixture(scope="module")
def prep() -> Prepared:
    return Prepared(calibration_synthetic.synthetic_profile())


def _mm(x: float, y: float) -> tuple[int, int]:
    return int(round(x * PPM)), int(round(y * PPM))


def _courtier_mask(x: float = 50.0, y: float = 40.0) -> np.ndarray:
    """A courtier on its side seen from above, lying along x: a bell 9 mm long from a 9.5 mm base to a
    4 mm waist, and a 7.5 mm head beyond it (about 14 x 9.5 mm in all)."""
    mask = np.zeros((HEIGHT, WIDTH), np.uint8)
    bell = np.array([_mm(x, y - 4.75), _mm(x + 9, y - 2), _mm(x + 9, y + 2), _mm(x, y + 4.75)], np.int32)
    cv2.fillConvexPoly(mask, bell, 1)
    cv2.circle(mask, _mm(x + 10.5, y), int(round(3.6 * PPM)), 1, -1)
    return mask


def _view(prep: Prepared, colour: str, mask: np.ndarray, shade: float = 0.8, around: str | None = None) -> Frame:
    """A tray view: the floor, ``mask`` painted ``colour`` at the lightness ``shade`` of the way from
    its calibrated top to its calibrated pawn; ``around``: another cube colour all round it (a cube
    lying over it) instead of the floor."""
    labels = np.full((HEIGHT, WIDTH), BACKGROUND, np.uint8)
    tray = np.full((HEIGHT, WIDTH, 3), 200, np.uint8)
    if around is not None:
        ring = cv2.dilate(mask, np.ones((13, 13), np.uint8)) & (1 - mask)
        labels[ring > 0] = COLOUR_CODES[around]
    labels[mask > 0] = COLOUR_CODES[colour]
    lab = np.array(prep.profile.colours[colour].mean_array, np.float32)
    lab[0] = prep.top_l[colour] - shade * (prep.top_l[colour] - prep.pawn_l[colour])
    tray[mask > 0] = np.clip(lab_to_reflectance(lab)[0] * LEVEL, 0, 255).astype(np.uint8)
    frame = Frame(None, None, tray, LEVEL)  # type: ignore[arg-type]
    frame.labels = labels
    frame.gray = cv2.cvtColor(tray, cv2.COLOR_BGR2GRAY)
    return frame


def _core(colour: str, mask: np.ndarray) -> Core:
    contour = max(cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0],
                  key=cv2.contourArea).reshape(-1, 2)
    m = cv2.moments(contour)
    return Core(colour, float(np.count_nonzero(mask)) / PPM**2, 2.0, 0.7, 0.5, 40.0, contour,
                (m["m10"] / m["m00"], m["m01"] / m["m00"]))


def test_a_courtier_on_its_side_is_found_and_its_pieces_become_one_pawn(prep) -> None:
    mask = _courtier_mask()
    frame = _view(prep, "blue", mask)
    found = lying_courtiers(prep, frame, "blue")
    assert len(found) == 1 and found[0][3].lying and 12.5 <= found[0][3].length_mm <= 16.5
    bell = mask.copy()
    bell[:, _mm(59, 0)[0]:] = 0  # the faces stage kept the bell as a small face; the head went
    face = np.zeros_like(mask)
    cv2.rectangle(face, _mm(90, 30), _mm(100, 40), 1, -1)
    cores = [_core("blue", bell), _core("blue", face)]
    out = lying_as_pawns(prep, frame, cores)
    assert len(out) == 2 and out[0] is cores[1]
    assert out[1].lying and out[1].colour == "blue"


def _speckled(frame: Frame, mask: np.ndarray, seed: int = 3) -> np.ndarray:
    """Punch holes of no class (up to 4 px, 1.3 mm) into ``mask``'s pixels in ``frame``'s labels, as
    a courtier's speckled body leaves them; the mask of its colour that is left."""
    rng = np.random.default_rng(seed)
    holes = np.zeros_like(mask)
    ys, xs = np.nonzero(mask)
    for i in rng.choice(len(xs), 40, replace=False):
        cv2.circle(holes, (int(xs[i]), int(ys[i])), int(rng.integers(1, 3)), 1, -1)
    holes &= mask
    frame.labels[holes > 0] = UNKNOWN
    return (mask & (1 - holes)).astype(np.uint8)


def test_a_speckled_courtier_that_left_no_face_is_found_whole(prep) -> None:
    """Tuning 5404 ``t0016s2``: a lying courtier's body was so speckled with pixels of no class that
    the faces stage kept nothing of it, and the frame was trusted without it. Its holes are filled
    and it is read as a pawn of its own; a face of its colour elsewhere stays a face."""
    mask = _courtier_mask()
    frame = _view(prep, "purple", mask)
    left = _speckled(frame, mask)
    floor_in_holes = Frame(None, None, frame.tray, LEVEL)  # type: ignore[arg-type]
    floor_in_holes.labels = np.where(frame.labels == UNKNOWN, BACKGROUND, frame.labels).astype(np.uint8)
    assert lying_courtiers(prep, floor_in_holes, "purple") == []  # holes of floor are not filled
    face = np.zeros_like(mask)
    cv2.rectangle(face, _mm(90, 30), _mm(100, 40), 1, -1)
    out = lying_as_pawns(prep, frame, [_core("purple", face)])
    assert len(out) == 2 and not out[0].lying and out[1].lying and out[1].colour == "purple"
    filled = holes_filled(prep, frame, (frame.labels == COLOUR_CODES["purple"]).view(np.uint8), 0, 0)
    assert np.count_nonzero(filled) > np.count_nonzero(left)  # its holes taken in
    assert not np.any((filled > 0) & (frame.labels == BACKGROUND))  # and nothing of the floor


def test_a_face_a_flat_lit_courtier_shape_and_a_shape_under_a_cube_are_not_lying_courtiers(prep) -> None:
    """A square face is too short and has no waist; a patch lit as a flat top is no curved pawn; a
    tapered part bordered all round by another cube is a cube's part partly under it."""
    face = np.zeros((HEIGHT, WIDTH), np.uint8)
    cv2.rectangle(face, _mm(50, 40), _mm(60, 50), 1, -1)
    assert lying_courtiers(prep, _view(prep, "red", face), "red") == []
    assert lying_courtiers(prep, _view(prep, "red", _courtier_mask(), shade=0.1), "red") == []
    assert lying_courtiers(prep, _view(prep, "red", _courtier_mask(), around="yellow"), "red") == []


def test_the_waist_and_the_floor_around_are_measured() -> None:
    mask = _courtier_mask()
    ys, xs = np.nonzero(mask)
    blob = mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    assert waist(blob, 0.0) < 0.6  # the bell narrows to 4 mm where the head begins: about half its base
    square = np.ones((30, 30), np.uint8)
    assert waist(square, 0.0) == pytest.approx(1.0, abs=0.05)
    frame = Frame(None, None, np.zeros((HEIGHT, WIDTH, 3), np.uint8), LEVEL)  # type: ignore[arg-type]
    frame.labels = np.full((HEIGHT, WIDTH), BACKGROUND, np.uint8)
    assert floor_share(frame, square, 100, 100) == 1.0
    frame.labels[:, :115] = COLOUR_CODES["red"]  # a cube over its left half
    assert 0.3 < floor_share(frame, square, 100, 100) < 0.7


def test_a_lying_courtier_on_a_render_is_read_as_a_courtier(train_counter, tray_train: Path) -> None:
    """``tray_train`` t0004 (a tuning scene): a purple courtier lies on its side, 0.81 visible; it was
    read as a purple cube."""
    from vision.imageio import read_image

    meta = json.loads((tray_train / "test" / "t0004.json").read_text())
    reading, frame = train_counter.read(read_image(tray_train / "test" / "t0004.jpg"))
    assert [c for c in frame.debug["counted"] if c.core.lying and c.core.colour == "purple"]
    assert reading.courtiers["purple"] == meta["courtiers"]["purple"] == 1
    assert reading.cubes["purple"] == meta["cubes"]["purple"]



def _measured(colour: str, area: float, length: float, width: float, squareness: float, roundness: float,
              prep: Prepared) -> Core:
    return Core(colour, area, 3.0, squareness, roundness, prep.pawn_l[colour], np.zeros((4, 2), np.int32),
                (100.0, 100.0), length_mm=length, width_mm=width)


@pytest.mark.parametrize(("colour", "area", "length", "width", "squareness", "roundness"), [
    # cubes partly hidden or tilted, shaded as a pawn is, read as courtiers that were not there
    # (seed 9494 t0026 and t0029, tray_train t0128): wider than a courtier's base
    ("black", 89.0, 12.5, 10.2, 0.70, 0.49),
    ("blue", 81.0, 12.4, 10.7, 0.61, 0.49),
    ("black", 76.0, 11.5, 10.1, 0.66, 0.52),
])
def test_an_outline_wider_than_a_courtiers_base_is_no_lying_pawn(prep, colour, area, length, width, squareness,
                                                                  roundness) -> None:
    assert not looks_like_pawn(prep, _measured(colour, area, length, width, squareness, roundness, prep))
    # a base wide (black needs a longer outline: the next test)
    assert looks_like_pawn(prep, _measured("blue", area, length, 9.5, squareness, roundness, prep))


@pytest.mark.parametrize(("area", "length", "width", "squareness", "roundness"), [
    # tilted black cubes, or black cubes partly under another, read as lying courtiers with the
    # cube missed (tuning seeds 5410 t0001 and 5411 t0037)
    (86.0, 11.7, 9.4, 0.78, 0.57),
    (84.1, 12.7, 9.1, 0.73, 0.55),
])
def test_a_black_outline_needs_a_lying_courtiers_length(prep, area, length, width, squareness, roundness) -> None:
    """Black hardly shades, so its lightness cannot say "pawn": a black core passes for a lying
    courtier by its outline only from 13 mm long, where those cubes were 11.7-12.7 mm (the lying
    stage, which also weighs the waist, the hull and the floor around, finds black courtiers on
    their side whole); another colour passes from 11 mm."""
    assert not looks_like_pawn(prep, _measured("black", area, length, width, squareness, roundness, prep))
    assert looks_like_pawn(prep, _measured("purple", area, length, width, squareness, roundness, prep))
    assert looks_like_pawn(prep, _measured("black", area, 13.2, width, squareness, roundness, prep))


def _face_core(colour: str, x: float, y: float, side: float = 9.0) -> Core:
    """A whole face's core (its seams removed): a square ``side`` mm, from ``x, y`` mm."""
    mask = np.zeros((HEIGHT, WIDTH), np.uint8)
    cv2.rectangle(mask, _mm(x, y), _mm(x + side, y + side), 1, -1)
    core = _core(colour, mask)
    core.squareness, core.length_mm, core.width_mm = 0.97, side, side
    return core


def _with_face(prep: Prepared, frame: Frame, colour: str, x: float, y: float) -> None:
    """A cube's top of ``colour`` (10 mm, lit as a flat top) painted into ``frame`` from ``x, y`` mm."""
    face = np.zeros((HEIGHT, WIDTH), np.uint8)
    cv2.rectangle(face, _mm(x, y), _mm(x + 10, y + 10), 1, -1)
    frame.labels[face > 0] = COLOUR_CODES[colour]
    lab = np.array(prep.profile.colours[colour].mean_array, np.float32)
    lab[0] = prep.top_l[colour]
    frame.tray[face > 0] = np.clip(lab_to_reflectance(lab)[0] * LEVEL, 0, 255).astype(np.uint8)


def test_a_courtier_lying_against_a_cube_of_its_colour_is_found_beside_the_cube(prep) -> None:
    """Tuning 5411 ``t0033`` and 5410 ``t0020``: a courtier lies on the floor with its base against a
    cube of its colour; the two join in one patch, too large for a courtier, and the courtier's
    bell was read as a cube. The cube's whole face is cut out of the patch and the rest is found
    as the courtier; the cube's face stays a cube."""
    mask = _courtier_mask(x=50.0, y=40.0)
    frame = _view(prep, "yellow", mask)
    _with_face(prep, frame, "yellow", 64.0, 35.0)  # its head touches the cube's side
    face = _face_core("yellow", 64.5, 35.5)
    bell = mask.copy()
    bell[:, _mm(59, 0)[0]:] = 0  # the faces stage kept the bell as a small face
    cores = [face, _core("yellow", bell)]
    assert lying_courtiers(prep, frame, "yellow") == []  # the patch as a whole is no courtier
    found = lying_courtiers(prep, frame, "yellow", cores)
    assert len(found) == 1 and 12.5 <= found[0][3].length_mm <= 16.5
    out = lying_as_pawns(prep, frame, cores)
    assert len(out) == 2 and out[0] is face and out[1].lying


def test_two_faces_of_a_colour_joined_leave_no_courtier_when_cut(prep) -> None:
    """Two cubes side by side, or a cube and a strip of one under it, are no courtier once the
    whole face is cut out: what is left is too small or too square."""
    frame = _view(prep, "red", np.zeros((HEIGHT, WIDTH), np.uint8))
    _with_face(prep, frame, "red", 40.0, 35.0)
    _with_face(prep, frame, "red", 50.0, 35.0)
    cores = [_face_core("red", 40.5, 35.5), _face_core("red", 50.5, 35.5)]
    assert lying_courtiers(prep, frame, "red", cores) == []
    assert lying_courtiers(prep, frame, "red", cores[:1]) == []  # the other face (not a core) is too square


def _shaded(prep: Prepared, core: Core, shade: float) -> Core:
    """``core`` at the lightness ``shade`` of the way from its colour's top to its calibrated pawn."""
    top, pawn = prep.top_l[core.colour], prep.pawn_l[core.colour]
    core.lightness = top - shade * (top - pawn)
    return core


@pytest.mark.parametrize(("area", "length", "width", "squareness", "roundness"), [
    (72.4, 10.4, 8.5, 0.82, 0.65),  # tuning 5412 t0033: courtiers standing near the wall, seen from aside
    (60.2, 9.7, 7.3, 0.85, 0.67),
    (49.8, 9.7, 7.0, 0.73, 0.52),
])
def test_a_courtier_seen_from_aside_far_darker_than_a_pawn_is_a_pawn(prep, area, length, width, squareness,
                                                                     roundness) -> None:
    """As long as a face and not round, a core is taken for a shaded face; far darker than the
    calibrated pawn (1.6 of the way from top to pawn) and narrower than a face, it is a courtier
    seen from aside. Just as dark but black (whose shade is noise), or as wide as a face (a leaning
    cube, 5410 t0006), or only as dark as a pawn, it is not."""
    def core(colour: str, w: float = width, shade: float = 1.6) -> Core:
        return _shaded(prep, _measured(colour, area, length, w, squareness, roundness, prep), shade)
    assert looks_like_pawn(prep, core("yellow"))
    assert not looks_like_pawn(prep, core("yellow", shade=1.0))
    assert not looks_like_pawn(prep, core("yellow", w=10.8))
    assert not looks_like_pawn(prep, core("black"))


def test_a_courtier_lying_against_a_standing_courtiers_head_is_found_beside_it(prep) -> None:
    """Tuning 5412 ``t0015``: a purple courtier lay with its base against a standing purple
    courtier's head (found as a ball); the two made one patch and the lying one was read as a cube.
    The head is cut out as a whole face is, and the rest is the courtier on its side."""
    mask = _courtier_mask(x=50.0, y=40.0)
    frame = _view(prep, "purple", mask)
    head = np.zeros_like(mask)
    cv2.circle(head, _mm(44.9, 40.0), int(round(4.8 * PPM)), 1, -1)  # touching the bell's base
    frame.labels[head > 0] = COLOUR_CODES["purple"]
    ball = _core("purple", head)
    ball.ball = True
    bell = mask.copy()
    bell[:, _mm(59, 0)[0]:] = 0
    cores = [ball, _core("purple", bell)]
    assert lying_courtiers(prep, frame, "purple") == []
    out = lying_as_pawns(prep, frame, cores)
    assert len(out) == 2 and out[0] is ball and out[1].lying


def test_a_core_far_darker_than_any_pawn_is_a_shadowed_face(prep) -> None:
    """Tuning 5413 ``t0038``: a purple cube deep in a pile's shadow (shaded 3.1 of the way from its
    top to its pawn, where no courtier's core went past 2.0) had a lying courtier's outline and was
    read as one. Shaded as a courtier is, the same outline is still a courtier."""
    def core(shade: float) -> Core:
        return _shaded(prep, _measured("purple", 87.3, 12.0, 9.7, 0.75, 0.49, prep), shade)
    assert looks_like_pawn(prep, core(1.8))
    assert not looks_like_pawn(prep, core(3.1))
