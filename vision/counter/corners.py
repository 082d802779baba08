"""The faces of a cube standing on its corner, read as that one cube.

A cube standing on a corner or an edge on a pile shows two or three faces turned differently to
the ring light (:mod:`vision.counter.guards` and :mod:`vision.counter.unlit` find it and mark its
core ``corner``). The faces stage may break the face in deepest shade off as a piece of its own, a
small patch or a strip beside the corner's core, which was then counted as a second cube of the
colour. On the tuning renders (263 frames: the tuning part, ``tray_dev``, seeds 5404, 5405, 5151,
31) the cores of a corner's colour within 14 mm of it held a cube of their own only when they were
face-sized (88-107 mm2, 10.8 mm or more from the corner's centre); the four under half a face lay
5.0-6.2 mm from it and held none. Such a piece is dropped: the corner's core stands for the cube.
"""

from __future__ import annotations

import math

from vision.counter.frame import Core, Prepared
from vision.counter.tuning import PPM


def pieces_of_corners(prep: Prepared, cores: list[Core]) -> list[Core]:
    """``cores`` without the pieces of a cube on its corner: cores of its colour under
    ``CORNER_PIECE_MAX_MM2`` whose centre lies within ``CORNER_PIECE_REACH_MM`` of a corner core's."""
    t = prep.tuning
    corners = [c for c in cores if c.corner]
    if not corners:
        return cores
    reach_px = t.CORNER_PIECE_REACH_MM * PPM

    def piece_of_a_corner(c: Core) -> bool:
        return (not (c.corner or c.ball or c.lying) and c.area_mm2 < t.CORNER_PIECE_MAX_MM2
                and any(k.colour == c.colour and math.dist(k.centre, c.centre) <= reach_px for k in corners))

    return [c for c in cores if not piece_of_a_corner(c)]
