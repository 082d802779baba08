"""The simulated panel: a release button pressed from code and a status LED that keeps its history."""

from __future__ import annotations

import threading

from hardware.interfaces import Buttons, StatusLight
from hardware.panel import STATES


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
