"""The JSON Schema of the battle input, and one-sentence errors a player understands.

The schema is kept as a Python value (``BATTLE_SCHEMA``, JSON Schema draft 2020-12) so that the
engine reads no files; ``tower plan --schema`` prints it. It checks the shape: known keys only (a
typo must not be ignored), types, colours of the default palette, known event ids, and which keys
belong to which kind of battle. The rules themselves are checked afterwards by
:mod:`engine.legality`.

Integers are JSON integers only: ``3.0`` and ``true`` are rejected, so that counts stay whole.
Colours are limited to the default palette so that a misspelt colour is an error, not a new
faction.
"""

from __future__ import annotations

from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError

from engine.box import REVOLT_MARKERS
from engine.colours import PALETTE, PLAYER_COLOURS
from engine.errors import BattleInputError, json_path
from engine.events import Event

BATTLE_KINDS = ("attack", "revolt", "winter_revolt", "initial_fill")

_COUNT = {"type": "integer", "minimum": 0}
_COUNT_MAP = {
    "type": "object",
    "properties": {colour: _COUNT for colour in PALETTE},
    "additionalProperties": False,
}
_PLAYER = {"enum": list(PLAYER_COLOURS)}
_PLAYER_OR_NULL = {"enum": [*PLAYER_COLOURS, None]}
_IMMUNE = {
    # the list form (immune to both actions) or the map form: player -> the action(s) a favor card
    # #10, #11 or #18 protects against; "items" applies to the list, "properties" to the map
    "type": ["array", "object"],
    "items": _PLAYER,
    "uniqueItems": True,
    "properties": {colour: {"enum": ["A", "B", "both"]} for colour in PLAYER_COLOURS},
    "additionalProperties": False,
}

# Keys that describe one kind of battle only; every other key may appear in any battle.
_ONLY_FOR = {
    "attacker": {"attack"},
    "attacking_armies": {"attack"},
    "action": {"attack"},
    "origin_armies": {"attack"},
    "defender": {"attack", "revolt", "winter_revolt"},
    "defending_armies": {"attack", "revolt", "winter_revolt"},
    "revolt_markers": {"attack", "revolt", "winter_revolt"},
    "buildings": {"attack", "revolt", "winter_revolt"},
    "unsupplied_counties": {"winter_revolt"},
    "parry_revolt_marker": {"revolt"},
    "players": {"initial_fill"},
    "emperors_court": {"initial_fill"},
}
_REQUIRED = {
    "attack": ["attacker", "attacking_armies", "defender", "defending_armies"],
    "revolt": ["defender", "defending_armies", "revolt_markers"],
    "winter_revolt": ["defender", "defending_armies", "unsupplied_counties"],
    "initial_fill": ["players"],
}


_FORBIDDEN: dict[str, Any] = {"not": {}}
"""Matches nothing: marks a key that does not belong to this kind of battle."""


def _per_kind(kind: str) -> dict[str, Any]:
    """The keys one kind of battle requires, and those it must not have."""
    properties: dict[str, Any] = {key: _FORBIDDEN for key, kinds in _ONLY_FOR.items() if kind not in kinds}
    if kind in ("revolt", "winter_revolt"):
        properties["defender"] = _PLAYER  # a revolt is always against a player, never neutral
    return {
        "if": {"properties": {"battle": {"const": kind}}, "required": ["battle"]},
        "then": {"required": _REQUIRED[kind], "properties": properties},
    }


BATTLE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Wallenstein battle",
    "description": "One battle for `tower plan` / `tower resolve` (see spec/battle-json.md).",
    "type": "object",
    "additionalProperties": False,
    "required": ["battle", "tray_before"],
    "properties": {
        "battle": {"enum": list(BATTLE_KINDS)},
        "attacker": _PLAYER,
        "attacking_armies": {"type": "integer", "minimum": 1},
        "action": {"enum": ["A", "B"]},
        "origin_armies": {"type": "integer", "minimum": 2},
        "defender": _PLAYER_OR_NULL,
        "defending_armies": _COUNT,
        "revolt_markers": {"type": "integer", "minimum": 0, "maximum": REVOLT_MARKERS},
        "parry_revolt_marker": {"type": "boolean"},
        "unsupplied_counties": {"type": "integer", "minimum": 1},
        "buildings": {
            "type": "array",
            "items": {"enum": ["palace", "church", "trading_post"]},
            "uniqueItems": True,
        },
        "event": {"enum": [*(str(e) for e in Event), None]},
        "bonus_tiles": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"attack_plus_one": _PLAYER_OR_NULL, "defence_plus_one": _PLAYER_OR_NULL},
        },
        "immune": _IMMUNE,
        "supply": _COUNT_MAP,
        "players": {"type": "array", "items": _PLAYER, "uniqueItems": True, "minItems": 3, "maxItems": 5},
        "emperors_court": {"type": "boolean"},
        "tower_before": _COUNT_MAP,
        "tray_before": _COUNT_MAP,
        "tray_after": _COUNT_MAP,
    },
    "allOf": [_per_kind(kind) for kind in BATTLE_KINDS],
}


def _is_strict_integer(_checker: Any, instance: object) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


_TYPE_CHECKER = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_strict_integer)
_Validator = jsonschema.validators.extend(jsonschema.Draft202012Validator, type_checker=_TYPE_CHECKER)
_VALIDATOR = _Validator(BATTLE_SCHEMA)

_TYPE_WORDS = {
    "integer": "a whole number",
    "object": "an object",
    "array": "a list",
    "string": "a string",
    "boolean": "true or false",
}
_PRIORITY = {"additionalProperties": 0, "not": 1, "required": 2, "type": 3}


def _describe(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, int | float):
        return str(value)
    return "a list" if isinstance(value, list) else "an object"


def _a(kind: object) -> str:
    """The battle kind with its article ("an attack", "a revolt")."""
    text = str(kind).replace("_", " ")
    return ("an " if text[:1] in "aeiou" else "a ") + text


def _sentence(error: ValidationError, data: dict[str, Any]) -> BattleInputError:
    parts = list(error.absolute_path)
    field = json_path(*parts)
    kind = data.get("battle")
    if error.validator == "additionalProperties":
        allowed = set(error.schema.get("properties", {}))
        extra = sorted(k for k in error.instance if k not in allowed)[0]
        where = field if parts else "the battle"
        what = "colour" if error.schema is _COUNT_MAP or error.schema is _IMMUNE else "key"
        allowed_colours = PLAYER_COLOURS if error.schema is _IMMUNE else PALETTE
        hint = f" (colours: {', '.join(allowed_colours)})" if what == "colour" else ""
        return BattleInputError(f"unknown {what} {extra!r} in {where}{hint}", json_path(*parts, extra))
    if error.validator == "not":  # a key forbidden for this kind of battle
        key = parts[-1]
        return BattleInputError(f"{key!r} does not belong to {_a(kind)} battle", field)
    if error.validator == "required":
        missing = [k for k in error.validator_value if k not in error.instance][0]
        what = f"{_a(kind)} battle" if error.schema is not BATTLE_SCHEMA else "every battle"
        return BattleInputError(f"{missing!r} is required for {what}", json_path(*parts, missing))
    got = _describe(error.instance)
    if error.validator == "type":
        types = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        wanted = " or ".join(_TYPE_WORDS.get(str(t), str(t)) for t in types)
        return BattleInputError(f"{field} must be {wanted}, not {got}", field)
    if error.validator == "enum":
        choices = [str(c) if c is not None else "null" for c in error.validator_value]
        return BattleInputError(f"{field} must be one of {', '.join(choices)}, not {got}", field)
    if error.validator == "minimum":
        return BattleInputError(f"{field} must be at least {error.validator_value}, not {got}", field)
    if error.validator == "maximum":
        why = " (the box holds 42 revolt markers)" if parts == ["revolt_markers"] else ""
        return BattleInputError(f"{field} must be at most {error.validator_value}{why}, not {got}", field)
    if error.validator == "uniqueItems":
        return BattleInputError(f"{field} names the same entry twice", field)
    if error.validator in ("minItems", "maxItems"):
        return BattleInputError(f"{field} must name 3 to 5 players (the game is for 3-5 players)", field)
    return BattleInputError(f"{field} is invalid: {error.message}", field)


def validate_battle_json(data: object) -> dict[str, Any]:
    """Check ``data`` against :data:`BATTLE_SCHEMA`; raise :class:`BattleInputError` on the first problem.

    Errors are ordered so that the most telling one is reported: unknown keys first, then keys
    that do not belong to the battle, missing keys, wrong types, and then values.
    """
    if not isinstance(data, dict):
        raise BattleInputError(f"a battle must be a JSON object, not {_describe(data)}", "$")
    errors = list(_VALIDATOR.iter_errors(data))
    if not errors:
        return data
    errors.sort(key=lambda e: (_PRIORITY.get(e.validator, 4), len(e.absolute_path), [str(p) for p in e.absolute_path]))
    raise _sentence(errors[0], data)
