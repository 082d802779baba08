"""`tower plan` and `tower resolve`: the rules engine on the command line (spec/battle-json.md).

Both read one battle as JSON from a file or from standard input (``-``) and print one JSON object
on standard output: the result and exit 0, or ``{"error": ..., "field": ...}`` and exit 2 for any
invalid input (unreadable file, malformed JSON, wrong shape, a battle the rules forbid, an
impossible tray reading). Where the rulebooks are silent and the engine's decision shapes the
battle (``engine.decisions``), a ``note:`` line on standard error says so. The work is done by
:mod:`engine.api`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from engine import api
from engine.errors import BattleInputError
from engine.schema import BATTLE_SCHEMA

EXIT_INVALID = 2
#: A battle is a few hundred bytes; anything far larger is not one (and is not read whole).
MAX_BATTLE_BYTES = 1 << 20


def _add_command(subparsers: Any, name: str, help_text: str, description: str) -> None:
    parser = subparsers.add_parser(name, help=help_text, description=description)
    parser.add_argument(
        "file", nargs="?", metavar="FILE|-", help="the battle JSON file, or - to read standard input"
    )
    parser.add_argument(
        "--schema", action="store_true", help="print the JSON Schema of the battle input and exit"
    )
    parser.set_defaults(handler=lambda args: _run(name, args))


def register(subparsers: Any) -> None:
    """Add `plan` and `resolve` to the `tower` command."""
    _add_command(
        subparsers,
        "plan",
        "say which cubes to drop for a battle, and where each comes from",
        "Read a battle (JSON, spec/battle-json.md) and print the drop: every cube to put into the "
        "funnel, split by where it comes from (supply, county, tray). Exit 2 on invalid input.",
    )
    _add_command(
        subparsers,
        "resolve",
        "resolve a battle from the tray as read after the drop",
        "Read a battle with its tray reading `tray_after` (JSON, spec/battle-json.md) and print the "
        "outcome, where every cube of the tray goes, the tower delta and the county afterwards. "
        "Exit 2 on invalid input.",
    )


def _emit(obj: object) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")


def _fail(message: str, field: str | None = None) -> int:
    _emit({"error": message, "field": field})
    return EXIT_INVALID


def _read_text(path: str) -> str:
    if path == "-":
        text = sys.stdin.read(MAX_BATTLE_BYTES + 1)
    else:
        with open(path, encoding="utf-8") as handle:
            text = handle.read(MAX_BATTLE_BYTES + 1)
    if len(text) > MAX_BATTLE_BYTES:
        raise ValueError(f"it is larger than {MAX_BATTLE_BYTES} bytes, far more than any battle")
    return text


def _parse(text: str) -> Any:
    """JSON with the parser's own limits turned into words (deep nesting, a number too long to read)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("the battle is not valid JSON: it is nested too deeply") from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:  # Python refuses to convert integers of more than 4300 digits
        if "digits" in str(exc):
            raise ValueError("the battle is not valid JSON: a number in it has too many digits") from None
        raise ValueError(f"the battle is not valid JSON: {str(exc)[:100]}") from None


class BattleFileError(ValueError):
    """The battle file cannot be read, or is not JSON; the message says which, in words."""


def read_battle(path: str) -> Any:
    """The JSON value of a battle file (``-``: standard input), within the size and parser limits
    (:class:`BattleFileError` otherwise). ``tower plan``, ``tower resolve`` and ``tower odds`` read
    their battle here."""
    try:
        text = _read_text(path)
    except (OSError, ValueError) as exc:  # ValueError: not UTF-8, or too large
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise BattleFileError(f"cannot read the battle file {path}: {reason}"[:300]) from None
    try:
        return _parse(text)
    except json.JSONDecodeError as exc:
        raise BattleFileError(f"the battle is not valid JSON: {exc.msg} at line {exc.lineno}, "
                              f"column {exc.colno}") from None
    except ValueError as exc:
        raise BattleFileError(str(exc)) from None


def _run(command: str, args: argparse.Namespace) -> int:
    if args.schema:
        _emit(BATTLE_SCHEMA)
        return 0
    if args.file is None:
        return _fail(f"give the battle file to {command}, or - to read it from standard input")
    try:
        data = read_battle(args.file)
    except BattleFileError as exc:
        return _fail(str(exc))
    run: Callable[[dict[str, Any]], dict[str, Any]] = api.plan if command == "plan" else api.resolve
    try:
        result = run(data)
    except BattleInputError as exc:
        _emit(exc.to_json())
        return EXIT_INVALID
    except RecursionError:  # a shape the engine's checks walk into too deeply
        return _fail("the battle is nested too deeply to be a battle")
    try:
        _emit(result)
    except ValueError:  # never expected from the engine's own output, but never a traceback
        return _fail("the result could not be written as JSON")
    _tell_notes(data)
    return 0


def _tell_notes(data: dict[str, Any]) -> None:
    """Where the rulebooks are silent and the engine decided, say so on standard error (standard
    output keeps exactly the contract's one object)."""

    for note in api.notes(data):
        print(f"note: {note}", file=sys.stderr)
