"""The demo's scripted game on the simulated station (``tower demo``, ``make demo``).

Four players with the Emperor's Court. After the line-up and the initial fill, each round plays one
of every kind: an attack on a player's county, an attack on a neutral county, a tax revolt, a
dice-tower card at the Emperor's Court, and a winter revolt; the round's event card and bonus tiles
change from round to round. Every drop goes through the whole station: the simulated players load
the funnel, the servo releases it, the simulated camera's photos are settled, counted and
annotated, the reading is verified and the engine resolves it, and the players clear the tray.

The script is data (:func:`script`); :func:`play` runs it on a ``Table`` and reports each step to a
callback, so that the CLI only renders.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from controller.table import Table

PLAYERS = ["red", "blue", "yellow", "purple"]
LINE_UP_ARMIES = 20
EVENTS = [None, "palace_defender_plus_one", "neutral_two_peasants", "tax_max_5", "churches_safe", None,
          "grain_min_4", "palace_defender_plus_one", "neutral_two_peasants", None]


@dataclass
class Step:
    kind: str  # "round", "attack", "attack_neutral", "revolt", "winter_revolt", "court"
    title: str
    data: dict[str, Any] = field(default_factory=dict)


def script(rounds: int = 10) -> list[Step]:
    """The scripted game: ``rounds`` rounds of one battle of every kind (and a court conversion)."""
    steps: list[Step] = []
    n = len(PLAYERS)
    for r in range(rounds):
        a, d, o, q = (PLAYERS[(r + k) % n] for k in range(4))
        event = EVENTS[r % len(EVENTS)]
        tiles = {"attack_plus_one": PLAYERS[(r + 2) % n] if r % 2 else None,
                 "defence_plus_one": PLAYERS[(r + 1) % n] if r % 3 == 1 else None}
        steps.append(Step("round", f"Round {r + 1}", {"event": event, "bonus_tiles": tiles}))
        buildings = [["palace"], [], ["trading_post"], []][r % 4]
        steps.append(Step("attack", f"{a} attacks {d}'s county",
                          {"battle": "attack", "attacker": a, "attacking_armies": 3 + r % 3,
                           "origin_armies": 5 + r % 3, "defender": d, "defending_armies": 2 + r % 2,
                           "revolt_markers": r % 2, "buildings": buildings}))
        steps.append(Step("attack_neutral", f"{o} marches into a neutral county",
                          {"battle": "attack", "attacker": o, "attacking_armies": 2 + r % 2, "defender": None,
                           "defending_armies": 0}))
        steps.append(Step("revolt", f"{q} collects taxes in a restless county",
                          {"battle": "revolt", "defender": q, "defending_armies": 1 + r % 3,
                           "revolt_markers": 1 + r % 2, "buildings": [["church"], []][r % 2]}))
        steps.append(Step("court", "Emperor's Court: a dice-tower card", {"cubes": 1 + r % 3, "first": a}))
        steps.append(Step("winter_revolt", f"winter: {d}'s undersupplied county revolts",
                          {"battle": "winter_revolt", "defender": d, "defending_armies": 1 + r % 2,
                           "revolt_markers": r % 2, "unsupplied_counties": 1 + (2 * r) % 8}))
    return steps


def _court_step(table: Table, step: Step) -> dict[str, Any]:
    """The card's owner is the first player in turn order with own armies in the tray; a card bigger
    than what lies there converts what it can (the player chose the box), and a player whose
    courtiers are all at the court first sends two home (spent on a favor card)."""
    status = table.status()
    start = PLAYERS.index(step.data["first"])
    order = PLAYERS[start:] + PLAYERS[:start]
    holder = next((p for p in order if status["tray"].get(p, 0) > 0), None)
    if holder is None:
        return {"performed": False, "message": "no player has armies lying in the tray: every card is a money card"}
    returned = 0
    if status["courtiers"].get(holder, 0) >= 6:
        returned = 2
        table.court_return(holder, returned)
    cubes = min(step.data["cubes"], status["tray"][holder])
    result = table.court_convert(holder, cubes)
    result["returned"] = returned
    return result


def play(table: Any, *, rounds: int = 10, on_step: Callable[[str, Step, dict[str, Any]], None] | None = None) -> dict[str, int]:
    """Play the whole script; ``on_step(stage, step, info)`` is told of each stage. Returns counts per kind."""
    report = on_step or (lambda stage, step, info: None)
    done: dict[str, int] = {}
    table.new_session(PLAYERS, emperors_court=True)
    for p in PLAYERS:
        table.deploy(p, LINE_UP_ARMIES)
    fill = Step("initial_fill", "Set-up: the initial fill of the tower", {"battle": "initial_fill"})
    for step in [fill, *script(rounds)]:
        if step.kind == "round":
            table.set_round(step.data["event"], step.data["bonus_tiles"], [])
            report("round", step, step.data)
            continue
        if step.kind == "court":
            report("court", step, _court_step(table, step))
            done["court"] = done.get("court", 0) + 1
            continue
        planned = table.plan(step.data)
        report("planned", step, planned)
        view = table.release(planned["drop_id"])
        if view["needs_confirmation"]:  # the demo's host looks at the photo and confirms what the camera read
            report("doubt", step, view)
            view = table.confirm(view["drop_id"], who="host")  # shown as the host, in every language
        report("resolved", step, view)
        done[step.kind] = done.get(step.kind, 0) + 1
    table.clean()
    return done
