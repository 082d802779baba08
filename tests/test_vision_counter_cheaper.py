"""Cheaper work, the same numbers to the last bit: the faces stage labels and measures a colour's
components over their own box, not the colour's (which also spans its stray pixels); the leftover
takes its widest piece over the pieces' box; a frame works out the seam bands of a set of cores
once."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.counter.frame import Core, Frame, centroid_in_wider_box, near_cores
from vision.counter.leftover import widest_radius_px


def _masks(seed: int, count: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        h, w = (int(v) for v in rng.integers(4, 50, 2))
        mask = (rng.random((h, w)) < rng.uniform(0.02, 0.9)).astype(np.uint8)
        if rng.random() < 0.5:  # blobs as well as speckle
            mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        out.append(mask)
    return out


def test_the_widest_piece_is_measured_as_over_the_whole_mask() -> None:
    """Pieces anywhere, touching the mask's edges or not: the same largest inscribed radius."""
    for mask in _masks(1, 400):
        whole = float(cv2.distanceTransform(mask, cv2.DIST_L2, 3).max())
        assert widest_radius_px(mask) == whole


def test_a_mask_with_one_piece_in_a_corner_of_a_large_empty_box() -> None:
    mask = np.zeros((80, 120), np.uint8)
    mask[70:80, 100:120] = 1  # a 10 x 20 piece in the corner: the crop meets the mask's edges
    assert widest_radius_px(mask) == pytest.approx(float(cv2.distanceTransform(mask, cv2.DIST_L2, 3).max()))
    assert widest_radius_px(mask) >= 5.0
    assert widest_radius_px(np.zeros((5, 5), np.uint8)) == 0.0  # no piece: no width


def test_centroids_labelled_in_a_crop_are_those_of_the_wider_box() -> None:
    """Components labelled in a crop ``dx, dy`` in from the box's corner: each centroid given back
    as over the box is OpenCV's over the box, bit for bit (adding the shift can be one bit off)."""
    off_by_a_bit = 0
    for mask in _masks(2, 300):
        dx, dy = 7, 3
        wide = cv2.copyMakeBorder(mask, dy, 0, dx, 0, cv2.BORDER_CONSTANT, value=0)
        n, _, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=4)
        n_wide, _, stats_wide, cents_wide = cv2.connectedComponentsWithStats(wide, connectivity=4)
        assert n == n_wide
        for i in range(1, n):
            area = int(stats[i, cv2.CC_STAT_AREA])
            assert centroid_in_wider_box(float(cents[i][0]), area, dx) == float(cents_wide[i][0])
            assert centroid_in_wider_box(float(cents[i][1]), area, dy) == float(cents_wide[i][1])
            off_by_a_bit += float(cents[i][0] + dx) != float(cents_wide[i][0])
    assert off_by_a_bit > 0  # the plain shift is not exact, which is why the sum is recovered


def _square(x: int, y: int, side: int = 30) -> Core:
    contour = np.array([[x, y], [x + side, y], [x + side, y + side], [x, y + side]], np.int32)
    return Core("red", 100.0, 5.0, 1.0, 0.64, 50.0, contour, (x + side / 2, y + side / 2))


def test_a_frame_works_out_the_seam_bands_of_the_same_cores_once() -> None:
    frame = Frame(None, None, None, None)  # type: ignore[arg-type]  # the bands need no views
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9))
    a, b = _square(10, 10), _square(60, 20)
    first = frame.near_cores([a, b], (100, 120), (5, 5), kernel)
    assert np.array_equal(first, near_cores([a, b], (100, 120), (5, 5), kernel))
    assert frame.near_cores([b, a], (100, 120), (5, 5), kernel) is first  # the same cores, any order
    assert frame.near_cores([a], (100, 120), (5, 5), kernel) is not first  # other cores
    assert frame.near_cores([a, b], (100, 120), (0, 0), kernel) is not first  # another box
    b.contour = b.contour + 20  # a stage trims a core: its outline is a new array
    moved = frame.near_cores([a, b], (100, 120), (5, 5), kernel)
    assert not np.array_equal(moved, first)
    assert np.array_equal(moved, near_cores([a, b], (100, 120), (5, 5), kernel))
