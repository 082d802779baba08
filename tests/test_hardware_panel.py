"""The table's release button and status LED on gpiozero's mock pins."""

from __future__ import annotations

import threading
import time

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.panel import GpioButtons, GpioStatusLight
from simulation.panel import SimStatusLight


@pytest.fixture
def factory():
    factory = MockFactory()
    yield factory
    factory.reset()


def test_release_button_press_is_seen(factory) -> None:  # noqa: ANN001
    buttons = GpioButtons(17, bounce_s=0, pin_factory=factory)
    pin = factory.pin(17)
    assert buttons.wait_for_release_press(0.05) is False  # pulled up: not pressed
    timer = threading.Timer(0.05, pin.drive_low)  # the host presses: the pin goes to ground
    timer.start()
    assert buttons.wait_for_release_press(2.0) is True
    timer.join()
    buttons.close()


def test_status_led_states(factory) -> None:  # noqa: ANN001
    led = GpioStatusLight(27, pin_factory=factory)
    pin = factory.pin(27)
    led.show("ready")
    assert pin.state is True
    led.show("busy")
    time.sleep(0.35)
    led.show("off")
    assert pin.state is False
    states = [s.state for s in pin.states]
    assert states.count(True) >= 2, "busy blinks the LED"
    with pytest.raises(ValueError, match="party"):
        led.show("party")
    led.close()


def test_sim_status_light_records_history() -> None:
    light = SimStatusLight()
    assert light.state == "off"
    light.show("busy")
    light.show("ready")
    assert light.history == ["busy", "ready"] and light.state == "ready"
