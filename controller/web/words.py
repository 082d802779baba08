"""The game's word lists for the page, read from the rules engine's own constants (never restated).

The page needs the colours, the kinds of battle, the event cards, the buildings, the bonus tiles and
what a favor card protects against to build its forms; the engine defines each once, and this module
only collects them into one JSON object (``GET /api/words``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from engine.bonus import BonusTiles
from engine.colours import PALETTE, PEASANTS, PLAYER_COLOURS
from engine.events import Event
from engine.model import Action, Building, Immunity, Outcome
from engine.schema import BATTLE_KINDS


def game_words() -> dict[str, Any]:
    """Every word list the page builds its forms from, in the engine's order."""
    return {
        "colours": list(PALETTE),
        "players": list(PLAYER_COLOURS),
        "peasants": PEASANTS,
        "battle_kinds": list(BATTLE_KINDS),
        "events": [e.value for e in Event],
        "buildings": [b.value for b in Building],
        "bonus_tiles": [f.name for f in dataclasses.fields(BonusTiles)],
        "immunities": [i.value for i in Immunity],
        "actions": [a.value for a in Action],
        "outcomes": [o.value for o in Outcome],
    }
