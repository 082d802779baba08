"""Between drops and looking back: `tower court` (the Emperor's Court), `tower correct` and `tower answer`
(the host's word on a reading), `tower status` and `tower log` (the records, their verification and
the acknowledgement of damage).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from controller.cli._render import console, log_table, result_panel, status_table
from controller.cli._station import (
    colour_arg,
    counts_arg,
    guarded,
    open_table,
    print_notes,
    refused,
    station_flags,
)
from controller.data_dir import open_records, records_dir
from controller.table import acknowledge_damage, read_only
from controller.wording import plural, round_phrase


def register(subparsers: Any) -> None:
    court = subparsers.add_parser("court", help="the Emperor's Court: dice-tower card conversions")
    csub = court.add_subparsers(dest="court_command", metavar="<action>")
    convert = csub.add_parser("convert", help="convert own armies lying in the tray into courtiers")
    convert.add_argument("--player", required=True, type=colour_arg)
    convert.add_argument("--cubes", required=True, type=int, choices=(1, 2, 3))
    station_flags(convert)
    convert.set_defaults(handler=_court_convert)

    ret = csub.add_parser("return", help="courtiers spent at the court go back to the player's supply")
    ret.add_argument("--player", required=True, type=colour_arg)
    ret.add_argument("--courtiers", required=True, type=int)
    ret.add_argument("--json", action="store_true", help="print the courtiers as one JSON object")
    station_flags(ret)
    ret.set_defaults(handler=_court_return)

    answer = subparsers.add_parser("answer", help="answer the station's question about the colours in doubt "
                                   "(\"Is it 6 or 7 red?\": tower answer DROP red=7 --who NAME)")
    answer.add_argument("drop_id", type=int)
    answer.add_argument("counts", nargs="+", metavar="COLOUR=N", help="the count of each colour asked about")
    answer.add_argument("--who", required=True, help="who answers")
    station_flags(answer)
    answer.set_defaults(handler=_answer)
    correct = subparsers.add_parser("correct", help="correct (or confirm) the reading of the drop in flight")
    correct.add_argument("drop_id", type=int)
    correct.add_argument("counts", nargs="*", metavar="COLOUR=N", help="the true tray; none: confirm as read")
    correct.add_argument("--who", required=True, help="who corrects")
    correct.add_argument("--note", default="")
    station_flags(correct)
    correct.set_defaults(handler=_correct)

    status = subparsers.add_parser("status", help="tray, tower ledger, supplies, courtiers, the drop in flight")
    status.add_argument("--json", action="store_true")
    station_flags(status)
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
    station_flags(log)
    log.set_defaults(handler=_log)


@guarded
def _court_convert(args: argparse.Namespace) -> int:
    with open_table(args) as table:
        result = table.court_convert(args.player, args.cubes)
        print(result["message"])
        return 0 if result["performed"] else 1


@guarded
def _court_return(args: argparse.Namespace) -> int:
    with open_table(args) as table:
        result = table.court_return(args.player, args.courtiers)
    if args.json:
        print(json.dumps(result))
    else:
        left = result["courtiers"].get(args.player, 0)
        print(f"{args.player} takes {plural(args.courtiers, 'courtier')} back to their supply "
              f"({plural(left, 'courtier')} left at the court)")
    return 0


@guarded
def _correct(args: argparse.Namespace) -> int:
    with open_table(args) as table:
        if args.counts:
            view = table.correct(args.drop_id, counts_arg(args.counts), args.who, args.note)
        else:
            view = table.confirm(args.drop_id, args.who)
        console().print(result_panel(view))
        print_notes(console(), view)
    return 0


@guarded
def _answer(args: argparse.Namespace) -> int:
    with open_table(args) as table:
        console().print(result_panel(table.answer(args.drop_id, counts_arg(args.counts), args.who)))
    return 0


@guarded
def _status(args: argparse.Namespace) -> int:
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
        out.print(f"this round: {round_phrase(status['round'])}")
    if status.get("drop"):
        out.print(result_panel(status["drop"]))
    return 0


@guarded
def _log(args: argparse.Namespace) -> int:
    data_dir = records_dir(args.config, args.data_dir)
    if args.action == "acknowledge":
        if not args.who:
            return refused(ValueError("say who acknowledges the damage: `tower log acknowledge --who NAME`"))
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

    console().print(log_table(records))
    return 0
