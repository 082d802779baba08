"""`tower odds`, `tower model fit` and `tower export`: the tower measured (spec/tower-model.md).

`tower odds FILE|- [--model NAME]` prints the chances of a battle before its drop; `tower model fit
[FILE] [--family F]` fits the tower models to a drop log (default: the current session's drops);
`tower model beam` and `tower model reads` measure the rest of the station (:mod:`controller.cli.measures`);
`tower export --drops FILE` writes the session's drops as a drop log (JSON Lines, or CSV for a
spreadsheet). Invalid input: exit 2 and ``{"error": ..., "field": ...}`` on standard output. The work
is done by :mod:`towermodel` and :mod:`controller.odds` / :mod:`controller.droplog`.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from typing import Any

from rich.table import Table as RichTable

from controller.cli._render import colour_text, console
from controller.cli._words import say

# One way to read a battle and to answer on standard output, shared with `tower plan/resolve` (its
# size limit, and the parser's limits in words, hold for `tower odds` too).
from controller.cli.battle import EXIT_INVALID, BattleFileError, _emit, _fail, read_battle
from controller.cli.measures import clump_rate_line, reads_head_lines, register_measures, station_records
from controller.droplog import export_entry, log_entries
from controller.i18n import language_from_env
from controller.wording import plural
from engine.colours import PALETTE
from engine.errors import BattleInputError
from hardware.config import load_config
from hardware.errors import ConfigError
from towermodel.droplog import DropLogError, drops_from_lines, parse_drop_log


def _read_text(path: str) -> str:
    """A drop log (no size limit: a long game's log is far larger than any battle)."""
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def _station(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE", help="station config (default: the simulated station)")
    parser.add_argument("--data-dir", metavar="DIR", help="records directory (default: the config's data_dir)")


def register(subparsers: Any) -> None:
    from towermodel.models import FAMILIES

    odds = subparsers.add_parser(
        "odds", help="the chances of a battle before its drop (win, tie, loss; expected cubes in the tray)",
        description="Read a battle (JSON as for `tower plan`, with tower_before) and print the chances of "
                    "each outcome under a tower model: exact for the two-chance models, simulated for shelves.")
    odds.add_argument("file", nargs="?", metavar="FILE|-", help="the battle JSON file, or - for standard input")
    odds.add_argument("--model", default="spielbyweb",
                      help="spielbyweb (default), wallenstein-online, shelves, or fitted (this station's drops)")
    _station(odds)
    odds.set_defaults(handler=_odds)

    model = subparsers.add_parser("model", help="the station measured on its drops: the tower (fit), the break-beam (beam), the tray's reads (reads)")
    sub = model.add_subparsers(dest="model_command", metavar="<action>")
    fit = sub.add_parser(
        "fit", help="maximum-likelihood tower models for a drop log, best (lowest AIC) first",
        description="Fit the tower model families by maximum likelihood to a drop log (default: the current "
                    "session's drops) and print them best first, with 95 % intervals, log-likelihood and AIC.")
    fit.add_argument("file", nargs="?", metavar="FILE|-", help="a drop log (JSON Lines); default: this session")
    fit.add_argument("--family", choices=FAMILIES, help="fit this family alone")
    fit.add_argument("--session", type=int, metavar="ID", help="fit this session's drops instead of the current one")
    _station(fit)
    fit.set_defaults(handler=_fit)
    register_measures(sub, _station)

    export = subparsers.add_parser(
        "export", help="write the session's drops as a drop log to publish (JSON Lines or CSV)",
        description="Write the current session's drops (or --session ID) as a drop log: one JSON line per "
                    "drop with what was dropped and what came out (spec/tower-model.md), or CSV.")
    export.add_argument("--drops", required=True, metavar="FILE", help="where to write; - for standard output")
    export.add_argument("--session", type=int, metavar="ID", help="a past session (default: the current one)")
    export.add_argument("--format", choices=("jsonl", "csv"), help="default: csv for a .csv file, else jsonl")
    _station(export)
    export.set_defaults(handler=_export)
    register_report(subparsers)


def _odds(args: argparse.Namespace) -> int:
    from controller.odds import ODDS_MODELS, choose_model
    from towermodel.odds import battle_odds

    if args.model not in ODDS_MODELS:
        return _fail(f"unknown tower model {args.model!r} (known: {', '.join(ODDS_MODELS)})", "--model")
    if args.file is None:
        return _fail("give the battle file to odds, or - to read it from standard input")
    try:
        data = read_battle(args.file)
    except BattleFileError as exc:
        return _fail(str(exc))
    try:
        records, path = station_records(args) if args.model == "fitted" else ([], None)
        model, name, note = choose_model(args.model, records, path)
        result = battle_odds(data, model, name)
    except BattleInputError as exc:
        _emit(exc.to_json())
        return EXIT_INVALID
    except ValueError as exc:  # no records for `fitted`
        return _fail(str(exc), "--model")
    if note:
        result["note"] = note
    _emit(result)
    return 0


def _fit(args: argparse.Namespace) -> int:
    from towermodel.fit import fit_family, fit_models

    if args.model_command != "fit":
        return _fail("say what to do: tower model fit")
    try:
        if args.file is not None:
            drops = parse_drop_log(_read_text(args.file))
        else:
            records, _ = station_records(args)
            drops = drops_from_lines(log_entries(records, args.session))
        if not drops:
            return _fail("there are no drops to fit a model to")
        fits = [fit_family(args.family, [drops])] if args.family else fit_models([drops])
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return _fail(f"cannot read the drop log {args.file}: {reason}")
    except DropLogError as exc:
        return _fail(f"the drop log is not valid: {exc}")
    except ValueError as exc:
        return _fail(str(exc))
    _emit([fit.to_json() for fit in fits])
    return 0


def csv_text(entries: list[dict[str, Any]]) -> str:
    """The drops as CSV: one row per drop, a column per colour for what was dropped and what came out."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["session", "drop_id", "ts", "battle", "outcome",
                     *(f"dropped_{c}" for c in PALETTE), *(f"came_out_{c}" for c in PALETTE)])
    for e in entries:
        writer.writerow([e["session"], e["drop_id"], f"{e['ts']:.3f}", e["battle"], e["outcome"] or "",
                         *(e["dropped"].get(c, 0) for c in PALETTE), *(e["came_out"].get(c, 0) for c in PALETTE)])
    return out.getvalue()


def _export(args: argparse.Namespace) -> int:
    try:
        records, _ = station_records(args)
        entries = log_entries(records, args.session)
    except ValueError as exc:
        return _fail(str(exc))
    form = args.format or ("csv" if args.drops.lower().endswith(".csv") else "jsonl")
    if form == "csv":
        text = csv_text(entries)
    else:
        text = "".join(json.dumps(export_entry(e)) + "\n" for e in entries)
    if args.drops == "-":
        sys.stdout.write(text)
        return 0
    try:
        with open(args.drops, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        return _fail(f"cannot write {args.drops}: {exc.strerror or exc}", "--drops")
    print(f"{plural(len(entries), 'drop')} written to {args.drops} ({form})", file=sys.stderr)
    return 0


def register_report(subparsers: Any) -> None:
    report = subparsers.add_parser(
        "report", help="the luck report of a game: who the tower favoured, the upsets, what it held back",
        description="Per player, the cubes that came out of their battles against what the tower model fitted "
                    "to this station expected, with an exact test of how unusual that is; the upsets (the least "
                    "likely outcomes by the odds stored before each drop); the tower's retention. Plots are "
                    "saved as PNG and SVG under <data_dir>/report/.")
    report.add_argument("--session", type=int, metavar="ID", help="a past session (default: the current one)")
    report.add_argument("--json", action="store_true", help="print the report as JSON")
    _station(report)
    report.set_defaults(handler=_report)


def _report(args: argparse.Namespace) -> int:
    from controller.report import build_report

    try:
        records, path = station_records(args)
        report = build_report(records, path, args.session, lang=language_from_env(),  # plots in LANG's words
                              beam_clump=load_config(args.config).board.beam_clump)
    except ConfigError as exc:
        return _fail(str(exc), "--config")
    except ValueError as exc:
        return _fail(str(exc))
    if args.json:
        _emit(report)
        return 0


    out = console()
    model = report["model"]
    params = ", ".join(f"{k} {v:.3g}" for k, v in model["params"].items())
    out.print(f"[bold]Luck report, session {report['session']}[/] ({report['drops']} drops; tower model "
              f"{model['name']}: {params})")
    if report["model_note"]:
        out.print(f"[yellow]{report['model_note']}[/]")
    table = RichTable(show_header=True, header_style="bold")
    for column in ("side", "battles", "cubes out", "expected", "difference", "p-value", "verdict"):
        table.add_column(say(column))
    for p in report["players"]:
        table.add_row(colour_text(p["player"]), str(p["battles"]), str(p["came_out"]), f"{p['expected']:.1f}", f"{p['difference']:+.1f}",
                      "—" if p["p_value"] is None else f"{p['p_value']:.3f}", say(p["verdict"] or "no battles"))
    out.print(table)
    out.print(report["not_cheating"], style="dim")
    for u in report["upsets"]:
        out.print(f"upset: drop {u['drop_id']}, {u['attacker']} against {u['defender']}: "
                  f"{u['outcome'].replace('_', ' ')} had a {100 * u['chance']:.1f} % chance ({u['model']})")
    for key, rel in report["plots"].items():
        out.print(f"plot ({key}): {path / rel}", style="dim", soft_wrap=True)
    _station_lines(report["station"])
    return 0


def _station_lines(station: dict[str, Any]) -> None:
    """The report's lines on the station itself (``tower model reads`` and ``beam`` say more)."""
    if station["reads"]["drops"]:
        print(*reads_head_lines(station["reads"]), sep="\n")
    print(station["beam_note"] if station["beam"] is None else clump_rate_line(station["beam"]))
