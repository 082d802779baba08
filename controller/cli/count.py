"""`tower count`: read tray photos with a colour profile; a table for people, JSON lines with ``--json``.

The work is in :mod:`vision.batch` and :mod:`vision.counter`; this module parses, calls and prints.
By default one table row per image (counts in words); ``--json`` prints one JSON object per image
per line instead (the fixed contract used to judge the counter). Exit 0 when every image could be
read, 1 when any could not (those still get a row or a line, usable false with the reason), 2 for
a bad profile or an ``--annotate`` path that is not a directory.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rich.table import Table

from controller.cli._render import console, counts_text
from controller.cli._words import say
from controller.verify import question_text
from controller.wording import counts_phrase


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "count",
        help="count the cubes and courtiers in tray photos",
        description="Count cubes per colour and courtier pawns in one or more photos of the tray, "
        "using a colour profile from `tower calibrate colours`. Prints a table, or with --json one JSON "
        "object per image per line. Exit 1 if any image was unreadable, 2 if the profile is bad.",
    )
    parser.add_argument("images", nargs="+", metavar="IMG", help="photos of the tray (JPEG or PNG)")
    parser.add_argument("--profile", required=True, type=Path, help="colour profile JSON")
    parser.add_argument("--json", action="store_true", help="one JSON object per image per line instead of a table")
    parser.add_argument("--annotate", type=Path, metavar="DIR",
                        help="also write annotated images into this directory (made if missing)")
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from vision.batch import count_files
    from vision.counter import TrayCounter
    from vision.errors import ProfileError
    from vision.profile import load_profile

    try:
        profile = load_profile(args.profile)
    except ProfileError as exc:
        print(f"tower count: {exc}", file=sys.stderr)
        return 2
    if args.annotate is not None:
        try:
            args.annotate.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # a file where a directory should be, a read-only place, a full disk
            reason = "a file is in the way" if isinstance(exc, FileExistsError | NotADirectoryError) else exc.strerror
            print(f"tower count: --annotate {args.annotate}: cannot create the directory ({reason or exc})",
                  file=sys.stderr)
            return 2
    counter = TrayCounter(profile)
    any_unreadable = False
    rows = []
    for result in count_files(counter, args.images, args.annotate, say=say):  # captions in the reader's words
        any_unreadable |= result.unreadable or result.write_error is not None
        if result.write_error:
            print(f"tower count: {result.write_error}", file=sys.stderr)
        if args.json:
            sys.stdout.write(json.dumps(result.to_json()) + "\n")
            sys.stdout.flush()
        else:
            rows.append(result)
    if not args.json:
        _print_table(rows)
    return 1 if any_unreadable else 0


def _print_table(results: list[Any]) -> None:
    """One row per image: what was read, in words (``--json`` gives the numbers for programs)."""

    table = Table(header_style="bold")
    for column in ("image", "cubes", "courtiers", "confidence", "note"):
        table.add_column(say(column))
    for result in results:  # each cell in the person's language before Rich wraps it
        data = result.to_json()
        if not data["usable"]:
            table.add_row(str(result.path), "—", "—", "", say(f"unusable: {data['reason']}"))
            continue
        table.add_row(str(result.path), counts_text(data["cubes"]), say(counts_phrase(data["courtiers"], empty="none")),
                      say(f"{data['confidence']:.2f}"), _note(data, result.annotated))
    console().print(table)


def _note(data: dict[str, Any], annotated: Path | None) -> str:
    """A reading the counter is not sure of asks what the station would ask ("Is it 28 or 27
    black?": the count read first, then the others the counter cannot rule out); then where the
    annotated photo went."""
    notes = []
    if not data["trusted"] and data["alternatives"]:
        notes.append(say(question_text({c: [o["count"] for o in options] for c, options in data["alternatives"].items()})))
    if annotated:
        notes.append(f"{say('annotated:')} {annotated}")
    return "\n".join(notes)
