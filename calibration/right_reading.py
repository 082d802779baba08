"""What a right reading is, by issue 9's measure, held against a render's ground truth.

A camera must count every cube that shows at least a quarter of itself (``visible_cubes``); a cube
that shows less, or none, is in the tray all the same, and the battle needs every cube in the tray
(``cubes``), so it may be counted or not. A colour is read right when its count lies in
``[visible_cubes, cubes]``; its courtiers likewise in ``[visible_courtiers, courtiers]``. Written
once here for the fitting script and the benches (``bench/heldout_counter.py``,
``bench/counter_misses.py``).
"""

from __future__ import annotations

from typing import Any

from vision.geometry import ALL_COLOURS, PLAYER_COLOURS

Outside = dict[str, tuple[int, int, int]]  # colour -> (read, least it may be, most it may be)


def colours_outside(meta: dict[str, Any], cubes: dict[str, int]) -> Outside:
    """Each colour whose cubes were counted outside ``[visible_cubes, cubes]``."""
    out = {}
    for colour in ALL_COLOURS:
        n = int(cubes.get(colour, 0))
        low, high = int(meta["visible_cubes"].get(colour, 0)), int(meta["cubes"].get(colour, 0))
        if not low <= n <= high:
            out[colour] = (n, low, high)
    return out


def courtiers_outside(meta: dict[str, Any], courtiers: dict[str, int]) -> Outside:
    """Each colour whose courtiers were read outside ``[visible_courtiers, courtiers]``: a head
    missed (read as a cube, or not at all) or a cube read as one."""
    visible, in_tray = meta.get("visible_courtiers", {}), meta.get("courtiers", {})
    out = {}
    for colour in PLAYER_COLOURS:
        n, low, high = int(courtiers.get(colour, 0)), int(visible.get(colour, 0)), int(in_tray.get(colour, 0))
        if not low <= n <= high:
            out[colour] = (n, low, high)
    return out
