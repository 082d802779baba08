"""Work done over a tight crop gives the numbers the whole box gave, to the last bit: the faces
stage labels and measures a colour's components over their own box, not the colour's (which also
spans its stray pixels), and the leftover takes its widest piece over the pieces' box."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.counter.frame import centroid_in_wider_box
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
