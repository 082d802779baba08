"""Where a count's CPU time goes: each stage of ``TrayCounter.read``, per frame, on tuning scenes.

The counter's CPU target (issue 9) is a median over whole counts (``bench/heldout_counter.py``);
this splits a count into its stages so that a change can be aimed at the costly ones. Each tuning
scene (``tray_train``'s tuning part, ``tray_dev``, ``--data`` sets) is counted twice, as the
held-out bench does, and the second count, a still camera's next frame, is timed stage by stage
(``time.process_time``, one thread). Printed: the median whole count, and per stage its mean ms
per frame and its share, costliest first. The timing wrappers cost a few microseconds a stage::

    .venv/bin/python bench/counter_stages.py [--scenes N] [--data RENDER_SET ...]

On a shared machine, pause other work: process time still counts cache misses another process causes.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
import vision.counter as counter_package  # noqa: E402
from calibration.fit_counter_doubt import tuning_scenes  # noqa: E402
from calibration.tray_dev import calibration_profile  # noqa: E402
from vision import rectify  # noqa: E402
from vision.counter import balls, corners, faces, guards, lying, partial, pawns, unlit  # noqa: E402
from vision.imageio import read_image  # noqa: E402

# The stages as TrayCounter.read calls them: (module holding the name it calls, name).
STAGES: list[tuple[Any, str]] = [
    (faces, "labels"), (guards, "hand_over_walls"), (guards, "colourless_objects"), (faces, "shadow_is_not_black"),
    (guards, "flat_discs"), (faces, "cores"), (partial, "visible_parts"), (pawns, "pawns_beside_faces"),
    (guards, "coloured_objects"), (unlit, "unlit_cubes"), (corners, "pieces_of_corners"), (balls, "heads_as_pawns"),
    (lying, "lying_as_pawns"), (counter_package, "reading_from_cores"), (counter_package, "plate_level"),
]


def timed(spent: dict[str, float], label: str, stage: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return stage(*args, **kwargs)
        finally:
            spent[label] += time.process_time() - start
    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenes", type=int, default=60, help="at most this many scenes (default 60)")
    parser.add_argument("--data", type=Path, action="append", default=[], help="another tuning render set")
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    spent: dict[str, float] = defaultdict(float)
    for module, name in STAGES:
        label = f"{module.__name__.rsplit('.', 1)[-1]}.{name}" if module is not counter_package else name
        setattr(module, name, timed(spent, label, getattr(module, name)))
    warp = rectify.View.warp
    rectify.View.warp = timed(spent, "warps (plate and tray views)", warp)  # type: ignore[method-assign]
    totals: list[float] = []
    stage_totals: dict[str, float] = defaultdict(float)
    frames = 0
    for cal, _, scenes in tuning_scenes(args.shared, args.data):
        counter = counter_package.TrayCounter(calibration_profile(cal))
        locate = counter.prepared.locator.locate
        counter.prepared.locator.locate = timed(spent, "markers and pose", locate)  # type: ignore[method-assign]
        for image in scenes[:max(args.scenes - frames, 0)]:
            frame = read_image(image)
            counter.prepared.locator.forget()
            counter.count(frame)  # the first count of a pose, not timed
            spent.clear()
            start = time.process_time()
            counter.count(frame)
            totals.append(time.process_time() - start)
            for label, seconds in spent.items():
                stage_totals[label] += seconds
            frames += 1
    if not frames:
        print("no tuning scenes found")
        return 1
    whole = statistics.mean(totals) * 1e3
    print(f"{frames} tuning scenes, second count: median {statistics.median(totals) * 1e3:.1f} ms, mean {whole:.1f} ms")
    rows = sorted(((v / frames * 1e3, k) for k, v in stage_totals.items()), reverse=True)
    for ms, label in rows:
        print(f"  {ms:6.2f} ms  {100 * ms / whole:4.1f} %  {label}")
    rest = whole - sum(ms for ms, _ in rows)
    print(f"  {rest:6.2f} ms  {100 * rest / whole:4.1f} %  the rest (checks, the grey view, the reading)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
