"""Where the rulebooks are silent and the engine decided, with the passage each decision rests on.

The rulebooks (``rules/`` beside the contract: the first edition with the Emperor's Court, and the
second edition with its expansions) are the authority. Where they do not settle a case a battle can
reach, the engine decides as listed here, and the functions below turn each decision into a short
note for the table when it applies, so that a player is never surprised by a silent rule. Citations
name the rulebook section and the page the books themselves give; the text is not quoted.

1. **A card that puts armies into the tray pays what the supply holds** (favor cards #3, #8, #14;
   the bonus-card benefit "place N armies into the tray"). Rests on the favor card list (2nd
   edition, Emperor's Court, "The favor cards", p. 20: the armies come from the player's own
   supply) and on the Emperor's Court step "Take advantage of the Court's favor" (1st edition,
   pp. 13-16: a favor is applied at once where possible). The books do not say what a short supply
   does; each army is a separate gift, so a short supply shrinks the gift instead of cancelling it
   (contrast the dice-tower conversions, which the books say are not performed at all when they
   cannot be completed). :func:`tray_placement_note`.
2. **An extra the supply cannot pay is left out** (a bonus tile's army, the palace event's army, a
   neutral county's peasants, the peasants of a revolt). Rests on the components (62 cubes per
   colour, 20 peasants: "Game components" of the basic game) and on "Armies participating in battle" (Combat
   rules, p. 11), which take every extra from a supply; a cube that is not there cannot be dropped.
   What the supply holds is the ``supply`` map where given, and always the box less the cubes known
   to be in the tower, the tray and the counties (:mod:`engine.box`). :func:`plan_notes`.
3. **The palace event and the bonus tiles act in attacks only, not in revolts.** Rests on the event
   card's own condition (a county with a palace *is attacked*: 2nd edition, event cards) and on the
   bonus tiles (+1 army when attacking / defending with Combat/Movement A or B), against "When is
   battle taking place?" (Combat rules, p. 11), which lists an attack (Combat/Movement A or B) and a
   revolt (collecting grain or taxes, winter) as separate situations. :func:`plan_notes`.
4. **The player who wins a revolt loses as many armies as peasants came out.** "Peasants vs. a
   player" (Combat rules, p. 11) says only that the winner puts the remaining armies back; the
   engine reads "remaining" with the general rule for a winner's losses ("Player vs. player or vs.
   a neutral county", same page: the winner loses as many as the loser had). :func:`resolution_notes`.
5. **No county holds more than 42 revolt markers**: the box holds 42 ("Game components"); a
   revolt won in a county that holds them all adds none. :func:`resolution_notes`.
6. **Favor card #4 kept to parry the next revolt marker** (2nd edition, "The favor cards", p. 20,
   card #4, and the note there that #4, #10, #11 and #18 are not applied at once) parries the
   marker a revolt the owner wins would add; the card is then spent. A marker placed where grain or
   taxes are collected without a revolt (the actions "Collect grain" and "Collect taxes") involves
   no drop and is the table's to parry. :func:`resolution_notes`.
7. **Immunity is per action**: favor cards #10, #11 and #18 (2nd edition, p. 20) protect against
   Combat/Movement A, B, or either, for the round; an attack that does not say its action cannot
   target a player immune to one of the two (the engine will not guess). See :mod:`engine.legality`.

The other decisions where the books are silent are listed in :mod:`engine` (the package docstring).
"""

from __future__ import annotations

from engine.box import REVOLT_MARKERS
from engine.colours import PEASANTS
from engine.counts import get
from engine.events import Event
from engine.model import Battle, Building, Outcome, Revolt
from engine.planner import DropPlan, Shortfall
from engine.resolver import Resolution, revolt_marker_added

SILENT = "the rulebooks are silent here; the engine's decision is in engine/decisions.py"
"""The reference every note ends with."""


def _armies(n: int) -> str:
    return f"{n} arm{'y' if n == 1 else 'ies'}"


def _supply_name(colour: str) -> str:
    return "the common supply of peasants" if colour == PEASANTS else f"the {colour} supply"


def tray_placement_note(player: str, wanted: int, placed: int) -> str | None:
    """Decision 1, where it applies: a card put fewer armies into the tray than it says."""
    if placed >= wanted:
        return None
    return (f"only {placed} of {_armies(wanted)} could be placed: the {player} supply is empty "
            f"({SILENT}, decision 1)")


def _shortfall_note(short: Shortfall) -> str:
    one = short.wanted == 1
    cubes = ("peasant" if one else "peasants") if short.colour == PEASANTS else ("army" if one else "armies")
    where = _supply_name(short.colour)
    why = (f"{where} is empty" if short.cause == "supply"
           else f"{where} is empty: the box's other {short.colour} cubes are in the tower, the tray or the counties")
    return f"{short.what}: only {short.granted} of {short.wanted} {cubes} could be added, {why} ({SILENT}, decision 2)"


def plan_notes(battle: Battle, plan: DropPlan) -> list[str]:
    """Decisions 2 and 3, where they change this battle's drop."""
    notes = [_shortfall_note(short) for short in plan.shortfalls]
    if isinstance(battle, Revolt):
        rnd = battle.context.round
        if rnd.event is Event.PALACE_DEFENDER_PLUS_ONE and Building.PALACE in battle.buildings:
            notes.append(f"the palace event adds no army in a revolt, only when a county is attacked ({SILENT}, decision 3)")
        if rnd.bonus_tiles.defence_bonus(battle.defender):
            notes.append(f"the +1 defence bonus tile adds no army in a revolt, only in an attack ({SILENT}, decision 3)")
    return notes


def resolution_notes(battle: Battle, resolution: Resolution) -> list[str]:
    """Decisions 4, 5 and 6, where they decide this battle's result."""
    if not isinstance(battle, Revolt) or resolution.outcome is not Outcome.DEFENDER_WINS:
        return []
    notes: list[str] = []
    peasants = get(resolution.to_supply, PEASANTS)
    if peasants:
        notes.append(f"{battle.defender} wins the revolt and loses {_armies(peasants)}, as many as the peasants "
                     f"in the tray ({SILENT}, decision 4)")
    if battle.parry_revolt_marker:
        notes.append("favor card #4 parries the revolt marker this won revolt would add: none is added, "
                     "and the card is spent")
    elif revolt_marker_added(battle) and battle.revolt_markers >= REVOLT_MARKERS:
        notes.append(f"the county holds all {REVOLT_MARKERS} revolt markers of the box, so none is added "
                     f"({SILENT}, decision 5)")
    return notes


def notes(battle: Battle, plan: DropPlan, resolution: Resolution | None = None) -> list[str]:
    """Every note for this battle: its drop's, and its result's where resolved."""
    found = plan_notes(battle, plan)
    if resolution is not None:
        found += resolution_notes(battle, resolution)
    return found


def parry_spent(battle: Battle, resolution: Resolution) -> bool:
    """True when this battle spends favor card #4 (the owner kept it and won the revolt)."""
    return (isinstance(battle, Revolt) and battle.parry_revolt_marker
            and resolution.outcome is Outcome.DEFENDER_WINS)

