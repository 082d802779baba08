"""Event cards and the three that change a battle.

Each round one event card modifies an action for everybody. Three touch combat:
``neutral_two_peasants`` (a neutral county defends with 2 peasants instead of 1),
``palace_defender_plus_one`` (a defender whose county holds a palace adds 1 army from the own
supply) and ``churches_safe`` (counties with a church cannot be attacked this round). The others
concern taxes, grain, deployment and trading posts and are accepted so that a caller can always
pass the round's card, but they change nothing in a battle.

The rulebook applies an event before a bonus tile; both only add cubes here, so the order does
not change the drop, but the planner still lists the event's cube first.
"""

from __future__ import annotations

from collections.abc import Collection
from enum import StrEnum


class Event(StrEnum):
    """The event card ids of the battle JSON."""

    NEUTRAL_TWO_PEASANTS = "neutral_two_peasants"
    PALACE_DEFENDER_PLUS_ONE = "palace_defender_plus_one"
    CHURCHES_SAFE = "churches_safe"
    TAX_MAX_5 = "tax_max_5"
    TAX_MIN_6 = "tax_min_6"
    GRAIN_MIN_4 = "grain_min_4"
    GRAIN_MAX_3 = "grain_max_3"
    DEPLOY_REDUCED = "deploy_reduced"
    TRADING_POST_REMOVES_REVOLT = "trading_post_removes_revolt"


def peasants_defending_neutral_county(event: Event | None) -> int:
    """Peasants dropped for a neutral county under attack: 1, or 2 under ``neutral_two_peasants``."""
    return 2 if event is Event.NEUTRAL_TWO_PEASANTS else 1


def palace_defence_bonus(event: Event | None, buildings: Collection[str]) -> int:
    """Extra defender armies from the event: 1 where ``palace_defender_plus_one`` meets a palace."""
    return 1 if event is Event.PALACE_DEFENDER_PLUS_ONE and "palace" in buildings else 0


def county_is_safe(event: Event | None, buildings: Collection[str]) -> bool:
    """True when the event forbids attacking this county (``churches_safe`` and a church)."""
    return event is Event.CHURCHES_SAFE and "church" in buildings
