"""`tower model beam` and `tower model reads`: the station measured on its own drops, beside the tower.

`beam` measures how often the break-beam counts two cubes as one (:mod:`controller.beam_rate`) and
says whether ``board.beam_clump`` fits; `reads` tallies how the station settled each drop's tray:
without asking (as read, after shaking, with the beam and the ledger) or by asking the host, and
the trays the host changed after the station had acted on them (:mod:`controller.read_tally`).
Both read every session's drops unless ``--session`` names one. The work is in those modules; this
one parses, calls and prints.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from controller.cli.battle import _emit, _fail
from controller.data_dir import open_records, records_dir
from controller.read_tally import ASKED, HOW, read_tally
from controller.wording import counts_phrase, plural
from hardware.config import load_config
from hardware.errors import ConfigError


def station_records(args: argparse.Namespace) -> tuple[list[Any], Any]:
    """The records of the station ``--config`` / ``--data-dir`` name, and where they lie."""
    path = records_dir(args.config, args.data_dir)
    store = open_records(path)
    try:
        return store.records(), path
    finally:
        store.close()


def register_measures(sub: Any, station: Callable[[argparse.ArgumentParser], None]) -> None:
    """The ``beam`` and ``reads`` actions of ``tower model``; ``station`` adds ``--config`` and ``--data-dir``."""
    measures = [
        ("beam", _beam, "how often this station's break-beam counts two cubes as one, from its drops",
         "Measure the break-beam's clump rate (board.beam_clump: the chance that a cube right behind another "
         "passes the beam with it and counts once) on the drops on record, every session's unless --session says "
         "one, and say whether the configured rate fits it.", "print the measurement as JSON"),
        ("reads", _reads, "how the station settled each drop's tray: without asking, or by asking the host",
         "Tally the drops on record, every session's unless --session says one, by how the station settled the "
         "tray: without asking (as read, after shaking the tray, with the break-beam and the ledger) or by asking "
         "the host; and name the trays the host changed after the station had acted on them.",
         "print the tally as JSON"),
    ]
    for name, handler, summary, description, json_help in measures:
        parser = sub.add_parser(name, help=summary, description=description)
        parser.add_argument("--session", type=int, metavar="ID", help="this session's drops only")
        parser.add_argument("--json", action="store_true", help=json_help)
        station(parser)
        parser.set_defaults(handler=handler)


def clump_rate_line(fit: dict[str, Any]) -> str:
    """The measured clump rate in one sentence, from :meth:`controller.beam_rate.ClumpFit.to_json`."""
    return (f"break-beam clump rate: {fit['rate']:.3f} (95 % interval {fit['low']:.3f} to {fit['high']:.3f}), from "
            f"{plural(fit['drops'], 'drop')}: {fit['short']} of {fit['chances']} cubes after each drop's first not counted")


def reads_head_lines(tally: dict[str, Any], *, every_way: bool = False) -> list[str]:
    """The head of a read tally (:meth:`controller.read_tally.ReadTally.to_json`, at least one drop):
    drops read, acted on without asking (``every_way``: each way of it, indented), asked the host."""
    total, without, asked = tally["drops"], tally["without_asking"], tally["by_how"][ASKED]
    ways = [f"  {how}: {tally['by_how'][how]}" for how in HOW if how != ASKED] if every_way else []
    return [f"the station's reads of {plural(total, 'drop')}:",
            f"acted on without asking: {without} ({100 * without / total:.1f} %)", *ways,
            f"asked the host: {asked} ({100 * asked / total:.1f} %)"]


def _beam(args: argparse.Namespace) -> int:
    from controller.beam_rate import beam_drops, fit_clump  # SciPy's optimiser: loaded only here

    try:
        configured = load_config(args.config).board.beam_clump
        records, _ = station_records(args)
        drops = beam_drops(records, args.session)
        fit = fit_clump(drops.used)
    except ConfigError as exc:
        return _fail(str(exc), "--config")
    except ValueError as exc:
        return _fail(str(exc))
    fits = fit.low <= configured <= fit.high
    if args.json:
        _emit({**fit.to_json(), "configured": configured, "configured_fits": fits, "left_out": drops.left_out})
        return 0
    print(clump_rate_line(fit.to_json()))
    if fits:
        print(f"the station is set to {configured:.3f} (board.beam_clump): within the interval, keep it")
    else:
        print(f"the station is set to {configured:.3f} (board.beam_clump): outside the interval; "
              f"set board.beam_clump = {fit.rate:.3f} in the station's config")
    for why, n in sorted(drops.left_out.items()):
        print(f"left out: {plural(n, 'drop')} ({why})")
    return 0


def _reads(args: argparse.Namespace) -> int:
    try:
        records, _ = station_records(args)
        tally = read_tally(records, args.session)
    except ValueError as exc:
        return _fail(str(exc))
    if args.json:
        _emit(tally.to_json())
        return 0
    total = len(tally.drops)
    if not total:
        return _fail("no drop on record was read and resolved yet")
    print(*reads_head_lines(tally.to_json(), every_way=True), sep="\n")
    print(f"photos read per drop: {tally.reads_mean:.1f} on average, {tally.reads_most} at most")
    changed = tally.corrected_after
    print(f"trays the host changed after the station had acted on them: {len(changed)}")
    for d in changed:
        assert d.corrected_after is not None
        before, after = d.corrected_after
        print(f"drop {d.drop_id}: {counts_phrase(before)} changed to {counts_phrase(after)}")
    return 0
