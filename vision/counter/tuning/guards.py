"""The guards' numbers (:mod:`vision.counter.guards`): foreign objects, coins lying flat or
leaning, and hands. Part of :class:`vision.counter.tuning.Tuning`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class GuardTuning:
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
    # A coin lying flat and evenly lit still has its rim, an edge across the circle (as
    # DISC_COVERED_RIM_DEG measures it) over an unbroken arc of at least DISC_PLAIN_RIM_DEG; a gap of
    # bare plate between cubes under a bright patch of light has none. Tuning seed 5416 t0005 (a
    # clean pile refused as a flat coin): its gap, all plate and shading 0.035, has 50 degrees; the
    # clean gap DISC_COVERED_RIM_DEG was set against, 72; the 51 plain discs found on coins on the
    # tuning renders 102-360 (tray_dev t0059 the least, all but four 300 or more). A straight cube
    # edge tangent to a coin-sized circle lies within the search's 1.5 px of it over about 37
    # degrees: the bar is more than two of them.
    DISC_PLAIN_RIM_DEG: int = 90
    # A circle refused for its rim alone (DISC_OUTLINE_RIM_DEG) must have a round rim: along its arc
    # the edges turn away from the radius by at most DISC_RIM_MAX_TURN_DEG on average (per degree,
    # the strongest edge in the band). A straight edge crossing the band's middle is in it over
    # +-19 degrees, turned 9.4 on average; a round rim only by noise. Tuning (2026-12-08, every set
    # at hand, 621 scenes): the coins' circles over the arc bar 5.5-8.5, the clean trays' circles
    # with 100 degrees of arc or more 10.1-14.3 (5417 t0045, two cubes leaning together, 174
    # degrees of arc and 13.3 of turn, was refused as a tilted coin).
    DISC_RIM_MAX_TURN_DEG: float = 9.4
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
    # A coin's rim is one round edge: whatever its face shows (a cube's colours mirrored, a highlight,
    # the plate), a circle of coin size found at the loosest bar, DISC_OUTLINE_PERFECTNESS, with
    # an edge across it (as DISC_COVERED_RIM_DEG measures it) over an unbroken arc of at least
    # DISC_OUTLINE_RIM_DEG is a coin. Cube edges are straight and meet a circle only here and there.
    # Set on the tuning renders (docs/counter.md, *A coin's rim alone*): the rims of their coins 177-360,
    # the longest rim of a circle on a clean tray 104 (tray_train t0077).
    DISC_OUTLINE_PERFECTNESS: float = 0.5
    DISC_OUTLINE_RIM_DEG: int = 150
    # A coin tilted far is an ellipse that a circle fits only at its ends: the rim then measured along
    # the ellipse fitted to the edges about the circle (coin_circles.ellipse_rim), at the same bar,
    # where that ellipse is a coin's size (its long axis within DISC_ELLIPSE_MAJOR_MM, its short
    # one at least DISC_ELLIPSE_MIN_ASPECT of it: a coin tilted up to 60 degrees). Tuning: the
    # tilted nickel coin of seed 5414 t0009 20 x 14 mm, 187 degrees; no clean tray's over 69.
    DISC_ELLIPSE_MAJOR_MM: tuple[float, float] = (16.0, 24.0)
    DISC_ELLIPSE_MIN_ASPECT: float = 0.5
    HAND_AREA_MM2: float = 40.0
    # The tint the plate keeps under an arm's shadow after the white balance (log gains up to about
    # +-0.12 between red and blue), and how far beyond the plate's chroma a hand's colour must be.
    HAND_TINT: float = 0.12
    HAND_CHROMA_FACTOR: float = 1.0
    HAND_MIN_DIMMING: float = 0.25
