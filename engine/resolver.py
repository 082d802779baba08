"""Resolving a battle from what came out of the tower.

Only the cubes in the tray count. Cubes of factions not involved in the battle are ignored and
stay in the tray. Then:

* Attack: where the contested county has no revolt markers, peasants in the tray fight for the
  defender and are the defender's first losses (survivors go back to the common supply; peasants
  never stand in a county). The side with fewer cubes loses all of them to its supply; the winner
  loses as many as the loser had and places the rest in the county. Equal strength is a tie: both
  sides' cubes go back, and the county is cleared of armies, buildings and revolt markers, its
  card going to the common supply. A defender "win" with none of the defender's own cubes in the
  tray (peasants alone) is a tie. Against a neutral county the peasants are the defender and
  their win is a defender win; the county stays neutral.
* Revolt: the peasants attack the county's owner. A peasant win or a tie returns every involved
  cube and clears the county (armies, buildings, revolt markers; card to the common supply). A
  player win puts the survivors back in the county and, outside winter, adds a revolt marker,
  unless the owner keeps favor card #4 to parry it (``parry_revolt_marker``), and never beyond the
  42 markers of the box.
* Initial fill: every cube in the tray returns to its supply; with the Emperor's Court each player
  first places one courtier per own cube in the tray (at most their 7 courtiers).

Where the rules are silent the engine decides so (each decision and the passage it rests on are in
:mod:`engine.decisions`): a neutral county attacked and tied stays neutral with its card in the
deck; the revolt markers of a county that changes hands stay with the county; the player winning a
revolt loses as many armies as peasants came out; a county never holds more than 42 markers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.box import REVOLT_MARKERS
from engine.colours import PEASANTS
from engine.counts import Counts, add, get, nonzero, subtract
from engine.court import initial_fill_courtiers
from engine.ledger import check_reading
from engine.model import Attack, Battle, CardFate, InitialFill, Outcome, Revolt
from engine.planner import DropPlan


@dataclass(frozen=True)
class CountyAfter:
    """The contested county after the battle."""

    owner: str | None
    armies: int
    revolt_markers: int
    buildings_removed: bool
    card: CardFate

    def to_json(self) -> dict[str, Any]:
        return {
            "owner": self.owner,
            "armies": self.armies,
            "revolt_markers": self.revolt_markers,
            "buildings_removed": self.buildings_removed,
            "card": str(self.card),
        }


@dataclass(frozen=True)
class Resolution:
    """Everything ``tower resolve`` reports about one drop."""

    dropped: Counts
    outcome: Outcome | None
    attacker_in_tray: int
    defender_in_tray: int
    to_supply: Counts
    to_county: Counts
    tray_remaining: Counts
    tower_delta: Counts
    county: CountyAfter | None
    courtiers: Counts | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``tower resolve`` output object."""
        out: dict[str, Any] = {
            "dropped": nonzero(self.dropped),
            "outcome": str(self.outcome) if self.outcome is not None else None,
            "attacker_in_tray": self.attacker_in_tray,
            "defender_in_tray": self.defender_in_tray,
            "to_supply": nonzero(self.to_supply),
            "to_county": nonzero(self.to_county),
            "tray_remaining": nonzero(self.tray_remaining),
            "tower_delta": nonzero(self.tower_delta),
            "county": self.county.to_json() if self.county is not None else None,
        }
        if self.courtiers is not None:
            out["courtiers"] = nonzero(self.courtiers)
        return out


@dataclass(frozen=True)
class _Fight:
    """The result of the cubes of two sides meeting in the tray."""

    outcome: Outcome
    to_supply: dict[str, int]
    to_county: dict[str, int]


def _elsewhere(battle: Battle, plan: DropPlan) -> dict[str, int]:
    """Cubes known to be outside tower and tray after the drop (supply left, armies left behind)."""
    known: dict[str, int] = {}
    supply = battle.context.supply
    if supply is not None:
        known = add(supply.cubes, {c: -n for c, n in plan.from_supply.items()})
    if isinstance(battle, Attack) and battle.origin_armies is not None:
        known = add(known, {battle.attacker: battle.origin_armies - battle.attacking_armies})
    return known


def resolve_drop(battle: Battle, plan: DropPlan, tray_after: Counts) -> Resolution:
    """Resolve ``battle`` (dropped as ``plan``) from the tray reading ``tray_after``.

    Raises :class:`engine.errors.ImpossibleReadingError` for a reading that cannot be true.
    """
    dropped = plan.drop
    tower_before = battle.context.tower_before
    if isinstance(battle, InitialFill) and tower_before is None:
        tower_before = {}  # the tower is empty before the initial fill
    check_reading(dropped, tray_after, tower_before=tower_before, elsewhere=_elsewhere(battle, plan))
    tray = nonzero(tray_after)
    delta = subtract(dropped, tray)
    if isinstance(battle, InitialFill):
        courtiers = initial_fill_courtiers(battle.players, tray) if battle.emperors_court else None
        return Resolution(dropped, None, 0, 0, tray, {}, {}, delta, None, courtiers)
    if isinstance(battle, Attack):
        return _resolve_attack(battle, dropped, tray, delta)
    return _resolve_revolt(battle, dropped, tray, delta)


def _fight(attacker: str, defender: str | None, allies: bool, tray: Counts) -> tuple[int, int, _Fight]:
    """Attacker ``attacker`` against ``defender`` (``None``: peasants alone) with peasant allies or not."""
    a = get(tray, attacker)
    own = get(tray, defender) if defender is not None else 0
    peasants = get(tray, PEASANTS) if allies or defender is None else 0
    d = own + peasants
    involved = {attacker: a, PEASANTS: peasants}
    if defender is not None:
        involved[defender] = own
    if a > d:
        survivors = a - d
        return a, d, _Fight(Outcome.ATTACKER_WINS, subtract(involved, {attacker: survivors}), nonzero({attacker: survivors}))
    if d > a:
        # Peasants are the defender's first losses and never stand in a county.
        own_losses = max(0, a - peasants)
        survivors = own - own_losses
        if defender is not None and survivors > 0:
            return a, d, _Fight(Outcome.DEFENDER_WINS, subtract(involved, {defender: survivors}), {defender: survivors})
        if defender is None:
            return a, d, _Fight(Outcome.DEFENDER_WINS, nonzero(involved), {})
    # A tie, or a player's "win" carried by peasants alone.
    return a, d, _Fight(Outcome.TIE, nonzero(involved), {})


def _remaining(tray: Counts, to_supply: Counts, to_county: Counts) -> dict[str, int]:
    return subtract(tray, add(to_supply, to_county))


def _resolve_attack(attack: Attack, dropped: Counts, tray: Counts, delta: Counts) -> Resolution:
    allies = attack.revolt_markers == 0
    a, d, fight = _fight(attack.attacker, attack.defender, allies, tray)
    neutral = attack.defender is None
    if fight.outcome is Outcome.ATTACKER_WINS:
        county = CountyAfter(
            owner=attack.attacker,
            armies=get(fight.to_county, attack.attacker),
            revolt_markers=attack.revolt_markers,
            buildings_removed=False,
            card=CardFate.TAKEN_FROM_DECK if neutral else CardFate.TRANSFERRED,
        )
    elif fight.outcome is Outcome.DEFENDER_WINS:
        county = CountyAfter(
            owner=attack.defender,
            armies=get(fight.to_county, attack.defender) if attack.defender else 0,
            revolt_markers=attack.revolt_markers,
            buildings_removed=False,
            card=CardFate.STAYS_IN_DECK if neutral else CardFate.KEPT,
        )
    else:
        county = CountyAfter(
            owner=None,
            armies=0,
            revolt_markers=0,
            buildings_removed=bool(attack.buildings),
            card=CardFate.STAYS_IN_DECK if neutral else CardFate.TO_COMMON_SUPPLY,
        )
    return Resolution(
        dropped, fight.outcome, a, d, fight.to_supply, fight.to_county,
        _remaining(tray, fight.to_supply, fight.to_county), delta, county,
    )


def revolt_marker_added(revolt: Revolt) -> int:
    """Markers a revolt the owner wins adds: 1, none in winter, none when favor card #4 parries it."""
    return 0 if revolt.in_winter or revolt.parry_revolt_marker else 1


def _resolve_revolt(revolt: Revolt, dropped: Counts, tray: Counts, delta: Counts) -> Resolution:
    peasants = get(tray, PEASANTS)
    own = get(tray, revolt.defender)
    involved = nonzero({PEASANTS: peasants, revolt.defender: own})
    if own > peasants:
        survivors = own - peasants
        to_county = {revolt.defender: survivors}
        to_supply = subtract(involved, to_county)
        markers = min(REVOLT_MARKERS, revolt.revolt_markers + revolt_marker_added(revolt))
        county = CountyAfter(revolt.defender, survivors, markers, False, CardFate.KEPT)
        outcome = Outcome.DEFENDER_WINS
    else:
        to_county, to_supply = {}, involved
        county = CountyAfter(None, 0, 0, bool(revolt.buildings), CardFate.TO_COMMON_SUPPLY)
        outcome = Outcome.ATTACKER_WINS if peasants > own else Outcome.TIE
    return Resolution(
        dropped, outcome, peasants, own, to_supply, to_county,
        _remaining(tray, to_supply, to_county), delta, county,
    )
