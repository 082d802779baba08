"""The servo driven by a pulse width in microseconds (hardware/servo_pulse.py): the widths asked
and set, pinned with fakes of the hardware-PWM package, of lgpio and of a whole-percent PWM pin."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from hardware.config import ConfigError, parse_config
from hardware.servo_pulse import (
    FakePulseOutput,
    LgpioServoOutput,
    PulseServoRelease,
    SysfsPwmOutput,
)


def _release(output, **kw):  # noqa: ANN001, ANN003, ANN202
    return PulseServoRelease(output, closed_angle=10, open_angle=100, dwell_s=0, move_s=0,
                             sleep=lambda s: None, **kw)


def test_the_release_sends_the_exact_widths_and_detaches() -> None:
    out = FakePulseOutput()
    funnel = _release(out)
    funnel.release()
    assert out.widths == [pytest.approx(611.111, abs=1e-3), pytest.approx(1611.111, abs=1e-3),
                          pytest.approx(611.111, abs=1e-3), None]
    report = funnel.pulse_report()
    assert [(r.angle, round(r.asked_us, 1), round(r.set_us or 0, 1)) for r in report] == [
        (10.0, 611.1, 611.1), (100.0, 1611.1, 1611.1)]
    assert report[0].text() == "10° asked 611.1 µs, set 611.1 µs"


def test_angles_are_clamped_and_a_whole_percent_driver_shows_its_steps() -> None:
    """A driver with 200 µs steps (whole percent of 20 ms, as gpiozero's lgpio pin) cannot reach
    the calibrated 'just shut' angle; the report says so in numbers."""
    coarse = FakePulseOutput(step_us=200)
    funnel = _release(coarse, min_angle=20, max_angle=150)
    funnel.sweep()
    closed = funnel.pulse_report()[0]
    assert closed.angle == 20 and round(closed.asked_us, 1) == 722.2 and closed.set_us == 600.0
    assert coarse.widths[-1] is None


class FakeHardwarePWM:
    """Stands in for rpi_hardware_pwm.HardwarePWM: records what it would write to sysfs."""

    made: list[FakeHardwarePWM] = []

    def __init__(self, pwm_channel: int, hz: float, chip: int = 0) -> None:
        self.channel, self.hz, self.chip = pwm_channel, hz, chip
        self.calls: list[tuple[str, float]] = []
        FakeHardwarePWM.made.append(self)

    def start(self, duty: float) -> None:
        self.calls.append(("start", duty))

    def change_duty_cycle(self, duty: float) -> None:
        self.calls.append(("duty", duty))

    def stop(self) -> None:
        self.calls.append(("stop", 0))


def test_hardware_pwm_writes_nanosecond_duties() -> None:
    module = SimpleNamespace(HardwarePWM=FakeHardwarePWM)
    output = SysfsPwmOutput(channel=2, chip=0, module=module)
    funnel = _release(output)
    funnel.release()
    pwm = FakeHardwarePWM.made[-1]
    assert (pwm.channel, pwm.chip, pwm.hz) == (2, 0, 50.0)
    assert [c[0] for c in pwm.calls] == ["start", "duty", "duty", "stop"]
    # 611.11 µs of a 20 ms frame: 3.0556 %, which the package writes as 611111 ns
    assert pwm.calls[0][1] == pytest.approx(611.111 / 20000 * 100)
    assert [round(r.set_us or 0, 3) for r in funnel.pulse_report()] == [611.111, 1611.111]


def test_lgpio_servo_pulses_are_whole_microseconds() -> None:
    sent: list[tuple[int, int, int]] = []
    module = SimpleNamespace(gpiochip_open=lambda chip: 7, gpio_claim_output=lambda h, pin: 0,
                             tx_servo=lambda h, pin, width, hz: sent.append((pin, width, hz)),
                             gpiochip_close=lambda h: None)
    output = LgpioServoOutput(18, gpiochip=0, module=module)
    funnel = _release(output)
    funnel.release()
    funnel.close()
    assert sent[:4] == [(18, 611, 50), (18, 1611, 50), (18, 611, 50), (18, 0, 50)]
    assert [r.set_us for r in funnel.pulse_report()] == [611.0, 1611.0]


def test_without_the_package_the_error_names_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real = builtins.__import__

    def no_pwm(name, *args, **kw):  # noqa: ANN001, ANN002, ANN003, ANN202
        if name == "rpi_hardware_pwm":
            raise ImportError("no module")
        return real(name, *args, **kw)

    monkeypatch.setattr(builtins, "__import__", no_pwm)
    from hardware.errors import ReleaseError

    with pytest.raises(ReleaseError, match="rpi-hardware-pwm"):
        SysfsPwmOutput(channel=2)


def test_gpiozero_on_an_lgpio_style_pin_reports_the_whole_percent_width() -> None:
    """The gpio backend reads back what its pin library set: a pin that keeps whole percent of the
    frame (gpiozero's lgpio pin) turns the 611 µs asked for 10 degrees into 600 µs."""
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from hardware.funnel import GpioServoRelease

    class WholePercentPin(MockPWMPin):
        def _set_state(self, value):  # noqa: ANN001, ANN202
            super()._set_state(int(value * 100) / 100)

    factory = MockFactory(pin_class=WholePercentPin)
    funnel = GpioServoRelease(18, closed_angle=10, open_angle=100, dwell_s=0, move_s=0, pin_factory=factory)
    try:
        funnel.sweep()
        closed, opened = funnel.pulse_report()
        assert round(closed.asked_us, 1) == 611.1 and closed.set_us == pytest.approx(600.0)
        assert round(opened.asked_us, 1) == 1611.1 and opened.set_us == pytest.approx(1600.0)
    finally:
        funnel.close()
        factory.reset()


def test_config_chooses_the_pulse_backend_and_checks_its_keys() -> None:
    cfg = parse_config({"funnel": {"backend": "hw-pwm", "pin": 18}})
    assert cfg.funnel.backend == "hw-pwm" and cfg.funnel.pwm_channel == -1
    with pytest.raises(ConfigError, match="funnel.pin: GPIO17 has no hardware PWM"):
        parse_config({"funnel": {"backend": "hw-pwm", "pin": 17}})
    with pytest.raises(ConfigError, match="funnel.pwm_channel: only the hw-pwm backend"):
        parse_config({"funnel": {"backend": "lgpio-servo", "pin": 17, "pwm_channel": 1}})
    with pytest.raises(ConfigError, match="funnel.pwm_chip: 12 is outside 0..9"):
        parse_config({"funnel": {"backend": "hw-pwm", "pwm_chip": 12}})
    assert parse_config({"funnel": {"backend": "lgpio-servo", "pin": 17}}).funnel.gpiochip == 0


def test_the_station_opens_the_hardware_pwm_servo_and_hw_check_shows_the_widths(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from station.check import check_station
    from station.factory import open_station

    monkeypatch.setitem(sys.modules, "rpi_hardware_pwm", SimpleNamespace(HardwarePWM=FakeHardwarePWM))
    cfg = parse_config({"station": {"data_dir": str(tmp_path)}, "funnel": {"backend": "hw-pwm", "pin": 19,
                                                                          "move_s": 0.0}})
    with open_station(cfg) as station:
        assert FakeHardwarePWM.made[-1].channel == 3  # GPIO19 on a Pi 5
        sweep = next(r for r in check_station(station, settle=lambda s: None) if r.check == "servo sweep")
    assert sweep.status == "pass"
    assert "10° asked 611.1 µs, set 611.1 µs" in sweep.detail and "100° asked 1611.1 µs" in sweep.detail
