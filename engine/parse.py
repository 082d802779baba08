"""From battle JSON (already a Python dict) to the typed battles of :mod:`engine.model`.

Shape errors come from :mod:`engine.schema`, rule errors from :mod:`engine.legality`; this module
only fills in the defaults the contract allows (no revolt markers, no buildings, no event, no bonus
tiles held, nobody immune, no action named, no favor card #4 kept, Emperor's Court not in play) and
reads the list form of ``immune`` as immunity to both actions.
"""

from __future__ import annotations

from typing import Any

from engine.bonus import BonusTiles
from engine.colours import cubes_in_game
from engine.errors import BattleInputError, json_path
from engine.events import Event
from engine.legality import check_battle_is_legal
from engine.model import Action, Attack, Battle, Building, DropContext, Immunity, InitialFill, Revolt, Round
from engine.schema import validate_battle_json
from engine.supply import Supplies


def _supplies(supply: dict[str, int] | None) -> Supplies | None:
    if supply is None:
        return None
    for colour, n in supply.items():
        if n > cubes_in_game(colour):
            raise BattleInputError(
                f"the {colour} supply cannot hold {n} cubes: only {cubes_in_game(colour)} exist",
                json_path("supply", colour),
            )
    return Supplies(supply)


def _immunities(immune: list[str] | dict[str, str]) -> dict[str, Immunity]:
    """The list form names players immune to both actions; the map form says which action."""
    if isinstance(immune, list):
        return {player: Immunity.BOTH for player in immune}
    return {player: Immunity(value) for player, value in immune.items()}


def _context(data: dict[str, Any]) -> DropContext:
    tiles = data.get("bonus_tiles", {})
    event = data.get("event")
    if tiles.get("attack_plus_one") is not None and tiles.get("attack_plus_one") == tiles.get("defence_plus_one"):
        raise BattleInputError(
            f"{tiles['attack_plus_one']} cannot hold both combat bonus tiles: each player takes one tile a round",
            json_path("bonus_tiles", "defence_plus_one"),
        )
    return DropContext(
        round=Round(
            event=Event(event) if event is not None else None,
            bonus_tiles=BonusTiles(tiles.get("attack_plus_one"), tiles.get("defence_plus_one")),
            immune=_immunities(data.get("immune", [])),
        ),
        tray_before=dict(data["tray_before"]),
        supply=_supplies(data.get("supply")),
        supply_named=frozenset(data.get("supply", {})),
        tower_before=dict(data["tower_before"]) if "tower_before" in data else None,
    )


def battle_from_json(data: object) -> Battle:
    """Validate ``data`` (shape and rules) and build the battle it describes."""
    valid = validate_battle_json(data)
    context = _context(valid)
    kind = valid["battle"]
    buildings = frozenset(Building(b) for b in valid.get("buildings", []))
    battle: Battle
    if kind == "attack":
        battle = Attack(
            attacker=valid["attacker"],
            attacking_armies=valid["attacking_armies"],
            defender=valid["defender"],
            defending_armies=valid["defending_armies"],
            context=context,
            origin_armies=valid.get("origin_armies"),
            revolt_markers=valid.get("revolt_markers", 0),
            buildings=buildings,
            action=Action(valid["action"]) if "action" in valid else None,
        )
    elif kind in ("revolt", "winter_revolt"):
        battle = Revolt(
            defender=valid["defender"],
            defending_armies=valid["defending_armies"],
            revolt_markers=valid.get("revolt_markers", 0),
            context=context,
            buildings=buildings,
            unsupplied_counties=valid["unsupplied_counties"] if kind == "winter_revolt" else None,
            parry_revolt_marker=valid.get("parry_revolt_marker", False),
        )
    else:
        battle = InitialFill(
            players=tuple(valid["players"]),
            context=context,
            emperors_court=valid.get("emperors_court", False),
        )
    check_battle_is_legal(battle)
    return battle
