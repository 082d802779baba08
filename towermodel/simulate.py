"""Simulated drop logs: a tower of a known model played through game-like drops, for checking that
the fit recovers what it was given (tests) and for trying the luck report without a table."""

from __future__ import annotations

import random

from towermodel.droplog import Drop, drops_from_lines
from towermodel.models import TowerModelParams
from towermodel.tower import tower_for

PLAYERS = ("red", "blue", "yellow", "purple")


def simulated_log(model: TowerModelParams, drops: int, seed: int, players: tuple[str, ...] = PLAYERS) -> list[Drop]:
    """``drops`` drops of an empty tower of ``model``: the initial fill (7 cubes per player and 10
    peasants), then battles of 1-9 attacking, 0-7 defending and 0-3 peasant cubes (as
    ``bench/bench_tower_models.py``), the cubes lying in the tray being dropped again as well."""
    rng = random.Random(seed)
    tower = tower_for(model, "simulated")
    lines = []
    thrown = [c for c in players for _ in range(7)] + ["green"] * 10
    for _ in range(drops):
        out = tower.drop(thrown, rng)
        lines.append({"dropped": _count(thrown), "came_out": _count(out)})
        attacker, defender, bystander = rng.sample(players, 3)
        # A bystander's cubes stay in the tray and fall again; the fighters' go back to the board.
        lying = [c for c in out if c == bystander][: rng.randint(0, 2)]
        thrown = ([attacker] * rng.randint(1, 9) + [defender] * rng.randint(0, 7)
                  + ["green"] * rng.randint(0, 3) + lying)
    return drops_from_lines(lines)


def _count(cubes: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in cubes:
        out[c] = out.get(c, 0) + 1
    return out
