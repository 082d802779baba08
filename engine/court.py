"""The Emperor's Court: courtiers won from the tray, and armies converted into courtiers.

Each player owns 7 courtiers. They reach the entrance hall of the court in three ways the engine
models:

* the initial fill: one courtier per own cube that came out into the tray (the cubes go back to
  the supply), never more than the 7 a player owns;
* a dice-tower card in a "convert 1/2/3 armies" box of the extra player board: that many of the
  player's own cubes are taken out of the tray, back to the supply, and as many courtiers enter
  the hall;
* a county card in such a box: the armies come from that county instead, and at least one army
  must stay there.

A conversion that cannot be completed (too few own cubes in the tray or the county, or too few
courtiers left in the player's supply) is not performed at all, as the rulebook says.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engine.colours import is_player_colour
from engine.counts import Counts, add, get, nonzero

COURTIERS_PER_PLAYER = 7
"""Wooden courtiers each player owns."""

CONVERSION_SIZES = (1, 2, 3)
"""The three boxes of the extra player board convert 1, 2 or 3 armies."""


def initial_fill_courtiers(players: Iterable[str], tray_after: Counts) -> dict[str, int]:
    """Courtiers each player places in the entrance hall after the initial fill."""
    return nonzero({p: min(get(tray_after, p), COURTIERS_PER_PLAYER) for p in players})


@dataclass(frozen=True)
class Conversion:
    """The result of one "convert N armies" box."""

    performed: bool
    courtiers_placed: int
    armies_to_supply: int
    reason: str | None = None


def _check_size(armies: int) -> None:
    if armies not in CONVERSION_SIZES:
        raise ValueError(f"a conversion box converts 1, 2 or 3 armies, not {armies}")


def convert_from_tray(
    player: str, armies: int, tray: Counts, courtiers_in_supply: int = COURTIERS_PER_PLAYER
) -> tuple[Conversion, dict[str, int]]:
    """A dice-tower card in the "convert ``armies``" box: own cubes from the tray become courtiers.

    Returns the conversion and the tray afterwards (unchanged when it is not performed).
    """
    _check_size(armies)
    if not is_player_colour(player):
        raise ValueError(f"{player!r} is not a player colour: only players convert armies into courtiers")
    in_tray = get(tray, player)
    if in_tray < armies:
        return Conversion(False, 0, 0, f"only {in_tray} {player} cube{'' if in_tray == 1 else 's'} {'lies' if in_tray == 1 else 'lie'} in the tray"), nonzero(tray)
    if courtiers_in_supply < armies:
        return Conversion(False, 0, 0, f"{player} has only {courtiers_in_supply} courtier{'' if courtiers_in_supply == 1 else 's'} left"), nonzero(tray)
    return Conversion(True, armies, armies), add(tray, {player: -armies})


def convert_from_county(
    armies: int, county_armies: int, courtiers_in_supply: int = COURTIERS_PER_PLAYER
) -> tuple[Conversion, int]:
    """A county card in the "convert ``armies``" box: armies leave the county for courtiers.

    At least one army must stay in the county. Returns the conversion and the county's armies
    afterwards (unchanged when it is not performed).
    """
    _check_size(armies)
    if county_armies - armies < 1:
        return Conversion(False, 0, 0, f"the county has {county_armies} armies and one must stay"), county_armies
    if courtiers_in_supply < armies:
        return Conversion(False, 0, 0, f"only {courtiers_in_supply} courtier{' is' if courtiers_in_supply == 1 else 's are'} left"), county_armies
    return Conversion(True, armies, armies), county_armies - armies
