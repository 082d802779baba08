"""Every tuning reading, written down to compare one version of the counter with another.

A change meant to make the counter cheaper must leave every reading as it was; a change meant to
read better must say which readings it moved. This reads the tuning scenes
(:func:`calibration.fit_counter_doubt.tuning_scenes`: ``tray_train``'s tuning part, ``tray_dev``, and
each ``--data`` set, which must not be a held-out seed) as the benchmarks do (each scene's
markers searched anew), writes each reading's ``to_json`` (what ``tower count --json`` prints:
counts, courtiers, trust, alternatives) and its detections (each patch's kind, colour, count,
score, note, doubt, centre and outline in the photo) to ``OUT``, and with ``--compare`` names the
scenes whose reading differs from an earlier file's::

    .venv/bin/python bench/counter_readings.py /tmp/before.json              # before the change
    .venv/bin/python bench/counter_readings.py /tmp/after.json --compare /tmp/before.json

Exit status 1 when ``--compare`` finds a difference (or a scene missing from either file).
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
from calibration.tray_dev import calibration_profile  # noqa: E402
from vision.counter import TrayCounter  # noqa: E402
from vision.imageio import read_image  # noqa: E402


def readings(shared: Path, extra: list[Path]) -> dict[str, Any]:
    """``set/scene`` -> the reading's JSON, for every tuning scene."""
    cv2.setNumThreads(1)
    out: dict[str, Any] = {}
    for cal, root, scenes in tuning_scenes(shared, extra):
        counter = TrayCounter(calibration_profile(cal))
        for image in scenes:
            counter.prepared.locator.forget()  # each render has its own camera pose
            reading = counter.count(read_image(image))
            out[f"{root.name}/{image.stem}"] = {**reading.to_json(), "detections": [
                [d.kind, d.colour, d.count, d.score, d.note, d.doubt, list(d.centre_mm), d.outline.tolist()]
                for d in reading.detections]}
    # through JSON once, so that a fresh reading compares equal to one read back from a file
    return dict(json.loads(json.dumps(out, sort_keys=True)))


def differences(now: dict[str, Any], before: dict[str, Any]) -> list[str]:
    """The scenes read differently, or read in only one of the two."""
    return sorted(k for k in set(now) | set(before) if now.get(k) != before.get(k))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="JSON file to write the readings to")
    parser.add_argument("--compare", type=Path, help="an earlier file of readings: name the scenes that differ")
    parser.add_argument("--data", type=Path, action="append", default=[], help="another tuning render set")
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    args = parser.parse_args(argv)
    now = readings(args.shared, args.data)
    args.out.write_text(json.dumps(now, sort_keys=True))
    print(f"{len(now)} tuning readings written to {args.out}")
    if args.compare is None:
        return 0
    before = json.loads(args.compare.read_text())
    changed = differences(now, before)
    print(f"against {args.compare}: {len(changed)} of {len(set(now) | set(before))} differ"
          + (": " + ", ".join(changed[:30]) + (" ..." if len(changed) > 30 else "") if changed else ""))
    return 1 if changed else 0


if __name__ == "__main__":
    raise SystemExit(main())
