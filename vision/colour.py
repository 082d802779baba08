"""Colour correction and per-pixel classification against the learned profile.

Physics: a pixel's value is (surface reflectance) x (light). The grey plate around the tray has a
known neutral reflectance and shares the light with the tray, so dividing each channel by the
plate's level in the same frame removes the light's colour cast (2700-6500 K) and its brightness in
one step: what is left is reflectance relative to the plate, comparable across frames and with the
calibration shots. Classification then happens in CIE Lab of that reflectance, where a colour is a
compact blob (red needs no hue wrap-around there).

For speed, the classifier is a lookup table prepared once per profile: reflectance is quantised per
channel on a square-root scale (fine steps in the dark, where black lives) and every cell of the
64^3 table holds the class of its centre. A frame then costs three 256-entry per-channel lookups
(which fold in that frame's white balance) and one table gather.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry import ALL_COLOURS
from vision.profile import ColourModel, ColourProfile

REFLECTANCE_SCALE = 1.6  # reflectance (plate = 1) mapped to 0..1 before Lab; cubes tops reach ~1.3
LUT_LEVELS = 64

BACKGROUND = 0
UNKNOWN = 255
# Class codes: 0 background, 1..6 cube colours (ALL_COLOURS order), 255 none of them.
COLOUR_CODES = {c: i + 1 for i, c in enumerate(ALL_COLOURS)}
CODE_COLOUR = {code: c for c, code in COLOUR_CODES.items()}

# Gates in Mahalanobis distance squared (3 degrees of freedom): a pixel belongs to a class only if it
# lies within the class's own spread. 16.3 is chi-square's 99.9 % point; wider for the background,
# whose floor varies with the ring light's reflection and shadows.
GATE_COLOUR = 16.3
GATE_BACKGROUND = 25.0
# The wider gate a second look uses on solid patches of no colour (vision.counter.unlit): a cube's
# faces turned away from the ring light are darker and more saturated than the flat tops the
# profile learned (on the tuning piles a red cube on its edge lay at 17-25 from red, 66 or more
# from any other colour), so a distance of about 5.5 standard deviations still names one colour.
GATE_COLOUR_RELAXED = 30.0
# The light's brightness varies by about 30 % across scenes (spec) and the lens's vignette darkens the
# plate band and the tray differently, so the plate does not cancel brightness exactly. A colour's
# model is widened along the direction in Lab that a change of brightness moves it (a physical
# degree of freedom, not a tuned threshold): one standard deviation is this much in log brightness.
BRIGHTNESS_SIGMA = 0.25
# The floor also takes an arm's soft shadow (down to about half the light): its model is widened
# along brightness by this much more.
SHADOW_SIGMA = 0.35


# The room light (2700-6500 K) and the ring light differ in colour, and their mixture is not the same
# everywhere: an arm's shadow takes the room light away from some cubes, and the tray floor mirrors
# the ring light. So after the plate's white balance a surface can still be lit a little warmer or
# cooler than the plate was. Such a change multiplies the channels (von Kries) along the daylight
# locus, red against blue: gains (B, G, R) = (e^t, 1, e^-t). Every model is widened along the
# direction that moves its colour in Lab, with t's standard deviation this much.
TINT_SIGMA = 0.08
FLOOR_TINT_SIGMA = 0.05  # the floor's own learned spread already covers most of its tint


def _widened(model: ColourModel, gains_at: object, sigma: float) -> ColourModel:
    refl = lab_to_reflectance(model.mean_array)[0]
    eps = 0.05
    up = reflectance_to_lab((refl * gains_at(eps)).reshape(1, 1, 3)).reshape(3).astype(np.float64)  # type: ignore[operator]
    down = reflectance_to_lab((refl * gains_at(-eps)).reshape(1, 1, 3)).reshape(3).astype(np.float64)  # type: ignore[operator]
    v = (up - down) / (2 * eps)
    cov = model.cov_array + (sigma * sigma) * np.outer(v, v)
    return ColourModel(model.mean, tuple((float(row[0]), float(row[1]), float(row[2])) for row in cov), model.pixels)


def tint_tolerant(model: ColourModel, sigma: float = TINT_SIGMA) -> ColourModel:
    """The model widened along the light's warm-cool direction (see TINT_SIGMA)."""
    return _widened(model, lambda t: np.array([np.exp(t), 1.0, np.exp(-t)]), sigma)


def lab_to_reflectance(lab: NDArray[Any]) -> NDArray[Any]:
    bgr = cv2.cvtColor(np.asarray(lab, dtype=np.float32).reshape(-1, 1, 3), cv2.COLOR_Lab2BGR)
    return bgr.reshape(-1, 3) * REFLECTANCE_SCALE


def brightness_tolerant(model: ColourModel, sigma: float = BRIGHTNESS_SIGMA) -> ColourModel:
    """The model widened along the brightness direction (see BRIGHTNESS_SIGMA)."""
    return _widened(model, lambda t: np.full(3, np.exp(t)), sigma)


def reflectance_to_lab(refl: NDArray[Any]) -> NDArray[Any]:
    """Plate-relative reflectance (..., 3 in BGR order) to Lab (float32)."""
    x = np.clip(np.asarray(refl, dtype=np.float32) / REFLECTANCE_SCALE, 0.0, 1.0)
    return cv2.cvtColor(x.reshape(-1, 1, 3), cv2.COLOR_BGR2Lab).reshape(refl.shape)


def bgr_to_lab(bgr: NDArray[Any], plate_level: NDArray[Any]) -> NDArray[Any]:
    """BGR uint8 pixels to Lab of plate-relative reflectance."""
    refl = bgr.astype(np.float32) / np.asarray(plate_level, dtype=np.float32).reshape(1, 3)
    return reflectance_to_lab(refl.reshape(bgr.shape))


def mean_lab(bgr: NDArray[Any], mask: NDArray[Any], plate_level: NDArray[Any]) -> NDArray[Any]:
    """The Lab (plate-relative, as :func:`bgr_to_lab`) of the mean colour of ``bgr``'s pixels under
    ``mask`` (0/1 bytes of its size): one patch's colour, shape ``(3,)``."""
    mean = np.array(cv2.mean(bgr, mask), np.float32)[:3]
    return bgr_to_lab(mean.reshape(1, 1, 3), plate_level).reshape(3)


def _level_centres() -> NDArray[Any]:
    """Reflectance at the centre of each quantisation level (square-root scale)."""
    q = (np.arange(LUT_LEVELS, dtype=np.float64) + 0.5) / LUT_LEVELS
    return (q * q) * REFLECTANCE_SCALE


class PixelClassifier:
    """Per-pixel class codes for BGR pixels, given the frame's plate level. Build once per profile."""

    def __init__(self, profile: ColourProfile) -> None:
        self.profile = profile
        centres = _level_centres()
        b, g, r = np.meshgrid(centres, centres, centres, indexing="ij")
        refl = np.stack([b, g, r], axis=-1).reshape(-1, 3)
        lab = reflectance_to_lab(refl.reshape(-1, 1, 3)).reshape(-1, 3).astype(np.float64)
        self.table = self._classify_lab(lab).astype(np.uint8)
        self.relaxed_table = self._classify_lab(lab, GATE_COLOUR_RELAXED).astype(np.uint8)
        self._last_level: NDArray[Any] | None = None
        self._luts: list[NDArray[Any]] = []

    def tolerant_model(self, colour: str) -> ColourModel:
        """A colour's model as the classifier uses it (widened for brightness and tint)."""
        return tint_tolerant(brightness_tolerant(self.profile.colours[colour]))

    def _classify_lab(self, lab: NDArray[Any], colour_gate: float = GATE_COLOUR) -> NDArray[Any]:
        # Courtier pawns are told from cubes by shape, not colour: their pixels join the cube colours.
        models: list[tuple[int, ColourModel, float]] = [
            (BACKGROUND, tint_tolerant(brightness_tolerant(self.profile.background, SHADOW_SIGMA), FLOOR_TINT_SIGMA), GATE_BACKGROUND)
        ]
        models += [(COLOUR_CODES[c], self.tolerant_model(c), colour_gate) for c in self.profile.colours]
        scores = np.empty((len(models), len(lab)))
        gated = np.empty((len(models), len(lab)), dtype=bool)
        for k, (_, model, gate) in enumerate(models):
            d2 = model.mahalanobis2(lab)
            # Gaussian log-likelihood up to a constant: a tight class wins over a broad one nearby.
            scores[k] = d2 + np.log(np.linalg.det(model.cov_array))
            gated[k] = d2 <= gate
        scores[~gated] = np.inf
        best = np.argmin(scores, axis=0)
        codes: NDArray[np.int32] = np.array([code for code, _, _ in models], dtype=np.int32)[best]
        codes[~np.isfinite(scores.min(axis=0))] = UNKNOWN
        return codes

    def _channel_luts(self, plate_level: NDArray[Any]) -> list[NDArray[Any]]:
        """Per channel (B, G, R), each 8-bit value's term of the table index: its level's bin times
        the channel's stride in the table (``int32``, so that three lookups and two sums make the
        index, with no conversions of the frame's pixels)."""
        if self._last_level is not None and np.array_equal(self._last_level, plate_level):
            return self._luts
        v = np.arange(256, dtype=np.float64)
        luts = []
        for level, stride in zip(plate_level, (LUT_LEVELS * LUT_LEVELS, LUT_LEVELS, 1), strict=True):
            refl = v / max(float(level), 1e-3)
            q = np.sqrt(np.clip(refl / REFLECTANCE_SCALE, 0.0, 1.0)) * LUT_LEVELS
            luts.append((np.minimum(q.astype(np.int64), LUT_LEVELS - 1) * stride).astype(np.int32))
        self._last_level = np.array(plate_level, copy=True)
        self._luts = luts
        return luts

    def classify(self, bgr: NDArray[Any], plate_level: NDArray[Any], relaxed: bool = False) -> NDArray[Any]:
        """Class code per pixel (uint8, same height and width as ``bgr``); ``relaxed``: the cube
        colours' gates widened to :data:`GATE_COLOUR_RELAXED`."""
        lb, lg, lr = self._channel_luts(np.asarray(plate_level, dtype=np.float64))
        b, g, r = cv2.split(bgr)
        idx: NDArray[np.int32] = np.asarray(cv2.add(cv2.add(cv2.LUT(b, lb), cv2.LUT(g, lg)), cv2.LUT(r, lr)), np.int32)
        # ``take`` reads the table as indexing does, at about a third of the cost for a frame of indices.
        codes: NDArray[Any] = np.take(self.relaxed_table if relaxed else self.table, idx)
        return codes
