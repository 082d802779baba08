"""The game session at the table: `tower session` (new, round, parry, deploy, undo, end), `tower fill` and
`tower battle`.

Each command opens the station's ``Table`` (which resumes a drop left in flight), does one thing and
prints it. On a simulated station the players' hands are simulated; on real hardware the command
tells the players what to do and waits for the host's Enter before the funnel opens. The court, the
host's corrections and answers, the status and the log are in ``controller.cli.review``.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from controller.cli._render import console, counts_text, plan_panel, result_panel, status_table
from controller.cli._station import (
    action_arg,
    colour_arg,
    guarded,
    immune_arg,
    open_table,
    players_arg,
    print_notes,
    release_and_clean,
    station_flags,
)
from controller.wording import CLI_COUNTY, counts_phrase, round_phrase


def register(subparsers: Any) -> None:
    session = subparsers.add_parser("session", help="start a game session, set the round, record deployments",
                                    description="The game session that the station keeps for battles.")
    sub = session.add_subparsers(dest="session_command", metavar="<action>")
    new = sub.add_parser("new", help="start a new game session")
    new.add_argument("--players", required=True, type=players_arg, help="player colours, e.g. red,blue,yellow")
    new.add_argument("--emperors-court", action="store_true", help="the Emperor's Court expansion is in play")
    new.add_argument("--force", action="store_true", help="start a new game while one is under way (the records keep it)")
    station_flags(new)
    new.set_defaults(handler=_session_new)
    rnd = sub.add_parser("round", help="this round's event card, bonus tiles and each immune player's favor card")
    rnd.add_argument("--event", default=None, help="event id, e.g. churches_safe")
    rnd.add_argument("--attack-bonus", default=None, type=colour_arg, metavar="PLAYER", help="owner of the +1 attack tile")
    rnd.add_argument("--defence-bonus", default=None, type=colour_arg, metavar="PLAYER", help="owner of the +1 defence tile")
    rnd.add_argument("--immune", default={}, type=immune_arg, metavar="PLAYER[=A|B|both],...",
                     help="players a favor card (#10, #11, #18) protects this round against Combat/Movement A, "
                          "B or both, e.g. red=A,blue=both (a bare colour: both)")
    rnd.add_argument("--json", action="store_true", help="print the round as one JSON object")
    station_flags(rnd)
    rnd.set_defaults(handler=_session_round)
    parry = sub.add_parser("parry", help="who keeps favor card #4 to parry the next revolt marker")
    who = parry.add_mutually_exclusive_group(required=True)
    who.add_argument("--player", type=colour_arg, help="the player keeping favor card #4 (a revolt they win then adds no marker "
                                      "and spends the card)")
    who.add_argument("--none", action="store_true", help="nobody keeps it (e.g. spent on a marker placed without a battle)")
    station_flags(parry)
    parry.set_defaults(handler=_session_parry)
    end = sub.add_parser("end", help="the game ends: a summary of its battles, kept in the records")
    end.add_argument("--who", default="host", help="who ends the game (kept in the record)")
    end.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    station_flags(end)
    end.set_defaults(handler=_session_end)
    undo = sub.add_parser("undo", help="take back the last between-battle action (recorded; nothing is erased)",
                          description="Take back the last between-battle action: a round's settings, a "
                                      "deployment, a court conversion or return, armies placed into the tray, "
                                      "favor card #4, or a new session started by mistake. The undo is one more "
                                      "record; the undone one stays in the log. A battle is never undone: "
                                      "correct its reading instead (tower correct).")
    undo.add_argument("--who", default="host", help="who undoes it (kept in the record)")
    station_flags(undo)
    undo.set_defaults(handler=_session_undo)
    dep = sub.add_parser("deploy", help="armies placed on the map from a supply (negative: taken back)")
    dep.add_argument("--player", required=True, type=colour_arg)
    dep.add_argument("--armies", required=True, type=int)
    station_flags(dep)
    dep.set_defaults(handler=_session_deploy)

    fill = subparsers.add_parser("fill", help="the initial fill of the tower (7 cubes per player, 10 peasants)")
    fill.add_argument("--yes", action="store_true", help="do not wait for Enter before releasing")
    station_flags(fill)
    fill.set_defaults(handler=lambda a: _drop(a, {"battle": "initial_fill"}))

    battle = subparsers.add_parser("battle", help="drop and resolve a battle on the station")
    bsub = battle.add_subparsers(dest="battle_command", metavar="<kind>")
    attack = bsub.add_parser("attack", help="an attack on a player's or a neutral county")
    attack.add_argument("--attacker", required=True, type=colour_arg)
    attack.add_argument("--armies", required=True, type=int, help="armies moved into the county")
    attack.add_argument("--origin-armies", type=int, default=None, help="armies in the origin before the move")
    attack.add_argument("--defender", default=None, type=colour_arg, help="the county's owner (omit for a neutral county)")
    attack.add_argument("--defending", type=int, default=0, help="armies in the county")
    attack.add_argument("--action", type=action_arg, default=None, metavar="A|B",
                        help="the action card of the attack, Combat/Movement A or B (needed where the defender "
                             "holds a favor card against one of them this round)")
    for p in (attack,):
        _battle_common(p)
    attack.set_defaults(handler=_attack)
    revolt = bsub.add_parser("revolt", help="collecting grain or taxes in a county with revolt markers")
    revolt.add_argument("--player", required=True, type=colour_arg, help="the county's owner")
    revolt.add_argument("--armies", required=True, type=int, help="armies in the county")
    _battle_common(revolt)
    revolt.set_defaults(handler=lambda a: _drop(a, _county_battle(a, "revolt")), flag_names=CLI_COUNTY)
    winter = bsub.add_parser("winter-revolt", help="an undersupplied county revolts in winter")
    winter.add_argument("--player", required=True, type=colour_arg, help="the county's owner")
    winter.add_argument("--armies", required=True, type=int, help="armies in the county")
    winter.add_argument("--unsupplied", required=True, type=int, help="the player's unsupplied counties")
    _battle_common(winter)
    winter.set_defaults(handler=lambda a: _drop(a, {**_county_battle(a, "winter_revolt"),
                                                   "unsupplied_counties": a.unsupplied}), flag_names=CLI_COUNTY)


def _battle_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--revolt-markers", type=int, default=0)
    parser.add_argument("--buildings", type=players_arg, default=[], help="palace,church,trading_post")
    parser.add_argument("--yes", action="store_true", help="do not wait for Enter before releasing")
    station_flags(parser)


def _county_battle(args: argparse.Namespace, kind: str) -> dict[str, Any]:
    return {"battle": kind, "defender": args.player, "defending_armies": args.armies,
            "revolt_markers": args.revolt_markers, "buildings": args.buildings}


def _attack(args: argparse.Namespace) -> int:
    battle: dict[str, Any] = {"battle": "attack", "attacker": args.attacker, "attacking_armies": args.armies,
                              "defender": args.defender, "defending_armies": args.defending,
                              "revolt_markers": args.revolt_markers, "buildings": args.buildings}
    if args.origin_armies is not None:
        battle["origin_armies"] = args.origin_armies
    if args.action is not None:
        battle["action"] = args.action
    return _drop(args, battle)


@guarded
def _session_new(args: argparse.Namespace) -> int:
    with open_table(args) as table:
        status = table.new_session(args.players, args.emperors_court, args.force)
        console().print(f"Session {status['session']['session_id']} started: {', '.join(args.players)}"
                        + (" with the Emperor's Court" if args.emperors_court else ""))
        console().print(status_table(status))
        if status.get("emptied") is not None:
            taken = status["emptied"]
            console().print("The simulated hands emptied the tower, the tray and the funnel"
                            + (f" (took out {counts_phrase(taken)})" if taken else " (they were empty)") + ".")
        else:
            console().print("[bold]Empty the tower[/] (turn it over and shake it), [bold]the tray and the funnel[/] "
                            "before `tower fill`: the tower ledger starts from an empty tower.")
    return 0


@guarded
def _session_end(args: argparse.Namespace) -> int:
    with open_table(args) as table:
        ended = table.end_session(args.who)
    if args.json:
        print(json.dumps(ended["summary"]))
        return 0
    print_game_end(ended["summary"])
    return 0


def print_game_end(summary: dict[str, Any]) -> None:
    out = console()
    out.print(f"The game's end (session {summary['session_id']}): {summary['text']}", highlight=False)
    for row in summary["battles"]:
        out.print(f"  drop {row['drop_id']}: {row['text']}", highlight=False)
    out.print("in the tower: ", counts_text(summary["tower"]))


@guarded
def _session_undo(args: argparse.Namespace) -> int:
    with open_table(args) as table:
        done = table.undo(args.who)
        print(f"undone: {done['message'].removeprefix('undone: ')}")
        console().print(status_table(table.status()))
    return 0


@guarded
def _session_round(args: argparse.Namespace) -> int:
    with open_table(args) as table:
        rnd = table.set_round(args.event, {"attack_plus_one": args.attack_bonus,
                                           "defence_plus_one": args.defence_bonus}, args.immune)
        if args.json:
            print(json.dumps(rnd))
        else:
            print(f"this round: {round_phrase(rnd)}")
    return 0


@guarded
def _session_parry(args: argparse.Namespace) -> int:
    with open_table(args) as table:
        holder = table.keep_parry_card(None if args.none else args.player)["parry_card"]
        print(f"{holder} keeps favor card #4: the next revolt they win adds no revolt marker and spends it"
              if holder else "nobody keeps favor card #4")
    return 0


@guarded
def _session_deploy(args: argparse.Namespace) -> int:
    with open_table(args) as table:
        console().print(status_table(table.deploy(args.player, args.armies)))
    return 0


@guarded
def _drop(args: argparse.Namespace, battle: dict[str, Any]) -> int:
    out = console()
    with open_table(args) as table:
        if table.resumed:
            out.print("[yellow]A drop was in flight when the station stopped; it was finished without a second release:[/]")
            out.print(result_panel(table.resumed))
        planned = table.plan(battle)
        out.print(plan_panel(planned))
        print_notes(out, planned)
        return release_and_clean(args, table, planned["drop_id"], notes_shown=planned.get("notes", []))
