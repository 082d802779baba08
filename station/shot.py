"""One calibration shot from the station's own camera, under the station's own light.

``tower calibrate colours`` learns each colour from shots of the empty tray and of each colour's
cubes. A profile learned from shots taken another way (a phone, the room's light, the ring off)
holds colours the station never sees: the shots must be taken as the station reads the tray, by its
camera, with the tray board's LED ring at full (as the drop cycle lights it before every read,
``hardware.interfaces.TRAY_LIGHT``), and once the tray is still. :func:`take_shot` does that and says
what a person can check before calibrating: the frame's size, whether the plate's markers are in
view, whether the tray settled. The frame is written whatever it shows, so that the person sees
what the camera saw; what is wrong with it is returned in ``problems``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hardware.config import StationConfig
from hardware.interfaces import TRAY_LIGHT
from station.check import bgr_frame, black_frame
from station.factory import open_station
from vision.imageio import check_frame, write_image
from vision.markers import MarkerLocator
from vision.rectify import NoMarkers
from vision.settle import SettleDetector, settle_camera


class ShotError(OSError):
    """No shot could be taken: no camera, a ring that cannot be lit, a frame that is no image."""


@dataclass
class Shot:
    path: Path
    width: int
    height: int
    settled: bool
    markers: tuple[int, ...]  # the plate's marker ids found (0-3)
    mean_grey: float
    problems: list[str] = field(default_factory=list)  # why the shot would make a poor calibration

    @property
    def ok(self) -> bool:
        return not self.problems


def take_shot(station: Any, out: Path, *, settle_frames: int = 3, settle_timeout_s: float = 8.0,
              frame_interval_s: float = 0.0) -> Shot:
    """Light the tray, wait until it is still, capture one frame and write it to ``out`` (its
    format from the suffix: ``.png`` lossless, ``.jpg``). Raises :class:`ShotError` where no shot
    can be taken; a shot taken but unfit for calibrating has its ``problems``."""
    camera = station.camera
    if camera is None:
        raise ShotError("the station has no camera configured ([camera] backend)")
    if station.tray_board is not None:
        try:
            station.tray_board.set_leds(TRAY_LIGHT)
        except OSError as exc:
            raise ShotError(f"the tray board did not switch its LED ring on ({exc}): a shot in the room's "
                            "light would teach the profile colours the station never sees") from exc
    detector = SettleDetector(still_frames=settle_frames, timeout_s=settle_timeout_s)
    frame, state = settle_camera(camera.capture, detector, frame_interval_s)
    try:
        bgr_frame(frame)
    except ValueError as exc:
        raise ShotError(f"the camera's {exc}") from exc
    write_image(out, frame)
    problems = []
    if not state.settled:
        problems.append(f"the tray did not keep still for {settle_frames} frames within {settle_timeout_s:g} s")
    mean = float(frame.mean())
    markers: tuple[int, ...] = ()
    black = black_frame(mean)
    if black:
        problems.append(black)
    else:
        try:
            check_frame(frame, "the camera's frame")
            markers = tuple(sorted(MarkerLocator().locate(frame).marker_ids))
        except (ValueError, NoMarkers) as exc:
            problems.append(str(exc))
    height, width = frame.shape[:2]
    return Shot(Path(out), width, height, state.settled, markers, mean, problems)


def shoot(config: StationConfig, out: Path) -> Shot:
    """Open the station of ``config``, take one shot (:func:`take_shot`, the settle rule of its
    ``[station]`` section) and close it."""
    with open_station(config) as station:
        return take_shot(station, out, settle_frames=config.station.settle_frames,
                         settle_timeout_s=config.station.settle_timeout_s)
