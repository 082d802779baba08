"""Cards that put armies straight into the tray of the tower.

Favor cards #3, #8 and #14 of the Emperor's Court and the bonus-card benefit "place N armies into
the tray" (bonus-card mini expansion) move armies from the player's own supply into the tray,
where they are dropped with the next battle. The number of armies is printed on the card, so the
caller passes it. Supplies are finite: the engine places as many as the supply can pay (each army
is a separate gift, so a short supply shrinks the gift rather than cancelling it).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.colours import is_player_colour
from engine.counts import Counts, add, nonzero
from engine.supply import Supplies

TRAY_FAVOR_CARDS = frozenset({3, 8, 14})
"""Favor cards whose favor is "put N armies from your supply into the tray"."""


@dataclass(frozen=True)
class TrayPlacement:
    """Armies placed into the tray, and the supplies and tray afterwards."""

    placed: int
    supplies: Supplies
    tray: dict[str, int]


def place_armies_into_tray(supplies: Supplies, tray: Counts, player: str, armies: int) -> TrayPlacement:
    """Move up to ``armies`` of ``player``'s cubes from their supply into the tray."""
    if not is_player_colour(player):
        raise ValueError(f"{player!r} is not a player colour")
    if armies < 0:
        raise ValueError("the number of armies to place cannot be negative")
    placed = supplies.payable(player, armies)
    return TrayPlacement(placed, supplies.take({player: placed}), add(tray, {player: placed}) if placed else nonzero(tray))


def favor_card_places_armies(card_number: int) -> bool:
    """True for the favor cards that put armies into the tray (#3, #8, #14)."""
    return card_number in TRAY_FAVOR_CARDS
