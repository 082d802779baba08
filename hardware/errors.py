"""Errors raised by the hardware layer.

Each also inherits the builtin that a caller would naturally catch (as gpiozero's do), so code that
only knows ``TimeoutError`` or ``ValueError`` still handles them.
"""

from __future__ import annotations


class HardwareError(Exception):
    """Base class for every error of the station's devices."""


class ConfigError(HardwareError, ValueError):
    """The station configuration is malformed; the message names the key."""


class ReleaseError(HardwareError, RuntimeError):
    """The funnel release could not be carried out (or could not be confirmed).

    ``released`` says what the raiser knows of the trapdoor: ``False`` certainly nothing dropped
    (safe to try again), ``True`` it dropped but the release did not finish as it should, ``None``
    unknown (the default: only a person can say, so the station never guesses).
    """

    def __init__(self, message: str, *, released: bool | None = None) -> None:
        super().__init__(message)
        self.released = released


class CameraError(HardwareError, OSError):
    """The camera failed to deliver a frame."""


class CameraTimeout(CameraError, TimeoutError):
    """The camera delivered no frame in time."""


class LinkError(HardwareError, OSError):
    """The serial link to the tray board failed after its retries."""


class BoardResetError(LinkError):
    """The tray board restarted (its boot id changed) while the host was talking to it."""
