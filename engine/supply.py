"""The players' personal supplies and the common supply of peasants.

Every player starts with 62 cubes and the peasants with 20; cubes move between the supplies, the
counties, the tower and the tray, but never appear from nowhere. Supplies are finite, which
matters for the extras a battle adds (bonus tiles, the palace event, extra peasants, favor and
bonus cards): an extra the supply cannot pay is simply not added. Cubes a battle *requires*
(the initial fill) must be there, or the battle cannot take place as described.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from engine.colours import CUBES_PER_PLAYER, PEASANT_CUBES, PEASANTS, cubes_in_game
from engine.counts import Counts, add, get, nonzero
from engine.errors import BattleInputError


@dataclass(frozen=True)
class Supplies:
    """Cubes in each personal supply and (under ``green``) in the common supply.

    Immutable: every move returns a new ``Supplies`` so that a game session can keep the state
    before and after a drop side by side.
    """

    cubes: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for colour, n in self.cubes.items():
            if n < 0:
                raise BattleInputError(f"the {colour} supply cannot hold a negative number of cubes")
            if n > cubes_in_game(colour):
                raise BattleInputError(
                    f"the {colour} supply cannot hold {n} cubes: only {cubes_in_game(colour)} exist"
                )
        object.__setattr__(self, "cubes", MappingProxyType(nonzero(self.cubes)))

    @classmethod
    def full(cls, players: Iterable[str]) -> Supplies:
        """The supplies at the start of a game: 62 per player and the 20 peasants."""
        cubes = {colour: CUBES_PER_PLAYER for colour in players}
        cubes[PEASANTS] = PEASANT_CUBES
        return cls(cubes)

    def available(self, colour: str) -> int:
        """Cubes of ``colour`` in its supply."""
        return get(self.cubes, colour)

    def payable(self, colour: str, wanted: int) -> int:
        """How many of ``wanted`` extra cubes the supply can pay (the rest are not added)."""
        return max(0, min(wanted, self.available(colour)))

    def take(self, counts: Counts) -> Supplies:
        """The supplies after ``counts`` have been taken; every cube must be there."""
        for colour, n in counts.items():
            if n > self.available(colour):
                raise BattleInputError(
                    f"the {colour} supply has {self.available(colour)} cubes, {n} are needed"
                )
        return Supplies(add(self.cubes, {c: -n for c, n in counts.items()}))

    def give(self, counts: Counts) -> Supplies:
        """The supplies after ``counts`` have come back (from the tray or a county)."""
        return Supplies(add(self.cubes, counts))

    def after_drop(self, from_supply: Counts, to_supply: Counts) -> Supplies:
        """The supplies once a drop took ``from_supply`` and the resolution returned ``to_supply``."""
        return self.take(from_supply).give(to_supply)

    def to_json(self) -> dict[str, int]:
        """The supplies as a count map."""
        return dict(self.cubes)
