"""`tower drop`: finish the drop in flight from the command line.

A drop left *planned* (a process killed after planning, a full disk at the release, Ctrl-C at a real
table) blocks every new battle until it is released or given up; so does a release nobody can vouch
for. These commands do what the page's host buttons do:

* ``tower drop release [DROP_ID]``: open the funnel for the planned drop (once: a drop is never
  released twice), read the tray and resolve the battle;
* ``tower drop cancel [DROP_ID]``: give the planned drop up; its cubes go back where they came from;
* ``tower drop confirm-release [DROP_ID] --fell | --still-in-funnel --who NAME``: the host's word where the
  station stopped while the funnel was opening and cannot tell whether the cubes fell.

DROP_ID defaults to the drop in flight; given, it must be that drop (a stale id is refused).
The work is done by ``Table`` (``controller.table``).
"""

from __future__ import annotations

import argparse
from typing import Any

from controller.cli._render import console, counts_text, plan_panel, result_panel
from controller.cli._station import guarded, open_table, release_and_clean, station_flags
from controller.views import finish_hint


def register(subparsers: Any) -> None:
    drop = subparsers.add_parser(
        "drop", help="release or cancel the drop in flight (a drop left planned blocks new battles)",
        description="Finish the drop in flight: release a planned drop, cancel it, or say whether the cubes "
                    "fell where the station stopped during a release.")
    sub = drop.add_subparsers(dest="drop_command", metavar="<action>")
    release = sub.add_parser("release", help="release the planned drop (once), read the tray and resolve it")
    release.add_argument("drop_id", nargs="?", type=int, metavar="DROP_ID", help="default: the drop in flight")
    release.add_argument("--yes", action="store_true", help="do not wait for Enter before releasing")
    station_flags(release)
    release.set_defaults(handler=_release)

    cancel = sub.add_parser("cancel", help="give up the planned drop: its cubes go back where they came from")
    cancel.add_argument("drop_id", nargs="?", type=int, metavar="DROP_ID", help="default: the drop in flight")
    station_flags(cancel)
    cancel.set_defaults(handler=_cancel)

    confirm = sub.add_parser("confirm-release", help="the host says whether the cubes fell, where the station cannot tell")
    confirm.add_argument("drop_id", nargs="?", type=int, metavar="DROP_ID", help="default: the drop in flight")
    fell = confirm.add_mutually_exclusive_group(required=True)
    fell.add_argument("--fell", dest="fell", action="store_true", help="the funnel is empty: the cubes fell")
    fell.add_argument("--still-in-funnel", dest="fell", action="store_false",
                      help="the cubes are still in the funnel: the drop is planned again")
    confirm.add_argument("--who", required=True, help="who looked")
    station_flags(confirm)
    confirm.set_defaults(handler=_confirm_release)


class NoDrop(ValueError):
    """There is no drop in flight, or not the one named."""


def _in_flight(table: Any, drop_id: int | None, phase: str) -> int:
    drop = table.status().get("drop")
    if drop is None:
        raise NoDrop("no drop is in flight" + ("" if drop_id is None else f" (drop {drop_id} is not)"))
    if drop_id is not None and drop["drop_id"] != drop_id:
        raise NoDrop(f"drop {drop_id} is not the drop in flight; drop {drop['drop_id']} is ({drop['phase']})")
    if drop["phase"] != phase:

        raise NoDrop(f"drop {drop['drop_id']} is {drop['phase']}, not {phase}: {finish_hint(drop)}")
    return int(drop["drop_id"])


def _resumed(table: Any) -> None:
    if table.resumed:

        console().print("[yellow]A drop was in flight when the station stopped; it was finished without a "
                        "second release:[/]")
        console().print(result_panel(table.resumed))


@guarded
def _release(args: argparse.Namespace) -> int:
    with open_table(args) as table:
        _resumed(table)
        drop_id = _in_flight(table, args.drop_id, "planned")
        view = table.drop(drop_id)
        console().print(plan_panel({"drop_id": drop_id, "battle": view["battle"], "plan": view["plan"]}))
        return release_and_clean(args, table, drop_id, cancel_on_abort=False)


@guarded
def _cancel(args: argparse.Namespace) -> int:
    with open_table(args) as table:
        _resumed(table)
        drop_id = _in_flight(table, args.drop_id, "planned")
        plan = table.drop(drop_id)["plan"]
        table.cancel(drop_id)
        out = console()
        out.print(f"Drop {drop_id} cancelled; nothing was released. Put its cubes back:")
        for key, where in (("from_supply", "to the supplies"), ("from_county", "to the county"),
                           ("from_tray", "into the tray")):
            if plan.get(key):
                out.print("  • ", counts_text(plan[key]), f" {where}")
    return 0


@guarded
def _confirm_release(args: argparse.Namespace) -> int:
    with open_table(args) as table:
        drop_id = _in_flight(table, args.drop_id, "release_unknown")
        view = table.confirm_release(drop_id, args.fell, args.who)
        console().print(result_panel(view))
        if view["phase"] == "planned":
            console().print(f"Drop {drop_id} is planned again: `tower drop release {drop_id}` releases it.")
    return 0
