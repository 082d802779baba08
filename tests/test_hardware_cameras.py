"""Camera backends: the colour order (BGR out of every backend), picamera2's exposure lock and
timeout (on a fake that lays pixels out as libcamera does), OpenCV VideoCapture and replay."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from hardware.cameras import OpenCVCamera, Picamera2Camera, ReplayCamera, as_bgr
from hardware.errors import CameraError, CameraTimeout

RED_BGR = (0, 0, 255)


class FakePicamera2:
    """Mimics picamera2's behaviour where it matters to us.

    Formats are DRM fourcc names listing channels from the most significant byte, so in memory
    (little-endian) "RGB888" is B, G, R and "BGR888" is R, G, B. The scene in front of the fake is
    a red left half and a blue right half.
    """

    def __init__(self, camera_num: int = 0, *, stall: bool = False) -> None:
        self.config: dict[str, Any] | None = None
        self.controls: dict[str, Any] = {}
        self.started = self.closed = False
        self.stall = stall

    def create_still_configuration(self, main: dict[str, Any], buffer_count: int = 1) -> dict[str, Any]:
        return {"main": dict(main), "buffer_count": buffer_count}

    def configure(self, config: dict[str, Any]) -> None:
        self.config = config

    def start(self) -> None:
        self.started = True

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        self.closed = True

    def capture_metadata(self) -> dict[str, Any]:
        return {"ExposureTime": 12000, "AnalogueGain": 1.8, "ColourGains": (1.9, 1.6), "Lux": 300.0}

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.controls.update(controls)

    def capture_array(self, name: str = "main", wait: Any = None) -> Any:
        assert self.started and wait is False
        return "job"

    def wait(self, job: Any, timeout: float | None = None) -> np.ndarray:
        if self.stall:
            raise TimeoutError
        assert self.config is not None
        w, h = self.config["main"]["size"]
        rgb = np.zeros((h, w, 3), np.uint8)
        rgb[:, : w // 2] = (255, 0, 0)
        rgb[:, w // 2:] = (0, 0, 255)
        fmt = self.config["main"]["format"]
        if fmt == "RGB888":
            return rgb[:, :, ::-1].copy()
        if fmt == "BGR888":
            return rgb.copy()
        raise AssertionError(f"fake does not know {fmt}")


def test_picamera2_frames_are_bgr() -> None:
    fakes: list[FakePicamera2] = []
    cam = Picamera2Camera(width=64, height=48, settle_s=0, factory=lambda n: fakes.append(FakePicamera2(n)) or fakes[-1],
                          sleep=lambda s: None)
    frame = cam.capture()
    assert frame.shape == (48, 64, 3) and frame.dtype == np.uint8
    assert tuple(int(v) for v in frame[10, 5]) == RED_BGR  # the red half is red in OpenCV's order
    assert tuple(int(v) for v in frame[10, 60]) == (255, 0, 0)
    assert fakes[0].config is not None and fakes[0].config["main"]["format"] == "RGB888"


def test_picamera2_locks_exposure_and_white_balance_after_settling() -> None:
    fake = FakePicamera2()
    slept: list[float] = []
    cam = Picamera2Camera(width=32, height=24, settle_s=1.25, factory=lambda n: fake, sleep=slept.append)
    assert fake.controls == {}
    cam.capture()
    assert slept == [1.25]
    assert fake.controls == {"AeEnable": False, "AwbEnable": False, "ExposureTime": 12000, "AnalogueGain": 1.8,
                             "ColourGains": (1.9, 1.6)}
    cam.capture()
    assert slept == [1.25], "locked once, not before every frame"
    cam.close()
    assert fake.closed and not fake.started


def test_picamera2_timeout() -> None:
    cam = Picamera2Camera(width=32, height=24, settle_s=0, timeout_s=0.5, factory=lambda n: FakePicamera2(stall=True),
                          sleep=lambda s: None)
    with pytest.raises(CameraTimeout, match="0.5 s"):
        cam.capture()


def test_picamera2_missing_gives_install_hint() -> None:
    try:
        import picamera2  # noqa: F401
    except ImportError:
        with pytest.raises(CameraError, match="python3-picamera2"):
            Picamera2Camera()
    else:  # pragma: no cover - on a Pi
        pytest.skip("picamera2 is installed here")


def _red_blue(w: int = 64, h: int = 48) -> np.ndarray:
    img = np.zeros((h, w, 3), np.uint8)
    img[:, : w // 2] = RED_BGR
    img[:, w // 2:] = (255, 0, 0)
    return img


def test_replay_folder_plays_in_order_then_holds_the_last(tmp_path: Path) -> None:
    for i, shade in enumerate((10, 20, 30)):
        img = _red_blue()
        img[0, 0] = (shade, shade, shade)
        cv2.imwrite(str(tmp_path / f"frame{i:03d}.png"), img)
    (tmp_path / "notes.txt").write_text("not an image")
    cam = ReplayCamera(tmp_path)
    firsts = [int(cam.capture()[0, 0, 0]) for _ in range(5)]
    assert firsts == [10, 20, 30, 30, 30]
    frame = cam.capture()
    assert tuple(int(v) for v in frame[20, 5]) == RED_BGR
    cam.rewind()
    assert int(cam.capture()[0, 0, 0]) == 10


def test_replay_refuses_a_corrupt_image(tmp_path: Path) -> None:
    (tmp_path / "a.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    with pytest.raises(CameraError, match="cannot be decoded"):
        ReplayCamera(tmp_path).capture()


def test_replay_errors_name_the_path(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="holds no images"):
        ReplayCamera(tmp_path)
    with pytest.raises(CameraError, match="does not exist"):
        ReplayCamera(tmp_path / "missing")


def _write_video(path: Path, n: int = 6) -> None:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (64, 48))
    assert writer.isOpened()
    for _ in range(n):
        writer.write(_red_blue())
    writer.release()


def test_opencv_camera_on_a_video_keeps_bgr(tmp_path: Path) -> None:
    video = tmp_path / "tray.avi"
    _write_video(video)
    cam = OpenCVCamera(str(video), width=None, height=None, flush=0)
    frame = cam.capture()
    b, g, r = (int(v) for v in frame[24, 8])
    assert r > 200 and b < 60 and g < 60
    cam.close()
    with pytest.raises(CameraError, match="closed"):
        cam.capture()


def test_opencv_camera_end_of_stream_is_an_error(tmp_path: Path) -> None:
    video = tmp_path / "short.avi"
    _write_video(video, n=2)
    cam = OpenCVCamera(str(video), width=None, height=None, flush=0)
    cam.capture()
    cam.capture()
    with pytest.raises(CameraError, match="returned no frame"):
        cam.capture()


def test_replay_video(tmp_path: Path) -> None:
    video = tmp_path / "tray.avi"
    _write_video(video, n=3)
    cam = ReplayCamera(video)
    frames = [cam.capture() for _ in range(5)]
    assert all(f.shape == (48, 64, 3) for f in frames)
    assert int(frames[-1][24, 8, 2]) > 200


def test_opencv_camera_that_does_not_exist() -> None:
    with pytest.raises(CameraError, match="could not open"):
        OpenCVCamera("/nonexistent/video.avi")


def test_as_bgr_normalises_and_refuses() -> None:
    grey = np.full((4, 5), 7, np.uint8)
    assert as_bgr(grey, "x").shape == (4, 5, 3)
    xrgb = np.zeros((4, 5, 4), np.uint8)
    assert as_bgr(xrgb, "x").shape == (4, 5, 3)
    with pytest.raises(CameraError, match="float32"):
        as_bgr(np.zeros((4, 5, 3), np.float32), "x")
    with pytest.raises(CameraError, match="no image"):
        as_bgr(None, "x")
