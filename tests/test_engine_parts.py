"""The engine's building blocks on their own: supplies, the tower ledger, the schema, purity."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import jsonschema
import pytest

from engine.colours import CUBES_PER_PLAYER, PEASANT_CUBES, cubes_in_game
from engine.errors import BattleInputError, ImpossibleReadingError, json_path
from engine.ledger import TowerLedger, check_reading
from engine.schema import BATTLE_SCHEMA, validate_battle_json
from engine.supply import Supplies
from engine.winter import supply_chart, unsupplied_counties

ENGINE = Path(__file__).resolve().parent.parent / "engine"


def test_the_box_holds_62_cubes_per_player_colour_and_20_peasants() -> None:
    assert cubes_in_game("purple") == CUBES_PER_PLAYER == 62
    assert cubes_in_game("green") == PEASANT_CUBES == 20
    with pytest.raises(ValueError):
        cubes_in_game("orange")


def test_full_supplies_and_a_drop_round_trip() -> None:
    supplies = Supplies.full(["red", "blue", "yellow"])
    assert supplies.available("red") == 62 and supplies.available("green") == 20
    assert supplies.available("black") == 0
    after = supplies.after_drop({"red": 7, "green": 10}, {"red": 2, "green": 3})
    assert after.available("red") == 57 and after.available("green") == 13


def test_supplies_refuse_to_pay_what_they_do_not_hold() -> None:
    supplies = Supplies({"red": 2})
    assert supplies.payable("red", 5) == 2
    assert supplies.payable("blue", 1) == 0
    with pytest.raises(BattleInputError, match="red supply has 2"):
        supplies.take({"red": 3})
    with pytest.raises(BattleInputError, match="only 62 exist"):
        supplies.give({"red": 61})


def test_the_ledger_follows_every_drop() -> None:
    ledger = TowerLedger.empty().after_drop({"red": 7, "green": 10}, {"red": 2, "green": 1})
    assert ledger.to_json() == {"red": 5, "green": 9}
    ledger = ledger.after_drop({"red": 3, "blue": 2}, {"red": 6, "green": 2, "blue": 1})
    assert ledger.to_json() == {"red": 2, "blue": 1, "green": 7}


def test_the_ledger_rejects_a_reading_naming_the_colour_and_why() -> None:
    ledger = TowerLedger({"red": 1})
    with pytest.raises(ImpossibleReadingError) as exc:
        ledger.after_drop({"red": 2}, {"red": 4})
    assert exc.value.field == "$.tray_after.red"
    assert "4 red cubes" in exc.value.message and "2 were dropped and 1 was inside the tower" in exc.value.message
    assert isinstance(exc.value, ValueError)


def test_no_reading_shows_more_cubes_than_exist() -> None:
    with pytest.raises(ImpossibleReadingError, match="only 20 exist"):
        check_reading({"green": 2}, {"green": 21})


def test_winter_needs_one_grain_per_county() -> None:
    assert unsupplied_counties(5, 9) == 0
    assert supply_chart(0).revolting_counties == 0
    with pytest.raises(ValueError):
        supply_chart(-1)


def test_json_paths() -> None:
    assert json_path() == "$"
    assert json_path("tray_after", "blue") == "$.tray_after.blue"
    assert json_path("immune", 0) == "$.immune[0]"


def test_the_schema_is_a_valid_json_schema_and_serialisable() -> None:
    jsonschema.Draft202012Validator.check_schema(BATTLE_SCHEMA)
    assert json.loads(json.dumps(BATTLE_SCHEMA)) == BATTLE_SCHEMA


@pytest.mark.parametrize(
    ("data", "field", "words"),
    [
        ({"battle": "attack", "tray_before": {}, "attackr": "red"}, "$.attackr", "unknown key"),
        ({"battle": "siege", "tray_before": {}}, "$.battle", "must be one of"),
        ({"battle": "initial_fill", "players": ["red", "blue", "blue"], "tray_before": {}}, "$.players", "twice"),
        ({"battle": "initial_fill", "players": ["red", "blue", "yellow"], "tray_before": {}, "immune": [3]}, "$.immune[0]", "must be one of"),
        ({"battle": "initial_fill", "players": ["red", "blue", "yellow"], "tray_before": {"green": 1.5}}, "$.tray_before.green", "whole number"),
        ({"battle": "initial_fill", "players": ["red", "blue", "yellow"], "tray_before": {}, "emperors_court": "yes"}, "$.emperors_court", "true or false"),
    ],
)
def test_schema_errors_name_the_field(data: object, field: str, words: str) -> None:
    with pytest.raises(BattleInputError) as exc:
        validate_battle_json(data)
    assert exc.value.field == field
    assert words in exc.value.message


def test_the_engine_is_pure() -> None:
    """No I/O, no randomness, no clock: the engine imports only what computing the rules needs."""
    allowed = {"__future__", "collections", "dataclasses", "enum", "types", "typing", "jsonschema", "engine"}
    io_calls = {"open", "print", "input", "exec", "eval", "__import__"}
    offenders = []
    for path in sorted(ENGINE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.name} imports {n}" for n in names if n.split(".")[0] not in allowed]
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in io_calls:
                offenders.append(f"{path.name} calls {node.func.id}()")
    assert not offenders, offenders
