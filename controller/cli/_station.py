"""What the table-side commands share: the station's flags, the argument types people type (colours in
any case, COLOUR=N counts), opening the ``Table``, its errors in the words of the command typed, and
a drop's release with the tray's clean-up after it (``tower fill``, ``tower battle``, ``tower drop``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from controller.cli._render import console, result_panel
from controller.cli._words import say
from controller.table import Table
from controller.wording import CLI_ATTACK, counts_phrase, error_text

EXIT_REFUSED = 2


def station_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE", help="station config (default: the simulated station)")
    parser.add_argument("--data-dir", metavar="DIR", help="records directory (default: the config's data_dir)")


def players_arg(text: str) -> list[str]:
    return [p.strip().lower() for p in text.split(",") if p.strip()]


def colour_arg(text: str) -> str:
    """A player colour as typed: ``Red`` and ``red`` are the same player."""
    return text.strip().lower()


def immune_arg(text: str) -> dict[str, str]:
    """``red=A,blue=both,yellow``: the favor card (#10, #11, #18) each immune player holds; a bare
    colour is immune to both actions."""
    out: dict[str, str] = {}
    for item in players_arg(text):
        player, _, protects = item.partition("=")
        protects = protects.strip() or "both"
        if protects.upper() in ("A", "B"):
            protects = protects.upper()
        if protects not in ("A", "B", "both"):
            raise argparse.ArgumentTypeError(say(  # said here: argparse's output passes on as written
                f"expected PLAYER=A, PLAYER=B or PLAYER=both (or a bare PLAYER: both), got \"{item}\""))
        out[player.strip().lower()] = protects
    return out


def action_arg(text: str) -> str:
    if text.upper() not in ("A", "B"):
        raise argparse.ArgumentTypeError(say(f"the action card is A or B (Combat/Movement A or B), not \"{text}\""))
    return text.upper()


def counts_arg(items: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in items:
        colour, _, n = item.partition("=")
        if not n.strip().isdigit():
            raise ValueError(f"expected COLOUR=N with N a whole number >= 0, got \"{item}\"")  # exit 2, no traceback
        out[colour.strip().lower()] = int(n)
    return out


def open_table(args: argparse.Namespace) -> Any:
    return Table.open(config_path=args.config, data_dir=args.data_dir)


def refused(err: Exception, names: dict[str, str] | None = None) -> int:
    """The error in the words of the command the person typed: its flags, never JSON paths."""

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


def guarded(fn: Callable[..., int]) -> Callable[..., int]:
    def run(args: argparse.Namespace, *more: Any) -> int:
        try:
            return int(fn(args, *more) or 0)
        except BrokenPipeError:  # the reader of our output left (`| head`): not the table's error
            raise
        except (ValueError, RuntimeError, OSError) as err:  # the table's errors name the problem
            return refused(err, getattr(args, "flag_names", None))
    return run


def release_and_clean(args: argparse.Namespace, table: Any, drop_id: int, *, cancel_on_abort: bool = True,
                      notes_shown: list[str] | None = None) -> int:
    """Release a planned drop (at a real table after the host's Enter or button), print the result and
    check the tray's clean-up. Exit 1 when the host stops at the prompt (the drop is cancelled, or with
    ``cancel_on_abort`` false left planned), 3 when the reading awaits the host."""

    out = console()
    simulated = table.station.hands_simulated
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
        if check.get("light"):
            out.print(f"[yellow]{check['light']}[/]")
    return 0
