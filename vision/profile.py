"""The colour profile: what each colour looks like on this station, learned by calibration.

It lives in ``vision`` because the counter needs it and the counter may not depend on
``calibration`` (the dependency arrows run the other way); ``calibration.profile`` re-exports it.

Colours are modelled as Gaussians in CIE Lab computed from plate-relative reflectance (each channel
divided by the grey plate's level in the same frame), so a warm or cool cast and the brightness of
the room cancel out before classification. Red needs no hue wrap-around in Lab (a and b are
Cartesian), and purple and blue differ along a, which a full covariance captures.

The file is JSON, versioned, a few kilobytes, and validated on load: a corrupt, foreign or
inconsistent file raises ``ProfileError`` naming the problem.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.errors import ProfileError
from vision.geometry import ALL_COLOURS, PLAYER_COLOURS

PROFILE_FORMAT = "wallenstein-tower/colour-profile"
PROFILE_VERSION = 1


@dataclass(frozen=True)
class ColourModel:
    """One class in Lab: mean, covariance, and how many pixels it was learned from."""

    mean: tuple[float, float, float]
    cov: tuple[tuple[float, float, float], ...]
    pixels: int

    def __post_init__(self) -> None:
        m = np.asarray(self.mean, dtype=float)
        c = np.asarray(self.cov, dtype=float)
        if m.shape != (3,) or c.shape != (3, 3) or not np.all(np.isfinite(m)) or not np.all(np.isfinite(c)):
            raise ProfileError("a colour model needs a 3-vector mean and a finite 3x3 covariance")
        if not np.allclose(c, c.T, atol=1e-6 * max(1.0, float(np.abs(c).max()))):
            raise ProfileError("a colour model's covariance must be symmetric")
        if np.linalg.eigvalsh(c).min() <= 0:
            raise ProfileError("a colour model's covariance must be positive definite")

    @property
    def mean_array(self) -> NDArray[Any]:
        return np.asarray(self.mean, dtype=np.float64)

    @property
    def cov_array(self) -> NDArray[Any]:
        return np.asarray(self.cov, dtype=np.float64)

    @property
    def spread(self) -> float:
        """Geometric-mean standard deviation (Lab units): one number for how tight the colour is."""
        return float(np.linalg.det(self.cov_array) ** (1.0 / 6.0))

    @cached_property
    def _inverse(self) -> NDArray[Any]:
        return np.linalg.inv(self.cov_array)

    def mahalanobis2(self, lab: NDArray[Any]) -> NDArray[Any]:
        d = np.asarray(lab, dtype=np.float64).reshape(-1, 3) - self.mean_array
        squared: NDArray[np.float64] = np.einsum("ij,jk,ik->i", d, self._inverse, d)
        return squared

    @classmethod
    def fit(cls, lab: NDArray[Any], floor_var: float = 1.0) -> ColourModel:
        """Fit to N x 3 Lab samples; a small variance floor keeps a very uniform colour invertible."""
        pts = np.asarray(lab, dtype=np.float64).reshape(-1, 3)
        if len(pts) < 20:
            raise ValueError(f"too few pixels to learn a colour ({len(pts)})")
        mean = pts.mean(axis=0)
        cov = np.cov(pts, rowvar=False) + np.eye(3) * floor_var
        return cls(
            (float(mean[0]), float(mean[1]), float(mean[2])),
            tuple((float(row[0]), float(row[1]), float(row[2])) for row in cov),
            int(len(pts)),
        )

    def to_json(self) -> dict[str, Any]:
        # Full float precision (JSON keeps a float's shortest exact repr): a profile read back from
        # its file classifies exactly as the one learned, so `tower count` agrees with calibration.
        return {
            "mean": [float(x) for x in self.mean],
            "cov": [[float(x) for x in row] for row in self.cov],
            "pixels": self.pixels,
        }

    @classmethod
    def from_json(cls, data: Any, where: str) -> ColourModel:
        if not isinstance(data, dict) or set(data) != {"mean", "cov", "pixels"}:
            raise ProfileError(f"{where}: expected an object with mean, cov and pixels")
        try:
            mean = tuple(float(x) for x in data["mean"])
            cov = tuple(tuple(float(x) for x in row) for row in data["cov"])
            pixels = int(data["pixels"])
        except (TypeError, ValueError) as exc:
            raise ProfileError(f"{where}: mean, cov and pixels must be numbers ({exc})") from exc
        if len(mean) != 3 or len(cov) != 3 or any(len(r) != 3 for r in cov) or pixels <= 0:
            raise ProfileError(f"{where}: mean must have 3 numbers, cov 3x3, pixels > 0")
        try:
            return cls(mean, cov, pixels)  # type: ignore[arg-type]
        except ProfileError as exc:
            raise ProfileError(f"{where}: {exc}") from exc


@dataclass(frozen=True)
class ColourProfile:
    """Everything learned at calibration that the counter needs (see the module docstring).

    ``background`` is the empty tray's floor; ``colours`` the cube top faces per colour (all six);
    ``courtiers`` the pawns' colours where they were calibrated (optional, player colours only).
    """

    background: ColourModel
    colours: dict[str, ColourModel]
    courtiers: dict[str, ColourModel] = field(default_factory=dict)
    version: int = PROFILE_VERSION
    notes: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        missing = [c for c in ALL_COLOURS if c not in self.colours]
        if missing:
            raise ProfileError(f"the profile lacks the colour(s) {', '.join(missing)}")
        unknown = [c for c in self.colours if c not in ALL_COLOURS]
        if unknown:
            raise ProfileError(f"the profile names unknown colour(s) {', '.join(unknown)}")
        bad = [c for c in self.courtiers if c not in PLAYER_COLOURS]
        if bad:
            raise ProfileError(f"courtiers come in player colours only, not {', '.join(bad)}")
        if self.version != PROFILE_VERSION:
            raise ProfileError(f"profile version {self.version} is not supported (expected {PROFILE_VERSION})")

    def to_json(self) -> dict[str, Any]:
        return {
            "format": PROFILE_FORMAT,
            "version": self.version,
            "background": self.background.to_json(),
            "colours": {c: self.colours[c].to_json() for c in ALL_COLOURS},
            "courtiers": {c: m.to_json() for c, m in sorted(self.courtiers.items())},
            "notes": self.notes,
        }

    @classmethod
    def from_json(cls, data: Any) -> ColourProfile:
        if not isinstance(data, dict) or data.get("format") != PROFILE_FORMAT:
            raise ProfileError(f"not a colour profile (expected \"format\": \"{PROFILE_FORMAT}\")")
        version = data.get("version")
        if version != PROFILE_VERSION:
            raise ProfileError(f"profile version {version!r} is not supported (expected {PROFILE_VERSION})")
        for key in ("background", "colours"):
            if key not in data:
                raise ProfileError(f"the profile lacks \"{key}\"")
        colours = data["colours"]
        courtiers = data.get("courtiers", {})
        if not isinstance(colours, dict) or not isinstance(courtiers, dict):
            raise ProfileError("\"colours\" and \"courtiers\" must be objects")
        notes = data.get("notes", {})
        if not isinstance(notes, dict):
            raise ProfileError("\"notes\" must be an object")
        return cls(
            background=ColourModel.from_json(data["background"], "background"),
            colours={str(c): ColourModel.from_json(m, f"colours.{c}") for c, m in colours.items()},
            courtiers={str(c): ColourModel.from_json(m, f"courtiers.{c}") for c, m in courtiers.items()},
            version=version,
            notes=notes,
        )

    def separations(self) -> dict[str, tuple[str, float]]:
        """Per colour, the nearest other colour and the separation (in standard deviations: the
        Mahalanobis distance between the means under the pooled covariance)."""
        out: dict[str, tuple[str, float]] = {}
        names = list(self.colours)
        for a in names:
            best = ("", math.inf)
            for b in names:
                if a == b:
                    continue
                d = separation(self.colours[a], self.colours[b])
                if d < best[1]:
                    best = (b, d)
            out[a] = best
        return out


def separation(a: ColourModel, b: ColourModel) -> float:
    pooled = (a.cov_array + b.cov_array) / 2
    d = a.mean_array - b.mean_array
    return float(np.sqrt(d @ np.linalg.solve(pooled, d)))


MAX_PROFILE_BYTES = 1 << 20


def load_profile(path: str | Path) -> ColourProfile:
    """Load and validate a profile file; ``ProfileError`` names what is wrong with it."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ProfileError(f"{path}: cannot read the colour profile ({exc.strerror or exc})") from exc
    if len(raw) > MAX_PROFILE_BYTES:
        raise ProfileError(f"{path}: {len(raw)} bytes is far too large for a colour profile")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProfileError(f"{path}: not a colour profile (corrupt JSON: {exc})") from exc
    try:
        return ColourProfile.from_json(data)
    except ProfileError as exc:
        raise ProfileError(f"{path}: {exc}") from exc


def save_profile(profile: ColourProfile, path: str | Path) -> None:
    """Write the profile as small, readable JSON (atomically: a crash never leaves half a file)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(profile.to_json(), indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)
