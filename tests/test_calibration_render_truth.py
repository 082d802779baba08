"""The ground truth the doubt model is fitted on: which rendered piece each counted patch shows."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.render_truth import match, owners, to_view_px, top_centre_px
from vision import geometry as g
from vision.counter.frame import Core
from vision.counter.merged import Count
from vision.plate import TRAY_VIEW

PPM = TRAY_VIEW.ppm
WIDTH, HEIGHT = TRAY_VIEW.size
FLAT = [1.0, 0.0, 0.0, 0.0]  # no rotation
CAMERA = {"position_mm": [0.0, 0.0, 300.0]}  # straight above the plate's centre


def _cube(colour: str, x: float, y: float, layer: int, fraction: float = 1.0) -> dict:
    return {"type": "cube", "colour": colour, "center_mm": [x, y, (layer - 0.5) * g.CUBE_EDGE_MM],
            "quaternion": FLAT, "size_mm": [g.CUBE_EDGE_MM] * 3, "visible_fraction": fraction}


def _core(colour: str, mask: np.ndarray) -> Core:
    contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    contour = max(contours, key=cv2.contourArea).reshape(-1, 2)
    m = cv2.moments(contour)
    centre = (m["m10"] / m["m00"], m["m01"] / m["m00"])
    return Core(colour, float(mask.sum()) / PPM**2, 2.0, 1.0, 0.64, 50.0, contour, centre)


def _pile() -> dict:
    """A red cube lying on another, 4 mm off it: the lower one shows a 4 mm strip beside the upper."""
    return {"camera": CAMERA, "pieces": [_cube("red", 0.0, 0.0, 1, 0.45), _cube("red", 4.0, 0.0, 2, 1.0)]}


def test_a_piece_lying_on_another_covers_it_in_the_drawn_truth() -> None:
    meta = _pile()
    shown = owners(meta, (HEIGHT, WIDTH))
    lower_top = top_centre_px(meta["pieces"][0], CAMERA)
    upper_top = top_centre_px(meta["pieces"][1], CAMERA)
    # the lower cube's top centre lies under the upper cube: the camera sees the upper one there
    assert shown[int(round(lower_top[1])), int(round(lower_top[0]))] == 1
    assert shown[int(round(upper_top[1])), int(round(upper_top[0]))] == 1
    # 4 mm left of the lower cube's centre only the lower cube shows
    left = to_view_px(np.array([[-4.0, 0.0, g.CUBE_EDGE_MM]]), CAMERA)[0]
    assert shown[int(round(left[1])), int(round(left[0]))] == 0
    # the lower cube shows less than half of what the upper one does, the floor shows nothing
    assert 0 < np.count_nonzero(shown == 0) < 0.6 * np.count_nonzero(shown == 1)
    assert shown[5, 5] == -1


def test_a_sliver_beside_a_face_is_matched_to_the_cube_it_shows_not_the_face_over_its_centre() -> None:
    """Matched by its top's centre, the lower cube would go to the upper face (read "one short") and
    the sliver would hold none (read "one too many"); matched by what it shows, both are right."""
    meta = _pile()
    shown = owners(meta, (HEIGHT, WIDTH))
    face = cv2.erode((shown == 1).astype(np.uint8), np.ones((3, 3), np.uint8))
    sliver = cv2.erode((shown == 0).astype(np.uint8), np.ones((3, 3), np.uint8))
    patches = [(_core("red", face), Count(1, "face")), (_core("red", sliver), Count(1, "small"))]
    deltas, missed = match(patches, meta, "shown")
    assert deltas == [0, 0]
    assert sum(missed.values()) == 0
    # read as one cube in all, the colour is one short, and the sliver's cube is the one missing
    deltas, missed = match(patches[:1], meta, "shown")
    assert deltas == [1] and sum(missed.values()) == 0
    # by the top's centre (the fit's default), the pair reads one short and one too many
    assert match(patches, meta)[0] == [1, -1]
    with pytest.raises(ValueError, match="matched by one of"):
        match(patches, meta, "nearest")


def test_a_piece_no_patch_shows_falls_back_to_the_patch_holding_its_top_or_is_missed() -> None:
    meta = {"camera": CAMERA, "pieces": [_cube("blue", -30.0, 10.0, 1, 0.95)]}
    top = top_centre_px(meta["pieces"][0], CAMERA)
    near = np.zeros((HEIGHT, WIDTH), np.uint8)  # a patch beside the cube, 8 mm from its top centre
    x, y = int(round(top[0])), int(round(top[1]))
    cv2.rectangle(near, (x + 24, y - 10), (x + 48, y + 10), 1, -1)
    deltas, missed = match([(_core("blue", near), Count(1, "face"))], meta, "shown")
    assert deltas == [-1] and missed["blue"] == 1  # overlapping nothing, too far from its top: missed
    over = np.zeros((HEIGHT, WIDTH), np.uint8)
    cv2.circle(over, (x, y), 1, 1, -1)  # a speck over its centre (under the overlap a match needs)
    deltas, missed = match([(_core("blue", over), Count(1, "small"))], meta, "shown")
    assert deltas == [0] and missed["blue"] == 0


def test_the_drawn_truth_agrees_with_the_renders_visible_fractions(shared_dir: Path) -> None:
    """On a tuning render, the share of each cube's outline that the drawing shows tracks the
    renderer's own visible fraction (its outline drawn as a box's hull, so sides add a little)."""
    path = shared_dir / "data" / "tray_train" / "test" / "t0155.json"
    if not path.is_file():
        pytest.skip("../shared/data/tray_train is not present")
    meta = json.loads(path.read_text())
    shown = owners(meta, (HEIGHT, WIDTH))
    alone = {"camera": meta["camera"], "pieces": []}
    errors = []
    for k, piece in enumerate(meta["pieces"]):
        if piece["type"] != "cube":
            continue
        alone["pieces"] = [piece]
        whole = np.count_nonzero(owners(alone, (HEIGHT, WIDTH)) == 0)
        errors.append(abs(np.count_nonzero(shown == k) / max(whole, 1) - piece["visible_fraction"]))
    assert len(errors) > 30
    assert np.median(errors) < 0.05 and np.mean(np.asarray(errors) < 0.2) > 0.9
