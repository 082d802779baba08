"""The station's own camera frames pass the same frame checks as a photo given to `tower count`."""

import logging
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.readers import CameraReader
from vision.reading import TrayReading


class Cam:
    def __init__(self, frame): self.frame = frame
    def capture(self): return self.frame

class Counter:
    calls = 0
    def count(self, frame):
        Counter.calls += 1
        return TrayReading(True, None, trusted=True, confidence=1.0)

def test_a_grayscale_camera_frame_is_unusable_and_never_counted(tmp_path: Path) -> None:
    grey = np.full((960, 1280, 3), 128, np.uint8)
    obs = CameraReader(Cam(grey), Counter(), tmp_path).read("t", wait_settle=False)
    assert not obs.usable and "grayscale" in (obs.reason or "") and not obs.trusted
    assert Counter.calls == 0 and obs.raw is not None and obs.raw.exists()  # the evidence is kept

def test_a_colour_camera_frame_is_counted(tmp_path: Path) -> None:
    frame = np.zeros((960, 1280, 3), np.uint8)
    frame[..., 2] = 200
    frame[::2, :, 0] = 90
    obs = CameraReader(Cam(frame), Counter(), tmp_path).read("t", wait_settle=False, save=False)
    assert obs.usable and obs.trusted


class BrokenCounter:
    """A counter with a fault of its own (as a stage's OpenCV call failing on a frame it was not
    written for)."""

    def count(self, frame):
        raise cv2.error("OpenCV(4.12.0) mean.dispatch.cpp:232: error: (-215:Assertion failed) mask.empty()")


def test_a_fault_in_the_counter_is_an_unusable_reading_and_the_photo_is_kept(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """At the table a bug in the counter must not stop the drop (it would fail again on every
    resume): the reading is unusable and says so, the raw photo is written, the traceback logged."""
    frame = np.zeros((960, 1280, 3), np.uint8)
    frame[..., 2] = 200
    frame[::2, :, 0] = 90
    with caplog.at_level(logging.ERROR, logger="vision.counter"):
        obs = CameraReader(Cam(frame), BrokenCounter(), tmp_path).read("t", wait_settle=False)
    assert not obs.usable and not obs.trusted
    assert "the counter failed on this photo (cv2.error: " in (obs.reason or "")
    assert "not in the tray; count the tray by hand" in (obs.reason or "")
    assert obs.raw is not None and obs.raw.exists() and obs.annotated is not None and obs.annotated.exists()
    assert any(r.exc_info and "mask.empty()" in str(r.exc_info[1]) for r in caplog.records)
