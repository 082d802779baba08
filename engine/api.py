"""The engine's front door: battle JSON in, battle JSON out (``spec/battle-json.md``).

``plan`` says what to drop and where each cube comes from; ``resolve`` also takes the tray as read
after the drop and says who won and where every cube in the tray goes. Both raise
:class:`engine.errors.BattleInputError` (a ``ValueError``) with a one-sentence message and the
JSON path of the field at fault; the CLI prints that as the error object and exits 2.
"""

from __future__ import annotations

from typing import Any

from engine import decisions
from engine.errors import BattleInputError, json_path
from engine.parse import battle_from_json
from engine.planner import plan_drop
from engine.resolver import resolve_drop


def plan(data: dict[str, Any]) -> dict[str, Any]:
    """The ``tower plan`` output for the battle ``data``: ``drop``, ``from_supply``, ``from_county``, ``from_tray``."""
    battle = battle_from_json(data)
    return dict(plan_drop(battle).to_json())


def resolve(data: dict[str, Any]) -> dict[str, Any]:
    """The ``tower resolve`` output for the battle ``data``, which must include ``tray_after``."""
    battle = battle_from_json(data)
    if "tray_after" not in data:
        raise BattleInputError("'tray_after' (the tray as read after the drop) is required to resolve a battle", json_path("tray_after"))
    drop = plan_drop(battle)
    return resolve_drop(battle, drop, data["tray_after"]).to_json()


def notes(data: dict[str, Any]) -> list[str]:
    """Where the rulebooks are silent and the engine's decision shapes this battle, one note each.

    For a battle without ``tray_after`` the notes of its drop; with it, also those of its result.
    Not part of the ``plan``/``resolve`` output (the contract's objects are unchanged); the CLI and
    the table print them beside it. See :mod:`engine.decisions`.
    """
    battle = battle_from_json(data)
    drop = plan_drop(battle)
    resolution = resolve_drop(battle, drop, data["tray_after"]) if "tray_after" in data else None
    return decisions.notes(battle, drop, resolution)
