"""What goes into the funnel for a battle, and where each cube comes from.

* Attack: the attacker's moved armies and the defender's armies come from the counties; a neutral
  county is defended by 1 peasant from the common supply (2 under ``neutral_two_peasants``); the
  "+1 army when attacking/defending" tiles and the ``palace_defender_plus_one`` event add armies
  from the personal supplies.
* Revolt: the player's armies in the county, and one peasant per revolt marker from the common
  supply; in winter the supply chart's extra peasants join them.
* Initial fill: 7 cubes from each player's supply and 10 peasants.

In every battle each cube lying in the tray is dropped again.

Supplies are finite. Where the caller gives ``supply``, an extra the supply cannot pay (a bonus
army, the palace army, a peasant) is left out rather than invented; the peasants of a revolt come
from the same common supply and are capped the same way, because a cube that is not there cannot
be dropped. The initial fill's cubes are not extras: if a supply cannot pay them the input is
rejected.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.colours import PEASANTS
from engine.counts import Counts, add, nonzero
from engine.errors import BattleInputError, json_path
from engine.events import palace_defence_bonus, peasants_defending_neutral_county
from engine.model import Attack, Battle, DropContext, InitialFill, Revolt
from engine.winter import supply_chart

INITIAL_FILL_PER_PLAYER = 7
"""Cubes of each player dropped into the empty tower at set-up."""

INITIAL_FILL_PEASANTS = 10
"""Peasant cubes dropped into the empty tower at set-up."""


@dataclass(frozen=True)
class DropPlan:
    """Every cube to put into the funnel, by where it comes from."""

    from_supply: Counts
    from_county: Counts
    from_tray: Counts

    @property
    def drop(self) -> dict[str, int]:
        """All cubes to drop: the sum of the three sources."""
        return add(self.from_supply, self.from_county, self.from_tray)

    def to_json(self) -> dict[str, dict[str, int]]:
        """The ``tower plan`` output object."""
        return {
            "drop": self.drop,
            "from_supply": nonzero(self.from_supply),
            "from_county": nonzero(self.from_county),
            "from_tray": nonzero(self.from_tray),
        }


class _SupplyDraw:
    """Extras drawn from the supplies one by one, each capped by what is left."""

    def __init__(self, context: DropContext) -> None:
        self._supply = context.supply
        self.taken: dict[str, int] = {}

    def extra(self, colour: str, wanted: int) -> None:
        if wanted <= 0:
            return
        granted = wanted
        if self._supply is not None:
            granted = self._supply.payable(colour, wanted + self.taken.get(colour, 0)) - self.taken.get(colour, 0)
        if granted > 0:
            self.taken[colour] = self.taken.get(colour, 0) + granted


def plan_drop(battle: Battle) -> DropPlan:
    """The cubes to drop for ``battle`` (assumed legal, see :mod:`engine.legality`)."""
    if isinstance(battle, Attack):
        return _plan_attack(battle)
    if isinstance(battle, Revolt):
        return _plan_revolt(battle)
    return _plan_initial_fill(battle)


def _plan_attack(attack: Attack) -> DropPlan:
    ctx = attack.context
    draw = _SupplyDraw(ctx)
    county = {attack.attacker: attack.attacking_armies}
    if attack.defender is None:
        draw.extra(PEASANTS, peasants_defending_neutral_county(ctx.round.event))
    else:
        county[attack.defender] = attack.defending_armies
        # The event applies before the bonus tile; both add from the defender's own supply.
        draw.extra(attack.defender, palace_defence_bonus(ctx.round.event, attack.buildings))
        draw.extra(attack.defender, ctx.round.bonus_tiles.defence_bonus(attack.defender))
    draw.extra(attack.attacker, ctx.round.bonus_tiles.attack_bonus(attack.attacker))
    return DropPlan(from_supply=nonzero(draw.taken), from_county=nonzero(county), from_tray=nonzero(ctx.tray_before))


def revolt_peasants(revolt: Revolt) -> int:
    """Peasants a revolt calls for before the common supply is consulted."""
    extra = supply_chart(revolt.unsupplied_counties).extra_peasants if revolt.unsupplied_counties else 0
    return revolt.revolt_markers + extra


def _plan_revolt(revolt: Revolt) -> DropPlan:
    draw = _SupplyDraw(revolt.context)
    draw.extra(PEASANTS, revolt_peasants(revolt))
    return DropPlan(
        from_supply=nonzero(draw.taken),
        from_county={revolt.defender: revolt.defending_armies},
        from_tray=nonzero(revolt.context.tray_before),
    )


def _plan_initial_fill(fill: InitialFill) -> DropPlan:
    needed = {player: INITIAL_FILL_PER_PLAYER for player in fill.players}
    needed[PEASANTS] = INITIAL_FILL_PEASANTS
    supply = fill.context.supply
    if supply is not None:
        for colour, n in needed.items():
            if supply.available(colour) < n:
                raise BattleInputError(
                    f"the initial fill needs {n} {colour} cubes but the {colour} supply holds only "
                    f"{supply.available(colour)}",
                    json_path("supply", colour),
                )
    return DropPlan(from_supply=nonzero(needed), from_county={}, from_tray=nonzero(fill.context.tray_before))
