"""open_station: backends chosen by configuration, a drop through the simulated station, the world
found again after a restart, and the firmware-on-a-pty station with the simulated tray."""

from __future__ import annotations

from pathlib import Path

import pytest

from hardware.config import load_config
from hardware.errors import BoardResetError, ConfigError, LinkError
from station.factory import open_station

REPO = Path(__file__).resolve().parent.parent


def _cfg(tmp_path: Path, name: str = "sim.toml", **sections):  # noqa: ANN003, ANN202
    cfg = load_config(REPO / "examples" / name).replace(station={"data_dir": str(tmp_path)})
    return cfg.replace(camera={"width": 320, "height": 240}, **sections)


def test_default_station_is_simulated(tmp_path: Path) -> None:
    with open_station(_cfg(tmp_path)) as st:
        assert st.world is not None and st.tray_board is not None
        assert st.buttons is None and st.status_led is None
        assert set(st.devices()) == {"funnel", "camera", "board"}
        assert (tmp_path / "sim-world.json").exists()


def test_a_drop_through_the_simulated_station(tmp_path: Path) -> None:
    with open_station(_cfg(tmp_path).replace(board={"beam_clump": 0.0})) as st:  # a beam that misses no cube
        assert st.world is not None and st.tray_board is not None
        st.tray_board.reset_beam()
        st.world.load_funnel({"red": 7, "blue": 7, "green": 10})
        st.funnel.release()
        tray = st.world.tray_contents()
        assert st.tray_board.beam_count() == sum(tray.values())
        frame = st.camera.capture()
        assert frame.shape == (240, 320, 3)
        st.world.take_from_tray(tray)
        assert st.world.tray_contents() == {}


def test_reopened_station_finds_the_world_as_left(tmp_path: Path) -> None:
    with open_station(_cfg(tmp_path)) as st:
        assert st.world is not None
        st.world.load_funnel({"yellow": 12})
        st.funnel.release()
        st.world.load_funnel({"purple": 2})
        tray, tower = st.world.tray_contents(), st.world.tower_contents()
    with open_station(_cfg(tmp_path)) as again:
        assert again.world is not None
        assert (again.world.tray_contents(), again.world.tower_contents()) == (tray, tower)
        assert again.world.funnel_contents() == {"purple": 2} and again.world.release_count == 1


def test_sim_buttons_and_status_led(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path, buttons={"backend": "sim"}, status_led={"backend": "sim"})
    with open_station(cfg) as st:
        assert st.buttons is not None and st.status_led is not None
        assert st.buttons.wait_for_release_press(0.01) is False
        st.buttons.press()  # type: ignore[attr-defined]
        assert st.buttons.wait_for_release_press(0.01) is True
        st.status_led.show("busy")
        with pytest.raises(ValueError):
            st.status_led.show("party")


def test_gpio_station_on_mock_pins(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path).replace(
        funnel={"backend": "gpio", "pin": 18, "pin_factory": "mock", "dwell_s": 0.0, "move_s": 0.0},
        buttons={"backend": "gpio", "release_pin": 17, "pin_factory": "mock"},
        status_led={"backend": "gpio", "pin": 27, "pin_factory": "mock"},
    )
    with open_station(cfg) as st:
        from hardware.funnel import GpioServoRelease

        assert isinstance(st.funnel, GpioServoRelease)
        st.funnel.release()
        st.status_led.show("attention")  # type: ignore[union-attr]


def test_a_failing_device_closes_those_already_opened(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path).replace(camera={"backend": "replay", "path": str(tmp_path / "nothing-here")})
    from hardware.errors import CameraError

    with pytest.raises(CameraError, match="does not exist"):
        open_station(cfg)


def test_serial_board_on_a_missing_port(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path).replace(board={"backend": "serial", "port": str(tmp_path / "ttyNOPE"), "retries": 0})
    with pytest.raises((LinkError, OSError)):
        open_station(cfg)


def test_funnel_on_board_without_board_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="needs a tray board"):
        _cfg(tmp_path).replace(funnel={"backend": "board"}, board={"backend": "none"})


@pytest.mark.micropython
def test_firmware_station_drop_counts_on_the_firmware_beam(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path, "sim-firmware.toml")
    with open_station(cfg) as st:
        assert st.world is not None and st.tray_board is not None
        assert "MicroPython" in st.tray_board.describe()
        st.tray_board.reset_beam()
        st.world.load_funnel({"red": 10, "black": 8})
        st.funnel.release()
        came_out = sum(st.world.tray_contents().values())
        assert came_out > 0
        beam = st.tray_board.beam_count()  # counted by the firmware itself, a clump of cubes once
        assert beam == st.world.beam_count() and came_out - 3 <= beam <= came_out
        st.tray_board.set_leds(0.25)
        assert st.world.led_level == 0.25
        # A board reset mid-command: the firmware restarts, the link notices the new boot id.
        st.world.faults.arm("board_reset")
        with pytest.raises(BoardResetError):
            st.tray_board.beam_count()
        assert st.tray_board.beam_count() == 0


@pytest.mark.micropython
def test_firmware_station_through_a_noisy_link(tmp_path: Path) -> None:
    """[sim.faults] serial_corrupt/serial_loss reach the link: retransmissions, yet every release
    happens exactly once (the firmware's own release counter agrees)."""
    cfg = _cfg(tmp_path, "sim-firmware.toml").replace(
        sim={"faults": {"serial_corrupt": 0.1, "serial_loss": 0.1}}, board={"timeout_s": 0.1, "retries": 8},
        funnel={"dwell_s": 0.1, "move_s": 0.05})
    with open_station(cfg) as st:
        assert st.world is not None and st.tray_board is not None
        inner = st.tray_board.inner  # type: ignore[attr-defined]
        st.tray_board.reset_beam()
        for _ in range(3):
            st.world.load_funnel({"blue": 4})
            st.funnel.release()
        came_out = sum(st.world.tray_contents().values())
        assert st.tray_board.beam_count() == came_out
        assert inner.status().releases == 3 == st.world.release_count
        assert inner.link.stats.retransmissions > 0
