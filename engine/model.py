"""The battles of Wallenstein as typed values, and the words of their results.

Four kinds of drop go through the tower:

* :class:`Attack`: Combat/Movement A or B into a county the attacker does not control, owned by
  another player or neutral (no armies at all).
* :class:`Revolt`: peasants rising in a player's county, either because grain or taxes were
  collected there while it had revolt markers, or in winter (``unsupplied_counties`` set) because
  the player could not feed all counties.
* :class:`InitialFill`: the set-up drop of 7 cubes per player and 10 peasants into the empty tower.

Each also carries the :class:`DropContext`: the round's event, bonus tiles and immunities, the
cubes lying in the tray (all dropped again) and, where the caller knows them, the supplies and the
tower's contents.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from engine.bonus import BonusTiles
from engine.events import Event
from engine.supply import Supplies


class Building(StrEnum):
    """The three building types; each can stand at most once in a county."""

    PALACE = "palace"
    CHURCH = "church"
    TRADING_POST = "trading_post"


class Outcome(StrEnum):
    """Who won. In a revolt the peasants are the attacker and the player the defender."""

    ATTACKER_WINS = "attacker_wins"
    DEFENDER_WINS = "defender_wins"
    TIE = "tie"


class Action(StrEnum):
    """The two action cards an attack can be made with: Combat/Movement A or B."""

    A = "A"
    B = "B"


class Immunity(StrEnum):
    """What a favor card #10, #11 or #18 protects its owner against this round."""

    A = "A"
    B = "B"
    BOTH = "both"

    def protects_against(self, action: Action) -> bool:
        """True when an attack made with ``action`` cannot target the card's owner."""
        return self is Immunity.BOTH or self.value == action.value


class CardFate(StrEnum):
    """What happens to the contested county's card."""

    KEPT = "kept"
    TRANSFERRED = "transferred"
    TO_COMMON_SUPPLY = "to_common_supply"
    TAKEN_FROM_DECK = "taken_from_deck"
    STAYS_IN_DECK = "stays_in_deck"


@dataclass(frozen=True)
class Round:
    """What the current round brings to every battle: the event, bonus tiles and immunities.

    ``immune`` maps each player holding favor card #10, #11 or #18 this round to the action(s) the
    card protects against.
    """

    event: Event | None = None
    bonus_tiles: BonusTiles = field(default_factory=BonusTiles)
    immune: Mapping[str, Immunity] = field(default_factory=dict)


@dataclass(frozen=True)
class DropContext:
    """The state around a drop: the round, the tray, and what the caller knows of supplies and tower."""

    round: Round = field(default_factory=Round)
    tray_before: Mapping[str, int] = field(default_factory=dict)
    supply: Supplies | None = None
    tower_before: Mapping[str, int] | None = None
    supply_named: frozenset[str] = frozenset()
    """The colours the ``supply`` map names, 0 included (a colour it forgets is an error, not a 0)."""


@dataclass(frozen=True)
class Attack:
    """Combat/Movement into a county the attacker does not control (``defender is None``: neutral).

    ``action`` is the action card the attack is made with, where the caller says (it matters only
    against a player immune to one of the two).
    """

    attacker: str
    attacking_armies: int
    defender: str | None
    defending_armies: int
    context: DropContext = field(default_factory=DropContext)
    origin_armies: int | None = None
    revolt_markers: int = 0
    buildings: frozenset[Building] = frozenset()
    action: Action | None = None


@dataclass(frozen=True)
class Revolt:
    """Peasants rising against ``defender`` in one of their counties.

    ``unsupplied_counties`` is set for a winter revolt: the supply chart then adds extra peasants
    and a won revolt adds no revolt marker. ``parry_revolt_marker``: the owner keeps favor card #4
    to parry the next revolt marker, so a revolt they win adds none (and spends the card).
    """

    defender: str
    defending_armies: int
    revolt_markers: int
    context: DropContext = field(default_factory=DropContext)
    buildings: frozenset[Building] = frozenset()
    unsupplied_counties: int | None = None
    parry_revolt_marker: bool = False

    @property
    def in_winter(self) -> bool:
        """True for a winter revolt caused by undersupply."""
        return self.unsupplied_counties is not None


@dataclass(frozen=True)
class InitialFill:
    """The set-up drop into the empty tower, with or without the Emperor's Court."""

    players: tuple[str, ...]
    context: DropContext = field(default_factory=DropContext)
    emperors_court: bool = False


Battle = Attack | Revolt | InitialFill
"""Any drop the engine can plan and resolve."""
