"""The cube colours of the game and how many cubes of each exist.

Wallenstein ships 62 army cubes in each of the five player colours and 20 green cubes for the
peasants. These totals bound every count the engine sees: a supply, the tower's contents and a
tray reading can never hold more cubes of a colour than the box contains.
"""

from __future__ import annotations

PEASANTS = "green"
"""The colour of the peasants' armies (the common supply, never placed in a county)."""

PLAYER_COLOURS: tuple[str, ...] = ("red", "blue", "yellow", "purple", "black")
"""The player colours of the default palette, in the order outputs list them."""

PALETTE: tuple[str, ...] = (*PLAYER_COLOURS, PEASANTS)
"""Every cube colour the engine accepts."""

CUBES_PER_PLAYER = 62
"""Army cubes in each player colour."""

PEASANT_CUBES = 20
"""Green peasant cubes in the common supply at the start."""


def cubes_in_game(colour: str) -> int:
    """How many cubes of ``colour`` exist in the box (62 for a player colour, 20 for green)."""
    if colour == PEASANTS:
        return PEASANT_CUBES
    if colour in PLAYER_COLOURS:
        return CUBES_PER_PLAYER
    raise ValueError(f"{colour!r} is not a colour of the game")


def is_player_colour(colour: str) -> bool:
    """True for the five player colours, false for green and anything else."""
    return colour in PLAYER_COLOURS
