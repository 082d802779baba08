"""The tray station's physical geometry (../shared/spec/tray.md), in millimetres, in one place.

Plate coordinates: origin at the plate's top-left corner as the camera sees it with the long side
horizontal, x to the right, y down. Everything that needs a size or a position (the counter, the
synthetic renderer, the marker sheet) reads it from here.
"""

from __future__ import annotations

PLATE_W_MM = 220.0
PLATE_H_MM = 180.0

MARKER_DICT = "DICT_4X4_50"
MARKER_IDS = (0, 1, 2, 3)  # top-left, top-right, bottom-right, bottom-left
MARKER_SIZE_MM = 20.0
MARKER_QUIET_ZONE_MM = 4.0
MARKER_SPAN_W_MM = 170.0  # distance between marker centres, horizontally
MARKER_SPAN_H_MM = 130.0  # and vertically

_cx, _cy = PLATE_W_MM / 2, PLATE_H_MM / 2
MARKER_CENTRES_MM: dict[int, tuple[float, float]] = {
    0: (_cx - MARKER_SPAN_W_MM / 2, _cy - MARKER_SPAN_H_MM / 2),
    1: (_cx + MARKER_SPAN_W_MM / 2, _cy - MARKER_SPAN_H_MM / 2),
    2: (_cx + MARKER_SPAN_W_MM / 2, _cy + MARKER_SPAN_H_MM / 2),
    3: (_cx - MARKER_SPAN_W_MM / 2, _cy + MARKER_SPAN_H_MM / 2),
}


def marker_corners_mm(marker_id: int) -> list[tuple[float, float]]:
    """The four corners of a marker's black square on the plate, in OpenCV's ArUco corner order
    (top-left, top-right, bottom-right, bottom-left), so they pair with detected corners."""
    x, y = MARKER_CENTRES_MM[marker_id]
    h = MARKER_SIZE_MM / 2
    return [(x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h)]


TRAY_INNER_W_MM = 140.0
TRAY_INNER_H_MM = 100.0
TRAY_WALL_HEIGHT_MM = 18.0
TRAY_WALL_THICKNESS_MM = 2.0
# The tray interior on the plate (left, top, right, bottom).
TRAY_INNER_MM = (
    _cx - TRAY_INNER_W_MM / 2,
    _cy - TRAY_INNER_H_MM / 2,
    _cx + TRAY_INNER_W_MM / 2,
    _cy + TRAY_INNER_H_MM / 2,
)

CUBE_EDGE_MM = 10.0
COURTIER_BASE_MM = 10.0
COURTIER_HEIGHT_MM = 14.0
MAX_CUBES_IN_TRAY = 45

PLAYER_COLOURS = ("red", "blue", "yellow", "purple", "black")
PEASANT_COLOUR = "green"
ALL_COLOURS = (*PLAYER_COLOURS, PEASANT_COLOUR)

CAMERA_HEIGHT_MM = (270.0, 330.0)
CAMERA_MAX_TILT_DEG = 8.0
CAMERA_MAX_ROLL_DEG = 5.0
FRAME_SIZES = ((1280, 960), (1920, 1080))
