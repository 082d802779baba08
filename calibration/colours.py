"""`tower calibrate colours` and `check` without the command line: read shots, learn, report."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
from numpy.typing import NDArray

from calibration.learn import CalibrationError, LearnReport, learn_profile
from vision.annotate import annotate
from vision.counter import TrayCounter
from vision.errors import UnreadableImage
from vision.geometry import ALL_COLOURS, PLAYER_COLOURS
from vision.imageio import read_image
from vision.profile import ColourProfile
from vision.reading import guarded_count


def parse_pairs(items: list[str], what: str) -> dict[str, list[str]]:
    """``["red=a.jpg", "red=b.jpg"]`` -> ``{"red": ["a.jpg", "b.jpg"]}``; errors name the bad item."""
    out: dict[str, list[str]] = {}
    for item in items:
        colour, sep, path = item.partition("=")
        if not sep or not colour or not path:
            raise CalibrationError(f"{what} {item!r} must look like COLOUR=IMAGE")
        out.setdefault(colour.strip().lower(), []).append(path)
    return out


SHOT_SUFFIXES = (".jpg", ".jpeg", ".png")
"""The image files a folder of calibration shots is searched for (what ``tower calibrate shot`` writes)."""


@dataclass(frozen=True)
class ShotFolder:
    """A folder's calibration shots, sorted by what they show (:func:`shots_in_folder`)."""

    empty: str
    samples: dict[str, list[str]]
    courtiers: dict[str, list[str]]
    ignored: list[str] = field(default_factory=list)
    """Image files whose names say nothing the calibration knows (a typo such as ``gren_1.jpg``)."""


def shots_in_folder(folder: str | Path) -> ShotFolder:
    """The calibration shots in ``folder``, known by their names, so that a folder of shots is
    learned from in one step instead of one flag per shot: ``empty.jpg`` (the empty tray);
    ``<colour>_<anything>.jpg`` or ``<colour>.jpg`` (separate cubes of one colour, several allowed);
    ``courtier_<colour>.jpg`` or ``courtier_<colour>_<anything>.jpg`` (standing courtiers of one
    player colour). PNG or JPEG. These are the names the shared renders' ``calibration/`` uses.
    Other files are left alone; image files with another name are listed in ``ignored``, so that a
    misspelt colour is said, not lost. Per colour, shots in the order of their names."""
    root = Path(folder)
    if not root.is_dir():
        raise CalibrationError(f"{root} is not a folder (a folder of calibration shots: empty.jpg, red_1.jpg ...)")
    images = sorted(p for p in root.iterdir() if p.is_file() and p.suffix.lower() in SHOT_SUFFIXES)

    def named(prefix: str) -> list[str]:
        return [str(p) for p in images if p.stem.lower() == prefix or p.stem.lower().startswith(prefix + "_")]

    empty = [str(p) for p in images if p.stem.lower() == "empty"]
    if not empty:
        raise CalibrationError(f"{root} holds no shot of the empty tray (empty.jpg or empty.png)")
    if len(empty) > 1:
        raise CalibrationError(f"{root} holds {len(empty)} shots of the empty tray ({', '.join(empty)}): keep one")
    samples = {c: shots for c in ALL_COLOURS if (shots := named(c))}
    courtiers = {c: shots for c in PLAYER_COLOURS if (shots := named(f"courtier_{c}"))}
    known = set(empty) | {s for group in (samples, courtiers) for shots in group.values() for s in shots}
    return ShotFolder(empty[0], samples, courtiers, [str(p) for p in images if str(p) not in known])


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
    reading = guarded_count(TrayCounter(profile), frame)  # a fault in the counter is said, not raised
    out.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(out), annotate(frame, reading, say)):
        raise CalibrationError(f"could not write {out}")
    return reading.to_json(image)
