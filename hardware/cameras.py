"""Cameras: picamera2 (Raspberry Pi camera modules), OpenCV ``VideoCapture`` (USB cameras), replay
of recorded frames, and the simulated camera. Every backend returns ``H x W x 3`` ``uint8`` **BGR**.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from hardware.errors import CameraError, CameraTimeout
from hardware.interfaces import Camera

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")
Sleep = Callable[[float], None]


def as_bgr(frame: Any, source: str) -> npt.NDArray[np.uint8]:
    """Check and normalise a frame: ``uint8``, three channels (a fourth, padding, is dropped; grey is
    expanded), contiguous. Anything else is a ``CameraError`` naming the source."""
    if not isinstance(frame, np.ndarray) or frame.size == 0:
        raise CameraError(f"{source} delivered no image")
    if frame.dtype != np.uint8:
        raise CameraError(f"{source} delivered {frame.dtype} pixels, expected uint8")
    if frame.ndim == 2:
        frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    elif frame.ndim == 3 and frame.shape[2] == 4:
        frame = frame[:, :, :3]
    elif frame.ndim != 3 or frame.shape[2] != 3:
        raise CameraError(f"{source} delivered an array of shape {frame.shape}, expected H x W x 3")
    return np.ascontiguousarray(frame)


class Picamera2Camera(Camera):
    """A Raspberry Pi camera module through picamera2 (imported only when this backend is used).

    Colour order: picamera2 names formats after libcamera's DRM fourccs, which list channels from
    the most significant byte, so ``"RGB888"`` arrives in memory as B, G, R per pixel: already
    OpenCV's order, no conversion (converting would swap red and blue cubes).

    Exposure and white balance are left automatic for ``settle_s`` after start, read back from the
    frame metadata, then locked (``AeEnable``/``AwbEnable`` off with the settled values): a cube-
    filled tray must not change the exposure, or colours drift between the calibration and a drop.
    """

    FORMAT = "RGB888"

    def __init__(self, *, width: int = 1280, height: int = 960, timeout_s: float = 3.0, settle_s: float = 1.0,
                 camera_num: int = 0, factory: Callable[..., Any] | None = None, sleep: Sleep = time.sleep) -> None:
        if factory is None:
            try:
                from picamera2 import Picamera2
            except ImportError as exc:
                raise CameraError(
                    "picamera2 is not installed: on Raspberry Pi OS run `sudo apt install python3-picamera2` "
                    "and create the virtual environment with --system-site-packages") from exc
            factory = Picamera2
        self.width, self.height = width, height
        self.timeout_s, self.settle_s = timeout_s, settle_s
        self._sleep = sleep
        self.locked_controls: dict[str, Any] | None = None
        try:
            self._cam = factory(camera_num)
            config = self._cam.create_still_configuration(main={"size": (width, height), "format": self.FORMAT},
                                                          buffer_count=2)
            self._cam.configure(config)
            self._cam.start()
        except Exception as exc:
            raise CameraError(f"picamera2 camera {camera_num} could not be started: {exc}") from exc

    def lock_exposure(self) -> dict[str, Any]:
        """Let automatic exposure and white balance settle, then freeze them at the settled values."""
        self._sleep(self.settle_s)
        metadata = self._cam.capture_metadata()
        controls: dict[str, Any] = {"AeEnable": False, "AwbEnable": False}
        for key in ("ExposureTime", "AnalogueGain", "ColourGains"):
            if key in metadata:
                controls[key] = metadata[key]
        self._cam.set_controls(controls)
        self.locked_controls = controls
        return controls

    def capture(self) -> npt.NDArray[np.uint8]:
        if self.locked_controls is None:
            self.lock_exposure()
        try:
            job = self._cam.capture_array("main", wait=False)
            frame = self._cam.wait(job, timeout=self.timeout_s)
        except TimeoutError as exc:
            raise CameraTimeout(f"picamera2 delivered no frame within {self.timeout_s:g} s") from exc
        except Exception as exc:
            raise CameraError(f"picamera2 capture failed: {exc}") from exc
        return as_bgr(frame, "picamera2")

    def close(self) -> None:
        cam = getattr(self, "_cam", None)
        if cam is not None:
            try:
                cam.stop()
            finally:
                cam.close()
            self._cam = None

    def describe(self) -> str:
        return f"picamera2 {self.width}x{self.height} {self.FORMAT}"


class OpenCVCamera(Camera):
    """A camera (usually USB/UVC) through OpenCV's ``VideoCapture``; frames are BGR natively.

    USB cameras queue a few frames; a frame from that queue was taken before the release, so each
    capture first discards ``flush`` queued frames and returns a fresh one.
    """

    def __init__(self, source: int | str = 0, *, width: int | None = 1280, height: int | None = 960,
                 timeout_s: float = 3.0, flush: int = 2) -> None:
        self.source = source
        self.timeout_s = timeout_s
        self.flush = flush
        self._cap: cv2.VideoCapture | None = cv2.VideoCapture(source)
        if not self._cap.isOpened():
            raise CameraError(f"OpenCV could not open camera {source!r}")
        self._cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        if width and height and isinstance(source, int):
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        self._lock = threading.Lock()

    def capture(self) -> npt.NDArray[np.uint8]:
        with self._lock:
            cap = self._cap
            if cap is None:
                raise CameraError(f"camera {self.source!r} is closed")
            for _ in range(self.flush):
                cap.grab()
            result: list[Any] = []
            reader = threading.Thread(target=lambda: result.append(cap.read()), daemon=True)
            reader.start()
            reader.join(self.timeout_s)
            if reader.is_alive():
                raise CameraTimeout(f"camera {self.source!r} delivered no frame within {self.timeout_s:g} s")
            ok, frame = result[0]
            if not ok:
                raise CameraError(f"camera {self.source!r} returned no frame (unplugged, or end of a video)")
            return as_bgr(frame, f"camera {self.source!r}")

    def close(self) -> None:
        cap = getattr(self, "_cap", None)
        if cap is not None:
            cap.release()
            self._cap = None

    def describe(self) -> str:
        return f"OpenCV camera {self.source!r}"


class ReplayCamera(Camera):
    """Plays back recorded frames: a folder of images (in name order) or a video file.

    After the last frame it keeps returning the last one, as a real camera keeps seeing a settled
    tray; ``rewind()`` starts again. Used to re-run a recorded session through the controller.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._video: Any = None
        self._files: list[Path] = []
        self._index = 0
        self._last: npt.NDArray[np.uint8] | None = None
        if self.path.is_dir():
            self._files = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            if not self._files:
                raise CameraError(f"replay folder {self.path} holds no images ({', '.join(IMAGE_SUFFIXES)})")
        elif self.path.is_file():
            self._video = cv2.VideoCapture(str(self.path))
            if not self._video.isOpened():
                raise CameraError(f"replay video {self.path} cannot be opened")
        else:
            raise CameraError(f"replay source {self.path} does not exist")

    def _next_frame(self) -> npt.NDArray[Any] | None:
        """The next recorded frame as decoded, unchecked (``as_bgr`` checks it), or ``None`` at the end."""
        if self._video is not None:
            ok, frame = self._video.read()
            return frame if ok else None
        if self._index >= len(self._files):
            return None
        path = self._files[self._index]
        self._index += 1
        data = np.fromfile(path, dtype=np.uint8)
        frame = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
        if frame is None:
            raise CameraError(f"replay image {path} cannot be decoded")
        return frame

    def capture(self) -> npt.NDArray[np.uint8]:
        frame = self._next_frame()
        if frame is None:
            if self._last is None:
                raise CameraError(f"replay source {self.path} has no frames")
            return self._last.copy()
        self._last = as_bgr(frame, f"replay {self.path}")
        return self._last.copy()

    def rewind(self) -> None:
        self._index = 0
        if self._video is not None:
            self._video.set(cv2.CAP_PROP_POS_FRAMES, 0)

    def close(self) -> None:
        if self._video is not None:
            self._video.release()
            self._video = None

    def describe(self) -> str:
        kind = "video" if self._video is not None else f"{len(self._files)} images"
        return f"replay of {self.path} ({kind})"
