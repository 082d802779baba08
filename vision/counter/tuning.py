"""Every number the counter's stages decide by, in one documented object.

The values are lengths and areas in millimetres on the plane of the cube tops (the tray view), so
they hold for any camera pose the markers give. Most come from the geometry of a 10 mm cube under a
ring light seen from about 300 mm; the decision model's numbers (how often each kind of reading is
wrong) are fitted on the tuning renders and live in ``doubt_model.json`` (see
:mod:`vision.counter.doubt`). ``TUNING`` is the instance the stages use; a test or a tuning script
may build a ``Tuning(...)`` with other values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from vision import geometry as g
from vision.plate import TRAY_VIEW

PPM = TRAY_VIEW.ppm
FACE_AREA_MM2 = g.CUBE_EDGE_MM**2


@dataclass(frozen=True)
class Tuning:
    # -- faces (vision.counter.faces) --
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
    FLOOR_LEVEL_SIGMA_MM: float = 8.0  # smoothing of the local floor level
    BLACK_SPLIT_EXPONENT: float = 1 / 3  # where between black and floor (log grey) shadowed floor starts
    # -- pawns (vision.counter.pawns) --
    PAWN_ROUNDNESS: float = 0.55
    PAWN_ROUNDNESS_BLACK: float = 0.8
    PAWN_MAX_SQUARENESS: float = 0.88  # a disc fills pi/4 of its bounding square, a face nearly all
    # A shaded cube face in a pile is as dark as a ball: what is as long as a whole face and no
    # rounder than a square (a square fills 2/pi of its enclosing circle) is a face. On the tuning
    # renders every cube read as a standing pawn was 9.7 mm long or more at roundness 0.66 or less;
    # every real head at 9.5 mm or more was 0.75 or rounder.
    PAWN_FACE_LENGTH_MM: float = 9.5
    PAWN_FACE_ROUNDNESS: float = 0.7
    # A courtier standing near the tray's edge is seen partly from aside: its head and the shaded
    # side of its body make one core about as long as a face, not round, which the bar above takes
    # for a shaded face (tuning 5412 t0033: three yellow courtiers, 9.7-10.4 x 7.0-8.5 mm, shaded
    # 1.58-1.69 of the way from the top's lightness to the calibrated pawn's, read as cubes). A core
    # of a colour other than black (whose shade is noise) shaded PAWN_DEEP_SHADE or more, no wider
    # than PAWN_DEEP_MAX_WIDTH_MM and of PAWN_DEEP_MIN_MM2 or more is a pawn. On the clean tuning
    # scenes (tray_dev, tray_train's tuning part, 5410-5412) the only cube cores of those colours
    # shaded 1.3 or more were a leaning cube 10.8 mm wide and cube sides under 35 mm2, 5.1 mm wide
    # at most.
    PAWN_DEEP_SHADE: float = 1.5
    PAWN_DEEP_MAX_WIDTH_MM: float = 9.0
    PAWN_DEEP_MIN_MM2: float = 40.0
    # ... but no pawn is darker than PAWN_MAX_SHADE of that way: on the clean tuning scenes (5413
    # added) every courtier's core was shaded 1.96 at most (black 1.53), the simulated station's
    # lying ones 1.84; the one core of a courtier colour shaded 2.0 or more, 3.10, was a purple
    # cube in a pile's deep shadow read as a courtier lying down (5413 t0038).
    PAWN_MAX_SHADE: float = 2.5
    # A pawn lying down: its core (about 12-13 x 9-10 mm) is longer than any whole face's core and
    # tapered; as wide as its base less the seams, most of a face's area, rounded outline.
    LYING_PAWN_MIN_LENGTH_MM: float = 11.0
    # Black's shade cannot tell a pawn from a cube in shadow: every black core 11-13 mm long that
    # this outline took on the tuning renders was a cube (11.5-12.7 mm; vision.counter.pawns).
    LYING_PAWN_MIN_LENGTH_BLACK_MM: float = 13.0
    LYING_PAWN_MAX_SQUARENESS: float = 0.8
    LYING_PAWN_MIN_WIDTH_MM: float = 0.8 * g.COURTIER_BASE_MM
    LYING_PAWN_MAX_WIDTH_MM: float = 1.0 * g.COURTIER_BASE_MM
    LYING_PAWN_MIN_MM2: float = 0.6 * FACE_AREA_MM2
    LYING_PAWN_MIN_ROUNDNESS: float = 0.45
    # A standing pawn's head is a ball about 7 mm across over its 10 mm base: what is split off a
    # face as a pawn must be at least that wide and most of that area.
    PAWN_HEAD_MIN_MM2: float = 0.3 * FACE_AREA_MM2
    PAWN_HEAD_MIN_RADIUS_MM: float = 2.5
    PAWN_TOP_ROUNDNESS: float = 0.8
    PAWN_SHARE_MIN: float = 0.15  # a face with a pawn merged is darker than a top by this share of the gap
    # A courtier's head as a ball (vision.counter.balls): circles this wide (radius, mm) in the grey
    # view, found at this edge threshold and perfectness; mostly one courtier colour inside, shaded
    # as a ball, clear of its colour around; the cores of its colour mostly (BALL_PIECE_SHARE)
    # within BALL_PIECE_REACH radii are its pieces. Set on 232 tuning scenes: of the circles found,
    # those near a standing courtier passed 40 of 47, the 356 others none (spread over mean: heads
    # 0.15-0.85, flat faces 0.09 in the median; black faces up to 0.2, black heads 0.28 or more).
    BALL_RADIUS_MM: tuple[float, float] = (3.5, 6.0)
    BALL_EDGE_THRESHOLD: float = 200.0
    BALL_PERFECTNESS: float = 0.75
    # Inside 0.8 radii a head holds its colour in at least BALL_MIN_COLOUR_SHARE of the pixels that
    # have a class, and in BALL_MIN_PAINTED_SHARE of all: its shaded rim and highlight fall outside
    # every class (tuning 5411: two heads held 0.40 of their colour, 0.95-1.00 of those classed; of
    # the 219 circles of a courtier colour on the clean tuning scenes that are not heads, none passed).
    BALL_MIN_COLOUR_SHARE: float = 0.5
    BALL_MIN_PAINTED_SHARE: float = 0.3
    BALL_MIN_SHADING: float = 0.15
    BALL_MIN_SHADING_BLACK: float = 0.25  # black's low grey level makes its noise weigh more
    BALL_MAX_RING_SHARE: float = 0.15
    # A circle whose ring holds its colour is still a head when its rim (1.0-1.15 radii) holds at
    # most this share of it: on 263 tuning frames (the tuning part, tray_dev, seeds 5404, 5405, 5151)
    # the circles that passed every other test but the ring held 0.10-0.50 of their colour there
    # on a head (8 of 16 at most 0.25), and 0.33-0.65 elsewhere (54: faces' corners going on past
    # the circle). Two readings changed, both for the better (docs/counter-figures.md).
    # Raised to 0.32 on tuning seed 5411 (40 piles with courtiers): two heads beside cubes of their
    # colour held 0.28 and 0.31 of it there, while no other of the 219 circles of a courtier colour
    # on the clean tuning scenes that is mostly that colour held under 0.34 (0.33 the least seen
    # before). With the share above, only two readings moved (5411 t0007, t0013).
    BALL_MAX_RIM_SHARE: float = 0.32
    # A head shaded as deeply as no face is may have more of its colour in its rim: cubes of its
    # colour on two sides. On 308 tuning frames (those above, and seeds 31 and 9494 as rendered so
    # far), of the circles that failed the ring and the rim at 0.25, every one shaded 0.40 or more was
    # a head: four black heads shaded 0.41-0.68 with 0.30-0.36 of the rim black (and a blue one at
    # 0.42), against 26 other circles shaded at most 0.38 (a black cube, its rim 0.49 black).
    # The rim cap for such a head was first 0.40. On 325 tuning frames (seed 9191 as rendered so far
    # and the twins of 5404/5405 added) every circle failing the ring and shaded 0.40 or more was
    # still a head (7), their rims 0.16-0.50: the two above 0.40 (5404 t0009 blue, 5405 t0012
    # black) were lost, and no circle that is not a head came near. 0.60 keeps the cap below what
    # a circle inside a patch of its colour has (its rim all its colour); set by judgement, as no
    # deep non-head circle bounds it.
    # The bar 0.40 was set by a black cube (shaded 0.38). Black's low grey makes its noise weigh
    # more, as for BALL_MIN_SHADING_BLACK; the other courtier colours' flat faces shade far less: on
    # the clean tuning scenes at hand (tray_dev, tray_train's tuning part, seeds 5410-5412) the 195
    # circles of red, blue, yellow or purple that hold their colour and are not heads shade 0.27 at
    # most. Their bar is 0.35 since the fourteenth session (a blue head between three blue cubes,
    # 5410 t0037, shaded 0.375 with 0.60 of its rim blue, was read as a cube); black's stays 0.40.
    BALL_DEEP_SHADING: float = 0.35
    BALL_DEEP_SHADING_BLACK: float = 0.40
    BALL_MAX_RIM_SHARE_DEEP: float = 0.60
    # A head standing alone: its colour stops at its circle all round (at most BALL_CLEAR_RIM_SHARE
    # of the rim, 1.0-1.15 radii, with the ring clear), where a square face fitted with a circle
    # has its four corners in the rim (about half of it, by geometry). Such a head needs less
    # shading. On 186 tuning frames (the tuning part, tray_dev, seeds 9292, 5406, 5407 and 9494 as
    # rendered), 19 of 60 circles on a head were lost to the shading bars, each standing alone:
    # rims 0.00-0.09, shaded 0.134-0.150 (black 0.216-0.235; seed 5406's light shades heads less).
    # Of the 181 other circles of a courtier colour none had a rim under 0.39. The shading floors
    # keep an evenly lit patch out (flat faces 0.09 in the median), set by judgement below the
    # lightest heads seen.
    BALL_CLEAR_RIM_SHARE: float = 0.20
    BALL_MIN_SHADING_CLEAR: float = 0.12
    BALL_MIN_SHADING_CLEAR_BLACK: float = 0.20
    # A core of the head's colour holding at least this share of the head's area without lying
    # mostly inside it is the head read with the cube it stands against as one patch: the head is
    # cut out of it (vision.counter.balls.heads_as_pawns).
    BALL_MERGED_SHARE: float = 0.3
    BALL_PIECE_REACH: float = 1.15
    BALL_PIECE_SHARE: float = 0.6
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
    PILE_FIRST_MM2: float = 1.15 * FACE_AREA_MM2
    PILE_NEXT_MM2: float = 0.97 * FACE_AREA_MM2
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
    # -- guards (vision.counter.guards) --
    # Matching no colour and wider than any cube face: a coin (20 mm), a fingertip (~16 mm).
    FOREIGN_RADIUS_MM: float = 5.5
    # Wider than any coin (20 mm: 10 mm inscribed) or fingertip, a patch of no colour whose colour is
    # a tint of the plate within FLOOR_TINT is the floor in a light the profile never saw (a strong
    # cast with a shadow), not an object; a hand reaching in crosses the walls (HAND_*).
    FOREIGN_MAX_RADIUS_MM: float = 12.0
    FLOOR_TINT: float = 0.2
    # A round patch of a cube colour wider than a face (a brass coin looks yellow). A tilted cube on
    # the third layer shows up to ~5.5 mm inscribed radius, one standing on a corner a hexagon of
    # ~7 mm; a 20 mm coin ~9 mm, nibbled by noise to ~6.7 mm at worst.
    FOREIGN_COLOURED_RADIUS_MM: float = 7.0
    FOREIGN_ROUND_RADIUS_MM: float = 6.0
    FOREIGN_ROUNDNESS: float = 0.75
    # A coin is one flat, evenly lit disc; a cube on its corner shows two or three faces at other
    # angles to the light. A candidate whose brightness spread (standard deviation over mean, grey)
    # exceeds this is read as a cube on its corner, in doubt, not refused. Flat whole faces measure
    # 0.04 to 0.22 (median 0.1) on the tuning renders; no tuning render holds a coin of a cube
    # colour or a cube on its corner wide enough to reach this test, so the value is reasoned, not
    # fitted: a wrong call costs a question (the patch is in doubt), not a silent error.
    COIN_MAX_SHADING: float = 0.12
    # A coin is also wider than any cube on its corner. Seen from above such a cube is a hexagon
    # 16.3 mm across its corners (2 x edge x sqrt(2/3)), magnified to at most 17.6 mm on the third
    # layer under the lowest camera the spec allows (270 mm); a 20 mm coin lying on the plate shows
    # at least 19.2 mm on the plane of the cube tops. An evenly lit round patch whose enclosing
    # circle is narrower than the bar between them is a cube on its corner of a pale colour (a
    # yellow one's three faces are lit nearly alike), read as one cube in doubt. Reasoned, not
    # fitted: the tuning renders hold no patch that reaches this test (docs/counter.md).
    COIN_MIN_DIAMETER_MM: float = 18.4
    # A metal coin lying flat is a disc 20 mm across (about 19 mm on the plane of the cube tops)
    # whose face the classifier may take for the grey plate, or for nothing: a circle of that size
    # (OpenCV's HOUGH_GRADIENT_ALT: edge threshold, and how perfect a circle must be, 0..1) whose
    # inside is mostly of no cube's colour and evenly lit. On the tuning renders (204 scenes, 8 flat
    # coins) the coins were found 8 of 8, and at perfectness down to 0.6 no circle on a clean tray
    # passed the tests: coins measure shading 0.005-0.15 and 0.76-1.0 of no cube colour (inside
    # 0.8 of the radius), gaps ringed by cubes 0.17 or more and at most 0.58 (those 0.17-0.2 show
    # at most 0.35). At perfectness 0.5 one gap passed, a yellow cube lying in it: the middle
    # (inside half the radius) of every coin was 0.9-1.0 of no cube colour, of that gap 0.63.
    DISC_RADIUS_MM: tuple[float, float] = (8.5, 11.0)
    DISC_EDGE_THRESHOLD: float = 250.0
    DISC_PERFECTNESS: float = 0.7
    DISC_MIN_PLAIN_SHARE: float = 0.6
    DISC_MIN_MIDDLE_PLAIN_SHARE: float = 0.8
    DISC_MAX_SHADING: float = 0.2
    # A coin with a cube over its rim: the disc's plain part evenly lit, and its rim an edge across
    # the circle (grey gradient at least DISC_RIM_GRADIENT, along the radius) over an unbroken arc
    # of DISC_COVERED_RIM_DEG. Tuning: that coin 177 degrees, whole coins 245-360; the one clean
    # tray's gap that passes the plain part's evenness (found at perfectness 0.6) 72.
    DISC_COVERED_RIM_DEG: int = 150
    DISC_RIM_GRADIENT: float = 40.0
    # The circle search runs first on the grey view scaled by DISC_COARSE_SCALE with a looser
    # perfectness, then at full scale around the circles found: at DISC_PERFECTNESS where the middle
    # (half the smallest radius) is at least DISC_COARSE_MIN_PLAIN of no cube colour, as a flat
    # coin's is (0.9-1.0); elsewhere at DISC_ANY_FACE_PERFECTNESS (a coin leaning on cubes). Set
    # on 322 tuning scenes (23 of them with a coin refused): the same plain discs as one full-scale
    # search (within 3 px), in about half its time; at half scale the coin among cubes of the shared
    # scene t0059 is lost.
    DISC_COARSE_SCALE: float = 0.6
    DISC_COARSE_PERFECTNESS: float = 0.5
    DISC_COARSE_MIN_PLAIN: float = 0.5
    # A polished coin leaning on cubes mirrors them: its face is neither plain nor one colour, but
    # its outline is a smooth ellipse that the circle search finds nearly perfect: the coarse circles
    # whose middle is not plain are searched at full scale at this bar, down to this radius (a
    # leaning coin is narrower one way). Set on the tuning renders (docs/counter.md, *A coin leaning
    # on the pile*): no clean scene there has such a circle at 0.75, the leaning coin is found at 0.9.
    DISC_ANY_FACE_PERFECTNESS: float = 0.85
    DISC_LEANING_MIN_RADIUS_MM: float = 7.7
    # A courtier lying on its side (vision.counter.lying), measured whole. On the tuning renders
    # (2051 patches of a courtier colour 60-400 mm2) the six lying courtiers found measured 63-87
    # mm2, 13.3-14.8 x 8.7-9.4 mm, waist 0.41-0.60, solidity 0.67-0.83, shade 0.50-1.50; of the other
    # patches in those area, length and width bands, two passed the rest: cubes partly under another,
    # whose 1 mm band around was 0.51 and 0.20 floor (the courtiers' 0.59-0.94).
    LYING_AREA_MM2: tuple[float, float] = (55.0, 100.0)
    LYING_LENGTH_MM: tuple[float, float] = (12.5, 16.5)
    LYING_WIDTH_MM: tuple[float, float] = (8.0, 10.5)
    LYING_MAX_WAIST: float = 0.62
    # Raised from 0.86 in the fourteenth session: courtiers on their side measured up to 0.873 on
    # tuning seeds 5410-5412 (5410 t0030 whole, 5412 t0015 beside a standing courtier's head), and
    # no patch of a cube there passed the other bands at 0.86-0.90.
    LYING_MAX_SOLIDITY: float = 0.88
    LYING_MIN_SHADE: float = 0.45
    LYING_MIN_FLOOR_SHARE: float = 0.55
    # Holes of unclassified pixels bridged inside a courtier colour's patch before it is measured (a
    # speckled courtier's body), by a square of this side rounded to odd pixels (7 at 3 px/mm). On
    # the tuning renders any closing from 1.5 to 3.5 mm (discs, and this square) found the one
    # courtier left in pieces of no class (5404 t0016s2) and changed no other reading.
    LYING_HOLE_MM: float = 2.0
    # A courtier lying against a cube of its colour joins it in one patch: the whole faces in the
    # patch (square, LYING_CUT_FACE_SHARE of a face's core) are cut out, widened by LYING_CUT_MM,
    # and what is left is measured as above (vision.counter.lying.beside_faces), in patches up to
    # LYING_CUT_MAX_MM2 (a courtier and three faces: a pile's larger patches cost time for nothing).
    LYING_CUT_FACE_SQUARENESS: float = 0.9
    LYING_CUT_FACE_SHARE: tuple[float, float] = (0.8, 1.3)
    LYING_CUT_MM: float = 1.0
    LYING_CUT_MAX_MM2: float = 400.0
    HAND_AREA_MM2: float = 40.0
    # The tint the plate keeps under an arm's shadow after the white balance (log gains up to about
    # +-0.12 between red and blue), and how far beyond the plate's chroma a hand's colour must be.
    HAND_TINT: float = 0.12
    HAND_CHROMA_FACTOR: float = 1.0
    HAND_MIN_DIMMING: float = 0.25

    @property
    def QUARTER_FACE_MM2(self) -> float:  # noqa: N802 - a derived constant
        """The least visible top that can make a cube count: right under the camera."""
        return self.VISIBLE_FRACTION * self.TOP_SHARE_OF_VISIBLE * FACE_AREA_MM2

    @property
    def BEYOND_TOP_MM2(self) -> float:  # noqa: N802
        """The least top a counted lower cube shows beyond an upper one's square (about half is
        taken by the seam filter along the upper cube's bevel)."""
        return 0.5 * self.QUARTER_FACE_MM2

    @property
    def FACE_CORE_MM2(self) -> float:  # noqa: N802
        """A full top face once seams are removed: it loses half a seam kernel along each edge."""
        edge = g.CUBE_EDGE_MM - self.SEAM_KERNEL_MM * 0.5
        return edge * edge


TUNING = Tuning()
