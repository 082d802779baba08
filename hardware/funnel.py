"""Funnel releases: the servo-held trapdoor driven by gpiozero.

The simulated twin lives in ``simulation/funnel.py``. The serial backend (the tray board moves the servo) lives with the link in ``hardware/serial_board.py``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpiozero import AngularServo
from gpiozero.exc import BadPinFactory

from hardware.errors import ReleaseError
from hardware.interfaces import FunnelRelease

Sleep = Callable[[float], None]


@dataclass(frozen=True)
class PulseReading:
    """One commanded position: the angle, the pulse width it asks for and the width the output set."""

    angle: float
    asked_us: float
    set_us: float | None

    def text(self) -> str:
        got = "off" if self.set_us is None else f"{self.set_us:.1f} µs"
        return f"{self.angle:g}° asked {self.asked_us:.1f} µs, set {got}"


def clamp_angle(angle: float, lo: float, hi: float) -> float:
    """Keep a commanded angle inside the calibrated mechanical range (a servo pushed past the
    trapdoor's stop stalls, draws its full current and strips its gears)."""
    return min(max(angle, lo), hi)


class ServoTrapdoor(FunnelRelease):
    """What every servo-held trapdoor does, whatever drives its pulses (gpiozero's PWM, or a pulse
    width in microseconds: ``hardware.servo_pulse``).

    A release moves closed -> open, dwells, moves back to closed and then *detaches* (no pulses):
    a held servo hunts around its set point and buzzes, which shakes the funnel and the camera. A
    failure after the trapdoor may have opened says ``released = None`` (it may have dropped), one
    before it ``False`` (certainly nothing dropped), as the serial backend does.

    Subclasses set ``closed_angle``, ``open_angle``, ``min_pulse_us``, ``max_pulse_us``,
    ``dwell_s``, ``move_s``, ``_sleep``, ``_lock`` and ``readings`` (angle -> PulseReading), and
    must override :meth:`move_to`, :meth:`detach` and :meth:`_servo_name`; ``_move_errors`` names
    the errors their pin library raises.
    """

    closed_angle: float
    open_angle: float
    min_pulse_us: float
    max_pulse_us: float
    dwell_s: float
    move_s: float
    _sleep: Sleep
    _lock: threading.Lock
    readings: dict[float, PulseReading]
    _move_errors: tuple[type[BaseException], ...] = (Exception,)

    def move_to(self, angle: float) -> Any:
        raise NotImplementedError

    def detach(self) -> None:
        """Stop sending pulses; the servo holds by friction and stays quiet."""
        raise NotImplementedError

    def _servo_name(self) -> str:
        raise NotImplementedError

    def pulse_for(self, angle: float) -> float:
        """The pulse width (µs) of an angle, on the servo's 0..180 degree scale."""
        return self.min_pulse_us + (self.max_pulse_us - self.min_pulse_us) * angle / 180.0

    def pulse_report(self) -> list[Any]:
        """The pulse asked and set at the closed and the open angle (after a release or sweep)."""
        return [self.readings[a] for a in (self.closed_angle, self.open_angle) if a in self.readings]

    def release(self) -> None:
        with self._lock:
            opened = False
            try:
                self.move_to(self.closed_angle)
                self._sleep(self.move_s)
                opened = True  # from here on the trapdoor may have opened
                self.move_to(self.open_angle)
                self._sleep(self.move_s + self.dwell_s)
                self.move_to(self.closed_angle)
                self._sleep(self.move_s)
            except self._move_errors as exc:
                raise ReleaseError(f"{self._servo_name()} failed during the release: {exc}",
                                   released=None if opened else False) from exc
            finally:
                self.detach()

    def sweep(self) -> None:
        """Closed -> open -> closed without the dwell, for ``tower hw check``."""
        with self._lock:
            try:
                for angle in (self.closed_angle, self.open_angle, self.closed_angle):
                    self.move_to(angle)
                    self._sleep(self.move_s)
            finally:
                self.detach()


class GpioServoRelease(ServoTrapdoor):
    """A hobby servo on a Raspberry Pi GPIO, through gpiozero's ``AngularServo``.

    The servo's pulse widths span 0..180 degrees (``min_pulse_s`` at 0, ``max_pulse_s`` at 180);
    ``min_angle``/``max_angle`` are the trapdoor's calibrated range and every angle is clamped to it.
    A release moves closed -> open, dwells, moves back to closed and then *detaches* (no pulses):
    a held servo hunts around its set point and buzzes, which shakes the funnel and the camera.

    ``pin_factory`` is gpiozero's pin factory; tests pass ``MockFactory(pin_class=MockPWMPin)``.
    """

    def __init__(self, pin: int, *, closed_angle: float, open_angle: float, min_angle: float = 0.0,
                 max_angle: float = 180.0, min_pulse_s: float = 0.5e-3, max_pulse_s: float = 2.5e-3,
                 frame_s: float = 20e-3, dwell_s: float = 1.5, move_s: float = 0.4,
                 pin_factory: Any = None, sleep: Sleep = time.sleep) -> None:
        if min_angle >= max_angle:
            raise ValueError(f"min_angle {min_angle} must be below max_angle {max_angle}")
        self.pin = pin
        self.min_pulse_us, self.max_pulse_us = min_pulse_s * 1e6, max_pulse_s * 1e6
        self.readings: dict[float, PulseReading] = {}  # what hw check shows
        self.min_angle, self.max_angle = float(min_angle), float(max_angle)
        self.closed_angle = clamp_angle(float(closed_angle), self.min_angle, self.max_angle)
        self.open_angle = clamp_angle(float(open_angle), self.min_angle, self.max_angle)
        self.dwell_s, self.move_s = dwell_s, move_s
        self._sleep = sleep
        self._lock = threading.Lock()
        # The servo starts detached: at power-up we do not know where the trapdoor is, and commanding
        # it blindly could snap it open with cubes in the funnel.
        try:
            self._servo = AngularServo(pin, initial_angle=None, min_angle=0, max_angle=180,
                                       min_pulse_width=min_pulse_s, max_pulse_width=max_pulse_s,
                                       frame_width=frame_s, pin_factory=pin_factory)
        except BadPinFactory as exc:
            raise ReleaseError(
                f"servo on GPIO{pin}: no GPIO pin library can drive this machine's pins ({exc}); on a "
                "Raspberry Pi install python3-lgpio (or pigpio), elsewhere use funnel.backend = 'sim'") from exc

    def move_to(self, angle: float) -> float:
        """Command an angle (clamped to the calibrated range); returns the angle commanded."""
        angle = clamp_angle(float(angle), self.min_angle, self.max_angle)
        self._servo.angle = angle
        # read back what the pin library really set: lgpio's PWM keeps whole percent of the frame
        width = self._servo.pulse_width
        self.readings[angle] = PulseReading(angle, self.pulse_for(angle), None if width is None else width * 1e6)
        return angle

    def detach(self) -> None:
        self._servo.angle = None

    def _servo_name(self) -> str:
        return f"servo on GPIO{self.pin}"

    def close(self) -> None:
        servo = getattr(self, "_servo", None)
        if servo is not None and not servo.closed:
            servo.close()

    def describe(self) -> str:
        return (f"servo on GPIO{self.pin}: closed {self.closed_angle:g}°, open {self.open_angle:g}°, "
                f"dwell {self.dwell_s:g} s")
