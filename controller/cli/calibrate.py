"""`tower calibrate markers | shot | colours | check`: set the station's camera up.

- ``markers`` writes the printable marker sheet for the base plate (PNG at a stated DPI, and PDF).
- ``shot`` takes one calibration shot with the station's own camera under its LED ring at full, once
  the tray is still (:mod:`station.shot`), and says whether it will do.
- ``colours`` learns the colour profile from calibration shots and prints what it learned.
- ``check`` counts one shot with a profile and writes the annotated picture.

The work is in :mod:`calibration` and :mod:`station.shot`; this module parses, calls and prints.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from controller import data_dir
from controller.cli._words import say
from controller.data_dir import StationBusy
from controller.records import RecordsError
from hardware.config import load_config
from hardware.errors import ConfigError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("calibrate", help="marker sheet, colour profile, and a check shot",
                                   description="Set the station's camera up.")
    sub = parser.add_subparsers(dest="calibrate_command", metavar="<step>")

    markers = sub.add_parser("markers", help="write the printable marker sheet (PNG and PDF)",
                             description="Write the base plate's marker sheet at true scale.")
    markers.add_argument("--out", required=True, type=Path, help="output file (PNG; a PDF is written beside it)")
    markers.add_argument("--dpi", type=int, default=300, help="PNG resolution (default 300)")
    markers.set_defaults(handler=_markers)

    shot = sub.add_parser(
        "shot", help="photograph the tray for calibrating, with the station's camera and light",
        description="Take one calibration shot with the station's own camera, its LED ring at full, once the "
        "tray is still, and say whether the plate's markers are in view: the empty tray first, then each "
        "colour's cubes, for `tower calibrate colours`. Exit 1 if the shot will not do, 2 if none was taken.")
    shot.add_argument("--out", required=True, type=Path, help="image to write (PNG keeps every pixel; JPEG)")
    shot.add_argument("--config", type=Path, default=None,
                      help="station config (tower.toml); default: the packaged simulated station")
    shot.set_defaults(handler=_shot)

    colours = sub.add_parser(
        "colours",
        help="learn the colour profile from calibration shots",
        description="Learn the colour profile: an empty tray, then shots of separate cubes of each "
        "colour (several per colour allowed), optionally standing courtier pawns.",
    )
    colours.add_argument("--shots", type=Path, default=None, metavar="DIR",
                         help="folder of shots named empty.jpg, <colour>_1.jpg ..., courtier_<colour>.jpg "
                         "(PNG too): each used as its name says, besides any given one by one")
    colours.add_argument("--empty", default=None, help="shot of the empty tray (instead of the folder's)")
    colours.add_argument("--sample", action="append", default=[], metavar="COLOUR=IMG",
                         help="shot of separate cubes of one colour (repeatable)")
    colours.add_argument("--courtier", action="append", default=[], metavar="COLOUR=IMG",
                         help="shot of standing courtier pawns of one player colour (repeatable)")
    colours.add_argument("--out", required=True, type=Path, help="profile JSON to write")
    colours.set_defaults(handler=_colours)

    check = sub.add_parser("check", help="count one shot with a profile and write the annotated picture",
                           description="Count one shot and draw what was found.")
    check.add_argument("--profile", required=True, type=Path, help="colour profile JSON")
    check.add_argument("image", metavar="IMG")
    check.add_argument("--out", required=True, type=Path, help="annotated PNG to write")
    check.set_defaults(handler=_check)


def _markers(args: argparse.Namespace) -> int:
    from calibration.markers import write_marker_sheet

    for path in write_marker_sheet(args.out, dpi=args.dpi):
        print(path)
    return 0


def _shot(args: argparse.Namespace) -> int:
    from station.shot import shoot

    try:
        config = load_config(args.config)
        lock_fd = data_dir.lock_data_dir(config.data_dir)  # the devices belong to one process
    except (ConfigError, StationBusy, RecordsError) as exc:
        print(f"tower calibrate shot: {exc}", file=sys.stderr)
        return 2
    try:
        shot = shoot(config, args.out)
    except OSError as exc:  # ShotError, a link or camera that failed, an image that cannot be written
        print(f"tower calibrate shot: {exc}", file=sys.stderr)
        return 2
    finally:
        os.close(lock_fd)
    print(f"shot written to {shot.path}")
    print(f"{shot.width} x {shot.height} pixels; plate markers found: {len(shot.markers)} of 4")
    for problem in shot.problems:
        print(f"not fit for calibrating: {problem}")
    return 0 if shot.ok else 1


def _colours(args: argparse.Namespace) -> int:
    from calibration.colours import ShotFolder, format_report, learn_from_files, parse_pairs, shots_in_folder
    from calibration.learn import CalibrationError
    from vision.profile import save_profile

    try:
        if args.shots is None and args.empty is None:
            raise CalibrationError("say where the shots are: --shots DIR, or --empty IMG with --sample COLOUR=IMG ...")
        folder = shots_in_folder(args.shots) if args.shots is not None else ShotFolder(args.empty, {}, {})
        samples, courtiers = parse_pairs(args.sample, "--sample"), parse_pairs(args.courtier, "--courtier")
        profile, report = learn_from_files(
            args.empty or folder.empty,
            {c: folder.samples.get(c, []) + samples.get(c, []) for c in {**folder.samples, **samples}},
            {c: folder.courtiers.get(c, []) + courtiers.get(c, []) for c in {**folder.courtiers, **courtiers}},
        )
        save_profile(profile, args.out)
    except (CalibrationError, OSError) as exc:
        print(f"tower calibrate colours: {exc}", file=sys.stderr)
        return 2
    for name in folder.ignored:
        print(f"not used: {name} (not a calibration shot's name: empty, <colour>_..., courtier_<colour>)")
    for line in format_report(report, say):
        print(line)
    print(f"profile written to {args.out}")
    return 0


def _check(args: argparse.Namespace) -> int:
    from calibration.colours import check_image
    from calibration.learn import CalibrationError
    from vision.errors import ProfileError
    from vision.profile import load_profile

    try:
        result = check_image(load_profile(args.profile), args.image, args.out, say)
    except (CalibrationError, ProfileError) as exc:
        print(f"tower calibrate check: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result))
    print(f"annotated picture written to {args.out}")
    return 0 if result["usable"] else 1
