"""The funnel servo driven by a pulse width in microseconds, for the Raspberry Pi 5.

Why not gpiozero there: on a Pi 5 gpiozero's pin library is lgpio, and its PWM pin sets the duty
cycle in whole percent (``int(value * 100)`` in ``gpiozero/pins/lgpio.py``). At the servo's 50 Hz
one percent is 200 µs, about 18 degrees of a 0.5-2.5 ms servo: the calibrated "just shut" angle
falls between two steps and cannot be reached (10 degrees asks 611 µs and gets 600 or 800).
pigpio, which times pulses to the microsecond, does not run on a Pi 5. So the servo gets its pulse
width directly, behind the same ``FunnelRelease`` interface, from one of two outputs:

* ``SysfsPwmOutput``: the kernel's hardware PWM through sysfs (``/sys/class/pwm``), with the
  ``rpi-hardware-pwm`` package (an optional, Pi-only dependency, imported only when used). The
  period and duty are written in nanoseconds: the pulse is exact to 1 ns and jitter-free. Needs
  ``dtoverlay=pwm-2chan`` in ``config.txt`` and a hardware-PWM pin (GPIO 12, 13, 18 or 19).
* ``LgpioServoOutput``: lgpio's own servo pulses (``lgpio.tx_servo``), whole microseconds, timed in
  software by the lgpio library (a few µs of jitter; any pin).

Each output says which width it actually set, so ``tower hw check`` can show the width asked and
the width set; the tests pin them with ``FakePulseOutput``.
"""

from __future__ import annotations

import importlib
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from hardware.errors import ReleaseError
from hardware.funnel import PulseReading, ServoTrapdoor, clamp_angle

#: Raspberry Pi 5 (RP1) hardware PWM channels of the header's PWM pins (pwmchip0 on current kernels).
PI5_PWM_CHANNELS = {12: 0, 13: 1, 18: 2, 19: 3}


class PulseOutput(Protocol):
    """Where servo pulses come from. ``set_pulse_us(None)`` stops the pulses (detached)."""

    name: str

    def set_pulse_us(self, width_us: float | None) -> float | None:
        """Send pulses of ``width_us`` every frame; returns the width actually set (``None``: off)."""

    def close(self) -> None: ...


class SysfsPwmOutput:
    """Hardware PWM through the kernel's sysfs interface (``rpi-hardware-pwm``).

    chip: the pwmchip number (0 on a Pi 5 with a current kernel; 2 on early Pi 5 kernels; 0 on a
    Pi 4). channel: the PWM channel of the pin (Pi 5: ``PI5_PWM_CHANNELS``; Pi 4: 0 for GPIO 12/18,
    1 for 13/19). ``module`` replaces the package in tests.
    """

    def __init__(self, channel: int, chip: int = 0, frame_us: float = 20_000.0, module: Any = None) -> None:
        if module is None:
            try:
                module = importlib.import_module("rpi_hardware_pwm")  # optional, Pi-only: pip install '.[pi]'
            except ImportError as exc:
                raise ReleaseError(
                    "hardware PWM needs the rpi-hardware-pwm package (pip install '.[pi]') and "
                    "dtoverlay=pwm-2chan in /boot/firmware/config.txt; or use funnel.backend = 'lgpio-servo'",
                    released=False,
                ) from exc
        self.name = f"hardware PWM chip {chip} channel {channel}"
        self.frame_us = frame_us
        self._period_ns = round(frame_us * 1000)
        hz = 1_000_000 / frame_us
        try:
            self._pwm = module.HardwarePWM(pwm_channel=channel, hz=hz, chip=chip)
        except Exception as exc:  # HardwarePWMException: no overlay, no such chip or channel
            raise ReleaseError(f"cannot open {self.name}: {exc} (is dtoverlay=pwm-2chan set?)",
                               released=False) from exc
        self._running = False

    def set_pulse_us(self, width_us: float | None) -> float | None:
        if width_us is None:
            if self._running:
                self._pwm.stop()
                self._running = False
            return None
        duty = width_us / self.frame_us * 100.0
        if self._running:
            self._pwm.change_duty_cycle(duty)
        else:
            self._pwm.start(duty)
            self._running = True
        # the package writes int(period_ns * duty / 100) nanoseconds
        return int(self._period_ns * duty / 100) / 1000

    def close(self) -> None:
        self.set_pulse_us(None)


class LgpioServoOutput:
    """lgpio's servo pulses (``tx_servo``): whole microseconds, software-timed by lgpio.

    gpiochip: 0 on a Pi 5 with a current kernel (4 on early ones), 0 on a Pi 4. ``module`` replaces
    lgpio in tests.
    """

    def __init__(self, pin: int, gpiochip: int = 0, frame_us: float = 20_000.0, module: Any = None) -> None:
        if module is None:
            try:
                module = importlib.import_module("lgpio")
            except ImportError as exc:
                raise ReleaseError("lgpio servo pulses need lgpio: sudo apt install python3-lgpio") from exc
        self._lg = module
        self.pin = pin
        self.name = f"lgpio servo pulses on GPIO{pin} (gpiochip{gpiochip})"
        self.hz = round(1_000_000 / frame_us)
        try:
            self._handle = module.gpiochip_open(gpiochip)
            module.gpio_claim_output(self._handle, pin)
        except Exception as exc:  # lgpio.error: no such chip, pin busy
            raise ReleaseError(f"cannot open {self.name}: {exc}") from exc

    def set_pulse_us(self, width_us: float | None) -> float | None:
        width = 0 if width_us is None else round(width_us)
        self._lg.tx_servo(self._handle, self.pin, width, self.hz)
        return None if width_us is None else float(width)

    def close(self) -> None:
        try:
            self.set_pulse_us(None)
        finally:
            self._lg.gpiochip_close(self._handle)


class FakePulseOutput:
    """A pulse output for tests: records every width; ``step_us`` quantises like a coarse driver."""

    def __init__(self, step_us: float = 0.0) -> None:
        self.name = "fake pulse output"
        self.step_us = step_us
        self.widths: list[float | None] = []
        self.closed = False

    def set_pulse_us(self, width_us: float | None) -> float | None:
        if width_us is None:
            self.widths.append(None)
            return None
        got = float(int(width_us / self.step_us) * self.step_us) if self.step_us else width_us
        self.widths.append(got)
        return got

    def close(self) -> None:
        self.closed = True


class PulseServoRelease(ServoTrapdoor):
    """The trapdoor servo driven by a pulse width (``PulseOutput``), same behaviour as
    ``GpioServoRelease``: angles clamped to the calibrated range, release = closed -> open -> dwell
    -> closed -> detach, sweep without the dwell. ``readings`` keeps the last pulse asked and set
    at each angle (``tower hw check`` shows them)."""

    _move_errors = (OSError, RuntimeError, ValueError)  # sysfs write errors, lgpio.error

    def __init__(self, output: PulseOutput, *, closed_angle: float, open_angle: float, min_angle: float = 0.0,
                 max_angle: float = 180.0, min_pulse_us: float = 500.0, max_pulse_us: float = 2500.0,
                 dwell_s: float = 1.5, move_s: float = 0.4, sleep: Callable[[float], None] = time.sleep) -> None:
        if min_angle >= max_angle:
            raise ValueError(f"min_angle {min_angle} must be below max_angle {max_angle}")
        if not 0 < min_pulse_us < max_pulse_us:
            raise ValueError(f"need 0 < min_pulse_us < max_pulse_us, got {min_pulse_us}..{max_pulse_us}")
        self.output = output
        self.min_angle, self.max_angle = float(min_angle), float(max_angle)
        self.closed_angle = clamp_angle(float(closed_angle), self.min_angle, self.max_angle)
        self.open_angle = clamp_angle(float(open_angle), self.min_angle, self.max_angle)
        self.min_pulse_us, self.max_pulse_us = float(min_pulse_us), float(max_pulse_us)
        self.dwell_s, self.move_s = dwell_s, move_s
        self._sleep = sleep
        self._lock = threading.Lock()
        self.readings: dict[float, PulseReading] = {}

    def move_to(self, angle: float) -> PulseReading:
        angle = clamp_angle(float(angle), self.min_angle, self.max_angle)
        asked = self.pulse_for(angle)
        reading = PulseReading(angle, asked, self.output.set_pulse_us(asked))
        self.readings[angle] = reading
        return reading

    def detach(self) -> None:
        self.output.set_pulse_us(None)

    def _servo_name(self) -> str:
        return f"servo ({self.output.name})"

    def close(self) -> None:
        self.output.close()

    def describe(self) -> str:
        return (f"servo by pulse width ({self.output.name}): closed {self.closed_angle:g}° "
                f"= {self.pulse_for(self.closed_angle):.0f} µs, open {self.open_angle:g}°, dwell {self.dwell_s:g} s")
