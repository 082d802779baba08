"""Synthetic calibration shots and the simulated station's colour profile: the shots mirror a
user's, and a profile learned from them lets the counter read rendered frames."""

from __future__ import annotations

import numpy as np
import pytest

from simulation.synth import CameraPose, Lighting, Piece, PostFX, Scene, render_with_truth
from simulation.synthetic_profile import (
    COURTIERS_PER_SHOT,
    CUBES_PER_SHOT,
    SHOTS_PER_COLOUR,
    learn_synthetic_profile,
    synthetic_calibration_shots,
    synthetic_profile,
)
from vision import geometry as geo


def test_shots_mirror_the_users_calibration() -> None:
    empty, samples, courtiers = synthetic_calibration_shots(np.random.default_rng(0), postfx=PostFX(jpeg_quality=None))
    assert empty.shape == (960, 1280, 3) and empty.dtype == np.uint8
    assert sorted(samples) == sorted(geo.ALL_COLOURS)
    assert all(len(shots) == SHOTS_PER_COLOUR for shots in samples.values())
    assert sorted(courtiers) == sorted(geo.PLAYER_COLOURS)
    # a shot of red cubes differs from the empty tray where the cubes are, by a sensible area:
    # 8 top faces of about 44 x 44 px (10 mm from 300 mm with the 36 mm-equivalent lens)
    diff = np.abs(samples["red"][0].astype(int) - empty.astype(int)).max(axis=2) > 40
    face_px = (10 * 1280 / (300 - 12.2)) ** 2
    assert diff.sum() == pytest.approx(CUBES_PER_SHOT * face_px, rel=0.35)
    diff = np.abs(courtiers["blue"][0].astype(int) - empty.astype(int)).max(axis=2) > 40
    pawn_px = np.pi * (5 * 1280 / 298) ** 2
    assert diff.sum() == pytest.approx(COURTIERS_PER_SHOT * pawn_px, rel=0.4)


def test_the_learned_profile_reads_a_rendered_tray() -> None:
    profile, report = learn_synthetic_profile(0)
    assert synthetic_profile(0) is synthetic_profile(0)  # learned once per process
    assert sorted(profile.colours) == sorted(geo.ALL_COLOURS)
    assert sorted(profile.courtiers) == sorted(geo.PLAYER_COLOURS)
    from vision.counter import TrayCounter

    counter = TrayCounter(profile)
    x0, y0, x1, y1 = geo.TRAY_INNER_MM
    pieces = []
    for i, colour in enumerate(geo.ALL_COLOURS):
        for j in range(2):
            pieces.append(Piece("cube", colour, x0 + 14 + i * 22, y0 + 20 + j * 45 + (i % 2) * 10, 15.0 * i + 20 * j))
    pieces.append(Piece("courtier", "red", x0 + 30, y0 + 88))
    scene = Scene(tuple(pieces), CameraPose(tilt_deg=3, tilt_dir_deg=40, roll_deg=2), Lighting(kelvin=4000), PostFX())
    frame, truth = render_with_truth(scene, np.random.default_rng(1))
    reading = counter.count(frame)
    assert reading.usable, reading.reason
    assert reading.cubes == truth.visible_cubes == dict.fromkeys(geo.ALL_COLOURS, 2)
    assert reading.courtiers["red"] == 1
