"""Colours of the station's materials, as the camera sees them under the neutral ring light.

The piece colours were measured once, offline, from the shared rendered calibration shots
(``../shared/data/tray_dev/calibration/<colour>_1.jpg`` and ``_2.jpg``, camera straight down at
300 mm, 36 mm-equivalent lens, ring light 5600 K): each cube's centre in the JSON was projected to
the image, the median BGR of a 15 x 15 px patch of its top face taken, and the 16 patches of a
colour averaged. The courtier pawns (``courtier_<colour>.jpg``, 7 x 7 px patch of the head) came
out within a few levels of the cubes, so pawns reuse the cube colours. The plate, quiet zone,
marker black, tray floor and table were measured the same way on ``empty.jpg``. The values are
hard-coded so that rendering never needs ``../shared``.
"""

from __future__ import annotations

# Mean BGR of a lit top face (spread across the 16 cubes: 3-12 levels per channel).
PIECE_BGR: dict[str, tuple[int, int, int]] = {
    "red": (71, 70, 169),
    "blue": (148, 92, 69),
    "yellow": (67, 186, 218),
    "purple": (136, 81, 114),
    "black": (66, 66, 67),
    "green": (77, 125, 76),
}

PLATE_BGR = (190, 192, 194)  # matte light grey plate (neutral within 4 levels)
QUIET_ZONE_BGR = (200, 202, 203)  # the printed white border around a marker (measured 189-194; paper a bit lighter)
MARKER_BLACK_BGR = (50, 50, 50)
TRAY_FLOOR_BGR = (164, 166, 165)  # the plate seen through the clear floor, away from reflections
RING_REFLECTION_GAIN = 65.0  # the ring light's reflection in the floor adds up to this many levels
TABLE_BGR = (64, 91, 118)  # dark wood around the plate
TRAY_WALL_BGR = (150, 152, 152)
TRAY_EDGE_BGR = (105, 108, 108)

COIN_BGR = (110, 190, 228)  # brass
SKIN_BGR: dict[str, tuple[int, int, int]] = {
    "light": (150, 172, 222),
    "medium": (95, 130, 185),
    "dark": (45, 72, 110),
}
NAIL_BGR = (185, 190, 230)
