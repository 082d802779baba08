"""Simulated devices and their fault injection: servo jam, camera timeouts and black frames, lost
and corrupted link frames, a board reset mid-command; the camera's motion frames and LED level."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hardware.errors import BoardResetError, CameraTimeout, LinkError
from simulation import SimFaults, SimWorld
from simulation.board import SimTrayBoard
from simulation.funnel import SimFunnelRelease


@pytest.fixture
def table(tmp_path: Path) -> SimWorld:
    return SimWorld(tmp_path / "w.json", seed=21, motion_frames=3)


def test_servo_jam_keeps_cubes_in_the_funnel(table: SimWorld) -> None:
    funnel = SimFunnelRelease(table)
    table.load_funnel({"blue": 6})
    table.faults.arm("servo_jam")
    funnel.release()  # silent, as a real servo cannot tell that the trapdoor stuck
    assert table.funnel_contents() == {"blue": 6} and table.beam_count() == 0
    funnel.release()
    assert table.funnel_contents() == {}
    assert table.release_count == 2


def test_fault_rates_are_seeded_and_roughly_right() -> None:
    a, b = SimFaults(servo_jam=0.3, seed=4), SimFaults(servo_jam=0.3, seed=4)
    draws = [a.strikes("servo_jam") for _ in range(4000)]
    assert draws == [b.strikes("servo_jam") for _ in range(4000)]
    assert 0.27 < sum(draws) / 4000 < 0.33
    with pytest.raises(ValueError, match="unknown fault 'gremlin'"):
        a.arm("gremlin")
    a.clear()
    assert not any(a.strikes("servo_jam") for _ in range(100))


def test_board_retries_lost_frames_and_acts_once(table: SimWorld) -> None:
    board = SimTrayBoard(table, retries=5, sleep=lambda s: None)
    board.hello()
    table.load_funnel({"red": 20})
    table.release()
    counted = table.beam_count()
    table.faults.arm("serial_loss", 2)
    table.faults.arm("serial_corrupt", 1)
    before = board.attempts
    board.reset_beam()
    assert board.attempts - before == 4  # three frames lost or damaged, the fourth got through
    assert table.beam_count() == 0 and counted > 0


def test_board_gives_up_with_a_link_error(table: SimWorld) -> None:
    board = SimTrayBoard(table, retries=2, sleep=lambda s: None)
    table.faults.serial_loss = 1.0
    with pytest.raises(LinkError, match="did not answer LEDS after 3 tries"):
        board.set_leds(0.4)
    assert table.led_level == 1.0  # nothing happened


def test_board_reset_mid_command_loses_the_beam_count(table: SimWorld) -> None:
    board = SimTrayBoard(table, sleep=lambda s: None)
    boot = board.hello().boot_id
    table.load_funnel({"red": 20})
    table.release()
    assert board.beam_count() > 0
    table.faults.arm("board_reset")
    with pytest.raises(BoardResetError, match="during BEAM_COUNT"):
        board.beam_count()
    assert board.beam_count() == 0
    assert table.boot_id != boot


def test_serial_delay_slows_every_exchange(table: SimWorld) -> None:
    slept: list[float] = []
    board = SimTrayBoard(table, sleep=slept.append)
    table.faults.serial_delay_s = 0.25
    board.hello()
    board.set_leds(0.2)
    assert slept == [0.25, 0.25]


class FlatRenderer:
    """Stands in for simulation.synth where only the scene handed over matters."""

    def __init__(self) -> None:
        self.scenes: list = []

    def __call__(self, scene, width, height, seed):  # noqa: ANN001, ANN204
        self.scenes.append(scene)
        return np.full((height, width, 3), int(40 + 200 * scene.led_level), np.uint8)


def test_camera_faults(table: SimWorld) -> None:
    from simulation.camera import SimCamera

    renderer = FlatRenderer()
    cam = SimCamera(table, width=64, height=48, renderer=renderer, sleep=lambda s: None)
    table.faults.arm("camera_timeout")
    with pytest.raises(CameraTimeout, match="injected"):
        cam.capture()
    table.faults.arm("camera_black")
    assert not cam.capture().any()
    assert cam.capture().mean() > 200


def test_camera_sees_motion_after_a_release_and_the_led_level(table: SimWorld) -> None:
    from simulation.camera import SimCamera

    renderer = FlatRenderer()
    cam = SimCamera(table, width=64, height=48, renderer=renderer)
    table.load_funnel({"red": 15})
    table.release()
    for _ in range(5):
        cam.capture()
    assert [s.moving for s in renderer.scenes] == [True, True, True, False, False]
    table.set_leds(0.0)
    assert cam.capture().mean() == pytest.approx(40)


def test_rendered_frames_move_then_settle(table: SimWorld) -> None:
    from simulation.camera import SimCamera

    cam = SimCamera(table, width=320, height=240, seed=3)
    still_before = [cam.capture().astype(int) for _ in range(2)]
    table.load_funnel({"red": 10, "yellow": 10})
    table.release()
    frames = [cam.capture().astype(int) for _ in range(6)]
    tray = (slice(60, 180), slice(80, 240))  # the middle of the frame, where the tray is
    diffs = [np.abs(a[tray] - b[tray]).mean() for a, b in zip(frames, frames[1:], strict=False)]
    noise = np.abs(still_before[0][tray] - still_before[1][tray]).mean()
    assert max(diffs[:2]) > 3 * noise, "cubes still rolling change the picture"
    assert diffs[-1] < 1.5 * noise + 0.5, "then only noise changes"


def test_settle_detector_waits_for_the_rolling_cubes(table: SimWorld) -> None:
    """The frames right after a release move enough for vision's settle detection, then go still."""
    settle = pytest.importorskip("vision.settle")
    from simulation.camera import SimCamera

    cam = SimCamera(table, width=320, height=240, seed=5)
    table.load_funnel({"red": 8, "blue": 8, "green": 6})
    table.release()
    detector = settle.SettleDetector(still_frames=2, timeout_s=100.0)
    states = [detector.update(cam.capture(), float(i)) for i in range(table.motion_frames + 4)]
    first_settled = next(i for i, s in enumerate(states) if s.settled)
    assert all(s.motion > detector.motion_fraction for s in states[1:table.motion_frames])
    assert first_settled >= table.motion_frames + 1
