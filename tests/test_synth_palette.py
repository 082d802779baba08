"""The renderer's colours against the rendered development set (skips without ../shared).

Rendering the development set's calibration shot (same camera, neutral light, the same cubes at
the same places) must give top faces and a plate of the colours that shot shows, measured the same
way: the median of a patch at each cube's projected centre."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from simulation.synth import CameraPose, Lighting, Piece, PostFX, Scene, render
from simulation.synth.camera import projector
from vision import geometry as geo

CAMERA = CameraPose(height_mm=300.0, focal_equiv_mm=36.0)  # the calibration shots' camera
LIGHT = Lighting(kelvin=5500.0, cast_strength=0.0, ring_reflection=0.0)


def _pieces(meta: dict) -> list[Piece]:
    """The shot's cubes in plate coordinates (its JSON has them from the plate's centre, y up)."""
    out = []
    for p in meta["pieces"]:
        x, y, _ = p["center_mm"]
        w, _, _, z = p["quaternion"]
        yaw = -math.degrees(2 * math.atan2(z, w))  # about the vertical; y flips between the frames
        out.append(Piece("cube", p["colour"], geo.PLATE_W_MM / 2 + x, geo.PLATE_H_MM / 2 - y, yaw))
    return out


def _top_medians(frame: np.ndarray, pieces: list[Piece]) -> np.ndarray:
    proj = projector(CAMERA)
    uv, _ = proj.project(np.array([[p.x_mm, p.y_mm, 12.2] for p in pieces]))
    out = []
    for u, v in np.round(uv).astype(int):
        out.append(np.median(frame[v - 6:v + 7, u - 6:u + 7].reshape(-1, 3), axis=0))
    return np.array(out)


@pytest.mark.parametrize("colour", geo.ALL_COLOURS)
def test_rendered_tops_match_the_development_set(tray_dev: Path, colour: str) -> None:
    meta = json.loads((tray_dev / "calibration" / f"{colour}_1.json").read_text())
    real = cv2.imread(str(tray_dev / "calibration" / f"{colour}_1.jpg"))
    pieces = _pieces(meta)
    ours = render(Scene(tuple(pieces), CAMERA, LIGHT, PostFX()), np.random.default_rng(0))
    theirs, mine = _top_medians(real, pieces).mean(axis=0), _top_medians(ours, pieces).mean(axis=0)
    assert np.abs(theirs - mine).max() < 14, f"{colour}: development set {theirs.round()}, rendered {mine.round()}"


def test_rendered_plate_matches_the_development_set(tray_dev: Path) -> None:
    real = cv2.imread(str(tray_dev / "calibration" / "empty.jpg"))
    ours = render(Scene((), CAMERA, LIGHT, PostFX()), np.random.default_rng(0))
    proj = projector(CAMERA)
    for x, y in ((110.0, 10.0), (110.0, 170.0), (12.0, 90.0), (208.0, 90.0)):  # bare plate
        (u, v), = np.round(proj.project(np.array([[x, y, 0.0]]))[0]).astype(int)
        a = np.median(real[v - 5:v + 6, u - 5:u + 6].reshape(-1, 3), axis=0)
        b = np.median(ours[v - 5:v + 6, u - 5:u + 6].reshape(-1, 3), axis=0)
        assert np.abs(a - b).max() < 16, f"plate at ({x}, {y}): development set {a}, rendered {b}"
