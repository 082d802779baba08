"""A calibration shot from the station's own camera under its own light (station/shot.py, and
`tower calibrate shot`)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from controller.cli import main
from hardware.config import load_config
from station.factory import open_station
from station.shot import ShotError, take_shot
from vision.imageio import read_image

REPO = Path(__file__).resolve().parent.parent


def _config(tmp_path: Path) -> Path:
    text = (REPO / "examples" / "sim.toml").read_text(encoding="utf-8")
    path = tmp_path / "station.toml"
    path.write_text(text.replace('data_dir = "tower-data"', f'data_dir = "{tmp_path / "data"}"'), encoding="utf-8")
    return path


def test_a_shot_is_taken_lit_and_still_with_the_plate_in_view(tmp_path: Path) -> None:
    cfg = load_config(_config(tmp_path))
    with open_station(cfg) as station:
        station.world.set_leds(0.0)  # the board's safe state: the ring is dark until asked
        shot = take_shot(station, tmp_path / "empty.png")
        assert station.world.led_level == 1.0
    assert shot.ok and shot.settled and shot.markers == (0, 1, 2, 3), shot.problems
    assert read_image(tmp_path / "empty.png").shape == (shot.height, shot.width, 3)


class Camera:
    def __init__(self, frame: np.ndarray) -> None:
        self.frame, self.frames = frame, 0

    def capture(self) -> np.ndarray:
        self.frames += 1
        return self.frame.copy()


class DarkRing:
    def set_leds(self, level: float) -> None:
        raise OSError("no answer from the tray board")


def test_a_ring_that_cannot_be_lit_takes_no_shot(tmp_path: Path) -> None:
    station = SimpleNamespace(camera=Camera(np.full((960, 1280, 3), 128, np.uint8)), tray_board=DarkRing())
    with pytest.raises(ShotError, match="did not switch its LED ring on"):
        take_shot(station, tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists() and station.camera.frames == 0


def test_a_black_frame_is_written_and_said_to_be_unfit(tmp_path: Path) -> None:
    station = SimpleNamespace(camera=Camera(np.zeros((960, 1280, 3), np.uint8)), tray_board=None)
    shot = take_shot(station, tmp_path / "black.jpg")
    assert (tmp_path / "black.jpg").exists() and not shot.ok and shot.markers == ()
    assert any("black frame" in p for p in shot.problems)


def test_a_frame_without_the_plate_is_written_and_said_to_be_unfit(tmp_path: Path) -> None:
    frame = np.zeros((960, 1280, 3), np.uint8)
    frame[:] = (90, 140, 200)  # a lit, coloured wall: no plate in view
    shot = take_shot(SimpleNamespace(camera=Camera(frame), tray_board=None), tmp_path / "wall.png")
    assert (tmp_path / "wall.png").exists() and shot.settled and shot.markers == ()
    assert [p for p in shot.problems if "no plate markers found" in p] == shot.problems != []


def test_no_camera_no_shot(tmp_path: Path) -> None:
    with pytest.raises(ShotError, match="no camera"):
        take_shot(SimpleNamespace(camera=None, tray_board=None), tmp_path / "x.png")


def test_the_command_says_where_the_shot_went_and_what_it_shows(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["calibrate", "shot", "--config", str(_config(tmp_path)), "--out", str(tmp_path / "empty.png")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"shot written to {tmp_path / 'empty.png'}" in out and "plate markers found: 4 of 4" in out
    code = main(["calibrate", "shot", "--config", str(tmp_path / "missing.toml"), "--out", str(tmp_path / "x.png")])
    assert code == 2 and "tower calibrate shot:" in capsys.readouterr().err
