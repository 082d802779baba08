"""The gpiozero servo release on gpiozero's MockFactory with PWM-capable mock pins: the pulse
history of a release (closed, open, closed, then no pulses), clamping, and detaching."""

from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.errors import ReleaseError
from hardware.funnel import GpioServoRelease

MIN_PULSE, MAX_PULSE, FRAME = 0.5e-3, 2.5e-3, 20e-3


def duty(angle: float) -> float:
    """Duty cycle of the pulse for ``angle`` on a 0..180 degree servo with 0.5..2.5 ms pulses."""
    return (MIN_PULSE + (MAX_PULSE - MIN_PULSE) * angle / 180.0) / FRAME


@pytest.fixture
def factory():
    factory = MockFactory(pin_class=MockPWMPin)
    yield factory
    factory.reset()


def make(factory, sleeps: list[float] | None = None, **kw) -> GpioServoRelease:  # noqa: ANN001
    args = {"closed_angle": 10.0, "open_angle": 100.0, "min_angle": 5.0, "max_angle": 120.0, "dwell_s": 1.5,
            "move_s": 0.4, "min_pulse_s": MIN_PULSE, "max_pulse_s": MAX_PULSE, "frame_s": FRAME}
    args.update(kw)
    record = sleeps if sleeps is not None else []
    return GpioServoRelease(18, pin_factory=factory, sleep=record.append, **args)


def test_servo_starts_detached(factory) -> None:  # noqa: ANN001
    make(factory)
    pin = factory.pin(18)
    assert pin.frequency is None
    assert [s.state for s in pin.states] == [0.0]


def test_release_pulse_history(factory) -> None:  # noqa: ANN001
    sleeps: list[float] = []
    servo = make(factory, sleeps)
    pin = factory.pin(18)
    pin.clear_states()
    servo.release()
    # closed -> open -> closed, then the pulses stop (duty 0): the servo is detached and quiet.
    states = [s.state for s in pin.states]
    assert states[1:] == pytest.approx([duty(10.0), duty(100.0), duty(10.0), 0.0])
    assert pin.frequency is None
    # The open position is held for travel plus dwell, each move gets its travel time.
    assert sleeps == pytest.approx([0.4, 0.4 + 1.5, 0.4])


def test_pulses_are_fifty_hertz_while_attached(factory) -> None:  # noqa: ANN001
    servo = make(factory)
    pin = factory.pin(18)
    assert servo.move_to(50.0) == 50.0
    assert pin.frequency == 50
    assert pin.state == pytest.approx(duty(50.0))
    servo.detach()
    assert pin.frequency is None and pin.state == 0.0


def test_angles_are_clamped_to_the_calibrated_range(factory) -> None:  # noqa: ANN001
    servo = make(factory, open_angle=170.0)  # beyond max_angle 120
    assert servo.open_angle == 120.0
    pin = factory.pin(18)
    pin.clear_states()
    servo.release()
    assert max(s.state for s in pin.states) == pytest.approx(duty(120.0))
    assert servo.move_to(-30.0) == 5.0
    assert pin.state == pytest.approx(duty(5.0))


def test_sweep_moves_without_dwell_and_detaches(factory) -> None:  # noqa: ANN001
    sleeps: list[float] = []
    servo = make(factory, sleeps)
    pin = factory.pin(18)
    pin.clear_states()
    servo.sweep()
    assert [s.state for s in pin.states][1:] == pytest.approx([duty(10.0), duty(100.0), duty(10.0), 0.0])
    assert sleeps == [0.4, 0.4, 0.4]


def test_failure_mid_release_still_detaches_and_raises_release_error(factory) -> None:  # noqa: ANN001
    calls: list[float] = []

    def failing_sleep(s: float) -> None:
        calls.append(s)
        if len(calls) == 2:
            raise OSError("pin driver died")

    servo = GpioServoRelease(18, closed_angle=10, open_angle=100, pin_factory=factory, sleep=failing_sleep)
    with pytest.raises(ReleaseError, match="GPIO18") as info:
        servo.release()
    assert factory.pin(18).frequency is None
    assert info.value.released is None  # it failed with the trapdoor open

    calls.clear()
    calls.append(-1.0)  # now the very first wait fails, before the open command

    with pytest.raises(ReleaseError) as info:
        servo.release()
    assert info.value.released is False


def test_close_releases_the_pin(factory) -> None:  # noqa: ANN001
    servo = make(factory)
    servo.close()
    servo.close()  # twice is harmless
    again = make(factory)  # the pin is free to claim again
    again.close()
