"""`tower tray`: the tray between battles.

* ``tower tray add --player P --armies N [--source favor|bonus] [--card 3|8|14]``: a favor card of the
  Emperor's Court or the bonus-card benefit puts armies from the player's supply into the tray.
* ``tower tray confirm --who W``: the host vouches that the tray holds what the station expects,
  where the camera keeps misreading it and every plan is refused.
* ``tower tray set COLOUR=N ... --who W``: the host says what the tray holds.

Each is one hash-chained record; the work is done by ``Table`` (``controller.table``).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from controller.cli._station import colour_arg, counts_arg, guarded, open_table, station_flags
from controller.wording import counts_phrase, plural


def register(subparsers: Any) -> None:
    tray = subparsers.add_parser(
        "tray", help="the tray between battles: cards that place armies into it, the host's word on it",
        description="The tray between battles: armies a card places into it (favor cards #3, #8, #14, the "
                    "bonus-card benefit), and the host's word on what it holds where the camera misreads it.")
    sub = tray.add_subparsers(dest="tray_command", metavar="<action>")
    add = sub.add_parser("add", help="a favor or bonus card puts armies from the player's supply into the tray")
    add.add_argument("--player", required=True, type=colour_arg)
    add.add_argument("--armies", required=True, type=int, help="the number printed on the card")
    add.add_argument("--source", choices=("favor", "bonus"), default="favor",
                     help="favor card (Emperor's Court, the default) or bonus-card benefit")
    add.add_argument("--card", type=int, choices=(3, 8, 14), default=None, help="the favor card's number")
    add.add_argument("--who", default=None, help="who plays the card (kept in the record)")
    add.add_argument("--json", action="store_true", help="print the tray and the player's supply as one JSON object")
    station_flags(add)
    add.set_defaults(handler=_add)

    confirm = sub.add_parser("confirm", help="the host: the tray holds what the station expects "
                                             "(the next battle trusts it instead of the camera)")
    confirm.add_argument("--who", required=True, help="who vouches for the tray")
    confirm.add_argument("--note", default="")
    station_flags(confirm)
    confirm.set_defaults(handler=_confirm)

    tray_set = sub.add_parser("set", help="the host: the tray holds these counts (the difference comes from, "
                                          "or goes back to, the supplies)")
    tray_set.add_argument("counts", nargs="*", metavar="COLOUR=N", help="what lies in the tray; none: it is empty")
    tray_set.add_argument("--who", required=True, help="who corrects the tray")
    tray_set.add_argument("--note", default="")
    station_flags(tray_set)
    tray_set.set_defaults(handler=_set)


@guarded
def _add(args: argparse.Namespace) -> int:
    with open_table(args) as table:
        result = table.place_into_tray(args.player, args.armies, args.source, who=args.who, card=args.card)
    if args.json:
        print(json.dumps({"tray": result["tray"], "supply": {args.player: result["supply"]},
                          "message": result["message"], "notes": result.get("notes", [])}))
        return 0
    print(result["message"])
    for note in result.get("notes", []):
        print(f"note: {note}")
    print(f"the tray now holds {counts_phrase(result['tray'])}; "
          f"{args.player}'s supply: {plural(result['supply'], 'army', 'armies')}")
    return 0


def _print_override(result: dict[str, Any]) -> None:
    camera = result["camera"]
    seen = counts_phrase(camera.get("seen")) if camera.get("usable") else f"an unreadable tray ({camera.get('reason')})"
    print(f"the tray holds {counts_phrase(result['after'])} (the station expected {counts_phrase(result['before'])}, "
          f"the camera saw {seen}); vouched for by {result['who']}")
    if camera.get("light"):
        print(f"note: {camera['light']}")
    moved = result["from_supply"] or {}
    taken = {c: n for c, n in moved.items() if n > 0}
    back = {c: -n for c, n in moved.items() if n < 0}
    if taken:
        print(f"taken from the supplies into the tray: {counts_phrase(taken)}")
    if back:
        print(f"back from the tray to the supplies: {counts_phrase(back)}")
    if result["closes_drop"] is not None:
        print(f"drop {result['closes_drop']} is closed")
    print("the next battle trusts this tray instead of the camera")


@guarded
def _confirm(args: argparse.Namespace) -> int:
    with open_table(args) as table:
        _print_override(table.confirm_tray(args.who, args.note))
    return 0


@guarded
def _set(args: argparse.Namespace) -> int:
    with open_table(args) as table:
        _print_override(table.set_tray(counts_arg(args.counts), args.who, args.note))
    return 0
