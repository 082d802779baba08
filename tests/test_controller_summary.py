"""The one-sentence outcome names the winner's strength in the tray first, whoever wins."""

from __future__ import annotations

from controller.summary import summary
from engine.api import resolve

ATTACK = {"battle": "attack", "attacker": "red", "attacking_armies": 4, "defender": "blue", "defending_armies": 3,
          "revolt_markers": 0, "buildings": [], "event": None, "immune": [], "tray_before": {},
          "bonus_tiles": {"attack_plus_one": None, "defence_plus_one": None}}


def test_a_defender_win_states_the_defenders_strength_first() -> None:
    battle = {**ATTACK, "tray_after": {"red": 2, "blue": 4, "green": 2}}
    assert summary(battle, resolve(battle)) == "Blue wins the attack, 6 against 2 in the tray."


def test_an_attacker_win_states_the_attackers_strength_first() -> None:
    battle = {**ATTACK, "tray_after": {"red": 4, "blue": 1}}
    assert summary(battle, resolve(battle)) == "Red wins the attack, 4 against 1 in the tray."


def test_a_player_who_beats_a_revolt_is_named_with_their_own_strength() -> None:
    battle = {"battle": "revolt", "defender": "yellow", "defending_armies": 2, "revolt_markers": 1,
              "buildings": [], "event": None, "immune": [], "tray_before": {},
              "bonus_tiles": {"attack_plus_one": None, "defence_plus_one": None},
              "tray_after": {"yellow": 3, "green": 1}}
    assert summary(battle, resolve(battle)) == "Yellow wins the revolt, 3 against 1 in the tray."
