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
    """The funnel release could not be carried out (or could not be confirmed)."""


class CameraError(HardwareError, OSError):
    """The camera failed to deliver a frame."""


class CameraTimeout(CameraError, TimeoutError):
    """The camera delivered no frame in time."""


class LinkError(HardwareError, OSError):
    """The serial link to the tray board failed after its retries."""


class BoardResetError(LinkError):
    """The tray board restarted (its boot id changed) while the host was talking to it."""
