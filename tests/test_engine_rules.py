"""The combat rules beyond the rulebook's worked examples: bonuses, events, allies, ties, supplies."""

from __future__ import annotations

from typing import Any

import pytest

from engine import api
from engine.errors import BattleInputError

ATTACK: dict[str, Any] = {
    "battle": "attack",
    "attacker": "red",
    "attacking_armies": 3,
    "defender": "blue",
    "defending_armies": 2,
    "tray_before": {},
}
NEUTRAL: dict[str, Any] = {**ATTACK, "defender": None, "defending_armies": 0}


def test_bonus_tiles_add_one_army_each_from_the_own_supply() -> None:
    tiles = {"attack_plus_one": "red", "defence_plus_one": "blue"}
    plan = api.plan({**ATTACK, "bonus_tiles": tiles})
    assert plan["from_supply"] == {"red": 1, "blue": 1}
    assert plan["drop"] == {"red": 4, "blue": 3}


def test_bonus_tiles_of_other_players_change_nothing() -> None:
    tiles = {"attack_plus_one": "blue", "defence_plus_one": "red"}
    assert api.plan({**ATTACK, "bonus_tiles": tiles})["from_supply"] == {}


def test_bonus_tiles_do_not_help_in_a_revolt() -> None:
    revolt = {"battle": "revolt", "defender": "blue", "defending_armies": 2, "revolt_markers": 1, "tray_before": {}}
    plan = api.plan({**revolt, "bonus_tiles": {"attack_plus_one": None, "defence_plus_one": "blue"}})
    assert plan["from_supply"] == {"green": 1}


def test_palace_event_and_defence_tile_stack() -> None:
    battle = {
        **ATTACK,
        "buildings": ["palace"],
        "event": "palace_defender_plus_one",
        "bonus_tiles": {"attack_plus_one": None, "defence_plus_one": "blue"},
    }
    assert api.plan(battle)["from_supply"] == {"blue": 2}
    assert api.plan({**battle, "buildings": ["church"]})["from_supply"] == {"blue": 1}


def test_a_bonus_the_supply_cannot_pay_is_not_added() -> None:
    battle = {
        **ATTACK,
        "buildings": ["palace"],
        "event": "palace_defender_plus_one",
        "bonus_tiles": {"attack_plus_one": "red", "defence_plus_one": "blue"},
        "supply": {"red": 0, "blue": 1, "green": 20},
    }
    assert api.plan(battle)["from_supply"] == {"blue": 1}


def test_neutral_county_is_defended_by_one_peasant_or_two_under_the_event() -> None:
    assert api.plan(NEUTRAL)["from_supply"] == {"green": 1}
    assert api.plan({**NEUTRAL, "event": "neutral_two_peasants"})["from_supply"] == {"green": 2}
    short = {**NEUTRAL, "event": "neutral_two_peasants", "supply": {"red": 50, "green": 1}}
    assert api.plan(short)["from_supply"] == {"green": 1}


def test_peasants_in_the_tray_are_capped_by_the_common_supply_in_a_winter_revolt() -> None:
    battle = {
        "battle": "winter_revolt",
        "defender": "red",
        "defending_armies": 2,
        "revolt_markers": 2,
        "unsupplied_counties": 7,
        "supply": {"red": 10, "green": 4},
        "tray_before": {},
    }
    assert api.plan(battle)["from_supply"] == {"green": 4}, "2 markers + 3 extra wanted, 4 in supply"


def test_conquering_a_neutral_county_takes_its_card_from_the_deck() -> None:
    out = api.resolve({**NEUTRAL, "tray_after": {"red": 2, "green": 1}})
    assert out["outcome"] == "attacker_wins"
    assert out["county"] == {
        "owner": "red",
        "armies": 1,
        "revolt_markers": 0,
        "buildings_removed": False,
        "card": "taken_from_deck",
    }


def test_peasants_defending_a_neutral_county_win_as_the_defender() -> None:
    out = api.resolve({**NEUTRAL, "tray_after": {"red": 1, "green": 2}})
    assert out["outcome"] == "defender_wins"
    assert out["to_supply"] == {"red": 1, "green": 2}
    assert out["to_county"] == {}
    assert out["county"]["owner"] is None and out["county"]["card"] == "stays_in_deck"


def test_a_tied_neutral_county_stays_neutral() -> None:
    out = api.resolve({**NEUTRAL, "tray_after": {"red": 1, "green": 1}})
    assert out["outcome"] == "tie"
    assert out["county"]["card"] == "stays_in_deck"


def test_peasants_are_the_defenders_first_losses() -> None:
    out = api.resolve({**ATTACK, "tray_after": {"red": 2, "blue": 2, "green": 1}})
    assert (out["attacker_in_tray"], out["defender_in_tray"]) == (2, 3)
    assert out["outcome"] == "defender_wins"
    # Blue loses 2: first the peasant, then one blue army; one blue army holds the county.
    assert out["to_supply"] == {"red": 2, "blue": 1, "green": 1}
    assert out["to_county"] == {"blue": 1}
    assert out["county"]["card"] == "kept"


def test_surviving_peasants_go_back_to_the_common_supply() -> None:
    out = api.resolve({**ATTACK, "tray_after": {"red": 1, "blue": 1, "green": 3}})
    assert out["to_county"] == {"blue": 1}
    assert out["to_supply"] == {"red": 1, "green": 3}


def test_a_defender_win_with_only_peasants_in_the_tray_is_a_tie() -> None:
    battle = {**ATTACK, "buildings": ["palace", "church"], "revolt_markers": 0}
    out = api.resolve({**battle, "tray_after": {"red": 1, "green": 2}})
    assert out["outcome"] == "tie"
    assert out["county"] == {
        "owner": None,
        "armies": 0,
        "revolt_markers": 0,
        "buildings_removed": True,
        "card": "to_common_supply",
    }
    assert out["to_supply"] == {"red": 1, "green": 2}


def test_with_revolt_markers_the_peasants_stay_out_of_the_fight() -> None:
    out = api.resolve({**ATTACK, "revolt_markers": 2, "tray_after": {"red": 2, "blue": 1, "green": 3}})
    assert (out["attacker_in_tray"], out["defender_in_tray"]) == (2, 1)
    assert out["outcome"] == "attacker_wins"
    assert out["tray_remaining"] == {"green": 3}
    assert out["county"]["revolt_markers"] == 2, "the markers stay with the county"


def test_a_tie_between_players_clears_the_county() -> None:
    out = api.resolve({**ATTACK, "revolt_markers": 1, "buildings": ["trading_post"], "tray_after": {"red": 2, "blue": 2, "yellow": 4}})
    assert out["outcome"] == "tie"
    assert out["to_supply"] == {"red": 2, "blue": 2}
    assert out["tray_remaining"] == {"yellow": 4}
    assert out["county"] == {
        "owner": None,
        "armies": 0,
        "revolt_markers": 0,
        "buildings_removed": True,
        "card": "to_common_supply",
    }


def test_buildings_removed_only_where_there_were_buildings() -> None:
    out = api.resolve({**ATTACK, "tray_after": {}})
    assert out["outcome"] == "tie" and out["county"]["buildings_removed"] is False


def test_the_initial_fill_needs_seven_cubes_in_each_supply() -> None:
    battle = {"battle": "initial_fill", "players": ["red", "blue", "yellow"], "tray_before": {}}
    with pytest.raises(BattleInputError) as exc:
        api.plan({**battle, "supply": {"red": 62, "blue": 6, "yellow": 62, "green": 20}})
    assert exc.value.field == "$.supply.blue"


def test_initial_fill_without_the_court_places_no_courtiers() -> None:
    battle = {"battle": "initial_fill", "players": ["red", "blue", "yellow"], "tray_before": {}, "tray_after": {"red": 3}}
    out = api.resolve(battle)
    assert "courtiers" not in out
    assert out["to_supply"] == {"red": 3}


def test_the_initial_fill_reading_is_bounded_by_what_was_dropped() -> None:
    battle = {"battle": "initial_fill", "players": ["red", "blue", "yellow"], "tray_before": {}}
    with pytest.raises(BattleInputError, match="only 0 were dropped"):
        api.resolve({**battle, "tray_after": {"black": 1}})


def test_cubes_known_in_a_supply_cannot_come_out_of_the_tower() -> None:
    battle = {**ATTACK, "supply": {"red": 58, "blue": 40, "green": 20}, "tray_after": {"red": 5}}
    with pytest.raises(BattleInputError) as exc:
        api.resolve(battle)
    assert exc.value.field == "$.tray_after.red"
    assert "58 of the 62" in exc.value.message
