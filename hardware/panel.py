"""The station's panel: its optional release button and status LED, through gpiozero.

The simulated panel (buttons pressed from code, an LED that remembers) is ``simulation/panel.py``.
"""

from __future__ import annotations

from typing import Any

from gpiozero import LED, Button

from hardware.interfaces import Buttons, StatusLight

STATES = ("ready", "busy", "attention", "off")


class GpioButtons(Buttons):
    """A release button wired from a GPIO to ground (the internal pull-up holds it high)."""

    def __init__(self, release_pin: int, *, bounce_s: float = 0.05, pin_factory: Any = None) -> None:
        self._button = Button(release_pin, pull_up=True, bounce_time=bounce_s or None, pin_factory=pin_factory)
        self.release_pin = release_pin

    def wait_for_release_press(self, timeout: float | None) -> bool:
        return bool(self._button.wait_for_press(timeout))

    def close(self) -> None:
        self._button.close()

    def describe(self) -> str:
        return f"release button on GPIO{self.release_pin}"


class GpioStatusLight(StatusLight):
    """One LED: steady when ready, fast blink when busy, slow blink when a person must look, dark off."""

    def __init__(self, pin: int, *, pin_factory: Any = None) -> None:
        self._led = LED(pin, pin_factory=pin_factory)
        self.pin = pin
        self.state = "off"

    def show(self, state: str) -> None:
        if state not in STATES:
            raise ValueError(f"status {state!r} is not one of {', '.join(STATES)}")
        self.state = state
        if state == "ready":
            self._led.on()
        elif state == "busy":
            self._led.blink(on_time=0.1, off_time=0.1)
        elif state == "attention":
            self._led.blink(on_time=0.5, off_time=0.5)
        else:
            self._led.off()

    def close(self) -> None:
        self._led.close()

    def describe(self) -> str:
        return f"status LED on GPIO{self.pin}"
