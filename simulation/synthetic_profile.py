"""Calibration on synthetic shots: the colour profile of the simulated station.

The simulated camera renders its frames with ``simulation.synth``; to count them, the simulated
station needs a profile learned the way a user learns one: an empty tray, separate cubes of each
colour (8 per shot, two shots per colour), and standing courtier pawns of each player colour
(4 per shot). ``synthetic_calibration_shots`` renders exactly those shots, and
``synthetic_profile`` feeds them to ``calibration.learn.learn_profile`` like ``tower calibrate
colours`` does with photographs.

The shots are taken as a user would: camera straight down at 300 mm, the station's own light
(no room cast), default camera effects. Pieces lie on a jittered grid so they never touch.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import numpy.typing as npt

from calibration.learn import LearnReport, learn_profile
from simulation.synth import CameraPose, Lighting, Piece, PostFX, Scene, render
from vision import geometry as geo
from vision.profile import ColourProfile

CUBES_PER_SHOT = 8
SHOTS_PER_COLOUR = 2
COURTIERS_PER_SHOT = 4

CALIBRATION_CAMERA = CameraPose(height_mm=300.0, focal_equiv_mm=36.0)
CALIBRATION_LIGHT = Lighting(kelvin=5500.0, cast_strength=0.0, brightness=1.0, ring_reflection=0.6)


def _grid(n: int, cols: int, rng: np.random.Generator, jitter_mm: float) -> list[tuple[float, float]]:
    """``n`` well-separated positions: cells of a grid over the tray, jittered, in random cells."""
    x0, y0, x1, y1 = geo.TRAY_INNER_MM
    rows = max(1, -(-n // cols))
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    picks = rng.permutation(len(cells))[:n]
    out = []
    for i in picks:
        r, c = cells[int(i)]
        cx = x0 + (c + 0.5) * (x1 - x0) / cols
        cy = y0 + (r + 0.5) * (y1 - y0) / rows
        out.append((cx + float(rng.uniform(-jitter_mm, jitter_mm)), cy + float(rng.uniform(-jitter_mm, jitter_mm))))
    return out


def _shot(pieces: list[Piece], rng: np.random.Generator, camera: CameraPose, lighting: Lighting,
          postfx: PostFX) -> npt.NDArray[np.uint8]:
    return render(Scene(tuple(pieces), camera, lighting, postfx), rng)


def synthetic_calibration_shots(
    rng: np.random.Generator,
    camera: CameraPose = CALIBRATION_CAMERA,
    lighting: Lighting = CALIBRATION_LIGHT,
    postfx: PostFX | None = None,
) -> tuple[npt.NDArray[np.uint8], dict[str, list[npt.NDArray[np.uint8]]], dict[str, list[npt.NDArray[np.uint8]]]]:
    """``(empty, samples, courtiers)`` as ``learn_profile`` takes them: the empty tray; per colour
    two shots of 8 separate cubes; per player colour one shot of 4 standing pawns (BGR frames)."""
    postfx = postfx or PostFX()
    empty = _shot([], rng, camera, lighting, postfx)
    samples: dict[str, list[npt.NDArray[np.uint8]]] = {}
    for colour in geo.ALL_COLOURS:
        shots = []
        for _ in range(SHOTS_PER_COLOUR):
            pieces = [Piece("cube", colour, x, y, float(rng.uniform(0, 90)), shade=float(rng.uniform(0.95, 1.05)))
                      for x, y in _grid(CUBES_PER_SHOT, 4, rng, 6.0)]
            shots.append(_shot(pieces, rng, camera, lighting, postfx))
        samples[colour] = shots
    courtiers: dict[str, list[npt.NDArray[np.uint8]]] = {}
    for colour in geo.PLAYER_COLOURS:
        pieces = [Piece("courtier", colour, x, y, float(rng.uniform(0, 360)))
                  for x, y in _grid(COURTIERS_PER_SHOT, 2, rng, 10.0)]
        courtiers[colour] = [_shot(pieces, rng, camera, lighting, postfx)]
    return empty, samples, courtiers


def learn_synthetic_profile(seed: int = 0) -> tuple[ColourProfile, LearnReport]:
    """Render the calibration shots from ``seed`` and learn a profile from them, with the report."""
    empty, samples, courtiers = synthetic_calibration_shots(np.random.default_rng(seed))
    return learn_profile(empty, samples, courtiers)


@lru_cache(maxsize=4)
def synthetic_profile(seed: int = 0) -> ColourProfile:
    """The simulated station's colour profile (learned once per process and seed).

    Treat the result as read-only: it is shared by every caller."""
    profile, _ = learn_synthetic_profile(seed)
    return profile
