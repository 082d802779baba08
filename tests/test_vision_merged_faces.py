"""How the counter reads faces of one colour that merged into one core.

The shapes are drawn in the tray view's pixels (``vision.plate.TRAY_PPM`` per millimetre), so each
rule is checked on the geometry it reasons about: faces touching at a corner join through a neck and
are cut apart there; faces flush along an edge form no neck; grooves between flush faces split a
block into cells; a patch that fits in one tilted cube's silhouette is one cube, one that overhangs
it is two.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

import simulation.synthetic_profile as calibration_synthetic
from vision.counter.frame import Core, Prepared
from vision.counter.merged import beyond_top_square, cells, cubes_in, cubes_in_part, parts, step_cells
from vision.counter.partial import side_band_mm
from vision.plate import TRAY_PPM, TRAY_VIEW

PPM = TRAY_PPM
FACE_CORE_MM = 9.0  # a face's core once the seams are removed


@pytest.fixture(scope="module")
def prep() -> Prepared:
    return Prepared(calibration_synthetic.synthetic_profile())


def _square(mask: np.ndarray, centre_mm: tuple[float, float], side_mm: float, angle: float) -> None:
    box = cv2.boxPoints(((centre_mm[0] * PPM, centre_mm[1] * PPM), (side_mm * PPM, side_mm * PPM), angle))
    cv2.fillConvexPoly(mask, np.round(box).astype(np.int32), 1)


def test_faces_touching_at_corners_are_cut_at_their_necks(prep) -> None:
    """Three faces turned 45 degrees in a row, each touching the next at a corner: one core, three
    parts of about a face each."""
    mask = np.zeros((int(50 * PPM), int(20 * PPM)), np.uint8)
    step = FACE_CORE_MM * math.sqrt(2) - 1.0  # corners overlap by a millimetre: a neck ~2 mm wide
    for k in range(3):
        _square(mask, (10.0, 10.0 + k * step), FACE_CORE_MM, 45.0)
    cut = parts(prep, mask > 0, np.full(mask.shape, 120, np.uint8))
    assert len(cut) == 3
    for area, length, _ in cut:
        assert 0.8 * FACE_CORE_MM**2 <= area <= 1.3 * FACE_CORE_MM**2
        assert cubes_in_part(prep, area, length, 1) == 1


def test_faces_flush_along_an_edge_form_no_neck(prep) -> None:
    mask = np.zeros((int(20 * PPM), int(40 * PPM)), np.uint8)
    for k in range(3):
        _square(mask, (6.0 + k * FACE_CORE_MM, 10.0), FACE_CORE_MM, 0.0)
    assert parts(prep, mask > 0, np.full(mask.shape, 120, np.uint8)) == ()


def test_grooves_split_a_flush_block_into_faces(prep) -> None:
    """A 2 x 2 block of flush faces: the grooves between them (a pixel or two, darker) make four
    cells; without them the block is one."""
    side = int(round(2 * 9.5 * PPM))
    part = np.ones((side, side), np.uint8)
    gray = np.full((side, side), 90, np.uint8)
    assert cells(prep, part, gray) == 1
    mid = side // 2
    gray[mid - 1:mid + 1, :] = 50
    gray[:, mid - 1:mid + 1] = 50
    assert cells(prep, part, gray) == 4
    area = side * side / PPM**2
    assert cubes_in_part(prep, area, math.inf, 4) == 4


def _core(area: float, squareness: float, length: float, width: float) -> Core:
    return Core("yellow", area, 4.8, squareness, 0.6, 60.0, np.zeros((4, 2), np.int32), (0.0, 0.0),
                 length_mm=length, width_mm=width)


@pytest.mark.parametrize(("area", "squareness", "length", "width", "cubes"), [
    (130.0, 0.90, 13.8, 10.1, 1),  # a tilted cube: top and side, ragged outline (was read as two)
    (122.0, 0.90, 11.8, 11.5, 1),  # a cube on the second layer, magnified
    (140.0, 0.88, 15.5, 10.3, 2),  # a cube partly on another: overhangs one cube's silhouette
    (132.0, 0.61, 17.6, 12.3, 2),
])
def test_a_patch_within_one_tilted_cube_is_one_cube(prep, area, squareness, length, width, cubes) -> None:
    assert cubes_in(prep, _core(area, squareness, length, width)).n == cubes



def _drawn_core(lower_grey: int) -> tuple[Core, np.ndarray]:
    """A face-sized top (9.5 mm, turned 35 degrees, grey 90) lying on a cube of its colour whose top
    (9.5 mm, 2 mm off towards -y) shows around it at ``lower_grey``; the core is their union, as
    the seam filter leaves it when no seam shows between them; and the grey view."""
    size = int(30 * PPM)
    gray = np.zeros((size, size), np.uint8)
    lower = np.zeros_like(gray)
    _square(lower, (15.0, 13.0), 9.5, 0.0)
    upper = np.zeros_like(gray)
    _square(upper, (15.0, 15.0), 9.5, 35.0)
    gray[lower > 0] = lower_grey
    gray[upper > 0] = 90
    mask = ((lower > 0) | (upper > 0)).astype(np.uint8)
    contour = max(cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0], key=cv2.contourArea)
    contour = contour.reshape(-1, 2)
    (w, h) = cv2.minAreaRect(contour.astype(np.float32))[1]
    area = np.count_nonzero(mask) / PPM**2
    return Core("red", area, 4.8, area / (w * h / PPM**2), 0.6, 40.0, contour, (15 * PPM, 15 * PPM),
                length_mm=max(w, h) / PPM, width_mm=min(w, h) / PPM), gray


def test_a_lower_cube_beside_a_whole_top_square_is_a_second_cube(prep) -> None:
    """Outside one tilted cube's outline, with a whole bright top square and, beyond it, a lower
    cube's top in its shadow: two cubes, though the area alone (about 1.4 faces) rounds to one."""
    core, gray = _drawn_core(lower_grey=65)
    assert not (core.length_mm <= 14.7 and core.width_mm <= 12.0)  # outside the tilted box
    assert round(core.area_mm2 / FACE_CORE_MM**2) == 1
    assert beyond_top_square(prep, gray, core) >= 10.0
    count = cubes_in(prep, core, gray)
    assert count.n == 2 and count.kind == "stacked" and count.score < 1.0 and "under it" in (count.doubt or "")


def test_a_patch_without_a_brighter_top_square_keeps_its_area_reading(prep) -> None:
    """The same outline evenly lit: no part of it stands out as one cube's top, so nothing says a
    second cube is there, and the area reads one."""
    core, gray = _drawn_core(lower_grey=90)
    assert beyond_top_square(prep, gray, core) == 0.0
    assert cubes_in(prep, core, gray).n == 1


def _pile_patch(greys: list[int]) -> tuple[Core, np.ndarray]:
    """Faces of one colour flush in a row, no seam between them (a pile's touching faces, partly
    hidden: 7 mm of each shows), each face its own grey level."""
    gray = np.full((int(30 * PPM), int(50 * PPM)), 40, np.uint8)
    mask = np.zeros(gray.shape, np.uint8)
    for k, level in enumerate(greys):
        x0, x1 = int((5 + 7 * k) * PPM), int((5 + 7 * (k + 1)) * PPM)
        gray[int(8 * PPM):int(17 * PPM), x0:x1] = level
        mask[int(8 * PPM):int(17 * PPM), x0:x1] = 1
    contour = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0][0].reshape(-1, 2)
    area = float(np.count_nonzero(mask)) / PPM**2
    core = Core("red", area, 4.5, 1.0, 0.4, 50.0, contour, (25 * PPM, 12.5 * PPM), length_mm=7.0 * len(greys),
                width_mm=9.0)
    return core, gray


def test_touching_faces_painted_and_lit_differently_are_told_apart_by_brightness(prep) -> None:
    """Three faces in a row, 189 mm2: by area and necks alone two cubes; their grey levels step
    (paint and height differ from cube to cube), so three cells and one cube more, in doubt."""
    core, gray = _pile_patch([150, 170, 140])
    assert cubes_in(prep, core).n == 2
    assert step_cells(prep, core, gray) == 3
    count = cubes_in(prep, core, gray)
    assert count.kind == "touching" and count.n == 3 and count.steps == 3


def test_touching_faces_of_one_even_grey_are_not_split(prep) -> None:
    core, gray = _pile_patch([150, 150, 150])
    assert step_cells(prep, core, gray) == 1
    assert cubes_in(prep, core, gray).n == cubes_in(prep, core).n  # the area and necks decide alone


def test_a_side_face_in_shade_is_not_another_cube(prep) -> None:
    """Two lit tops and, beside them, one cube's side turned away from the ring light: a pale colour
    (yellow) keeps its colour there, so the side is part of the patch and a cell of its own by
    brightness. It is about half as bright as the tops (every top is lit alike, within a fifth):
    two cubes, not three."""
    core, gray = _pile_patch([170, 145, 90])
    assert step_cells(prep, core, gray) == 2
    assert cubes_in(prep, core, gray).n == 2
    core, gray = _pile_patch([170, 145, 125])  # a lower top, lit nearly as well: a cube
    assert step_cells(prep, core, gray) == 3



@pytest.mark.parametrize(("area", "squareness", "length", "width", "band", "cubes"), [
    # measured on tuning renders (seeds 9494, 9292): one flat black cube and its sides each
    (129.0, 0.89, 12.0, 12.02, 3.1, 1),
    (128.0, 0.84, 15.0, 10.2, 2.9, 1),
    (133.0, 0.89, 12.2, 12.2, 3.4, 1),
    # two cubes, one partly on the other, as far from the nadir (tray_dev t0042, tray_train t0085)
    (138.0, 0.73, 15.1, 12.4, 3.5, 2),
    (156.0, 0.72, 18.3, 11.9, 3.3, 2),
    # a long patch near the nadir: no band to take off (tray_train t0008)
    (149.0, 0.80, 21.6, 11.1, 0.8, 2),
])
def test_a_flat_cube_showing_its_sides_away_from_the_nadir_is_one_cube(prep, area, squareness, length, width, band,
                                                                      cubes) -> None:
    """Away from the camera's nadir a flat cube shows the sides turned to the camera, a band beyond
    its top: its patch can be wider or longer than one tilted cube's outline allows, and its area
    rounds to two faces. Told the band where it lies, the counter reads one cube; two cubes, one
    partly on the other, stay two."""
    core = _core(area, squareness, length, width)
    assert cubes_in(prep, core).n == 2  # no band known: two merged faces, as before
    count = cubes_in(prep, core, side_band_mm=band)
    assert count.n == cubes
    if cubes == 1:
        assert count.kind == "tilted" and "showing its sides" in (count.doubt or "")


def test_the_side_band_grows_with_the_distance_from_the_nadir() -> None:
    """``edge * d / (H - edge)`` on the plane of the tops: none under the camera, 2.4 mm at 70 mm
    from it with the camera 300 mm above the plate."""
    def at(x_mm: float, y_mm: float) -> tuple[float, float]:
        return (x_mm - TRAY_VIEW.x0) * PPM - 0.5, (y_mm - TRAY_VIEW.y0) * PPM - 0.5

    camera = np.array([10.0, 5.0, -300.0])
    assert side_band_mm(at(10.0, 5.0), camera) == pytest.approx(0.0, abs=1e-9)
    assert side_band_mm(at(80.0, 5.0), camera) == pytest.approx(10.0 * 70.0 / 290.0)
    assert side_band_mm(at(10.0, -65.0), camera) == pytest.approx(side_band_mm(at(80.0, 5.0), camera))


def _touching_core(prep: Prepared, shade: float, summits: int = 3) -> Core:
    """Touching red faces of 2.9 faces' cores (about 235 mm2): three by whole faces, two by the
    pile's area per cube (a top and a side each); lightness ``shade`` of a flat red top's."""
    area = 2.9 * prep.tuning.FACE_CORE_MM2
    return Core("red", area, 4.5, 0.6, 0.4, shade * prep.top_l["red"], np.zeros((4, 2), np.int32), (0.0, 0.0),
                summits=summits, length_mm=26.0, width_mm=10.0)


def test_touching_faces_as_bright_as_flat_tops_are_counted_by_whole_faces(prep) -> None:
    count = cubes_in(prep, _touching_core(prep, shade=1.0))
    assert (count.kind, count.n, count.lo, count.hi) == ("touching", 3, 2, 3)


def test_touching_faces_darker_than_flat_tops_are_counted_as_a_pile(prep) -> None:
    """Cubes leaning in a pile turn their faces from the ring light and each shows a side beyond
    its top: the same area holds one cube fewer (tuning 5411 t0014, 5412 t0004, 5413 t0032)."""
    dark = prep.tuning.PILE_DARK_SHADE - 0.05
    count = cubes_in(prep, _touching_core(prep, shade=dark))
    assert (count.kind, count.n, count.lo, count.hi) == ("touching", 2, 2, 3)
    assert cubes_in(prep, _touching_core(prep, shade=prep.tuning.PILE_DARK_SHADE + 0.05)).n == 3


def test_dark_touching_faces_keep_every_face_their_brightness_steps_show(prep) -> None:
    """Three faces 9 mm wide in a row, each its own grey: the steps show three, so a dark patch is
    not cut down to the pile's two."""
    gray = np.full((int(30 * PPM), int(50 * PPM)), 40, np.uint8)
    mask = np.zeros(gray.shape, np.uint8)
    for k, level in enumerate([150, 175, 130]):
        x0, x1 = int((5 + 9 * k) * PPM), int((5 + 9 * (k + 1)) * PPM)
        gray[int(8 * PPM):int(17 * PPM), x0:x1] = level
        mask[int(8 * PPM):int(17 * PPM), x0:x1] = 1
    contour = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0][0].reshape(-1, 2)
    area = float(np.count_nonzero(mask)) / PPM**2
    dark = 0.7 * prep.top_l["red"]
    core = Core("red", area, 4.5, 1.0, 0.4, dark, contour, (20 * PPM, 12.5 * PPM), length_mm=27.0, width_mm=9.0)
    assert round(area / prep.tuning.FACE_CORE_MM2) == 3 and step_cells(prep, core, gray) == 3
    assert cubes_in(prep, core, gray).n == 3
