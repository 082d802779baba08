"""`tower hw check`: every configured device exercised, a table printed, exit status by the result."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.cli import main
from hardware.config import load_config
from station.check import FAIL, PASS, SKIP, run_check

REPO = Path(__file__).resolve().parent.parent


def _config_file(tmp_path: Path, example: str, extra: str = "") -> Path:
    text = (REPO / "examples" / example).read_text(encoding="utf-8")
    text = text.replace('data_dir = "tower-data-fw"', f'data_dir = "{tmp_path}"')
    text = text.replace('data_dir = "tower-data"', f'data_dir = "{tmp_path}"')
    text = text.replace("width = 1280\nheight = 960", "width = 320\nheight = 240")
    path = tmp_path / "tower.toml"
    path.write_text(text + extra, encoding="utf-8")
    return path


def test_sim_station_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["hw", "check", "--config", str(_config_file(tmp_path, "sim.toml"))])
    out = capsys.readouterr().out
    assert code == 0, out
    for expected in ("handshake", "servo sweep", "one frame", "break-beam", "LED ring", "all devices passed"):
        assert expected in out


def test_black_camera_fails_with_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _config_file(tmp_path, "sim.toml").read_text(encoding="utf-8").replace(
        "camera_black = 0.0", "camera_black = 1.0")
    (tmp_path / "black.toml").write_text(path, encoding="utf-8")
    code = main(["hw", "check", "--config", str(tmp_path / "black.toml")])
    out = capsys.readouterr().out
    assert code == 1
    assert "black frame" in out and "FAIL" in out


def test_config_error_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[funnel]\nopen_angle = 200\n", encoding="utf-8")
    assert main(["hw", "check", "--config", str(bad)]) == 2
    assert "funnel.open_angle: 200 is outside 0..180" in capsys.readouterr().err


def test_a_device_that_does_not_open_fails_alone(tmp_path: Path) -> None:
    """Every configured device is tried: a missing camera fails, the servo and board are still checked."""
    cfg = load_config(_config_file(tmp_path, "sim.toml")).replace(
        camera={"backend": "replay", "path": str(tmp_path / "missing")})
    results = run_check(cfg, settle=lambda s: None)
    by_check = {(r.device, r.check): r for r in results}
    assert by_check[("camera", "open")].status == FAIL
    assert "does not exist" in by_check[("camera", "open")].detail
    assert ("camera", "one frame") not in by_check
    assert by_check[("funnel", "servo sweep")].status == PASS
    assert by_check[("tray board", "handshake")].status == PASS


@pytest.mark.filterwarnings("ignore::gpiozero.exc.PinFactoryFallback")
def test_gpio_station_on_a_machine_without_gpio_names_the_fix(tmp_path: Path) -> None:
    cfg = load_config(_config_file(tmp_path, "sim.toml")).replace(funnel={"backend": "gpio", "pin": 18})
    try:
        import gpiozero.devices

        gpiozero.devices.Device._default_pin_factory()
    except Exception:
        pass
    else:  # pragma: no cover - on a Raspberry Pi
        pytest.skip("this machine has GPIO pins")
    by_check = {(r.device, r.check): r for r in run_check(cfg, settle=lambda s: None)}
    assert by_check[("funnel", "open")].status == FAIL
    assert "python3-lgpio" in by_check[("funnel", "open")].detail
    assert by_check[("camera", "one frame")].status == PASS


def test_sweep_skipped_when_cubes_wait_in_the_funnel(tmp_path: Path) -> None:
    from simulation import SimWorld

    cfg = load_config(_config_file(tmp_path, "sim.toml"))
    SimWorld.from_config(cfg).load_funnel({"red": 3})
    results = {r.check: r for r in run_check(cfg, settle=lambda s: None)}
    assert results["servo sweep"].status == SKIP
    assert SimWorld.from_config(cfg).funnel_contents() == {"red": 3}


@pytest.mark.micropython
def test_firmware_on_a_pty_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "300")  # one table row per line, so the firmware's name is not wrapped
    code = main(["hw", "check", "--config", str(_config_file(tmp_path, "sim-firmware.toml"))])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "tray-fw" in out and "MicroPython on a pty" in out
    results = run_check(load_config(tmp_path / "tower.toml"), settle=lambda s: None)
    assert all(r.status == PASS for r in results), results


def test_refused_while_another_process_holds_the_station(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    from controller.data_dir import lock_data_dir

    config = _config_file(tmp_path, "sim.toml")
    fd = lock_data_dir(load_config(config).data_dir)  # as a running `tower serve` does
    try:
        code = main(["hw", "check", "--config", str(config)])
    finally:
        import os

        os.close(fd)
    assert code == 2
    assert "another tower process" in capsys.readouterr().err
    assert not (tmp_path / "sim-world.json").exists()  # no device was touched


def test_a_data_directory_it_may_not_write_only_warns(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The Pi guide runs the check as the login user against the service user's data directory."""
    import controller.data_dir

    def denied(_data_dir: Path) -> int:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(controller.data_dir, "lock_data_dir", denied)
    code = main(["hw", "check", "--config", str(_config_file(tmp_path, "sim.toml"))])
    captured = capsys.readouterr()
    assert code == 0, captured.out
    assert "cannot take the lock" in captured.err and "all devices passed" in captured.out


def test_the_sweep_is_refused_while_the_records_say_cubes_are_loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A drop planned (the players were told to load the funnel) or caught mid-release: a hardware
    check must not open the trapdoor under its cubes, even where no sensor can see them."""
    from controller.table import Table
    from station import check as hw_check

    monkeypatch.setenv("COLUMNS", "300")
    path = _config_file(tmp_path, "sim.toml")
    with Table.open(config_path=path, reader="direct") as table:
        table.new_session(["red", "blue", "yellow"], False)
        drop_id = table.fill()["drop_id"]
    swept: list[str] = []
    real = hw_check.check_station

    def spy(station, **kw):  # noqa: ANN001, ANN003, ANN202
        station.funnel.sweep = lambda: swept.append("sweep")
        return real(station, **kw)

    monkeypatch.setattr(hw_check, "check_station", spy)
    assert main(["hw", "check", "--config", str(path)]) == 0
    out = capsys.readouterr().out
    assert "refused" in out and f"drop {drop_id} is planned" in out and swept == []
    with Table.open(config_path=path, reader="direct") as table:
        table.release(drop_id)
        table.clean()
    assert main(["hw", "check", "--config", str(path)]) == 0
    assert swept == ["sweep"]  # with the drop done, the servo is swept again
