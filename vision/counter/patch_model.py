"""How many cubes is this patch, learned: a small random forest over each counted patch's shape.

The decision model (:mod:`vision.counter.doubt`) gives every patch of one kind (touching faces, a
tilted cube ...) the same odds of being off. The renders say more: touching faces that are large
per cube they were read as, in a dense pile, often hold one cube more; a "face" that is a sliver
beside another of its colour is often a cube already counted. This forest reads those measures of
one patch (its kind, area per cube, outline, shade, how crowded its neighbourhood is) and gives
``P(off by -1, 0, +1)``; the decision model uses that in place of the kind's table, so the count
moves where the forest is sure and the frame is trusted where every patch is clear.

Trained on the tuning renders only by ``calibration/fit_counter_patches.py`` (patches matched with
the ground-truth pieces under them); shipped as ``patch_model.yml.gz`` (OpenCV's ``cv2.ml``, CPU,
runs on a Raspberry Pi). Absent that file the counter falls back to the kind tables alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.counter.frame import Core
from vision.counter.frame import grey_spread as core_spread
from vision.counter.merged import Count
from vision.counter.tuning import PPM
from vision.geometry import ALL_COLOURS

MODEL_FILE = Path(__file__).with_name("patch_model.yml.gz")
KINDS = ("face", "big_face", "tilted", "stacked", "merged", "touching", "small", "strip", "corner", "quarter", "pawn",
         "ball")
CLASSES = (-1, 0, 1)  # cubes off: the truth minus the count (the tails -2, +2 are folded in)
NEAR_MM = 15.0  # a neighbour this near (centre to centre) makes a patch part of a pile
N_OUTLINE = 5
N_MEASURES = 18
"""The measures of a patch ahead of its outline in a feature row (see :func:`features`)."""
N_FEATURES = N_MEASURES + N_OUTLINE + len(KINDS) + len(ALL_COLOURS)


def outline(core: Core) -> list[float]:
    """How a patch's outline departs from one flat face's: solidity (share of its convex hull it
    fills), compactness (perimeter squared over area), its deepest notch (mm) and the notches deeper
    than 1 mm (two faces meet at a notch)."""
    contour = core.contour.reshape(-1, 1, 2).astype(np.int32)
    area = max(float(cv2.contourArea(contour)), 1.0)
    hull = cv2.convexHull(contour, returnPoints=False)  # indices, in the order of the hull's points
    solidity = area / max(float(cv2.contourArea(contour[hull.ravel()])), 1.0)
    compact = float(cv2.arcLength(contour, True)) ** 2 / area
    deepest, notches = 0.0, 0
    if len(hull) > 3:
        try:
            defects = cv2.convexityDefects(contour, np.sort(hull, axis=0))
        except cv2.error:  # a self-touching outline: no notches measured
            defects = None
        if defects is not None:
            depth = defects[:, 0, 3] / 256.0 / PPM
            deepest, notches = float(depth.max()), int((depth > 1.0).sum())
    return [solidity, compact, deepest, notches]


def grey_spread(cores: Sequence[Core], gray: npt.NDArray[np.uint8] | None) -> npt.NDArray[np.float64]:
    """Per patch, its grey level's standard deviation over its mean (two faces at different heights
    or angles to the ring light differ in brightness); all patches at once."""
    if gray is None:
        return np.zeros(len(cores))
    return np.array([core_spread(gray, core) for core in cores], np.float64)


def features(counted: Sequence[tuple[Core, Count]], gray: npt.NDArray[np.uint8] | None = None) -> npt.NDArray[np.float32]:
    """One row of measures per counted cube patch (``float32``, ``len(counted) x N_FEATURES``);
    ``gray`` is the frame's grey tray view."""
    out = np.zeros((len(counted), N_FEATURES), np.float32)
    if not counted:
        return out
    centres = np.array([c.centre for c, _ in counted], np.float32) / PPM
    colours = np.array([ALL_COLOURS.index(c.colour) if c.colour in ALL_COLOURS else -1 for c, _ in counted])
    dist = np.hypot(centres[:, None, 0] - centres[None, :, 0], centres[:, None, 1] - centres[None, :, 1])
    near = dist < NEAR_MM
    np.fill_diagonal(near, False)
    n_near = near.sum(axis=1)
    n_same = (near & (colours[:, None] == colours[None, :])).sum(axis=1)
    np.fill_diagonal(dist, 99.0)
    nearest = np.minimum(dist.min(axis=1), 99.0)
    spread = grey_spread([c for c, _ in counted], gray)
    kinds = {k: j for j, k in enumerate(KINDS)}
    base = N_MEASURES + N_OUTLINE
    rows = []  # the measures, put into ``out`` at once (row by row cost more than working them out)
    for i, (core, count) in enumerate(counted):
        n = max(count.n, 1)
        vis = core.visible_mm2 / core.quarter_mm2 if core.visible_mm2 is not None and core.quarter_mm2 > 0 else -1.0
        rows.append([count.n, count.faces, count.faces / n, count.shade, core.squareness, core.roundness,
                     core.radius_mm, core.length_mm, core.width_mm, core.length_mm / n, core.summits,
                     len(core.parts), vis, count.hi - count.lo, n_near[i], n_same[i], nearest[i], count.steps - count.n,
                     *outline(core), spread[i]])
        if count.kind in kinds:
            out[i, base + kinds[count.kind]] = 1.0
        if colours[i] >= 0:
            out[i, base + len(KINDS) + colours[i]] = 1.0
    out[:, :base] = rows
    return out


class PatchModel:
    """The forest, loaded once; ``tables`` gives each patch its ``P(delta)`` over -2..+2."""

    def __init__(self, forest: cv2.ml.RTrees) -> None:
        self.forest = forest

    @classmethod
    def load(cls, path: Path = MODEL_FILE) -> PatchModel | None:
        if not Path(path).is_file():
            return None
        forest = cv2.ml.RTrees.load(str(path))
        if forest.getVarCount() != N_FEATURES:
            # Fed rows of another length, OpenCV's forest answers without complaint, and wrongly.
            raise ValueError(f"the patch model {path} reads {forest.getVarCount()} measures per patch, but the "
                             f"counter gives it {N_FEATURES}: it was trained for other code; refit it with "
                             "python -m calibration.fit_counter_doubt --forest")
        return cls(forest)

    def probabilities(self, rows: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
        """``P(class)`` for ``CLASSES`` per row: the share of the forest's trees voting for it."""
        if len(rows) == 0:
            return np.zeros((0, len(CLASSES)))
        votes = self.forest.getVotes(rows.astype(np.float32), 0)
        labels = [int(v) for v in votes[0]]
        out = np.zeros((len(rows), len(CLASSES)))
        for j, label in enumerate(labels):
            out[:, CLASSES.index(label)] = votes[1:, j]
        total: npt.NDArray[np.float64] = np.maximum(out.sum(axis=1, keepdims=True), 1.0)
        return out / total


def blend(forest_p: npt.NDArray[np.float64], kind_table: npt.NDArray[np.float64],
          kind_weight: float) -> npt.NDArray[np.float64]:
    """A patch's table over deltas -2..+2: the forest's votes, with ``kind_weight`` of its kind's
    table mixed in so that no patch is ever certain (the forest has seen few wrong patches). Also
    for many patches at once, one per row (``forest_p`` n x 3, ``kind_table`` n x 5)."""
    forest_p = np.asarray(forest_p, np.float64)
    learned = np.zeros(forest_p.shape[:-1] + (5,))
    learned[..., 1:4] = forest_p
    out: npt.NDArray[np.float64] = (1.0 - kind_weight) * learned + kind_weight * np.asarray(kind_table, np.float64)
    return out
