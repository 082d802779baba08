"""Benchmark: median marginal time to count one 1280 x 960 frame, and peak memory.

Calibrates once (on ../shared/data/tray_dev when present, else on the synthetic shots of the
hard-case tests), then counts a batch of 1280 x 960 frames in one process on one core
(``cv2.setNumThreads(1)``) and prints the median and 90th-percentile time per frame and the
process's peak resident memory. CPU time per count is printed too: on a shared machine the wall
time includes waiting for a core.

The host's pace moves this machine's figures by a third within hours (``docs/counter-figures.md``,
*The machine's pace*), so a fixed OpenCV workload (:func:`pace_workload`) is timed between the
counts, and the count is printed as a multiple of it too: that ratio compares runs made on
different days, where the milliseconds alone do not.
"""

from __future__ import annotations

import os
import resource
import statistics
import sys
import time
from pathlib import Path

import cv2

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from calibration.tray_dev import calibration_profile  # noqa: E402
from vision.counter import TrayCounter  # noqa: E402
from vision.imageio import read_image  # noqa: E402

ROUNDS = 5


def pace_workload(frame: cv2.typing.MatLike) -> float:
    """CPU seconds of a fixed OpenCV workload on one 1280 x 960 frame: a 5 x 5 Gaussian blur and a
    conversion to CIE Lab, the kind of whole-frame pass the counter makes (one thread)."""
    start = time.process_time()
    cv2.cvtColor(cv2.GaussianBlur(frame, (5, 5), 0), cv2.COLOR_BGR2Lab)
    return time.process_time() - start


def main() -> int:
    cv2.setNumThreads(1)
    root = REPO.parent / "shared" / "data" / "tray_dev"
    if not root.is_dir():
        print(f"{root} is missing: the benchmark needs the shared tray photos")
        return 1
    counter = TrayCounter(calibration_profile(root))
    frames = [read_image(p) for p in sorted((root / "test").glob("*.jpg"))]
    frames = [f for f in frames if f.shape[:2] == (960, 1280)]
    counter.count(frames[0])  # warm-up (lazy allocations)
    # Each scene is a new camera pose (the renders each have their own). Its first count searches the
    # whole frame for the markers; the station's camera stands still, so every later frame of it is
    # like the next counts here (markers looked for where they were, the pose kept): that is the
    # station's steady state and the figure against the target, the first count is printed beside it.
    times, cpu, first_cpu, pace = [], [], [], []
    for f in frames:
        counter.prepared.locator.forget()  # another camera: nothing of the previous scene's markers is used
        c0 = time.process_time()
        counter.count(f)
        first_cpu.append(time.process_time() - c0)
        for _ in range(ROUNDS):
            t0, c0 = time.perf_counter(), time.process_time()
            counter.count(f)
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
            pace.append(pace_workload(f))
    times.sort()
    med = statistics.median(times) * 1e3
    p90 = times[int(0.9 * (len(times) - 1))] * 1e3
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    cpu_med = statistics.median(cpu) * 1e3
    print(f"count 1280x960 frame, 1 thread, still camera: median {med:.1f} ms wall, p90 {p90:.1f} ms; median "
          f"CPU time {cpu_med:.1f} ms ({len(times)} counts of {len(frames)} frames); peak RSS {peak_mib:.0f} MiB; "
          f"target <= 20 ms")
    pace_med = statistics.median(pace) * 1e3
    print(f"the host's pace: the fixed workload (blur and Lab conversion of the frame, timed between the counts) "
          f"took a median {pace_med:.1f} ms; a count took {cpu_med / max(pace_med, 1e-6):.2f} times that")
    print(f"a frame from a new camera pose (whole-frame marker search): median CPU time "
          f"{statistics.median(first_cpu) * 1e3:.1f} ms")
    print(f"(wall time includes waiting for the CPU when the machine is shared: load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores now)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
