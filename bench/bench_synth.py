"""Benchmark: the synthetic tray renderer and the settle detector, per frame, on one core.

The simulated camera renders every frame it is asked for (a drop is a burst of motion frames then
still ones), so the renderer's time per frame bounds how fast a simulated game runs. Prints the
median time per frame for: a 45-cube scene at 1280 x 960 and 1920 x 1080 (static background
cached, as in the simulated camera), the same with ground truth, a motion frame (3 sub-steps of
motion blur), and one ``SettleDetector.update``.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from simulation.synth import (  # noqa: E402
    Scene,
    random_camera,
    random_lighting,
    random_postfx,
    render,
    render_motion,
    render_with_truth,
    scatter_cubes,
)
from vision.settle import SettleDetector  # noqa: E402

COUNTS = {"red": 10, "blue": 8, "yellow": 7, "purple": 8, "black": 6, "green": 6}
ROUNDS = 15


def _median_ms(fn, rounds: int = ROUNDS) -> float:  # type: ignore[no-untyped-def]
    fn()  # warm-up: builds the cached background for this pose
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return 1000 * statistics.median(times)


def main() -> int:
    cv2.setNumThreads(1)
    rng = np.random.default_rng(1)
    print("simulation.synth, one core (cv2.setNumThreads(1)), median ms per frame")
    for size in ((1280, 960), (1920, 1080)):
        scene = Scene(tuple(scatter_cubes(COUNTS, rng)), random_camera(rng, size), random_lighting(rng, 1.0),
                      random_postfx(rng))
        before = Scene(scene.pieces[:30], scene.camera, scene.lighting, scene.postfx)
        label = f"{size[0]}x{size[1]}"
        print(f"  render, 45 cubes, {label}:            {_median_ms(lambda s=scene: render(s, rng)):7.1f}")
        print(f"  render_with_truth, {label}:           {_median_ms(lambda s=scene: render_with_truth(s, rng)):7.1f}")
        per = _median_ms(lambda b=before, s=scene: render_motion(b, s, 4, rng), rounds=4) / 4
        print(f"  motion frame (3 sub-steps), {label}:  {per:7.1f}")
        frame = render(scene, rng)
        det = SettleDetector(still_frames=10**6, timeout_s=1e9)
        clock = iter(range(10**9))
        print(f"  SettleDetector.update, {label}:       {_median_ms(lambda f=frame, d=det, c=clock: d.update(f, next(c)), 50):7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
