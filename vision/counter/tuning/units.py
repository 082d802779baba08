"""The units every part of the tuning is written in: pixels per millimetre of the tray view, and a
cube face's area."""

from __future__ import annotations

from vision import geometry as g
from vision.plate import TRAY_VIEW

PPM = TRAY_VIEW.ppm
FACE_AREA_MM2 = g.CUBE_EDGE_MM**2
