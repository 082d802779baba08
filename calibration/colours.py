"""`tower calibrate colours` and `check` without the command line: read shots, learn, report."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
from numpy.typing import NDArray

from calibration.learn import CalibrationError, LearnReport, learn_profile
from vision.annotate import annotate
from vision.counter import TrayCounter
from vision.errors import UnreadableImage
from vision.imageio import read_image
from vision.profile import ColourProfile


def parse_pairs(items: list[str], what: str) -> dict[str, list[str]]:
    """``["red=a.jpg", "red=b.jpg"]`` -> ``{"red": ["a.jpg", "b.jpg"]}``; errors name the bad item."""
    out: dict[str, list[str]] = {}
    for item in items:
        colour, sep, path = item.partition("=")
        if not sep or not colour or not path:
            raise CalibrationError(f"{what} {item!r} must look like COLOUR=IMAGE")
        out.setdefault(colour.strip().lower(), []).append(path)
    return out


def _read(path: str) -> NDArray[Any]:
    try:
        return read_image(path)
    except UnreadableImage as exc:
        raise CalibrationError(str(exc)) from exc


def learn_from_files(
    empty: str, samples: dict[str, list[str]], courtiers: dict[str, list[str]]
) -> tuple[ColourProfile, LearnReport]:
    return learn_profile(
        _read(empty),
        {c: [_read(p) for p in ps] for c, ps in samples.items()},
        {c: [_read(p) for p in ps] for c, ps in courtiers.items()},
    )


def format_report(report: LearnReport, say: Callable[[str], str] = str) -> list[str]:
    """What was learned, one line per colour; ``say`` puts each word into the reader's language (the CLI's
    German), the columns widening where a translated heading is longer."""
    spread = max(8, len(say("spread")) + 1)
    lines = [f"{say('colour'):<16}{say('pixels'):>8}{say('spread'):>{spread}}  "
             f"{say('nearest (separation, in standard deviations)')}"]
    for r in report.colours:
        lines.append(f"{say(r.colour):<16}{r.pixels:>8}{r.spread:>{spread}.2f}  {say(r.nearest)} ({r.separation:.1f})")
    for r in report.courtiers:
        lines.append(f"{say('courtier ' + r.colour):<16}{r.pixels:>8}{r.spread:>{spread}.2f}  {say(r.nearest)} "
                     f"({r.separation:.1f})")
    lines += [say(f"warning: {w}") for w in report.warnings]
    return lines


def check_image(profile: ColourProfile, image: str, out: Path, say: Callable[[str], str] = str) -> dict[str, Any]:
    """Count one shot with the profile and write the annotated picture, captioned in the words ``say``
    gives (the reader's language; English by default); returns the JSON line."""
    frame = _read(image)
    reading = TrayCounter(profile).count(frame)
    out.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(out), annotate(frame, reading, say)):
        raise CalibrationError(f"could not write {out}")
    return reading.to_json(image)
