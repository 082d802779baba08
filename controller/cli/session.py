"""The game session at the table: `tower session`, `fill`, `battle`, `court`, `correct`, `answer`, `status`, `log`.

Each command opens the station's ``Table`` (which resumes a drop left in flight), does one thing and
prints it. On a simulated station the players' hands are simulated; on real hardware the command
tells the players what to do and waits for the host's Enter before the funnel opens.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from controller.wording import CLI_ATTACK, CLI_COUNTY

EXIT_REFUSED = 2


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE", help="station config (default: the simulated station)")
    parser.add_argument("--data-dir", metavar="DIR", help="records directory (default: the config's data_dir)")


def _players(text: str) -> list[str]:
    return [p.strip().lower() for p in text.split(",") if p.strip()]


def _colour(text: str) -> str:
    """A player colour as typed: ``Red`` and ``red`` are the same player."""
    return text.strip().lower()


def _immune(text: str) -> dict[str, str]:
    """``red=A,blue=both,yellow``: the favor card (#10, #11, #18) each immune player holds; a bare
    colour is immune to both actions."""
    out: dict[str, str] = {}
    for item in _players(text):
        player, _, protects = item.partition("=")
        protects = protects.strip() or "both"
        if protects.upper() in ("A", "B"):
            protects = protects.upper()
        if protects not in ("A", "B", "both"):
            raise argparse.ArgumentTypeError(
                f"expected PLAYER=A, PLAYER=B or PLAYER=both (or a bare PLAYER: both), got \"{item}\"")
        out[player.strip().lower()] = protects
    return out


def _action(text: str) -> str:
    if text.upper() not in ("A", "B"):
        raise argparse.ArgumentTypeError(f"the action card is A or B (Combat/Movement A or B), not \"{text}\"")
    return text.upper()


def _counts(items: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in items:
        colour, _, n = item.partition("=")
        if not n.strip().isdigit():
            raise ValueError(f"expected COLOUR=N with N a whole number >= 0, got \"{item}\"")  # exit 2, no traceback
        out[colour.strip().lower()] = int(n)
    return out


def register(subparsers: Any) -> None:
    session = subparsers.add_parser("session", help="start a game session, set the round, record deployments",
                                    description="The game session that the station keeps for battles.")
    sub = session.add_subparsers(dest="session_command", metavar="<action>")
    new = sub.add_parser("new", help="start a new game session")
    new.add_argument("--players", required=True, type=_players, help="player colours, e.g. red,blue,yellow")
    new.add_argument("--emperors-court", action="store_true", help="the Emperor's Court expansion is in play")
    new.add_argument("--force", action="store_true", help="start a new game while one is under way (the records keep it)")
    _common(new)
    new.set_defaults(handler=_session_new)
    rnd = sub.add_parser("round", help="this round's event card, bonus tiles and each immune player's favor card")
    rnd.add_argument("--event", default=None, help="event id, e.g. churches_safe")
    rnd.add_argument("--attack-bonus", default=None, type=_colour, metavar="PLAYER", help="owner of the +1 attack tile")
    rnd.add_argument("--defence-bonus", default=None, type=_colour, metavar="PLAYER", help="owner of the +1 defence tile")
    rnd.add_argument("--immune", default={}, type=_immune, metavar="PLAYER[=A|B|both],...",
                     help="players a favor card (#10, #11, #18) protects this round against Combat/Movement A, "
                          "B or both, e.g. red=A,blue=both (a bare colour: both)")
    rnd.add_argument("--json", action="store_true", help="print the round as one JSON object")
    _common(rnd)
    rnd.set_defaults(handler=_session_round)
    parry = sub.add_parser("parry", help="who keeps favor card #4 to parry the next revolt marker")
    who = parry.add_mutually_exclusive_group(required=True)
    who.add_argument("--player", type=_colour, help="the player keeping favor card #4 (a revolt they win then adds no marker "
                                      "and spends the card)")
    who.add_argument("--none", action="store_true", help="nobody keeps it (e.g. spent on a marker placed without a battle)")
    _common(parry)
    parry.set_defaults(handler=_session_parry)
    end = sub.add_parser("end", help="the game ends: a summary of its battles, kept in the records")
    end.add_argument("--who", default="host", help="who ends the game (kept in the record)")
    end.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    _common(end)
    end.set_defaults(handler=_session_end)
    undo = sub.add_parser("undo", help="take back the last between-battle action (recorded; nothing is erased)",
                          description="Take back the last between-battle action: a round's settings, a "
                                      "deployment, a court conversion or return, armies placed into the tray, "
                                      "favor card #4, or a new session started by mistake. The undo is one more "
                                      "record; the undone one stays in the log. A battle is never undone: "
                                      "correct its reading instead (tower correct).")
    undo.add_argument("--who", default="host", help="who undoes it (kept in the record)")
    _common(undo)
    undo.set_defaults(handler=_session_undo)
    dep = sub.add_parser("deploy", help="armies placed on the map from a supply (negative: taken back)")
    dep.add_argument("--player", required=True, type=_colour)
    dep.add_argument("--armies", required=True, type=int)
    _common(dep)
    dep.set_defaults(handler=_session_deploy)

    fill = subparsers.add_parser("fill", help="the initial fill of the tower (7 cubes per player, 10 peasants)")
    fill.add_argument("--yes", action="store_true", help="do not wait for Enter before releasing")
    _common(fill)
    fill.set_defaults(handler=lambda a: _drop(a, {"battle": "initial_fill"}))

    battle = subparsers.add_parser("battle", help="drop and resolve a battle on the station")
    bsub = battle.add_subparsers(dest="battle_command", metavar="<kind>")
    attack = bsub.add_parser("attack", help="an attack on a player's or a neutral county")
    attack.add_argument("--attacker", required=True, type=_colour)
    attack.add_argument("--armies", required=True, type=int, help="armies moved into the county")
    attack.add_argument("--origin-armies", type=int, default=None, help="armies in the origin before the move")
    attack.add_argument("--defender", default=None, type=_colour, help="the county's owner (omit for a neutral county)")
    attack.add_argument("--defending", type=int, default=0, help="armies in the county")
    attack.add_argument("--action", type=_action, default=None, metavar="A|B",
                        help="the action card of the attack, Combat/Movement A or B (needed where the defender "
                             "holds a favor card against one of them this round)")
    for p in (attack,):
        _battle_common(p)
    attack.set_defaults(handler=_attack)
    revolt = bsub.add_parser("revolt", help="collecting grain or taxes in a county with revolt markers")
    revolt.add_argument("--player", required=True, type=_colour, help="the county's owner")
    revolt.add_argument("--armies", required=True, type=int, help="armies in the county")
    _battle_common(revolt)
    revolt.set_defaults(handler=lambda a: _drop(a, _county_battle(a, "revolt")), flag_names=CLI_COUNTY)
    winter = bsub.add_parser("winter-revolt", help="an undersupplied county revolts in winter")
    winter.add_argument("--player", required=True, type=_colour, help="the county's owner")
    winter.add_argument("--armies", required=True, type=int, help="armies in the county")
    winter.add_argument("--unsupplied", required=True, type=int, help="the player's unsupplied counties")
    _battle_common(winter)
    winter.set_defaults(handler=lambda a: _drop(a, {**_county_battle(a, "winter_revolt"),
                                                   "unsupplied_counties": a.unsupplied}), flag_names=CLI_COUNTY)

    court = subparsers.add_parser("court", help="the Emperor's Court: dice-tower card conversions")
    csub = court.add_subparsers(dest="court_command", metavar="<action>")
    convert = csub.add_parser("convert", help="convert own armies lying in the tray into courtiers")
    convert.add_argument("--player", required=True, type=_colour)
    convert.add_argument("--cubes", required=True, type=int, choices=(1, 2, 3))
    _common(convert)
    convert.set_defaults(handler=_court_convert)

    ret = csub.add_parser("return", help="courtiers spent at the court go back to the player's supply")
    ret.add_argument("--player", required=True, type=_colour)
    ret.add_argument("--courtiers", required=True, type=int)
    ret.add_argument("--json", action="store_true", help="print the courtiers as one JSON object")
    _common(ret)
    ret.set_defaults(handler=_court_return)

    answer = subparsers.add_parser("answer", help="answer the station's question about the colours in doubt "
                                   "(\"Is it 6 or 7 red?\": tower answer DROP red=7 --who NAME)")
    answer.add_argument("drop_id", type=int)
    answer.add_argument("counts", nargs="+", metavar="COLOUR=N", help="the count of each colour asked about")
    answer.add_argument("--who", required=True, help="who answers")
    _common(answer)
    answer.set_defaults(handler=_answer)
    correct = subparsers.add_parser("correct", help="correct (or confirm) the reading of the drop in flight")
    correct.add_argument("drop_id", type=int)
    correct.add_argument("counts", nargs="*", metavar="COLOUR=N", help="the true tray; none: confirm as read")
    correct.add_argument("--who", required=True, help="who corrects")
    correct.add_argument("--note", default="")
    _common(correct)
    correct.set_defaults(handler=_correct)

    status = subparsers.add_parser("status", help="tray, tower ledger, supplies, courtiers, the drop in flight")
    status.add_argument("--json", action="store_true")
    _common(status)
    status.set_defaults(handler=_status)

    log = subparsers.add_parser(
        "log", help="the records; `tower log verify` checks their hash chain",
        description="Print the records, `verify` their hash chain and photos, or `acknowledge` damage that a "
                    "verification found: damaged records keep the station read-only until the host acknowledges "
                    "them (the acknowledgement is itself a record, with --who).")
    log.add_argument("action", nargs="?", choices=("verify", "acknowledge"),
                     help="verify the hash chain, or acknowledge the damage found so the station writes again")
    log.add_argument("--who", default=None, help="who acknowledges the damage (with acknowledge)")
    log.add_argument("--note", default="", help="why, or what was found (with acknowledge)")
    log.add_argument("--json", action="store_true", help="one JSON record per line")
    _common(log)
    log.set_defaults(handler=_log)


def _battle_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--revolt-markers", type=int, default=0)
    parser.add_argument("--buildings", type=_players, default=[], help="palace,church,trading_post")
    parser.add_argument("--yes", action="store_true", help="do not wait for Enter before releasing")
    _common(parser)


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


def _open(args: argparse.Namespace) -> Any:
    from controller.table import Table

    return Table.open(config_path=args.config, data_dir=args.data_dir)


def _refused(err: Exception, names: dict[str, str] | None = None) -> int:
    """The error in the words of the command the person typed: its flags, never JSON paths."""
    from controller.wording import error_text

    raw = getattr(err, "message", None) or str(err)
    message = error_text(err, names if names is not None else CLI_ATTACK)
    if getattr(err, "field", None) == "$.action" and "say which action" in raw:  # the command's flag
        message += " (give --action A or --action B)"
    if getattr(err, "expected", None) is not None and getattr(err, "seen", None) is not None:  # a TrayMismatch
        message += " (tower tray confirm --who NAME, or tower tray set COLOUR=N ... --who NAME)"
    print(f"tower: {message}", file=sys.stderr)
    return EXIT_REFUSED


def print_notes(out: Any, result: dict[str, Any]) -> None:
    """The engine's notes: where the rulebooks are silent and its decision shapes this battle."""
    for note in result.get("notes") or []:
        out.print(f"[cyan]note:[/] {note}", highlight=False, markup=True)


def _guarded(fn: Any) -> Any:
    def run(args: argparse.Namespace, *more: Any) -> int:
        try:
            return int(fn(args, *more) or 0)
        except BrokenPipeError:  # the reader of our output left (`| head`): not the table's error
            raise
        except (ValueError, RuntimeError, OSError) as err:  # the table's errors name the problem
            return _refused(err, getattr(args, "flag_names", None))
    return run


@_guarded
def _session_new(args: argparse.Namespace) -> int:
    from controller.cli._render import console, status_table

    with _open(args) as table:
        status = table.new_session(args.players, args.emperors_court, args.force)
        console().print(f"Session {status['session']['session_id']} started: {', '.join(args.players)}"
                        + (" with the Emperor's Court" if args.emperors_court else ""))
        console().print(status_table(status))
        if status.get("emptied") is not None:
            taken = status["emptied"]
            console().print("The simulated hands emptied the tower, the tray and the funnel"
                            + (f" (took out {taken})" if taken else " (they were empty)") + ".")
        else:
            console().print("[bold]Empty the tower[/] (turn it over and shake it), [bold]the tray and the funnel[/] "
                            "before `tower fill`: the tower ledger starts from an empty tower.")
    return 0


@_guarded
def _session_end(args: argparse.Namespace) -> int:
    with _open(args) as table:
        ended = table.end_session(args.who)
    if args.json:
        print(json.dumps(ended["summary"]))
        return 0
    print_game_end(ended["summary"])
    return 0


def print_game_end(summary: dict[str, Any]) -> None:
    from controller.cli._render import console, counts_text
    out = console()
    out.print(f"The game's end (session {summary['session_id']}): {summary['text']}", highlight=False)
    for row in summary["battles"]:
        out.print(f"  drop {row['drop_id']}: {row['text']}", highlight=False)
    out.print("in the tower: ", counts_text(summary["tower"]))


@_guarded
def _session_undo(args: argparse.Namespace) -> int:
    from controller.cli._render import console, status_table

    with _open(args) as table:
        done = table.undo(args.who)
        print(f"undone: {done['message'].removeprefix('undone: ')}")
        console().print(status_table(table.status()))
    return 0


@_guarded
def _session_round(args: argparse.Namespace) -> int:
    from controller.wording import round_phrase

    with _open(args) as table:
        rnd = table.set_round(args.event, {"attack_plus_one": args.attack_bonus,
                                           "defence_plus_one": args.defence_bonus}, args.immune)
        if args.json:
            print(json.dumps(rnd))
        else:
            print(f"this round: {round_phrase(rnd)}")
    return 0


@_guarded
def _session_parry(args: argparse.Namespace) -> int:
    with _open(args) as table:
        holder = table.keep_parry_card(None if args.none else args.player)["parry_card"]
        print(f"{holder} keeps favor card #4: the next revolt they win adds no revolt marker and spends it"
              if holder else "nobody keeps favor card #4")
    return 0


@_guarded
def _session_deploy(args: argparse.Namespace) -> int:
    from controller.cli._render import console, status_table

    with _open(args) as table:
        console().print(status_table(table.deploy(args.player, args.armies)))
    return 0


@_guarded
def _drop(args: argparse.Namespace, battle: dict[str, Any]) -> int:
    from controller.cli._render import console, plan_panel, result_panel

    out = console()
    with _open(args) as table:
        if table.resumed:
            out.print("[yellow]A drop was in flight when the station stopped; it was finished without a second release:[/]")
            out.print(result_panel(table.resumed))
        planned = table.plan(battle)
        out.print(plan_panel(planned))
        print_notes(out, planned)
        return release_and_clean(args, table, planned["drop_id"], notes_shown=planned.get("notes", []))


def release_and_clean(args: argparse.Namespace, table: Any, drop_id: int, *, cancel_on_abort: bool = True,
                      notes_shown: list[str] | None = None) -> int:
    """Release a planned drop (at a real table after the host's Enter or button), print the result and
    check the tray's clean-up. Exit 1 when the host stops at the prompt (the drop is cancelled, or with
    ``cancel_on_abort`` false left planned), 3 when the reading awaits the host."""
    from controller.cli._render import console, result_panel
    from controller.wording import counts_phrase

    out = console()
    simulated = table.cycle.sim is not None
    if not simulated and not args.yes:
        buttons = getattr(table.station, "buttons", None)
        try:
            if buttons is not None:
                out.print("Put these cubes into the funnel, then press the release button (Ctrl-C to cancel)")
                while not buttons.wait_for_release_press(1.0):
                    pass
            else:
                input("Put these cubes into the funnel, then press Enter to release (Ctrl-C to cancel) ")
        except (KeyboardInterrupt, EOFError):
            if not cancel_on_abort:
                out.print(f"not released: drop {drop_id} stays planned (`tower drop release {drop_id}` or "
                          f"`tower drop cancel {drop_id}`)")
                return 1
            table.cancel(drop_id)
            out.print("cancelled: put the cubes back where they came from")
            return 1
    view = table.release(drop_id)
    out.print(result_panel(view))
    print_notes(out, {"notes": [n for n in view.get("notes", []) if n not in (notes_shown or [])]})
    if view["needs_confirmation"]:
        return 3
    if not simulated and not args.yes:
        input("Clear the tray as listed, then press Enter ")
    check = table.clean()
    if not check["closed"]:
        out.print(f"[yellow]The tray still differs: expected {counts_phrase(check['expected'])}, "
                  f"seen {counts_phrase(check['seen'])}[/]")
    return 0


@_guarded
def _court_convert(args: argparse.Namespace) -> int:
    with _open(args) as table:
        result = table.court_convert(args.player, args.cubes)
        print(result["message"])
        return 0 if result["performed"] else 1


@_guarded
def _court_return(args: argparse.Namespace) -> int:
    from controller.wording import plural

    with _open(args) as table:
        result = table.court_return(args.player, args.courtiers)
    if args.json:
        print(json.dumps(result))
    else:
        left = result["courtiers"].get(args.player, 0)
        print(f"{args.player} takes {plural(args.courtiers, 'courtier')} back to their supply "
              f"({plural(left, 'courtier')} left at the court)")
    return 0


@_guarded
def _correct(args: argparse.Namespace) -> int:
    from controller.cli._render import console, result_panel

    with _open(args) as table:
        if args.counts:
            view = table.correct(args.drop_id, _counts(args.counts), args.who, args.note)
        else:
            view = table.confirm(args.drop_id, args.who)
        console().print(result_panel(view))
        print_notes(console(), view)
    return 0


@_guarded
def _answer(args: argparse.Namespace) -> int:
    from controller.cli._render import console, result_panel

    with _open(args) as table:
        console().print(result_panel(table.answer(args.drop_id, _counts(args.counts), args.who)))
    return 0


@_guarded
def _status(args: argparse.Namespace) -> int:
    from controller.cli._render import console, result_panel, status_table
    from controller.table import read_only, records_dir

    with read_only(records_dir(args.config, args.data_dir)) as table:
        status = table.status()
    if args.json:
        print(json.dumps(status, indent=1))
        return 0
    out = console()
    health = status.get("records") or {}
    if health.get("read_only"):
        out.print(f"[bold red]READ-ONLY:[/] {health['message']}")
    out.print(status_table(status))
    if status.get("session"):
        from controller.wording import round_phrase

        out.print(f"this round: {round_phrase(status['round'])}")
    if status.get("drop"):
        out.print(result_panel(status["drop"]))
    return 0


@_guarded
def _log(args: argparse.Namespace) -> int:
    from controller.table import acknowledge_damage, open_records, records_dir

    data_dir = records_dir(args.config, args.data_dir)
    if args.action == "acknowledge":
        if not args.who:
            return _refused(ValueError("say who acknowledges the damage: `tower log acknowledge --who NAME`"))
        done = acknowledge_damage(data_dir, args.who, args.note)
        if args.json:
            print(json.dumps(done))
        elif done["ok"]:
            print("nothing to acknowledge: the records are intact" if not done["acknowledged"] else
                  f"nothing new to acknowledge ({len(done['acknowledged'])} problem(s) acknowledged before)")
        else:
            print(f"acknowledged by {args.who}: {len(done['problems'])} problem(s); the station writes again")
            for problem in done["problems"]:
                print(f"  - {problem['problem']}")
        return 0
    store = open_records(data_dir)
    try:
        if args.action == "verify":
            result = store.verify()
            if args.json:
                print(json.dumps(result.as_dict()))
            elif result.ok:
                known = f" ({len(result.acknowledged)} damaged place(s) acknowledged before)" if result.acknowledged else ""
                print(f"ok: {result.records} records, the hash chain and every photo are intact{known}")
            else:
                print(f"FAILED: {result.problem}")
                for problem in result.problems[1:]:
                    print(f"  also: {problem.text}")
                print("The station is read-only until the host acknowledges this: "
                      "`tower log acknowledge --who NAME` (after looking at what changed)")
            return 0 if result.ok else 1
        records = [r.as_dict() for r in store.records()]
    finally:
        store.close()
    if args.json:
        for rec in records:
            print(json.dumps(rec, sort_keys=True))
        return 0
    from controller.cli._render import console, log_table

    console().print(log_table(records))
    return 0
