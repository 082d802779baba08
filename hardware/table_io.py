"""The table's optional buttons and status LED: gpiozero on the Pi, simulated elsewhere."""

from __future__ import annotations

import threading
from typing import Any

from hardware.interfaces import Buttons, StatusLight

STATES = ("ready", "busy", "attention", "off")


class GpioButtons(Buttons):
    """A release button wired from a GPIO to ground (the internal pull-up holds it high)."""

    def __init__(self, release_pin: int, *, bounce_s: float = 0.05, pin_factory: Any = None) -> None:
        from gpiozero import Button

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
        from gpiozero import LED

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


class SimButtons(Buttons):
    """A release button pressed from code (``press()``), e.g. by a test or the web page's demo."""

    def __init__(self) -> None:
        self._pressed = threading.Event()

    def press(self) -> None:
        self._pressed.set()

    def wait_for_release_press(self, timeout: float | None) -> bool:
        hit = self._pressed.wait(timeout)
        self._pressed.clear()
        return hit


class SimStatusLight(StatusLight):
    """Records every state shown, so a test can check what the table was told."""

    def __init__(self) -> None:
        self.history: list[str] = []

    @property
    def state(self) -> str:
        return self.history[-1] if self.history else "off"

    def show(self, state: str) -> None:
        if state not in STATES:
            raise ValueError(f"status {state!r} is not one of {', '.join(STATES)}")
        self.history.append(state)
