"""How near the coin guard's bars the tuning renders come: clean trays from below, coins from above.

The coin guard (``vision.counter.guards.flat_discs``) refuses a frame on three measures of a circle
the size of a coin, each against a bar of ``vision/counter/tuning/guards.py``: a plain disc's rim
arc (``DISC_PLAIN_RIM_DEG``), any circle's rim arc (``DISC_OUTLINE_RIM_DEG``), how far that rim's
edges turn from the radius (``DISC_RIM_MAX_TURN_DEG``: a coin's less, measured on circles with
100 degrees of rim or more, the coins' among them only where their arc passes its bar) and a tilted
rim's arc (``DISC_OUTLINE_RIM_DEG``, with the ellipse's size). A clean tray refused is the failure issue 9
allows never, and the margins shrink as sets are added (the rim arc's, 104 when it was set, was 137
of 150 on 2026-12-08), so this names, per measure, the clean tuning scenes that come nearest the
bar and the coins that clear it by least. Tuning scenes only (``tray_train``'s tuning part,
``tray_dev``, ``--data`` sets; held-out seeds are refused), each circle measured where the counter
meets it::

    .venv/bin/python bench/coin_margins.py [--data RENDER_SET ...] [--top 5]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from calibration.fit_counter_doubt import tuning_scenes  # noqa: E402
from calibration.tray_dev import calibration_profile  # noqa: E402
from vision.counter import TrayCounter, guards  # noqa: E402
from vision.counter.coin_circles import (  # noqa: E402
    EVEN_FACE,
    coin_sized_circles,
    ellipse_rim,
    plain_face,
    rim_arc,
    rim_arc_degrees,
)
from vision.counter.frame import Frame, Prepared  # noqa: E402
from vision.counter.tuning import PPM  # noqa: E402
from vision.imageio import read_image  # noqa: E402

#: The measures, each with the tuning field of its bar.
MEASURES = {"plain disc's rim arc": "DISC_PLAIN_RIM_DEG", "any circle's rim arc": "DISC_OUTLINE_RIM_DEG",
            "rim's turn from the radius": "DISC_RIM_MAX_TURN_DEG", "tilted rim's arc": "DISC_OUTLINE_RIM_DEG"}
#: The measures on which a coin lies below its bar, not above it.
COIN_BELOW = {"rim's turn from the radius"}
#: A rim's turn is measured on circles with at least this long a rim arc (degrees): shorter arcs are
#: no near miss of the rim-alone test.
TURN_FROM_ARC = 100


@dataclass(frozen=True)
class Circle:
    """One circle the guard judged, and its measure against one bar (degrees of unbroken rim)."""

    scene: str
    kind: str  # "clean", or the foreign object's type ("coin", "finger")
    measure: str
    degrees: float
    diameter_mm: float


def measured(prep: Prepared, frame: Frame, scene: str, kind: str) -> list[Circle]:
    """Every circle ``flat_discs`` would judge in ``frame``, with the measures its tests use. A plain
    disc's rim counts only for a disc whose face is plain and evenly lit (``plain_face``: the
    discs the plain rim bar decides); the tilted rim only for an ellipse of a coin's size."""
    assert frame.gray is not None and frame.labels is not None
    t, ppm = prep.tuning, float(PPM)
    found = coin_sized_circles(prep, frame)
    out = []
    for x, y, r in found.flat:
        if plain_face(prep, frame, (x, y), r) == EVEN_FACE:
            out.append(Circle(scene, kind, "plain disc's rim arc", rim_arc_degrees(frame.gray, (x, y), r, t.DISC_RIM_GRADIENT),
                              2 * r / ppm))
    for x, y, r in found.outlined:
        rim = rim_arc(frame.gray, (x, y), r, t.DISC_RIM_GRADIENT)
        out.append(Circle(scene, kind, "any circle's rim arc", rim.degrees, 2 * r / ppm))
        if rim.degrees >= (t.DISC_OUTLINE_RIM_DEG if kind == "coin" else TURN_FROM_ARC):
            out.append(Circle(scene, kind, "rim's turn from the radius", round(rim.turn, 1), 2 * r / ppm))
        tilted = ellipse_rim(frame.gray, (x, y), r, t.DISC_RIM_GRADIENT)
        if tilted.coin_sized(t):
            out.append(Circle(scene, kind, "tilted rim's arc", tilted.arc, tilted.major_px / ppm))
    return out


@contextmanager
def watching(on_frame: Callable[[Prepared, Frame], None]) -> Iterator[None]:
    """``guards.flat_discs`` calls ``on_frame`` with what it is given, for as long as this lasts."""
    kept = guards.flat_discs

    def watched(prep: Prepared, frame: Frame, perfectness: float | None = None) -> Any:
        on_frame(prep, frame)
        return kept(prep, frame, perfectness)

    guards.flat_discs = watched
    try:
        yield
    finally:
        guards.flat_discs = kept


def recorder(into: list[Circle], scene: str, kind: str) -> Callable[[Prepared, Frame], None]:
    """A callback for :func:`watching` that adds the circles of one scene's frame to ``into``."""
    def record(prep: Prepared, frame: Frame) -> None:
        into.extend(measured(prep, frame, scene, kind))
    return record


def scene_kind(meta: dict[str, Any]) -> str:
    if not meta.get("foreign_object"):
        return "clean"
    return str((meta.get("foreign_detail") or {}).get("type") or "foreign")


def margins(circles: list[Circle], bars: dict[str, float], top: int) -> list[str]:
    """Per measure: its bar, the clean circles nearest it (from below, or over it: a clean tray
    refused), and the coins' circles over it by least; the other way round for a measure on
    which a coin lies below its bar (:data:`COIN_BELOW`)."""
    lines = []
    for measure, field in MEASURES.items():
        bar, sign = bars[field], (-1 if measure in COIN_BELOW else 1)
        over = "under" if sign < 0 else "over"
        clean = sorted((c for c in circles if c.measure == measure and c.kind == "clean"), key=lambda c: -sign * c.degrees)
        coins = sorted((c for c in circles if c.measure == measure and c.kind == "coin" and sign * c.degrees >= sign * bar),
                       key=lambda c: sign * c.degrees)
        lines.append(f"{measure} (bar {field} = {bar:g}): {len(clean)} circles on clean trays, "
                     f"{sum(sign * c.degrees >= sign * bar for c in clean)} at or {over} the bar; "
                     f"{len(coins)} coins' circles {over} it")
        lines.append("  clean, nearest: " + (", ".join(f"{c.scene} {c.degrees:g}" for c in clean[:top]) or "-"))
        lines.append(f"  coins, least {over}: " + (", ".join(f"{c.scene} {c.degrees:g}" for c in coins[:top]) or "-"))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, action="append", default=[], help="another tuning render set")
    parser.add_argument("--top", type=int, default=5, help="circles named per side and measure (default 5)")
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    circles: list[Circle] = []
    bars: dict[str, float] = {}
    scenes = 0
    for cal, root, images in tuning_scenes(args.shared, args.data):
        counter = TrayCounter(calibration_profile(cal))
        bars = {field: float(getattr(counter.prepared.tuning, field)) for field in MEASURES.values()}
        for image in images:
            meta = json.loads(image.with_suffix(".json").read_text())
            name, kind = f"{root.name}/{image.stem}", scene_kind(meta)
            with watching(recorder(circles, name, kind)):
                counter.prepared.locator.forget()
                counter.read(read_image(image))
            scenes += 1
    print(f"{scenes} tuning scenes, {len(circles)} measures of circles the coin guard judged")
    for line in margins(circles, bars, args.top):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
