"""`tower demo`: a scripted game on the simulated station, every step shown as it happens.

The game itself is ``controller.demo_game``; this module opens a fresh data directory, runs it on a
``Table`` and renders each stage with rich: by default one line per drop (what was fought, how it
ended) under a progress bar; with ``--verbose`` every plan, reading and outcome in full.
"""

from __future__ import annotations

import argparse
import datetime as dt
import time
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from controller import demo_game
from controller.cli._render import battle_title, console, plan_panel, result_panel, status_table
from controller.cli._words import say
from controller.table import Table
from controller.wording import plural, round_phrase


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "demo", help="play a scripted game on the simulated station",
        description="Play a scripted game on simulated hardware: the initial fill and ten rounds of every "
                    "battle kind, each drop released, photographed, counted, verified and resolved; the "
                    "annotated photo of every drop is saved in the data directory.")
    parser.add_argument("--rounds", type=int, default=10, help="rounds of one battle of every kind (default 10)")
    parser.add_argument("--data-dir", default=None,
                        help="where records and photos go (default: a new folder under ./tower-demo/)")
    parser.add_argument("--config", default=None, help="station config (default: the simulated station)")
    parser.add_argument("--verbose", action="store_true",
                        help="show every plan, reading and outcome in full (default: one line per drop)")
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:


    out = console()
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%d-%H%M%S")
    data_dir = Path(args.data_dir) if args.data_dir else Path("tower-demo") / stamp
    if (data_dir / "records.sqlite3").exists():
        out.print(f"[red]{data_dir} already holds records; the demo starts a game in a fresh folder[/]", soft_wrap=True)
        return 2
    started = time.monotonic()
    steps = demo_game.script(args.rounds)
    total = 1 + sum(1 for s in steps if s.kind != "round")
    try:  # a broken config, a busy station or a foreign records file: one clear line, no traceback
        opened = Table.open(config_path=args.config, data_dir=data_dir)
    except (ValueError, RuntimeError, OSError) as err:
        # soft_wrap: a path in the message is never broken inside (the terminal wraps; a copy keeps it whole)
        out.print(f"[red]tower demo: {getattr(err, 'message', None) or err}[/]", soft_wrap=True)
        return 2
    out.rule("[bold]" + say("Wallenstein tower station: a scripted game on simulated hardware"))
    out.print(f"records and photos: {data_dir.resolve()}", soft_wrap=True)
    with opened as table:
        if not table.station.hands_simulated:
            out.print("[red]the demo needs a simulated station (its players' hands are simulated)[/]")
            return 2
        progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TimeElapsedColumn(), console=out)
        with progress:
            task = progress.add_task(say("playing"), total=total)
            spinner: dict[str, Any] = {}

            def on_step(stage: str, step: Any, info: dict[str, Any]) -> None:
                p = progress.console
                if stage == "round":
                    if args.verbose:
                        p.rule(say(f"{step.title}: {round_phrase(info)}"), align="left")
                    else:
                        p.print(f"[bold]{step.title}[/]: {round_phrase(info)}", highlight=False)
                elif stage == "planned":
                    if args.verbose:
                        p.print(plan_panel(info))
                    progress.update(task, description=say(f"drop {info['drop_id']}: release, settle, count"))
                elif stage == "doubt":
                    if args.verbose:
                        p.print(result_panel(info))
                        p.print("[yellow]the demo's host confirms the reading after looking at the photo[/]")
                    else:
                        p.print(f"  [yellow]drop {info['drop_id']}: the reading was doubted; the demo's host "
                                "confirms it after looking at the photo[/]")
                elif stage == "resolved":
                    if args.verbose:
                        p.print(result_panel(info))
                    else:
                        p.print(f"  drop {info['drop_id']}: {battle_title(info['battle'])}: {info.get('summary') or ''}",
                                highlight=False)
                    progress.advance(task)
                    spinner["drops"] = spinner.get("drops", 0) + 1
                elif stage == "court":
                    returned = (f" (after sending {plural(info['returned'], 'courtier')} home)"
                                if info.get("returned") else "")
                    colour = "green" if info["performed"] else "yellow"
                    p.print(f"[bold]{step.title}[/]: [{colour}]{info['message']}{returned}[/]")
                    progress.advance(task)

            kinds = demo_game.play(table, rounds=args.rounds, on_step=on_step)
        status = table.status()
        verify = table.verify()
        photos = sorted((data_dir / "images").glob("drop-*-annotated.*"))
    out.rule("[bold]" + say("End of the game"))
    out.print(status_table(status))
    out.print("battles played: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sorted(kinds.items())))
    out.print(f"tower log verify: {'ok' if verify['ok'] else 'FAILED: ' + str(verify['problem'])} "
              f"({verify['records']} records)")
    out.print(f"{len(photos)} annotated tray photos in {(data_dir / 'images').resolve()}", soft_wrap=True)
    out.print(f"played in {time.monotonic() - started:.0f} s")
    balanced = all(row["total"] == row["expected"] for row in status["conservation"].values())
    return 0 if verify["ok"] and balanced else 1
