"""Contract tests: the same checks run against every backend of a device that can load here.

Funnels: simulated, gpiozero on MockFactory, the tray board's firmware under MicroPython on a pty.
Cameras: simulated (simulation.synth), replay of a folder, OpenCV VideoCapture on a video file.
Boards: simulated, the firmware under MicroPython on a pty.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from hardware.errors import BoardResetError, LinkError
from hardware.interfaces import BoardInfo, Camera, FunnelRelease, TrayBoard
from simulation import SimWorld
from simulation import firmware_pty as fw_mod


def _firmware_link() -> Iterator[Any]:
    from hardware.link import open_link

    try:
        fw_mod.find_micropython()
    except LinkError as exc:
        pytest.skip(str(exc))
    fw = fw_mod.FirmwarePty()
    port = fw.start()
    link = open_link(port, timeout_s=0.3, retries=5, heartbeat_s=0.5)
    try:
        yield link
    finally:
        link.close()
        fw.stop()


@pytest.fixture(params=["sim", "gpio-mock", "pulse-fake", pytest.param("firmware-pty", marks=pytest.mark.micropython)])
def funnel(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[FunnelRelease]:
    if request.param == "sim":
        from simulation.funnel import SimFunnelRelease

        yield SimFunnelRelease(SimWorld(tmp_path / "w.json"))
    elif request.param == "gpio-mock":
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        from hardware.funnel import GpioServoRelease

        factory = MockFactory(pin_class=MockPWMPin)
        yield GpioServoRelease(18, closed_angle=10, open_angle=100, dwell_s=0, move_s=0, pin_factory=factory)
        factory.reset()
    elif request.param == "pulse-fake":
        from hardware.servo_pulse import FakePulseOutput, PulseServoRelease

        yield PulseServoRelease(FakePulseOutput(), closed_angle=10, open_angle=100, dwell_s=0, move_s=0)
    else:
        from hardware.serial_board import SerialFunnelRelease

        for link in _firmware_link():
            yield SerialFunnelRelease(link, open_angle=100, closed_angle=10, dwell_s=0.05, move_s=0.02)


def test_funnel_release_sweep_close(funnel: FunnelRelease) -> None:
    assert funnel.release() is None
    funnel.release()  # a second drop is a second, independent release
    funnel.sweep()
    assert isinstance(funnel.describe(), str) and funnel.describe()
    funnel.close()
    funnel.close()


def test_a_funnel_counter_counts_each_release_once_and_never_a_sweep(funnel: FunnelRelease) -> None:
    """Where a funnel keeps its own release count (the simulated servo, the tray board), it moves by
    exactly one per release and not at all for a hardware check's sweep; a bare servo keeps none."""
    before = funnel.release_counter()
    if before is None:
        assert type(funnel).__name__ in ("GpioServoRelease", "PulseServoRelease")  # bare servos
        return
    funnel.release()
    after = funnel.release_counter()
    assert after is not None and after.comparable(before) and after.count == before.count + 1
    funnel.sweep()
    swept = funnel.release_counter()
    assert swept is not None and swept.count == after.count
    funnel.close()


def _red_on_grey(path: Path, n: int = 3) -> None:
    img = np.full((120, 160, 3), 128, np.uint8)
    cv2.rectangle(img, (40, 30), (90, 80), (30, 30, 220), -1)  # BGR red
    for i in range(n):
        cv2.imwrite(str(path / f"f{i}.png"), img)


@pytest.fixture(params=["sim", "replay", "opencv"])
def red_camera(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Camera]:
    """A camera whose only saturated colour in view is red."""
    if request.param == "sim":
        from simulation.camera import SimCamera

        table = SimWorld(tmp_path / "w.json", motion_frames=0)
        table.load_funnel({"red": 12})
        table.release()
        yield SimCamera(table, width=320, height=240)
    elif request.param == "replay":
        from hardware.cameras import ReplayCamera

        _red_on_grey(tmp_path)
        yield ReplayCamera(tmp_path)
    else:
        from hardware.cameras import OpenCVCamera

        video = tmp_path / "v.avi"
        writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5.0, (160, 120))
        img = np.full((120, 160, 3), 128, np.uint8)
        cv2.rectangle(img, (40, 30), (90, 80), (30, 30, 220), -1)
        for _ in range(4):
            writer.write(img)
        writer.release()
        yield OpenCVCamera(str(video), width=None, height=None, flush=0)


def test_camera_gives_bgr_uint8_frames(red_camera: Camera) -> None:
    frame = red_camera.capture()
    assert frame.ndim == 3 and frame.shape[2] == 3 and frame.dtype == np.uint8
    assert frame.flags["C_CONTIGUOUS"]
    # Colour order: every strongly coloured pixel of a red-only scene has red (channel 2) highest.
    spread = frame.max(axis=2).astype(int) - frame.min(axis=2).astype(int)
    saturated = frame[spread > 90]
    assert len(saturated) > 50, "the red object is in view"
    assert (saturated.argmax(axis=1) == 2).mean() > 0.95
    red_camera.close()
    red_camera.close()


@pytest.fixture(params=["sim", pytest.param("firmware-pty", marks=pytest.mark.micropython)])
def board(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[TrayBoard, Any]]:
    """A tray board and a function that makes ``n`` cubes break its beam."""
    if request.param == "sim":
        from simulation.board import SimTrayBoard

        table = SimWorld(tmp_path / "w.json")

        def cubes_fall(n: int) -> None:
            table.load_funnel({"red": 40})
            while table.beam_count() < n:  # the tower decides; drop until at least n came out
                table.release()
                table.load_funnel({"red": 1})

        yield SimTrayBoard(table), cubes_fall
    else:
        from hardware.serial_board import SerialTrayBoard

        for link in _firmware_link():
            brd = SerialTrayBoard(link)
            yield brd, brd.simulate_beam


def test_board_contract(board: tuple[TrayBoard, Any]) -> None:
    brd, cubes_fall = board
    info = brd.hello()
    from firmware import tray_protocol as tp

    assert isinstance(info, BoardInfo) and info.protocol_version == tp.PROTOCOL_VERSION
    assert brd.hello().boot_id == info.boot_id  # no reset between two handshakes
    brd.reset_beam()
    assert brd.beam_count() == 0
    cubes_fall(3)
    assert brd.beam_count() >= 3
    brd.reset_beam()
    assert brd.beam_count() == 0
    brd.set_leds(0.5)
    brd.set_leds(0.0)
    with pytest.raises(ValueError):
        brd.set_leds(1.5)
    brd.vibrate(0.05)
    assert brd.describe()
    brd.close()
    brd.close()


def test_board_reset_is_reported_once(tmp_path: Path) -> None:
    from simulation.board import SimTrayBoard

    table = SimWorld(tmp_path / "w.json")
    brd = SimTrayBoard(table)
    first = brd.hello()
    table.load_funnel({"red": 9})
    table.release()
    table.faults.arm("board_reset")
    with pytest.raises(BoardResetError, match="restarted"):
        brd.beam_count()
    assert brd.beam_count() == 0  # the count died with the reset; the next command works
    assert brd.hello().boot_id != first.boot_id
