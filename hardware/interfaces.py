"""The small interfaces every device backend implements.

Each class says what a backend must override and what it may. Real backends (gpiozero, picamera2,
OpenCV, the serial tray board) and simulated ones implement the same interface, so the controller
never knows which it has; the contract tests in ``tests/`` run against every backend that can load.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np


class Device:
    """Base of every device. May override: ``close()`` (release pins, ports, processes),
    ``describe()`` (one line for ``tower hw check``)."""

    def close(self) -> None:
        """Release whatever the device holds; calling it twice is harmless."""

    def describe(self) -> str:
        return type(self).__name__

    def __enter__(self):  # type: ignore[no-untyped-def]
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(frozen=True)
class ReleaseCounter:
    """A funnel's own count of its releases, as the device keeps it.

    ``count`` never falls below the number of times the trapdoor opened (a device counts a release
    before it moves). ``boot_id`` names the device's current power-up (``None`` where it has none);
    ``persistent`` says whether the count survives the device's reset: where it does not, a count
    from another boot cannot be compared with this one.
    """

    count: int
    boot_id: int | None
    persistent: bool

    def comparable(self, earlier: ReleaseCounter) -> bool:
        """Whether ``self.count - earlier.count`` is the number of releases between the two readings."""
        return self.persistent and earlier.persistent or (
            self.boot_id is not None and self.boot_id == earlier.boot_id)


class FunnelRelease(Device, ABC):
    """The servo-held trapdoor under the funnel.

    Must override: ``release()``. May override: ``sweep()`` (a self-test that moves the servo
    between its calibrated endpoints without releasing anything of a battle) and
    ``release_counter()`` (the device's own count of its releases; ``None`` for a bare servo).
    """

    def release_counter(self) -> ReleaseCounter | None:
        """The device's own release count, asked of the device now (``None``: it keeps none).

        Raises ``OSError`` (e.g. ``LinkError``) when the device cannot be asked."""
        return None

    @abstractmethod
    def release(self) -> None:
        """Open to the calibrated open angle, dwell until every cube has fallen, close, detach.

        One call is one drop. Raises ``ReleaseError`` when it cannot be carried out."""

    def sweep(self) -> None:
        """Move closed -> open -> closed for a hardware check (default: a release)."""
        self.release()


class Camera(Device, ABC):
    """A camera looking down on the tray. Must override: ``capture()``."""

    @abstractmethod
    def capture(self) -> np.ndarray[Any, Any]:
        """One frame as an ``H x W x 3`` ``uint8`` array in **BGR** order (OpenCV's).

        Raises ``CameraTimeout`` when no frame comes in time, ``CameraError`` otherwise."""


@dataclass(frozen=True)
class BoardInfo:
    """What the tray board says about itself in the HELLO handshake."""

    protocol_version: int
    boot_id: int
    firmware: str


#: The LED ring's level while the tray is read or photographed for calibrating: full. The profile
#: is learned under the light the station reads by (``controller.steps``, ``station.shot``).
TRAY_LIGHT = 1.0


class TrayBoard(Device, ABC):
    """The optional tray board: break-beam counter, LED ring, vibration motor.

    Must override: ``hello()``, ``reset_beam()``, ``beam_count()``, ``set_leds()``, ``vibrate()``.
    """

    @abstractmethod
    def hello(self) -> BoardInfo:
        """Handshake: protocol version and boot id (a changed boot id means the board reset)."""

    @abstractmethod
    def reset_beam(self) -> None:
        """Zero the break-beam cube counter before a drop."""

    @abstractmethod
    def beam_count(self) -> int:
        """Cubes counted falling out of the tower since the last reset."""

    @abstractmethod
    def set_leds(self, level: float) -> None:
        """LED ring brightness, 0.0 (off) to 1.0 (full)."""

    @abstractmethod
    def vibrate(self, seconds: float) -> float | None:
        """Run the vibration motor to spread a pile in the tray; the seconds applied where the board
        says (it may cap them), else ``None``."""


class StatusLight(Device, ABC):
    """An optional status LED for the table. Must override: ``show(state)``."""

    @abstractmethod
    def show(self, state: str) -> None:
        """``"ready"``, ``"busy"``, ``"attention"`` or ``"off"``."""


class Buttons(Device, ABC):
    """Optional table buttons. Must override: ``wait_for_release_press(timeout)``."""

    @abstractmethod
    def wait_for_release_press(self, timeout: float | None) -> bool:
        """Block until the host presses the release button; ``False`` on timeout."""
