"""The face stage's numbers (:mod:`vision.counter.faces`): seams, cores, the colour gate, gaps
and speckled faces. Part of :class:`vision.counter.tuning.Tuning`."""

from __future__ import annotations

import math
from dataclasses import dataclass

from vision import geometry as g
from vision.counter.tuning.units import FACE_AREA_MM2, PPM


@dataclass(frozen=True, kw_only=True)
class FaceTuning:
    # A seam is a thin line darker than its surroundings by this fraction of their brightness.
    SEAM_DEPTH: float = 0.10
    SEAM_KERNEL_MM: float = 2.0
    SEAM_FLOOR: float = 3.0  # grey levels: below this a dip is noise even on a black top
    # A visible face must keep at least this inscribed radius once seams are removed (the quarter of
    # a 10 mm face that makes a cube count is a 5 x 5 mm corner, less its seams; side faces seen from
    # above are under ~3 mm wide and split from their top by the bevel seam).
    MIN_FACE_RADIUS_MM: float = 1.3
    MIN_FACE_AREA_MM2: float = 0.15 * FACE_AREA_MM2
    HOLED_RADIUS_MM: float = 3.0  # a core this thin may be a face riddled with noise: holes filled
    # A visible face is a convex patch; the crevices and shadows between cubes that pass for black
    # are ragged. Cores filling less of their convex hull are not faces.
    MIN_SOLIDITY: float = 0.6
    # Mahalanobis^2 of a face's (or a strip's) mean colour against its colour's model, which is
    # fitted to the calibration shots' pixels. A cube on its corner turns every face from the ring
    # light: its hexagon's mean lies darker than any calibrated top (tuning 5410 t0006: a red one at
    # 13.3, read as no red at all at 12). 16: just inside the gate each pixel passed
    # (vision.colour.GATE_COLOUR, 16.3, chi-square's 99.9 % point for 3 degrees of freedom).
    FACE_GATE: float = 16.0
    MAX_FACE_LENGTH_MM: float = 1.1 * math.sqrt(2) * g.CUBE_EDGE_MM  # a face's diagonal, magnified
    # A crevice between cubes is thin: a long patch with an inscribed radius of a quarter face's
    # corner (5 x 5 mm) or more is cube, not crevice (on the tuning renders such patches held two
    # cubes of the colour, a face and a tilted one, that were dropped as a sliver).
    SLIVER_MAX_RADIUS_MM: float = 0.25 * g.CUBE_EDGE_MM
    # The floor at the bottom of a narrow gap between cubes lies in their shade, too far from open
    # floor for the shadow test below to see the floor level around it: it passes black's wide gate
    # as a small patch, yet is brighter than any black top under the ring light. A black patch
    # smaller than GAP_MAX_MM2 whose mean L* lies more than GAP_MIN_LIFT_SD standard deviations of
    # black's calibrated lightness above its calibrated mean is such floor (on the tuning renders,
    # 1561 black patches: the three above 1.5 were gaps at 2.3-4.7, no right black patch so small
    # was above 1.0, and the brightest whole black faces were 1.5).
    GAP_MAX_MM2: float = 0.5 * FACE_AREA_MM2
    GAP_MIN_LIFT_SD: float = 1.5
    # Faces turned from the light whose pixels flip between two colours (faces.one_colour_where_speckled):
    # the share of pixels beside another cube colour, in a window of SPECKLE_WINDOW_MM, is at most
    # about 2/7 along the line where two cubes meet, and a band of that window's width has an
    # inscribed radius under half of it. Set by that reasoning, then checked on the 392 tuning scenes
    # (six zones found; two readings became right, none wrong).
    SPECKLE_WINDOW_MM: float = 7 / PPM
    SPECKLE_DENSITY: float = 0.4
    SPECKLE_MIN_RADIUS_MM: float = 2.3
    # A face whose pixels flip between its colour and no class (faces.one_colour_where_noisy): in
    # such a window at least NOISY_MIN_UNKNOWN of the pixels in no class, NOISY_MIN_COLOUR in the
    # colour, NOISY_MIN_BOTH the two together. On the clean tuning scenes (tray_train's tuning
    # part, tray_dev, 5410-5413, 9494 as rendered) these found two zones: a green cube by the wall
    # (5411 t0019, made right) and a red one whose count stayed. Looser (0.10, 0.3, 0.85): zones on
    # 15 more scenes, two of them read wrong after (5410 t0029, 5413 t0010); 0.13-0.19 of no class
    # finds the two, or one more that moves no count (tray_train t0070); 0.12 adds 5413 t0010, 0.20
    # finds none.
    NOISY_MIN_UNKNOWN: float = 0.15
    NOISY_MIN_COLOUR: float = 0.4
    NOISY_MIN_BOTH: float = 0.9
    FLOOR_LEVEL_SIGMA_MM: float = 8.0  # smoothing of the local floor level
    BLACK_SPLIT_EXPONENT: float = 1 / 3  # where between black and floor (log grey) shadowed floor starts
