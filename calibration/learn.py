"""Learning the colour profile from calibration shots (``tower calibrate colours``).

The user photographs the empty tray, then a handful of separate cubes of each colour (several shots
per colour allowed), and optionally standing courtier pawns of each player colour. Every shot is
rectified on the plate markers and white-balanced on the plate (``vision.colour``), so what is
learned is reflectance relative to the plate: it holds under another light.

- Background: every pixel of the empty tray's floor (away from the walls).
- A colour: the pixels that are clearly not floor, eroded so that only the insides of the top faces
  remain (edges, bevels and the darker side faces are left out: the counter finds cubes by their
  top faces), then trimmed to the colour's own core by one refit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision import geometry as g
from vision.colour import bgr_to_lab
from vision.markers import MarkerLocator
from vision.plate import PLATE_VIEW, TRAY_VIEW, plate_level
from vision.profile import ColourModel, ColourProfile, separation
from vision.rectify import NoMarkers

WALL_MARGIN_MM = 4.0
FOREGROUND_GATE = 30.0  # Mahalanobis^2 from the floor beyond which a pixel is taken as not floor
DARK_FRACTION = 0.8  # below 80 % of the floor's darkest lightness, a pixel is an object, not floor
CORE_ERODE_MM = 1.5
REFIT_GATE = 11.3  # chi-square 99 % (3 dof): trims side faces and bevels from a colour's core
TOO_CLOSE_SIGMAS = 6.0  # two colours closer than this (pooled standard deviations) risk confusion


class CalibrationError(ValueError):
    """A calibration shot that cannot be used (no markers, nothing found, ...); the message says why."""


@dataclass
class ColourReport:
    colour: str
    pixels: int
    spread: float
    nearest: str
    separation: float
    shots: int


@dataclass
class LearnReport:
    colours: list[ColourReport] = field(default_factory=list)
    courtiers: list[ColourReport] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _tray_lab(frame: NDArray[Any], locator: MarkerLocator, what: str) -> NDArray[Any]:
    try:
        pose = locator.locate(frame)
    except NoMarkers as exc:
        raise CalibrationError(f"{what}: {exc}") from exc
    level = plate_level(PLATE_VIEW.warp(frame, pose))
    tray = TRAY_VIEW.warp(frame, pose)
    return bgr_to_lab(tray, level)


def _interior_mask(shape: tuple[int, int]) -> NDArray[Any]:
    mask = np.zeros(shape, np.uint8)
    m = int(round(WALL_MARGIN_MM * TRAY_VIEW.ppm))
    mask[m:-m, m:-m] = 255
    return mask


def _core_pixels(lab: NDArray[Any], background: ColourModel, dark_limit: float, what: str) -> NDArray[Any]:
    h, w = lab.shape[:2]
    # Not floor: clearly coloured (far from the floor in a and b), or darker than the floor ever is
    # (black). The floor's lightness varies with the ring light's reflection, so it is one-sided.
    ab = lab[..., 1:].reshape(-1, 2) - background.mean_array[1:]
    inv_ab = np.linalg.inv(background.cov_array[1:, 1:])
    d2_ab = np.einsum("ij,jk,ik->i", ab, inv_ab, ab).reshape(h, w)
    dark = lab[..., 0] < dark_limit
    fg = (((d2_ab > FOREGROUND_GATE) | dark) * 255).astype(np.uint8) & _interior_mask((h, w))
    k = int(round(CORE_ERODE_MM * TRAY_VIEW.ppm)) * 2 + 1
    fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    core = cv2.erode(fg, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    px = lab[core > 0]
    min_px = int(0.5 * (g.CUBE_EDGE_MM * TRAY_VIEW.ppm) ** 2 * 0.25)
    if len(px) < min_px:
        raise CalibrationError(f"{what}: found almost nothing that differs from the empty tray ({len(px)} px)")
    return px


def _fit_core(px: NDArray[Any]) -> ColourModel:
    """Fit, then refit on the pixels within the first fit's core: drops side faces and bevels."""
    model = ColourModel.fit(px)
    # Top faces are the brightest part of a piece under the ring light: start from the upper half
    # of lightness, which keeps dark side faces from dragging the mean.
    bright = px[px[:, 0] >= np.median(px[:, 0])]
    model = ColourModel.fit(bright)
    for _ in range(2):
        keep = px[model.mahalanobis2(px) <= REFIT_GATE]
        if len(keep) < 50:
            break
        model = ColourModel.fit(keep)
    return model


def learn_profile(
    empty: NDArray[Any],
    samples: dict[str, list[NDArray[Any]]],
    courtiers: dict[str, list[NDArray[Any]]] | None = None,
) -> tuple[ColourProfile, LearnReport]:
    """Learn a profile from BGR calibration frames; see the module docstring.

    ``samples`` maps each of the six colours to one or more shots of separate cubes of that colour;
    ``courtiers`` optionally maps player colours to shots of standing pawns. Raises
    ``CalibrationError`` naming the shot at fault.
    """
    missing = [c for c in g.ALL_COLOURS if not samples.get(c)]
    if missing:
        raise CalibrationError(f"no sample shot for colour(s) {', '.join(missing)}")
    unknown = [c for c in samples if c not in g.ALL_COLOURS]
    if unknown:
        raise CalibrationError(f"unknown colour(s) {', '.join(unknown)}; colours are {', '.join(g.ALL_COLOURS)}")
    courtiers = courtiers or {}
    bad = [c for c in courtiers if c not in g.PLAYER_COLOURS]
    if bad:
        raise CalibrationError(f"courtiers come in player colours only ({', '.join(g.PLAYER_COLOURS)}), not {', '.join(bad)}")

    locator = MarkerLocator()
    empty_lab = _tray_lab(empty, locator, "empty tray shot")
    floor = empty_lab[_interior_mask((empty_lab.shape[0], empty_lab.shape[1])) > 0]
    background = ColourModel.fit(floor)
    dark_limit = float(np.percentile(floor[:, 0], 0.5)) * DARK_FRACTION

    def learn(group: dict[str, list[NDArray[Any]]], kind: str) -> dict[str, tuple[ColourModel, int]]:
        out = {}
        for colour, frames in group.items():
            px = np.concatenate(
                [
                    _core_pixels(_tray_lab(f, locator, f"{kind} {colour} shot {i + 1}"), background, dark_limit,
                                 f"{kind} {colour} shot {i + 1}")
                    for i, f in enumerate(frames)
                ]
            )
            out[colour] = (_fit_core(px), len(frames))
        return out

    colours = learn(samples, "cube")
    pawns = learn(courtiers, "courtier")
    profile = ColourProfile(
        background=background,
        colours={c: m for c, (m, _) in colours.items()},
        courtiers={c: m for c, (m, _) in pawns.items()},
        notes={"tray_ppm": TRAY_VIEW.ppm, "shots": sum(len(v) for v in samples.values()) + 1},
    )
    report = LearnReport()
    seps = profile.separations()
    for c in g.ALL_COLOURS:
        m, shots = colours[c]
        nearest, sep = seps[c]
        report.colours.append(ColourReport(c, m.pixels, m.spread, nearest, sep, shots))
        if sep < TOO_CLOSE_SIGMAS and c < nearest:
            report.warnings.append(
                f"{c} and {nearest} are only {sep:.1f} standard deviations apart: they may be confused "
                "(check the light, or recalibrate with more shots)"
            )
        bg_sep = separation(m, background)
        if bg_sep < TOO_CLOSE_SIGMAS:
            report.warnings.append(f"{c} is only {bg_sep:.1f} standard deviations from the empty tray's floor")
    for c, (m, shots) in pawns.items():
        others = {k: separation(m, v) for k, v in profile.colours.items() if k != c}
        nearest = min(others, key=others.__getitem__)
        report.courtiers.append(ColourReport(c, m.pixels, m.spread, nearest, others[nearest], shots))
    return profile, report
