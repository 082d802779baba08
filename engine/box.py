"""The box's limits: what the game holds, and which of its cubes a battle knows to be elsewhere.

The box holds 62 cubes per player colour, 20 peasants (:mod:`engine.colours`) and 42 revolt markers
(the component lists of both rulebooks). These limits hold in every battle, whether or not the
caller gives the supplies: a cube known to lie in the tray, inside the tower or in a county named
by the battle is not in its supply, so it cannot be taken from there as an extra. Peasants never
stand in a county, so with the tower's contents known the common supply of peasants follows from
the ledger alone: ``20 - tower_before.green - tray_before.green``.
"""

from __future__ import annotations

from engine.colours import cubes_in_game
from engine.counts import add, get
from engine.model import Attack, Battle, Revolt

REVOLT_MARKERS = 42
"""Revolt markers in the box: no county can ever hold more."""


def cubes_in_counties(battle: Battle) -> dict[str, int]:
    """Cubes known to stand in the counties a battle names (origin and contested county)."""
    cubes: dict[str, int] = {}
    if isinstance(battle, Attack):
        cubes[battle.attacker] = battle.origin_armies or battle.attacking_armies
        if battle.defender is not None:
            cubes[battle.defender] = battle.defending_armies
    elif isinstance(battle, Revolt):
        cubes[battle.defender] = battle.defending_armies
    return cubes


def known_outside_the_supply(battle: Battle) -> dict[str, int]:
    """Cubes per colour known to be in the counties, the tray or (where known) the tower."""
    ctx = battle.context
    return add(cubes_in_counties(battle), ctx.tray_before, ctx.tower_before or {})


def room_in_supply(battle: Battle, colour: str) -> int:
    """The most cubes of ``colour`` its supply can hold before this battle: the box less those known elsewhere."""
    return max(0, cubes_in_game(colour) - get(known_outside_the_supply(battle), colour))
