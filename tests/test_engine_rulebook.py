"""Every worked example of the two rulebooks, played through the engine.

The examples are retold in our own words in each test's docstring; the numbers are the
rulebooks'. Colours: where a rulebook names a player but not a colour, the test picks one.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine import api
from engine.court import convert_from_county, convert_from_tray, initial_fill_courtiers
from engine.ledger import TowerLedger
from engine.planner import INITIAL_FILL_PEASANTS, INITIAL_FILL_PER_PLAYER
from engine.supply import Supplies
from engine.tray import favor_card_places_armies, place_armies_into_tray
from engine.winter import SupplyChartRow, supply_chart, unsupplied_counties, winter_revolt_peasants

NO_BONUS = {"attack_plus_one": None, "defence_plus_one": None}

KURSACHSEN: dict[str, Any] = {
    "battle": "attack",
    "attacker": "blue",
    "attacking_armies": 4,
    "defender": "yellow",
    "defending_armies": 3,
    "revolt_markers": 0,
    "buildings": [],
    "event": None,
    "bonus_tiles": NO_BONUS,
    "immune": [],
    "tray_before": {},
}


def test_kursachsen_four_against_three_blue_wins_with_one_army() -> None:
    """Blue attacks Yellow's Kursachsen (3 armies) with 4 from Anhalt, tray empty. Out come 3 blue,
    1 yellow, 1 green; the peasant sides with Yellow (no revolt markers), so it is 3:2 for Blue.
    Yellow, the peasant and 2 blue return to the supplies, 1 blue holds Kursachsen, and Yellow
    hands over the county card."""
    plan = api.plan(KURSACHSEN)
    assert plan["drop"] == {"blue": 4, "yellow": 3}
    assert plan["from_county"] == {"blue": 4, "yellow": 3}
    out = api.resolve({**KURSACHSEN, "tray_after": {"blue": 3, "yellow": 1, "green": 1}})
    assert out["outcome"] == "attacker_wins"
    assert (out["attacker_in_tray"], out["defender_in_tray"]) == (3, 2)
    assert out["to_supply"] == {"blue": 2, "yellow": 1, "green": 1}
    assert out["to_county"] == {"blue": 1}
    assert out["county"] == {
        "owner": "blue",
        "armies": 1,
        "revolt_markers": 0,
        "buildings_removed": False,
        "card": "transferred",
    }


def test_blue_needs_five_armies_in_anhalt_to_attack_with_four() -> None:
    """One army must stay behind in the county of origin."""
    assert api.plan({**KURSACHSEN, "origin_armies": 5})["drop"] == {"blue": 4, "yellow": 3}
    with pytest.raises(ValueError, match="at least 5 armies"):
        api.plan({**KURSACHSEN, "origin_armies": 4})


LUENEBURG: dict[str, Any] = {
    "battle": "revolt",
    "defender": "red",
    "defending_armies": 4,
    "revolt_markers": 2,
    "buildings": ["church"],
    "tray_before": {"blue": 1, "green": 1},
}


def test_lueneburg_tax_revolt_drops_dirks_armies_two_peasants_and_the_tray() -> None:
    """Dirk collects taxes in Lüneburg, which has 2 revolt markers: his 4 armies, 2 peasants and
    everything lying in the tray go into the tower."""
    plan = api.plan(LUENEBURG)
    assert plan["from_county"] == {"red": 4}
    assert plan["from_supply"] == {"green": 2}
    assert plan["from_tray"] == {"blue": 1, "green": 1}
    assert plan["drop"] == {"red": 4, "blue": 1, "green": 3}


def test_lueneburg_won_keeps_the_county_and_adds_a_revolt_marker() -> None:
    out = api.resolve({**LUENEBURG, "tray_after": {"red": 3, "green": 1, "blue": 2}})
    assert out["outcome"] == "defender_wins"
    assert out["to_county"] == {"red": 2}
    assert out["to_supply"] == {"red": 1, "green": 1}
    assert out["tray_remaining"] == {"blue": 2}, "a faction not involved stays in the tray"
    assert out["county"] == {
        "owner": "red",
        "armies": 2,
        "revolt_markers": 3,
        "buildings_removed": False,
        "card": "kept",
    }


@pytest.mark.parametrize(("tray_after", "outcome"), [({"red": 1, "green": 2}, "attacker_wins"), ({"red": 2, "green": 2}, "tie")])
def test_lueneburg_lost_or_tied_clears_the_county(tray_after: dict[str, int], outcome: str) -> None:
    out = api.resolve({**LUENEBURG, "tray_after": tray_after})
    assert out["outcome"] == outcome
    assert out["to_county"] == {}
    assert out["to_supply"] == tray_after, "every involved cube goes back, peasants included"
    assert out["county"] == {
        "owner": None,
        "armies": 0,
        "revolt_markers": 0,
        "buildings_removed": True,
        "card": "to_common_supply",
    }


ANHALT: dict[str, Any] = {
    "battle": "winter_revolt",
    "defender": "black",
    "defending_armies": 3,
    "revolt_markers": 1,
    "unsupplied_counties": 2,
    "tray_before": {},
}


def test_anhalt_winter_revolt_fights_three_peasants() -> None:
    """Arne lacks 2 grain in winter; Anhalt (1 revolt marker) is drawn and revolts with 2 peasants
    from the supply chart plus 1 for the marker."""
    assert supply_chart(2).extra_peasants == 2
    assert winter_revolt_peasants(revolt_markers=1, unsupplied=2) == 3
    assert api.plan(ANHALT)["from_supply"] == {"green": 3}


def test_a_won_winter_revolt_adds_no_revolt_marker() -> None:
    out = api.resolve({**ANHALT, "tray_after": {"black": 3, "green": 1}})
    assert out["outcome"] == "defender_wins"
    assert out["county"]["revolt_markers"] == 1
    assert out["county"]["armies"] == 2


def test_dirks_nine_counties_with_seven_grain() -> None:
    """Dirk holds 9 counties but has 7 grain: 2 go unsupplied, so 1 county revolts, and with the
    1 revolt marker already there he fights 1 + 2 = 3 peasants."""
    unsupplied = unsupplied_counties(counties=9, grain=7)
    assert unsupplied == 2
    assert supply_chart(unsupplied) == SupplyChartRow(revolting_counties=1, extra_peasants=2)
    battle = {
        "battle": "winter_revolt",
        "defender": "red",
        "defending_armies": 2,
        "revolt_markers": 1,
        "unsupplied_counties": unsupplied,
        "tray_before": {},
    }
    assert api.plan(battle)["drop"] == {"red": 2, "green": 3}
    lost = api.resolve({**battle, "tray_after": {"green": 2, "red": 1}})
    assert lost["outcome"] == "attacker_wins"
    assert lost["county"]["owner"] is None, "a successful revolt takes the county from Dirk"


@pytest.mark.parametrize(
    ("unsupplied", "revolting", "extra"),
    [(1, 1, 1), (2, 1, 2), (3, 2, 2), (4, 2, 2), (5, 2, 3), (6, 2, 3), (7, 3, 3), (12, 3, 3)],
)
def test_supply_chart(unsupplied: int, revolting: int, extra: int) -> None:
    assert supply_chart(unsupplied) == SupplyChartRow(revolting, extra)


def test_three_player_initial_fill_drops_31_cubes() -> None:
    """Set-up: 7 cubes of each player and 10 peasants, 31 cubes with 3 players."""
    plan = api.plan({"battle": "initial_fill", "players": ["red", "blue", "black"], "tray_before": {}})
    assert sum(plan["drop"].values()) == 31 == 3 * INITIAL_FILL_PER_PLAYER + INITIAL_FILL_PEASANTS
    assert plan["from_supply"] == {"red": 7, "blue": 7, "black": 7, "green": 10}


def test_emperors_court_initial_fill_of_frank_dirk_and_anika() -> None:
    """2 peasants, 2 of Frank's blue, 2 of Dirk's red and 1 of Anika's purple cubes come out:
    Frank and Dirk each place 2 courtiers, Anika 1; every cube goes back to its supply."""
    tray = {"green": 2, "blue": 2, "red": 2, "purple": 1}
    battle = {
        "battle": "initial_fill",
        "players": ["blue", "red", "purple"],
        "emperors_court": True,
        "tray_before": {},
        "tray_after": tray,
    }
    out = api.resolve(battle)
    assert out["courtiers"] == {"blue": 2, "red": 2, "purple": 1}
    assert out["to_supply"] == tray
    assert out["outcome"] is None and out["county"] is None
    assert out["tower_delta"] == {"red": 5, "blue": 5, "purple": 6, "green": 8}
    ledger = TowerLedger.empty().after_drop(out["dropped"], tray)
    assert ledger.inside == out["tower_delta"], "from the initial fill on the tower's contents are known"


def test_initial_fill_courtiers_stop_at_seven() -> None:
    assert initial_fill_courtiers(["red", "blue"], {"red": 7, "blue": 3, "green": 4}) == {"red": 7, "blue": 3}
    assert initial_fill_courtiers(["red"], {"red": 9}) == {"red": 7}


def test_barbaras_conversions_deploy_five_courtiers() -> None:
    """Barbara (yellow): the county card Vogtland in "convert 3 armies" takes 3 of her 4 armies
    there (1 stays); a dice-tower card in "convert 2 armies" takes 2 of her cubes from the tray; a
    money card in the third box does nothing. 5 courtiers in all."""
    courtiers = 7
    vogtland, armies_left = convert_from_county(3, county_armies=4, courtiers_in_supply=courtiers)
    assert vogtland.performed and vogtland.courtiers_placed == 3
    assert armies_left == 1
    courtiers -= vogtland.courtiers_placed
    tray = {"yellow": 3, "red": 1, "green": 2}
    dice, tray_left = convert_from_tray("yellow", 2, tray, courtiers_in_supply=courtiers)
    assert dice.performed and dice.courtiers_placed == 2
    assert tray_left == {"yellow": 1, "red": 1, "green": 2}
    assert vogtland.courtiers_placed + dice.courtiers_placed == 5


def test_a_conversion_that_cannot_be_completed_is_not_performed() -> None:
    short, tray = convert_from_tray("yellow", 3, {"yellow": 2})
    assert not short.performed and short.courtiers_placed == 0 and tray == {"yellow": 2}
    assert short.reason is not None and "2 yellow" in short.reason
    no_courtiers, _ = convert_from_tray("yellow", 2, {"yellow": 2}, courtiers_in_supply=1)
    assert not no_courtiers.performed
    county, armies = convert_from_county(3, county_armies=3)
    assert not county.performed and armies == 3, "at least one army must stay in the county"


def test_favor_cards_3_8_14_put_armies_from_the_supply_into_the_tray() -> None:
    """Barbara takes favor card #8: she puts the armies shown on it from her supply into the tray."""
    assert favor_card_places_armies(8) and favor_card_places_armies(3) and favor_card_places_armies(14)
    assert not favor_card_places_armies(10)
    supplies = Supplies({"yellow": 40, "green": 20})
    placed = place_armies_into_tray(supplies, {"red": 1}, "yellow", 3)
    assert placed.placed == 3
    assert placed.tray == {"red": 1, "yellow": 3}
    assert placed.supplies.available("yellow") == 37


def test_a_tray_gift_the_supply_cannot_pay_shrinks() -> None:
    placed = place_armies_into_tray(Supplies({"yellow": 1}), {}, "yellow", 3)
    assert placed.placed == 1 and placed.tray == {"yellow": 1} and placed.supplies.available("yellow") == 0
