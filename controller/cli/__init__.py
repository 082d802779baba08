"""The `tower` command line.

This layer only parses arguments and prints; the work happens in the packages it calls. Each
sub-command lives in its own module in this package and exposes ``register(subparsers)``, which
adds its parser and sets ``handler`` (a callable taking the parsed namespace and returning an exit
code). Modules are discovered, so adding a command never means editing this file. Imports sit at
the top of each module, except the heavy ones a command needs only when it runs (OpenCV, SciPy,
matplotlib, the web server): those stay inside the handlers so that ``tower --help`` does not wait
for them. What a command prints is in the language ``LANG`` names (``controller.cli._words``).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import os
import pkgutil
import sys
from collections.abc import Sequence

from controller.cli._help import argparse_speaks, speak_parser
from controller.cli._words import as_written, spoken


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tower",
        description=(
            "The Wallenstein tower station: plan and resolve battles, count the tray from a photo, "
            "calibrate the camera, check the hardware, and run a game session at the table."
        ),
    )
    parser.add_argument("--version", action="version", version=f"tower {_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="<command>")
    subparsers.required = True
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(subparsers)
    _describe(parser)
    return parser


def _version() -> str:
    try:
        return importlib.metadata.version("wallenstein-tower")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "(not installed)"


def _describe(parser: argparse.ArgumentParser) -> None:
    """Give every sub-command without a description its one-line help, so that `tower <cmd> --help`
    says what the command does and not only its usage."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for name, sub in action.choices.items():
                if sub.description is None and helps.get(name):
                    sub.description = helps[name]
                _describe(sub)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; what it prints is in the language ``LANG`` names (English or German)."""
    words = list(argv if argv is not None else sys.argv[1:])
    with spoken("en" if "--json" in words else None) as lang:  # JSON is for programs: its strings stay as they are
        return _run(argv, lang)


def _run(argv: Sequence[str] | None, lang: str) -> int:
    with argparse_speaks(lang), as_written():  # the help and the argument errors in the language of the rest
        parser = build_parser()
        speak_parser(parser, lang)
        args = parser.parse_args(argv)
        handler = getattr(args, "handler", None)
        if handler is None:  # a command group given without its sub-command
            parser.parse_args([*(argv if argv is not None else sys.argv[1:]), "--help"])
            return 2
    try:
        return int(handler(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `tower log --json | head`: the reader has all it wanted
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that the interpreter's final flush is silent too
        return 141


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
