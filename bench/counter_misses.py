"""Why the counter reads a tuning scene wrong: the colours, the patches, and how visible the cubes were.

For every clean tuning scene (:func:`calibration.fit_counter_doubt.tuning_scenes`; ``--data`` adds
tuning render sets, never a held-out seed) read wrong by the issue's measure (a colour outside
``[visible_cubes, cubes]``, or its courtiers outside ``[visible_courtiers, courtiers]``), prints each
colour whose courtiers were misread, and each wrong colour: counted, visible and in the tray; each patch
of that colour whose count lies outside the cubes it truly shows (:func:`calibration.render_truth.cubes_held`,
pieces matched to the patch that shows most of each); and the colour's cubes that show between a
quarter and ``--band`` of themselves. The quarter rule's edge is where most misses lie: a cube that
shows 26 % of itself, mostly its sides, under a cube of its own colour. The summary says how many of
the wrong scenes would be right if cubes showing less than ``--band`` could be counted or not::

    .venv/bin/python bench/counter_misses.py [--data RENDER_SET ...] [--band 0.30]

A tuning aid: it looks only at tuning scenes, so it may be read as often as needed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import cv2

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from calibration.fit_counter_doubt import tuning_scenes  # noqa: E402
from calibration.render_truth import cubes_held  # noqa: E402
from calibration.right_reading import courtiers_outside  # noqa: E402
from calibration.tray_dev import calibration_profile  # noqa: E402
from vision.counter import TrayCounter  # noqa: E402
from vision.counter.decide import model_patches  # noqa: E402
from vision.imageio import read_image  # noqa: E402


def wrong_colours(meta: dict[str, Any], cubes: dict[str, int], least: float = 0.25) -> dict[str, tuple[int, int, int]]:
    """Colour -> (counted, cubes showing at least ``least`` of themselves, cubes in the tray), for
    each colour counted outside that bracket (``least`` 0.25: the issue's measure)."""
    out = {}
    for colour, in_tray in meta["cubes"].items():
        shown = sum(1 for p in meta["pieces"] if p.get("type") == "cube" and p["colour"] == colour
                    and p["visible_fraction"] >= least)
        n = cubes.get(colour, 0)
        if not shown <= n <= in_tray:
            out[colour] = (n, shown, in_tray)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, action="append", default=[], help="another tuning render set")
    parser.add_argument("--band", type=float, default=0.30, help="the visible share below which a cube is "
                        "called near the quarter (default 0.30)")
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    clean = wrong = right_with_band = short = over = courtier_colours = 0
    for cal, root, scenes in tuning_scenes(args.shared, args.data):
        counter = TrayCounter(calibration_profile(cal))
        for image in scenes:
            meta = json.loads(image.with_suffix(".json").read_text())
            if meta.get("foreign_object") or "pieces" not in meta:
                continue
            clean += 1
            counter.prepared.locator.forget()
            reading, frame = counter.read(read_image(image))
            if not reading.usable or frame is None:
                wrong += 1
                print(f"{root.name}/{image.stem}: refused ({reading.reason})")
                continue
            off = wrong_colours(meta, reading.cubes)
            off_courtiers = courtiers_outside(meta, reading.courtiers)
            if not off and not off_courtiers:
                continue
            wrong += 1
            right_with_band += not wrong_colours(meta, reading.cubes, args.band) and not off_courtiers
            courtier_colours += len(off_courtiers)
            patches = model_patches(counter.prepared, frame.debug["counted"])
            held, missed = cubes_held(patches, meta, "shown")
            print(f"{root.name}/{image.stem}:")
            for colour, (n, low, high) in sorted(off_courtiers.items()):
                print(f"  {colour} courtiers: read {n}, visible {low}, in the tray {high}")
            for colour, (n, shown, in_tray) in off.items():
                short += n < shown
                over += n > in_tray
                near = sorted(p["visible_fraction"] for p in meta["pieces"] if p.get("type") == "cube"
                              and p["colour"] == colour and 0.25 <= p["visible_fraction"] < args.band)
                print(f"  {colour}: counted {n}, showing a quarter {shown}, in the tray {in_tray}; "
                      f"{len(near)} showing under {args.band:.2f} ({', '.join(f'{v:.2f}' for v in near) or '-'}); "
                      f"{missed.get(colour, 0)} shown cube(s) in no patch")
                for (core, count), (lo, hi) in zip(patches, held, strict=True):
                    if core.colour == colour and not lo <= count.n <= hi:
                        print(f"    {count.kind} patch of {core.area_mm2:.0f} mm2 at ({core.centre[0]:.0f}, "
                              f"{core.centre[1]:.0f}) px read as {count.n}, shows {lo}-{hi}")
    print(f"{clean} clean tuning scenes, {wrong} read wrong ({short} colours short, {over} over, "
          f"{courtier_colours} colours' courtiers misread); "
          f"{right_with_band} of the {wrong} right if cubes showing under {args.band:.2f} could be counted or not")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
