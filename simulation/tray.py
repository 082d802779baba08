"""The simulated tray's floor: where the cubes that fall out of the tower come to rest.

Each cube lies at a position in plate millimetres (``vision.geometry``), never overlapping another
on the floor (an exact square test), pushed against a pile or a wall, now and then on top of another
cube. ``SimWorld`` keeps these pieces so that the simulated camera draws them where they fell.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from simulation.synth.scatter import squares_overlap
from vision import geometry as g

_CUBE_RADIUS = 5.3  # mm: a landing this close to a cube's centre may come to rest on top of it
_GAP_MM = 0.3  # clearance kept between cubes lying side by side
_STACK_SHARE = 0.05  # now and then a cube comes to rest on another one


@dataclass(frozen=True)
class TrayPiece:
    """One cube lying in the tray, in plate millimetres (``vision.geometry``); ``level`` 1 = on a cube."""

    colour: str
    x_mm: float
    y_mm: float
    angle_deg: float
    level: int = 0


@dataclass(frozen=True)
class FrameScene:
    """What the simulated camera should draw for one frame."""

    pieces: tuple[TrayPiece, ...]
    moving: bool
    led_level: float


def check_counts(counts: Mapping[str, int], what: str) -> dict[str, int]:
    clean: dict[str, int] = {}
    for colour, n in counts.items():
        if colour not in g.ALL_COLOURS:
            raise ValueError(f"{what}: unknown colour {colour!r} (known: {', '.join(g.ALL_COLOURS)})")
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"{what}: {colour} must be a whole number >= 0, got {n!r}")
        if n:
            clean[colour] = n
    return clean


def _half_extent(angle_deg: float) -> float:
    a = math.radians(angle_deg)
    return g.CUBE_EDGE_MM / 2 * (abs(math.cos(a)) + abs(math.sin(a)))


def _clamp_in_tray(x: float, y: float, angle_deg: float) -> tuple[float, float]:
    left, top, right, bottom = g.TRAY_INNER_MM
    h = _half_extent(angle_deg)
    return min(max(x, left + h), right - h), min(max(y, top + h), bottom - h)


def _free(x: float, y: float, angle: float, pieces: list[TrayPiece]) -> bool:
    """Whether a cube at (x, y, angle) on the floor touches no other floor cube (exact square test)."""
    floor = [p for p in pieces if p.level == 0]
    if not floor:
        return True
    xs = np.array([p.x_mm for p in floor])
    ys = np.array([p.y_mm for p in floor])
    yaws = np.array([p.angle_deg for p in floor])
    return not squares_overlap(x, y, angle, xs, ys, yaws, gap=_GAP_MM).any()


def nearest_free(x: float, y: float, angle: float, pieces: list[TrayPiece]) -> tuple[float, float] | None:
    """The free spot nearest to where a cube landed: cubes end up pushed against a pile or a wall."""
    cx, cy = _clamp_in_tray(x, y, angle)
    if _free(cx, cy, angle, pieces):
        return cx, cy
    for radius in [r * 1.0 for r in range(1, 160)]:
        steps = max(8, int(2 * math.pi * radius / 2.0))
        start = (radius * 0.618) % (2 * math.pi)
        for k in range(steps):
            t = start + 2 * math.pi * k / steps
            px, py = _clamp_in_tray(x + radius * math.cos(t), y + radius * math.sin(t), angle)
            if _free(px, py, angle, pieces):
                return px, py
    return None


def place_cubes(colours: list[str], pieces: list[TrayPiece], rng: random.Random) -> list[TrayPiece]:
    """Let ``colours`` fall into a tray that already holds ``pieces``; returns the new pieces.

    Cubes leave the tower's ramp towards the tray's middle and scatter; a cube landing on others
    slides to the nearest free spot (piles form), one thrown past the edge stops at the wall, and
    now and then one comes to rest on top of another.
    """
    left, top, right, bottom = g.TRAY_INNER_MM
    exit_x, exit_y = left + 0.4 * (right - left), (top + bottom) / 2
    placed: list[TrayPiece] = []
    for colour in colours:
        angle = rng.uniform(0.0, 90.0)
        x = rng.gauss(exit_x, 0.22 * (right - left))
        y = rng.gauss(exit_y, 0.25 * (bottom - top))
        current = pieces + placed
        landing = _clamp_in_tray(x, y, angle)
        resting_on = [p for p in current if p.level == 0
                      and (p.x_mm - landing[0]) ** 2 + (p.y_mm - landing[1]) ** 2 < (2 * _CUBE_RADIUS) ** 2]
        free_tops = [p for p in resting_on if not any(q.level == 1 and abs(q.x_mm - p.x_mm) < 4
                                                      and abs(q.y_mm - p.y_mm) < 4 for q in current)]
        spot = None if free_tops and rng.random() < _STACK_SHARE else nearest_free(x, y, angle, current)
        if spot is None:
            base = free_tops[0] if free_tops else rng.choice([p for p in current if p.level == 0] or current)
            # A cube only stays on another with its centre over the lower one's top face, usually
            # off-centre: part of the lower cube stays in view, as on the real tray.
            shift, heading = rng.uniform(2.5, 4.5), rng.uniform(0.0, 2 * math.pi)
            x_top, y_top = _clamp_in_tray(base.x_mm + shift * math.cos(heading), base.y_mm + shift * math.sin(heading),
                                          angle)
            placed.append(TrayPiece(colour, x_top, y_top, angle, level=1))
        else:
            placed.append(TrayPiece(colour, spot[0], spot[1], angle, level=0))
    return placed
