"""What goes into the funnel for a battle, and where each cube comes from.

* Attack: the attacker's moved armies and the defender's armies come from the counties; a neutral
  county is defended by 1 peasant from the common supply (2 under ``neutral_two_peasants``); the
  "+1 army when attacking/defending" tiles and the ``palace_defender_plus_one`` event add armies
  from the personal supplies.
* Revolt: the player's armies in the county, and one peasant per revolt marker from the common
  supply; in winter the supply chart's extra peasants join them.
* Initial fill: 7 cubes from each player's supply and 10 peasants.

In every battle each cube lying in the tray is dropped again.

Supplies are finite. An extra the supply cannot pay (a bonus army, the palace army, a peasant) is
left out rather than invented; the peasants of a revolt come from the same common supply and are
capped the same way, because a cube that is not there cannot be dropped. What the supply can pay is
the ``supply`` map where the caller gives one (it must name every colour drawn on, 0 included), and
in every case the box less the cubes known to be in the tower, the tray and the counties
(:mod:`engine.box`). Each extra left out is kept as a :class:`Shortfall` for the caller to explain.
The initial fill's cubes are not extras: if a supply cannot pay them the input is rejected.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.box import room_in_supply
from engine.colours import PEASANTS
from engine.counts import Counts, add, nonzero
from engine.errors import BattleInputError, json_path
from engine.events import palace_defence_bonus, peasants_defending_neutral_county
from engine.model import Attack, Battle, InitialFill, Revolt
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
    shortfalls: tuple[Shortfall, ...] = ()
    """Extras left out in part or whole (not part of the ``tower plan`` output; see :mod:`engine.decisions`)."""

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


@dataclass(frozen=True)
class Shortfall:
    """An extra the battle calls for that could not be added in full (see :mod:`engine.decisions`)."""

    colour: str
    what: str
    wanted: int
    granted: int
    cause: str
    """``"supply"``: the ``supply`` map holds too few; ``"box"``: the box holds no more outside the
    tower, the tray and the counties."""


class _SupplyDraw:
    """Extras drawn from the supplies one by one, each capped by what is left.

    What is left is the ``supply`` map where given, and always the box less the cubes known to be
    elsewhere (:func:`engine.box.room_in_supply`). A colour the ``supply`` map does not name is an
    error: a forgotten colour must not turn into a silent 0.
    """

    def __init__(self, battle: Battle) -> None:
        self._battle = battle
        self._supply = battle.context.supply
        self._named = battle.context.supply_named
        self.taken: dict[str, int] = {}
        self.shortfalls: list[Shortfall] = []

    def extra(self, colour: str, wanted: int, what: str) -> None:
        if wanted <= 0:
            return
        if self._supply is not None and colour not in self._named:
            raise BattleInputError(
                f"the supply map does not name {colour}, which this battle draws on ({what}): "
                "give every colour the battle may take from the supply, 0 included",
                json_path("supply", colour),
            )
        before = self.taken.get(colour, 0)
        left = room_in_supply(self._battle, colour) - before
        cause = "box"
        if self._supply is not None and self._supply.available(colour) - before <= left:
            left, cause = self._supply.available(colour) - before, "supply"
        granted = max(0, min(wanted, left))
        if granted < wanted:
            self.shortfalls.append(Shortfall(colour, what, wanted, granted, cause))
        if granted > 0:
            self.taken[colour] = before + granted


def plan_drop(battle: Battle) -> DropPlan:
    """The cubes to drop for ``battle`` (assumed legal, see :mod:`engine.legality`)."""
    if isinstance(battle, Attack):
        return _plan_attack(battle)
    if isinstance(battle, Revolt):
        return _plan_revolt(battle)
    return _plan_initial_fill(battle)


def _plan_attack(attack: Attack) -> DropPlan:
    ctx = attack.context
    draw = _SupplyDraw(attack)
    county = {attack.attacker: attack.attacking_armies}
    if attack.defender is None:
        draw.extra(PEASANTS, peasants_defending_neutral_county(ctx.round.event), "the peasants defending a neutral county")
    else:
        county[attack.defender] = attack.defending_armies
        # The event applies before the bonus tile; both add from the defender's own supply.
        draw.extra(attack.defender, palace_defence_bonus(ctx.round.event, attack.buildings),
                   "the palace event's extra defending army")
        draw.extra(attack.defender, ctx.round.bonus_tiles.defence_bonus(attack.defender),
                   "the +1 army of the defence bonus tile")
    draw.extra(attack.attacker, ctx.round.bonus_tiles.attack_bonus(attack.attacker),
               "the +1 army of the attack bonus tile")
    return DropPlan(from_supply=nonzero(draw.taken), from_county=nonzero(county), from_tray=nonzero(ctx.tray_before),
                    shortfalls=tuple(draw.shortfalls))


def revolt_peasants(revolt: Revolt) -> int:
    """Peasants a revolt calls for before the common supply is consulted."""
    extra = supply_chart(revolt.unsupplied_counties).extra_peasants if revolt.unsupplied_counties else 0
    return revolt.revolt_markers + extra


def _plan_revolt(revolt: Revolt) -> DropPlan:
    draw = _SupplyDraw(revolt)
    what = "the revolting peasants" + (" and the supply chart's extra peasants" if revolt.in_winter else "")
    draw.extra(PEASANTS, revolt_peasants(revolt), what)
    return DropPlan(
        from_supply=nonzero(draw.taken),
        from_county={revolt.defender: revolt.defending_armies},
        from_tray=nonzero(revolt.context.tray_before),
        shortfalls=tuple(draw.shortfalls),
    )


def _plan_initial_fill(fill: InitialFill) -> DropPlan:
    needed = {player: INITIAL_FILL_PER_PLAYER for player in fill.players}
    needed[PEASANTS] = INITIAL_FILL_PEASANTS
    supply = fill.context.supply
    if supply is not None:
        for colour, n in needed.items():
            if colour not in fill.context.supply_named:
                raise BattleInputError(
                    f"the supply map does not name {colour}, which the initial fill draws on: "
                    "give every colour the battle may take from the supply, 0 included",
                    json_path("supply", colour),
                )
            if supply.available(colour) < n:
                raise BattleInputError(
                    f"the initial fill needs {n} {colour} cubes but the {colour} supply holds only "
                    f"{supply.available(colour)}",
                    json_path("supply", colour),
                )
    return DropPlan(from_supply=nonzero(needed), from_county={}, from_tray=nonzero(fill.context.tray_before))
