"""`tower hw check [--config FILE]`: exercise every configured device and print what passed."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from controller import data_dir
from controller.cli._words import say
from controller.data_dir import StationBusy, open_records
from controller.records import RecordsError
from hardware.config import load_config
from hardware.errors import ConfigError


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    hw = subparsers.add_parser("hw", help="check the station's hardware", description=__doc__)
    sub = hw.add_subparsers(dest="hw_command", metavar="<hw command>")
    check = sub.add_parser("check", help="exercise every configured device (servo sweep, LEDs, beam, camera, board)",
                           description="Exercise every configured device and print a table; exit 1 if any failed.")
    check.add_argument("--config", type=Path, default=None,
                       help="station config (tower.toml); default: the packaged simulated station")
    check.set_defaults(handler=_check)


def _check(args: argparse.Namespace) -> int:
    from station.check import FAIL, PASS, run_check

    console = Console()
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"configuration error: {exc}", file=sys.stderr)
        return 2


    lock_fd: int | None = None
    try:  # the devices belong to one process: never sweep the servo under a running `tower serve`
        lock_fd = data_dir.lock_data_dir(config.data_dir)  # looked up when run (the tests replace it)
    except StationBusy as exc:
        print(f"tower hw check: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # e.g. the service user's data directory, checked by another user
        print(f"tower hw check: cannot take the lock in {config.data_dir} ({exc.strerror}); "
              "make sure no tower service is running", file=sys.stderr)
    try:
        results = run_check(config, funnel_loaded=_funnel_loaded(config.data_dir))
    finally:
        if lock_fd is not None:
            os.close(lock_fd)
    # Each cell in the person's language before Rich lays the table out (a wrapped cell is only a piece).
    table = Table(title=f"tower hw check: {config.source}")
    for column in ("device", "check", "result", "detail", "time"):
        table.add_column(say(column), overflow="fold")
    style = {PASS: f"[green]{say('pass')}[/]", FAIL: f"[bold red]{say('FAIL')}[/]"}
    for r in results:
        table.add_row(say(r.device), say(r.check), style.get(r.status, f"[yellow]{say('skip')}[/]"), say(r.detail),
                      say(f"{r.seconds:.2f} s"))
    console.print(table)
    failed = [r for r in results if r.status == FAIL]
    if failed:
        console.print(f"[bold red]{say(f'{len(failed)} check(s) failed')}[/]")
        return 1
    console.print(f"[green]{say('all devices passed')}[/]")
    return 0


LOADED_PHASES = ("planned", "releasing", "release_unknown")  # the players were told to load the funnel


def _funnel_loaded(data_dir: Path) -> str | None:
    """Why the records say the funnel may hold a drop's cubes (``None``: they do not, or no records)."""
    try:
        store = open_records(data_dir)
    except (RecordsError, OSError):
        return None
    try:
        state = store.state()
    finally:
        store.close()
    drop = (state or {}).get("drop")
    if drop is not None and drop.get("phase") in LOADED_PHASES:
        return f"the records say drop {drop['drop_id']} is {drop['phase']}, its cubes loaded for the release"
    return None
