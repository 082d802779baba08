"""The pile stages' numbers: a cube on its corner (:mod:`vision.counter.corners`), partial cubes
(:mod:`vision.counter.partial`), merged faces (:mod:`vision.counter.merged`) and unlit cubes
(:mod:`vision.counter.unlit`). Part of :class:`vision.counter.tuning.Tuning`."""

from __future__ import annotations

import math
from dataclasses import dataclass

from vision import geometry as g
from vision.counter.tuning.units import FACE_AREA_MM2


@dataclass(frozen=True, kw_only=True)
class PileTuning:
    # -- a cube on its corner (vision.counter.corners) --
    # A core of a corner's colour smaller than this, its centre this near the corner's, is a face of
    # that cube broken off (tuning renders: such pieces 18-41 mm2 at 5.0-6.2 mm; cubes of their own
    # beside a corner 88-107 mm2 at 10.8 mm or more).
    CORNER_PIECE_MAX_MM2: float = 0.5 * FACE_AREA_MM2
    CORNER_PIECE_REACH_MM: float = 8.0
    # -- partial cubes (vision.counter.partial) --
    # A cube counts when a quarter of its silhouette is visible from above (the spec's rule); the
    # visible top alone must make up TOP_SHARE_OF_VISIBLE of that quarter (its sides are too dark
    # for the colour's gate).
    VISIBLE_FRACTION: float = 0.25
    TOP_SHARE_OF_VISIBLE: float = 0.75
    # A partial face from this share of the quarter up to it is counted, in doubt: on the tuning
    # renders every such face was a real cube, most of them a quarter visible or more.
    NEAR_QUARTER: float = 0.6
    FACE_REACH_MM: float = 1.5  # the seam band around a core and the bevel beyond it
    SMALL_FACE_MM2: float = 0.35 * FACE_AREA_MM2
    # A strip of a lower cube's top with no core of its own: at least a quarter face, as wide as a
    # quarter face's strip, no longer than a face's diagonal (a thin one no longer than an edge).
    STRIP_MIN_RADIUS_MM: float = 1.1
    THIN_STRIP_RADIUS_MM: float = 0.25 * g.CUBE_EDGE_MM
    THIN_STRIP_MAX_LENGTH_MM: float = 1.3 * g.CUBE_EDGE_MM
    # A thin strip whose rectangle is this wide is an L around the upper cube's corner (it runs
    # along two edges, so its rectangle is an edge and a strip long): the diagonal bounds it.
    L_STRIP_MIN_WIDTH_MM: float = 0.5 * g.CUBE_EDGE_MM
    # -- merged faces (vision.counter.merged) --
    SINGLE_MAX_MM2: float = 1.75 * FACE_AREA_MM2  # the largest silhouette one (tilted) cube shows
    SINGLE_SQUARENESS: float = 0.92
    # One tilted cube shows its top foreshortened and one side: at most a face's diagonal long
    # (magnified ~4 % on the second layer) and a face wide (10.7 mm on the third layer).
    TILTED_MAX_LENGTH_MM: float = 1.04 * math.sqrt(2) * g.CUBE_EDGE_MM
    TILTED_MAX_WIDTH_MM: float = 1.2 * g.CUBE_EDGE_MM
    # A flat cube away from the nadir shows its sides beyond its top (partial.side_band_mm): less
    # that band, its patch is a face long and wide and fills its rectangle (docs/counter.md, *A
    # flat cube showing its sides*: 4 of 5099 tuning patches, none that held two).
    FLAT_SIDES_MAX_LENGTH_MM: float = 1.25 * g.CUBE_EDGE_MM
    FLAT_SIDES_MAX_WIDTH_MM: float = 1.0 * g.CUBE_EDGE_MM
    FLAT_SIDES_SQUARENESS: float = 0.78
    # A whole, clean top square with colour beyond it holds a second cube partly under it.
    TOP_SHARE: float = 0.85
    TOP_SQUARE_FILL: float = 0.9
    TOP_SQUARE_SIDES_MM: tuple[float, float] = (0.85 * g.CUBE_EDGE_MM, 1.1 * g.CUBE_EDGE_MM)
    # Touching faces peeled (merged.pieces_beyond_top): the top square found at PEEL_TOP_SHARE of
    # the patch's bright quartile (at TOP_SHARE it takes in a lower cube's lit top more often), and
    # each piece beyond it of PEEL_PIECE_MM2 or more another cube. On the 570 touching patches of
    # the clean tuning scenes (5418 included), the pieces that would raise a right count measure at
    # most 21 mm2 (the top cube's sides), those that mend one read short 37 or more: 8 mended, none
    # harmed, for any bar from 25 to 35 (at 20, 11 and 2; at 0.85, 4 and none).
    PEEL_TOP_SHARE: float = 0.9
    PEEL_PIECE_MM2: float = 30.0
    PILE_FIRST_MM2: float = 1.15 * FACE_AREA_MM2
    PILE_NEXT_MM2: float = 0.97 * FACE_AREA_MM2
    # Touching faces that are one cube fewer by PILE_* than by whole faces' cores: cubes lying flat
    # show a top each, cubes leaning in a pile a top and a side, turned from the ring light. A patch
    # darker than PILE_DARK_SHADE of a flat top of its colour takes the pile's count unless its
    # brightness steps show every face of the larger one. On the clean tuning scenes (tray_train's
    # tuning part, tray_dev, 5410-5413) the patches it moves, shaded 0.63-0.79, were mended four
    # times (by the pieces each patch shows) and harmed none; between 0.80 and 0.85 lay four that
    # held the larger count and two the smaller, so the bar sits under them (docs/counter-figures.md,
    # *Held-out seed 4754*). On tuning seed 9494, whole only after the bar was set, it moved one
    # patch (shaded 0.76), which held the larger count: one reading harmed there, none mended.
    PILE_DARK_SHADE: float = 0.8
    SUMMIT_SPACING_MM: float = 7.0
    SUMMIT_MIN_MM: float = 2.5
    NECK_MM: float = 2.5  # faces merged at a corner join through a neck narrower than twice this
    GROOVE_SHARE: float = 0.8  # a groove between flush faces: darker than this share of the tops
    GROOVED_FACE_MM2: float = (g.CUBE_EDGE_MM - 0.5) ** 2
    NECK_SEED_MM2: float = 3.0
    # Touching faces of one colour are cubes painted and lit each a little differently (paint value,
    # height under the ring light): cut at brightness steps (a grey gradient above this share of
    # the patch's median level, per pixel), each calm cell of at least STEP_CELL_MM2 is a face.
    STEP_SHARE: float = 0.06
    STEP_CELL_MM2: float = 0.15 * FACE_AREA_MM2
    # A cell darker than this share of the patch's brightest cell is a side face turned away from
    # the ring light, not another cube's top (tops are lit alike). Pale yellow keeps its colour on
    # its sides, so two yellow cubes with a side showing were read as three. Set on 443 tuning
    # scenes: the cells that made such patches one too many measured 0.48-0.67 (yellow 0.53-0.59,
    # one at 0.76); five readings became right, none wrong; 0.65 and 0.75 read the same but for
    # one or two patches in scenes right either way.
    STEP_MIN_LIT: float = 0.7
    # -- cubes with every face unlit (vision.counter.unlit) --
    # No-colour pixels are a solid patch where they fill this share of a box this wide around them
    # (a seam between faces is a line 1-2 px wide, under a third of the box); such a patch of one
    # colour at the wider gate, at least half a face and as wide as a quarter face's corner (the
    # quarter rule's smallest counted piece), clear of the counted patches of its colour by this
    # much (their own shaded sides), is a cube. Reasoned sizes; on 207 tuning scenes (the tuning
    # part, tray_dev and four tuning pile sets) it found 6 cubes, all real, and lost no scene.
    UNLIT_BOX_MM: float = 2.3
    UNLIT_SOLID_SHARE: float = 0.45
    UNLIT_MIN_MM2: float = 0.5 * FACE_AREA_MM2
    UNLIT_MIN_RADIUS_MM: float = 0.25 * g.CUBE_EDGE_MM
    UNLIT_CLEAR_MM: float = 0.7
    # A patch whose runner-up colour has at least this share of its leader's votes is decided by
    # hue (vision.counter.unlit.nearer_in_hue), unless its mean chroma is under this (a grey patch
    # has no hue to go by). Reasoned: a clear majority stands; an unlit cube face's chroma is 20-40.
    UNLIT_HUE_RIVAL_SHARE: float = 0.25
    UNLIT_HUE_MIN_CHROMA: float = 8.0
