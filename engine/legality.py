"""Whether a battle as described can happen under the rules.

These checks turn a description that no real game could produce into a :class:`BattleInputError`
naming the field at fault, before any cube is planned:

* an attack goes into a county the attacker does not control, needs at least
  ``attacking_armies + 1`` armies in the county of origin (one stays behind), cannot target a
  player made immune by a favor card (#10, #11, #18) to the attack's action (an attack that does
  not say its action cannot target a player immune to one of the two), nor a county with a church
  while the event ``churches_safe`` is in play;
* a county without armies is neutral, so a player's county has at least one army, and a neutral
  county carries no revolt markers and no buildings (both are removed whenever a county falls
  empty);
* a revolt while collecting grain or taxes needs at least one revolt marker (a winter revolt
  does not: the supply chart alone brings peasants);
* the initial fill goes into an empty tower with an empty tray;
* no colour may be known to hold more cubes (in counties, tray, tower and supply together) than
  the box contains.
"""

from __future__ import annotations

from engine.box import cubes_in_counties
from engine.colours import PALETTE, cubes_in_game
from engine.counts import Counts, get
from engine.errors import BattleInputError, json_path
from engine.events import Event, county_is_safe
from engine.model import Action, Attack, Battle, Immunity, InitialFill, Revolt


def check_battle_is_legal(battle: Battle) -> None:
    """Raise :class:`BattleInputError` if ``battle`` cannot happen as described."""
    if isinstance(battle, Attack):
        _check_attack(battle)
    elif isinstance(battle, Revolt):
        _check_revolt(battle)
    else:
        _check_initial_fill(battle)
    _check_cubes_exist(battle)


def _check_attack(attack: Attack) -> None:
    a, d = attack.attacker, attack.defender
    if d == a:
        raise BattleInputError(
            f"{a} already controls this county: moving there is a movement, not an attack",
            json_path("defender"),
        )
    if attack.origin_armies is not None and attack.origin_armies < attack.attacking_armies + 1:
        raise BattleInputError(
            f"{a} needs at least {attack.attacking_armies + 1} armies in the county of origin to attack "
            f"with {attack.attacking_armies}, because one army must stay behind, but there are "
            f"{attack.origin_armies}",
            json_path("origin_armies"),
        )
    if d is None:
        if attack.defending_armies:
            raise BattleInputError(
                "a neutral county has no armies: set defending_armies to 0 or name the defender",
                json_path("defending_armies"),
            )
        if attack.revolt_markers:
            raise BattleInputError(
                "a neutral county carries no revolt markers (they leave with the last army)",
                json_path("revolt_markers"),
            )
        if attack.buildings:
            raise BattleInputError(
                "a neutral county has no buildings (they are removed when a county falls empty)",
                json_path("buildings"),
            )
    else:
        if attack.defending_armies < 1:
            raise BattleInputError(
                f"a county without armies is neutral, so {d} cannot be its defender: "
                "set defender to null or give the defending armies",
                json_path("defending_armies"),
            )
        _check_immunity(attack, d)
    if county_is_safe(attack.context.round.event, attack.buildings):
        raise BattleInputError(
            f"this county has a church and the event '{Event.CHURCHES_SAFE}' makes such counties "
            "safe from attacks this round",
            json_path("event"),
        )


def _check_immunity(attack: Attack, defender: str) -> None:
    """Favor cards #10, #11, #18: the defender cannot be attacked with action A, B, or either."""
    immunity = attack.context.round.immune.get(defender)
    if immunity is None:
        return
    if immunity is Immunity.BOTH:
        raise BattleInputError(
            f"{defender} cannot be attacked this round: a favor card makes them immune",
            json_path("defender"),
        )
    if attack.action is None:
        other = Action.B if immunity is Immunity.A else Action.A
        raise BattleInputError(
            f"{defender} cannot be attacked with Combat/Movement {immunity} this round (a favor card), "
            f"so say which action the attack is made with: 'action' {other} is allowed",
            json_path("action"),
        )
    if immunity.protects_against(attack.action):
        raise BattleInputError(
            f"{defender} cannot be attacked with Combat/Movement {attack.action} this round: "
            "a favor card makes them immune to it",
            json_path("action"),
        )


def _check_revolt(revolt: Revolt) -> None:
    if revolt.defending_armies < 1:
        raise BattleInputError(
            f"a county without armies is neutral, so {revolt.defender} has no county to defend there",
            json_path("defending_armies"),
        )
    if not revolt.in_winter and revolt.revolt_markers < 1:
        raise BattleInputError(
            "collecting grain or taxes only causes a revolt where the county has at least one revolt marker",
            json_path("revolt_markers"),
        )


def _check_initial_fill(fill: InitialFill) -> None:
    if any(fill.context.tray_before.values()):
        raise BattleInputError("the tray is empty before the initial fill", json_path("tray_before"))
    if fill.context.tower_before is not None and any(fill.context.tower_before.values()):
        raise BattleInputError("the tower is empty before the initial fill", json_path("tower_before"))


def _check_cubes_exist(battle: Battle) -> None:
    """No colour may be known to hold more cubes than exist, counting each place once."""
    ctx = battle.context
    places: list[tuple[str, Counts]] = [("counties", cubes_in_counties(battle)), ("tray_before", ctx.tray_before)]
    if ctx.tower_before is not None:
        places.append(("tower_before", ctx.tower_before))
    if ctx.supply is not None:
        places.append(("supply", ctx.supply.cubes))
    for colour in PALETTE:
        seen = 0
        for name, counts in places:
            seen += get(counts, colour)
            if seen > cubes_in_game(colour):
                field = json_path(name, colour) if name != "counties" else None
                raise BattleInputError(
                    f"more {colour} cubes are accounted for ({seen}, counting the counties, tray, tower "
                    f"and supply given) than the {cubes_in_game(colour)} that exist",
                    field,
                )
