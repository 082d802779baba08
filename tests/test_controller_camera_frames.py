"""The station's own camera frames pass the same frame checks as a photo given to `tower count`."""

from pathlib import Path

import numpy as np

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
