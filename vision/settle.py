"""Settle detection: has the tray stopped moving since the drop?

After a release the cubes bounce and roll for a moment; counting a frame taken too early reads a
cube twice (motion blur) or not at all. The controller feeds every captured frame with its
timestamp to a ``SettleDetector`` and counts the tray once it has been still for ``still_frames``
consecutive frames. If that never happens within ``timeout_s`` (a cube spinning on an edge, a hand
that stays, a flickering light) the detector says so: the caller still gets its last frame, but
flagged, so the reading can be marked for confirmation instead of trusted.

How motion is measured, and why it is robust to a real camera:

- each frame becomes a small grey image (``width`` px across, ``cv2.INTER_AREA``): averaging
  ~8 x 8 pixels into one divides sensor noise by ~8 and smooths JPEG block artefacts, while a
  10 mm cube still covers several small pixels;
- the previous small frame is scaled to the current one's mean brightness before differencing, so
  an automatic-exposure step or a light's slow drift is not mistaken for motion;
- a pixel "moved" if its grey level changed by more than ``pixel_threshold``; the frame is still
  if the share of moved pixels is at most ``motion_fraction``. The default (0.05 %, ~10 small
  pixels) is below what one cube sliding a millimetre or one cube falling in changes (0.09 % to
  0.3 % on rendered frames), while sensor noise and JPEG change nothing at that scale.

Pure and fast: NumPy and OpenCV on a ~160 x 120 image, well under a millisecond per frame.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class SettleState:
    """Where the detector stands after a frame.

    ``still_count``: consecutive still frames so far. ``settled``: still for ``still_frames``
    frames. ``timed_out``: ``timeout_s`` passed before that (the result must be flagged).
    ``motion``: share of pixels that changed from the previous frame (0 for the first).
    """

    frames: int
    still_count: int
    motion: float
    elapsed_s: float
    settled: bool
    timed_out: bool

    @property
    def done(self) -> bool:
        return self.settled or self.timed_out


class SettleDetector:
    """Says when a stream of frames has been still for ``still_frames`` frames, or timed out.

    Feed frames in capture order with ``update(frame, timestamp)`` (seconds, monotonic); the clock
    starts at the first frame unless ``reset(start_time)`` gives the moment of the release. Once
    settled or timed out the state is final until ``reset``.
    """

    def __init__(
        self,
        still_frames: int = 5,
        timeout_s: float = 8.0,
        *,
        width: int = 160,
        pixel_threshold: float = 10.0,
        motion_fraction: float = 0.0005,
    ) -> None:
        if still_frames < 1:
            raise ValueError(f"still_frames must be at least 1, got {still_frames}")
        if timeout_s <= 0:
            raise ValueError(f"timeout_s must be positive, got {timeout_s}")
        if width < 16:
            raise ValueError(f"width must be at least 16 px, got {width}")
        self.still_frames = still_frames
        self.timeout_s = timeout_s
        self.width = width
        self.pixel_threshold = pixel_threshold
        self.motion_fraction = motion_fraction
        self.reset()

    def reset(self, start_time: float | None = None) -> None:
        """Forget the previous frames; the timeout counts from ``start_time`` (default: the next
        frame's timestamp)."""
        self._prev: NDArray[Any] | None = None
        self._shape: tuple[int, ...] | None = None
        self._start = start_time
        self._last_t: float | None = None
        self._state = SettleState(0, 0, 0.0, 0.0, False, False)

    @property
    def state(self) -> SettleState:
        return self._state

    def downscale(self, frame: NDArray[Any]) -> NDArray[Any]:
        """The small grey float32 image motion is measured on (``width`` px across)."""
        if not isinstance(frame, np.ndarray) or frame.ndim not in (2, 3) or frame.size == 0:
            raise ValueError("a frame must be a non-empty H x W (grey) or H x W x 3 (BGR) array")
        if frame.ndim == 3 and frame.shape[2] != 3:
            raise ValueError(f"a colour frame must have 3 channels (BGR), got {frame.shape[2]}")
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        h = max(1, round(grey.shape[0] * self.width / grey.shape[1]))
        return cv2.resize(grey, (self.width, h), interpolation=cv2.INTER_AREA).astype(np.float32)

    def motion(self, previous: NDArray[Any], current: NDArray[Any]) -> float:
        """Share of pixels of two ``downscale``d frames that changed beyond the threshold, after
        matching the previous frame's mean brightness to the current one."""
        gain = float(current.mean()) / max(float(previous.mean()), 1e-3)
        diff = np.abs(current - previous * gain)
        return float(np.count_nonzero(diff > self.pixel_threshold)) / diff.size

    def update(self, frame: NDArray[Any], timestamp: float) -> SettleState:
        """Take the next frame; returns the new state."""
        if self._state.done:
            return self._state
        if self._last_t is not None and timestamp < self._last_t:
            raise ValueError(f"timestamps must not go backwards ({timestamp} after {self._last_t})")
        small = self.downscale(frame)
        if self._shape is not None and frame.shape != self._shape:
            raise ValueError(f"frame size changed from {self._shape} to {frame.shape}; reset() between streams")
        self._shape = frame.shape
        if self._start is None:
            self._start = timestamp
        self._last_t = timestamp
        frames = self._state.frames + 1
        if self._prev is None:
            moved, still = 0.0, 0
        else:
            moved = self.motion(self._prev, small)
            still = self._state.still_count + 1 if moved <= self.motion_fraction else 0
        self._prev = small
        elapsed = timestamp - self._start
        settled = still >= self.still_frames
        timed_out = not settled and elapsed >= self.timeout_s
        self._state = SettleState(frames, still, moved, elapsed, settled, timed_out)
        return self._state


def wait_until_settled(
    frames: Iterable[tuple[NDArray[Any], float]], detector: SettleDetector | None = None
) -> tuple[NDArray[Any], SettleState]:
    """Consume ``(frame, timestamp)`` pairs until the detector settles or times out; returns the
    last frame and the final state. If the stream ends first, the state says neither settled nor
    timed out. Raises ``ValueError`` for an empty stream."""
    det = detector or SettleDetector()
    last: NDArray[Any] | None = None
    state = det.state
    for frame, t in frames:
        last = frame
        state = det.update(frame, t)
        if state.done:
            break
    if last is None:
        raise ValueError("no frames to settle on")
    return last, state


def camera_frames(capture: Callable[[], NDArray[Any]], interval_s: float = 0.0) -> Iterator[tuple[NDArray[Any], float]]:
    """A camera's frames with their monotonic timestamps, at least ``interval_s`` apart: the stream
    :func:`wait_until_settled` consumes."""
    while True:
        yield capture(), time.monotonic()
        if interval_s:
            time.sleep(interval_s)


def settle_camera(capture: Callable[[], NDArray[Any]], detector: SettleDetector,
                  interval_s: float = 0.0) -> tuple[NDArray[Any], SettleState]:
    """Capture until ``detector`` settles or times out, its timeout counted from now; the last frame
    and the final state (the tray read after a drop, a calibration shot)."""
    detector.reset(time.monotonic())
    return wait_until_settled(camera_frames(capture, interval_s), detector)
