"""`tower demo`: a short scripted game played through the rules engine (no hardware yet).

Until the station drives simulated hardware, the demo plays a fixed sequence of battles with fixed
tray readings, chosen to show the rules at work: the initial fill with the Emperor's Court, the
rulebook's Kursachsen attack, a tax revolt, peasants defending a neutral county, a tie that clears
a palace county, a winter revolt and a dice-tower card. It keeps the supplies, the tray and the
tower ledger between battles with the engine's building blocks, hands them to every battle (so the
engine checks each reading against the ledger), and prints each drop and outcome as tables.

The script (``SCRIPT``) is plain data so that the later station demo can replay it on simulated
hardware.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PLAYERS = ("red", "blue", "yellow")
LINE_UP_ARMIES = 27
"""Armies each player deploys on the map with the rulebook's default 3-player line-up (5+4+4+3+3+2+2+2+2)."""


@dataclass(frozen=True)
class ScriptedBattle:
    """One battle of the demo and the tray as it is read after the drop."""

    title: str
    battle: dict[str, Any]
    tray_after: dict[str, int]


@dataclass(frozen=True)
class ScriptedConversion:
    """A dice-tower card at the Emperor's Court: ``armies`` own cubes from the tray become courtiers."""

    title: str
    player: str
    armies: int


@dataclass
class DemoState:
    """What the demo remembers between drops (the later controller keeps this in its session)."""

    supplies: Any
    ledger: Any
    tray: dict[str, int] = field(default_factory=dict)
    courtiers: dict[str, int] = field(default_factory=dict)


_NO_TILES = {"attack_plus_one": None, "defence_plus_one": None}

SCRIPT: tuple[ScriptedBattle | ScriptedConversion, ...] = (
    ScriptedBattle(
        "Set-up: the initial fill, with the Emperor's Court",
        {"battle": "initial_fill", "players": list(PLAYERS), "emperors_court": True},
        {"green": 2, "blue": 2, "red": 2, "yellow": 1},
    ),
    ScriptedBattle(
        "Spring: Blue attacks Yellow's Kursachsen (3 armies) with 4 from Anhalt",
        {"battle": "attack", "attacker": "blue", "attacking_armies": 4, "origin_armies": 6,
         "defender": "yellow", "defending_armies": 3, "revolt_markers": 0, "buildings": [],
         "event": None, "bonus_tiles": _NO_TILES, "immune": []},
        {"blue": 3, "yellow": 1, "green": 1},
    ),
    ScriptedBattle(
        "Spring: Red collects taxes in Lüneburg (2 revolt markers)",
        {"battle": "revolt", "defender": "red", "defending_armies": 4, "revolt_markers": 2,
         "buildings": ["church"], "event": None},
        {"red": 3, "green": 1, "blue": 1},
    ),
    ScriptedBattle(
        "Summer: Yellow (+1 attacking) attacks a neutral county; 2 peasants defend",
        {"battle": "attack", "attacker": "yellow", "attacking_armies": 2, "defender": None,
         "defending_armies": 0, "event": "neutral_two_peasants",
         "bonus_tiles": {"attack_plus_one": "yellow", "defence_plus_one": None}},
        {"green": 3, "yellow": 2, "blue": 1},
    ),
    ScriptedBattle(
        "Fall: Red attacks Blue's palace county (palace event, Blue +1 defending)",
        {"battle": "attack", "attacker": "red", "attacking_armies": 3, "defender": "blue",
         "defending_armies": 2, "buildings": ["palace"], "event": "palace_defender_plus_one",
         "bonus_tiles": {"attack_plus_one": None, "defence_plus_one": "blue"}},
        {"red": 3, "blue": 2, "green": 1},
    ),
    ScriptedBattle(
        "Winter: Blue, 9 counties, 7 grain: Anhalt (1 revolt marker) revolts",
        {"battle": "winter_revolt", "defender": "blue", "defending_armies": 2, "revolt_markers": 1,
         "unsupplied_counties": 2},
        {"green": 2, "blue": 1, "yellow": 2},
    ),
    ScriptedConversion("Emperor's Court: Yellow's dice-tower card converts 2 armies", "yellow", 2),
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="play a short scripted sequence of battles through the rules engine",
        description="Play a scripted sequence of battles through the rules engine and print each "
        "battle's drop and outcome, with the supplies and the tower ledger kept in between.",
    )
    parser.set_defaults(handler=_run)


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {c}" for c, n in counts.items()) or "-"


def _drop_table(plan: dict[str, Any]) -> Any:
    from rich.table import Table

    table = Table(title="Drop", title_justify="left")
    for header in ("colour", "from supply", "from county", "from tray", "dropped"):
        table.add_column(header, justify="left" if header == "colour" else "right")
    for colour, n in plan["drop"].items():
        table.add_row(
            f"[{_style(colour)}]{colour}[/]",
            *(str(plan[k].get(colour, "")) for k in ("from_supply", "from_county", "from_tray")),
            str(n),
        )
    return table


def _tray_table(tray_after: dict[str, int], result: dict[str, Any]) -> Any:
    from rich.table import Table

    table = Table(title="Tray after the drop", title_justify="left")
    for header in ("colour", "in tray", "to supply", "to county", "stays in tray", "tower delta"):
        table.add_column(header, justify="left" if header == "colour" else "right")
    colours = [c for c in ("red", "blue", "yellow", "purple", "black", "green")
               if c in tray_after or c in result["tower_delta"]]
    for colour in colours:
        table.add_row(
            f"[{_style(colour)}]{colour}[/]",
            str(tray_after.get(colour, 0)),
            *(str(result[k].get(colour, "")) for k in ("to_supply", "to_county", "tray_remaining")),
            f"{result['tower_delta'].get(colour, 0):+d}",
        )
    return table


def _style(colour: str) -> str:
    return {"purple": "magenta", "black": "bright_black"}.get(colour, colour)


def _outcome_line(battle: dict[str, Any], result: dict[str, Any]) -> str:
    if result["outcome"] is None:
        courtiers = result.get("courtiers")
        extra = f"; courtiers to the entrance hall: {_counts(courtiers)}" if courtiers else ""
        return f"Every cube in the tray returns to its supply{extra}."
    # In a revolt the peasants attack; against a neutral county they defend.
    attacker = f"{battle['attacker']} wins" if battle.get("attacker") else "the peasants win"
    defender = f"{battle['defender']} wins" if battle.get("defender") else "the peasants win"
    outcome = {"attacker_wins": attacker, "defender_wins": defender, "tie": "a tie"}[result["outcome"]]
    county = result["county"]
    owner = county["owner"] or "nobody (neutral)"
    parts = [
        f"Outcome: [bold]{outcome}[/] ({result['attacker_in_tray']} : {result['defender_in_tray']} in the tray)",
        f"county: {owner}, {county['armies']} {'army' if county['armies'] == 1 else 'armies'}, "
        f"{county['revolt_markers']} revolt markers",
        f"card {county['card'].replace('_', ' ')}",
    ]
    if county["buildings_removed"]:
        parts.append("buildings removed")
    return "; ".join(parts) + "."


def _play_battle(step: ScriptedBattle, state: DemoState, console: Any) -> None:
    from engine import api

    data = {
        **step.battle,
        "tray_before": dict(state.tray),
        "tower_before": state.ledger.to_json(),
        "supply": state.supplies.to_json(),
        "tray_after": step.tray_after,
    }
    plan = api.plan(data)
    result = api.resolve(data)
    console.print(_drop_table(plan))
    console.print(_tray_table(step.tray_after, result))
    console.print(_outcome_line(step.battle, result))
    state.supplies = state.supplies.after_drop(plan["from_supply"], result["to_supply"])
    state.ledger = state.ledger.after_drop(result["dropped"], step.tray_after)
    state.tray = dict(result["tray_remaining"])
    for colour, n in (result.get("courtiers") or {}).items():
        state.courtiers[colour] = state.courtiers.get(colour, 0) + n


def _play_conversion(step: ScriptedConversion, state: DemoState, console: Any) -> None:
    from engine.court import COURTIERS_PER_PLAYER, convert_from_tray

    left = COURTIERS_PER_PLAYER - state.courtiers.get(step.player, 0)
    conversion, tray = convert_from_tray(step.player, step.armies, state.tray, courtiers_in_supply=left)
    if not conversion.performed:
        console.print(f"Not performed: {conversion.reason}.")
        return
    state.tray = tray
    state.supplies = state.supplies.give({step.player: conversion.armies_to_supply})
    state.courtiers[step.player] = state.courtiers.get(step.player, 0) + conversion.courtiers_placed
    console.print(
        f"{step.player} takes {conversion.armies_to_supply} cubes from the tray back to the supply and "
        f"places {conversion.courtiers_placed} courtiers; the tray now holds {_counts(tray) if tray else 'nothing'}."
    )


def _summary(state: DemoState) -> Any:
    from rich.table import Table

    table = Table(title="After the script", title_justify="left")
    for header in ("colour", "supply", "inside the tower", "in the tray", "courtiers placed"):
        table.add_column(header, justify="left" if header == "colour" else "right")
    for colour in (*PLAYERS, "green"):
        table.add_row(
            f"[{_style(colour)}]{colour}[/]",
            str(state.supplies.available(colour)),
            str(state.ledger.inside.get(colour, 0)),
            str(state.tray.get(colour, 0)),
            str(state.courtiers.get(colour, "")) if colour != "green" else "",
        )
    return table


def _run(_args: Any) -> int:
    from rich.console import Console

    from engine.ledger import TowerLedger
    from engine.supply import Supplies

    console = Console()
    from engine.errors import BattleInputError

    on_map = dict.fromkeys(PLAYERS, LINE_UP_ARMIES)
    state = DemoState(supplies=Supplies.full(PLAYERS).take(on_map), ledger=TowerLedger.empty())
    console.rule("[bold]Wallenstein tower: a scripted game through the rules engine")
    for number, step in enumerate(SCRIPT, start=1):
        console.rule(f"{number}. {step.title}", align="left")
        try:
            if isinstance(step, ScriptedBattle):
                _play_battle(step, state, console)
            else:
                _play_conversion(step, state, console)
        except BattleInputError as exc:  # the script and the engine disagree: say so, stop
            console.print(f"[red]The engine rejects this step:[/] {exc.message} (field {exc.field})")
            return 1
    console.rule()
    console.print(_summary(state))
    return 0
