"""Issue 11: the gaps an independent reading of the rulebooks found, through `tower plan/resolve -`.

Each battle goes in as JSON on standard input of the real command, as a player's tool would send it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from engine import api

ATTACK: dict[str, Any] = {
    "battle": "attack", "attacker": "blue", "attacking_armies": 4, "defender": "yellow",
    "defending_armies": 3, "revolt_markers": 0, "buildings": [], "event": None,
    "bonus_tiles": {"attack_plus_one": None, "defence_plus_one": None}, "immune": [],
    "tray_before": {}, "tray_after": {"blue": 3, "yellow": 1, "green": 1},
}
REVOLT: dict[str, Any] = {
    "battle": "revolt", "defender": "red", "defending_armies": 4, "revolt_markers": 2,
    "tray_before": {}, "tray_after": {"red": 4, "green": 1},
}


def tower(command: str, battle: dict[str, Any]) -> tuple[int, dict[str, Any], str]:
    """Run `tower <command> -` with ``battle`` on standard input: exit code, the JSON object, stderr."""
    proc = subprocess.run([sys.executable, "-m", "controller", command, "-"], input=json.dumps(battle),
                          capture_output=True, text=True, check=False)
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1, f"one JSON object on stdout, got {proc.stdout!r}"
    return proc.returncode, json.loads(lines[0]), proc.stderr


# -- 1. immunity is per action -------------------------------------------------------------------
def test_an_attack_with_the_other_action_is_legal() -> None:
    code, out, _ = tower("resolve", {**ATTACK, "action": "B", "immune": {"yellow": "A"}})
    assert code == 0 and out["outcome"] == "attacker_wins"


def test_an_attack_with_the_protected_action_is_refused() -> None:
    code, out, _ = tower("resolve", {**ATTACK, "action": "A", "immune": {"yellow": "A"}})
    assert code == 2 and out["field"] == "$.action"
    assert "Combat/Movement A" in out["error"] and "immune" in out["error"]


def test_an_attack_that_does_not_say_its_action_is_refused_where_it_matters() -> None:
    code, out, _ = tower("plan", {**ATTACK, "immune": {"yellow": "B"}})
    assert code == 2 and out["field"] == "$.action" and "'action' A is allowed" in out["error"]
    # ... and only there: another player's immunity does not ask for the action
    code, _out, _ = tower("plan", {**ATTACK, "immune": {"red": "B"}})
    assert code == 0


@pytest.mark.parametrize("immune", [["yellow"], {"yellow": "both"}])
def test_immune_to_both_refuses_either_action(immune: Any) -> None:
    for action in ("A", "B"):
        code, out, _ = tower("plan", {**ATTACK, "action": action, "immune": immune})
        assert code == 2 and out["field"] == "$.defender" and "cannot be attacked" in out["error"]


def test_the_immune_map_is_checked_like_any_input() -> None:
    assert api.plan({**ATTACK, "immune": {}})["drop"] == {"blue": 4, "yellow": 3}
    for immune, field, words in [({"yellow": "C"}, "$.immune.yellow", "must be one of A, B, both"),
                                 ({"green": "A"}, "$.immune.green", "unknown colour"),
                                 ("yellow", "$.immune", "a list or an object")]:
        code, out, _ = tower("plan", {**ATTACK, "immune": immune})
        assert (code, out["field"]) == (2, field) and words in out["error"], out
    code, out, _ = tower("plan", {**REVOLT, "action": "A"})
    assert code == 2 and out["field"] == "$.action" and "does not belong to a revolt" in out["error"]


# -- 2. the box's limits always hold --------------------------------------------------------------
def test_peasants_of_a_revolt_follow_from_the_ledger_without_a_supply() -> None:
    """18 of the 20 peasants are inside the tower: 3 markers call for 3, only 2 can be dropped."""
    battle = {**REVOLT, "revolt_markers": 3, "tower_before": {"green": 18}, "tray_after": {"red": 4}}
    code, out, _ = tower("plan", battle)
    assert code == 0 and out["from_supply"] == {"green": 2}
    # peasants lying in the tray are not in the common supply either
    code, out, _ = tower("plan", {**battle, "tray_before": {"green": 1}})
    assert code == 0 and out["from_supply"] == {"green": 1} and out["drop"]["green"] == 2


def test_no_colour_is_dropped_beyond_the_box() -> None:
    """62 red armies attack and red holds the attack tile: no 63rd red cube exists."""
    battle = {**ATTACK, "attacker": "red", "attacking_armies": 62,
              "bonus_tiles": {"attack_plus_one": "red", "defence_plus_one": None}, "tray_after": {"red": 60}}
    code, out, stderr = tower("plan", battle)
    assert code == 0 and out["drop"]["red"] == 62 and out["from_supply"] == {}
    assert "only 0 of 1 army could be added" in stderr and "rulebooks are silent" in stderr
    # the tile's army is added where the box still has a red cube outside tower, tray and counties
    code, out, _ = tower("plan", {**battle, "attacking_armies": 61, "tower_before": {}})
    assert code == 0 and out["from_supply"] == {"red": 1}
    code, out, _ = tower("plan", {**battle, "attacking_armies": 60, "tower_before": {"red": 2}})
    assert code == 0 and out["from_supply"] == {}


def test_a_neutral_countys_peasant_is_not_invented() -> None:
    neutral = {**ATTACK, "defender": None, "defending_armies": 0, "tower_before": {"green": 19},
               "tray_before": {"green": 1}, "tray_after": {"blue": 4}}
    code, out, _ = tower("plan", neutral)
    assert code == 0 and "green" not in out["from_supply"] and out["drop"] == {"blue": 4, "green": 1}


def test_input_that_holds_more_than_the_box_is_an_error() -> None:
    code, out, _ = tower("plan", {**ATTACK, "tower_before": {"yellow": 50}, "tray_before": {"yellow": 10}})
    assert code == 2 and "more yellow cubes are accounted for" in out["error"]
    code, out, _ = tower("plan", {**REVOLT, "tower_before": {"green": 15}, "tray_before": {"green": 6}})
    assert code == 2 and out["field"] == "$.tower_before.green"


# -- 3. a supply map that forgets a colour ---------------------------------------------------------
@pytest.mark.parametrize(("battle", "forgotten"), [
    ({**ATTACK, "defender": None, "defending_armies": 0, "tray_after": {"blue": 4}, "supply": {"blue": 50}}, "green"),
    ({**ATTACK, "bonus_tiles": {"attack_plus_one": "blue", "defence_plus_one": None}, "supply": {"yellow": 5, "green": 20}}, "blue"),
    ({**ATTACK, "bonus_tiles": {"attack_plus_one": None, "defence_plus_one": "yellow"}, "supply": {"blue": 5}}, "yellow"),
    ({**REVOLT, "supply": {"red": 20}}, "green"),
    ({"battle": "initial_fill", "players": ["red", "blue", "black"], "tray_before": {},
      "supply": {"red": 62, "blue": 62, "green": 20}}, "black"),
])
def test_a_supply_map_must_name_every_colour_the_battle_draws_on(battle: dict[str, Any], forgotten: str) -> None:
    code, out, _ = tower("plan", battle)
    assert code == 2 and out["field"] == f"$.supply.{forgotten}"
    assert f"does not name {forgotten}" in out["error"] and "0 included" in out["error"]


def test_a_named_empty_supply_leaves_the_extra_out_and_says_so() -> None:
    battle = {**ATTACK, "defender": None, "defending_armies": 0, "tray_after": {"blue": 4},
              "supply": {"blue": 50, "green": 0}}
    code, out, stderr = tower("plan", battle)
    assert code == 0 and out["from_supply"] == {}
    assert "the peasants defending a neutral county: only 0 of 1 peasant could be added" in stderr
    # a colour the battle does not draw on need not be named
    code, _out, _ = tower("plan", {**ATTACK, "supply": {}})
    assert code == 0


# -- 4. favor card #4 parries the next revolt marker -----------------------------------------------
def test_a_won_revolt_adds_a_marker_unless_the_owner_parries_it() -> None:
    code, out, _ = tower("resolve", REVOLT)
    assert code == 0 and out["outcome"] == "defender_wins" and out["county"]["revolt_markers"] == 3
    code, out, stderr = tower("resolve", {**REVOLT, "parry_revolt_marker": True})
    assert code == 0 and out["county"]["revolt_markers"] == 2
    assert "favor card #4 parries" in stderr and "spent" in stderr


def test_the_parry_does_not_touch_a_lost_revolt() -> None:
    lost = {**REVOLT, "parry_revolt_marker": True, "tray_after": {"red": 1, "green": 2}}
    code, out, stderr = tower("resolve", lost)
    assert code == 0 and out["outcome"] == "attacker_wins" and out["county"]["revolt_markers"] == 0
    assert "favor card #4" not in stderr


def test_the_parry_belongs_to_a_revolt_only() -> None:
    code, out, _ = tower("plan", {**ATTACK, "parry_revolt_marker": True})
    assert code == 2 and out["field"] == "$.parry_revolt_marker"
    winter = {**REVOLT, "battle": "winter_revolt", "unsupplied_counties": 1, "parry_revolt_marker": True}
    code, out, _ = tower("plan", winter)
    assert code == 2 and out["field"] == "$.parry_revolt_marker"


# -- 5. at most 42 revolt markers --------------------------------------------------------------------
def test_revolt_markers_stop_at_the_42_of_the_box() -> None:
    code, out, _ = tower("plan", {**REVOLT, "revolt_markers": 43})
    assert code == 2 and out["field"] == "$.revolt_markers" and "at most 42" in out["error"]
    full = {**REVOLT, "revolt_markers": 42, "tray_after": {"red": 4}}
    code, out, stderr = tower("resolve", full)
    assert code == 0 and out["county"]["revolt_markers"] == 42
    assert "all 42 revolt markers" in stderr
    code, out, _ = tower("resolve", {**full, "revolt_markers": 41})
    assert out["county"]["revolt_markers"] == 42


# -- 6. the engine's decisions are said where they apply ---------------------------------------------
def test_the_cli_says_when_a_silent_rule_decides() -> None:
    code, _out, stderr = tower("resolve", REVOLT)
    assert code == 0 and "red wins the revolt and loses 1 army, as many as the peasants" in stderr
    palace = {**REVOLT, "buildings": ["palace"], "event": "palace_defender_plus_one"}
    code, out, stderr = tower("plan", palace)
    assert code == 0 and out["from_supply"] == {"green": 2}
    assert "the palace event adds no army in a revolt" in stderr and "decision 3" in stderr
    # a battle no silent rule touches prints nothing beside its object
    code, _out, stderr = tower("resolve", ATTACK)
    assert code == 0 and stderr == ""


def test_notes_come_from_the_engine_and_leave_the_output_unchanged() -> None:
    battle = {**REVOLT, "parry_revolt_marker": True}
    assert set(api.resolve(battle)) == {"dropped", "outcome", "attacker_in_tray", "defender_in_tray", "to_supply",
                                        "to_county", "tray_remaining", "tower_delta", "county"}
    assert any("favor card #4" in n for n in api.notes(battle))
    assert api.notes({k: v for k, v in battle.items() if k != "tray_after"}) == []
