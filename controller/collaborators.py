"""What the drop cycle asks of its collaborators, as typed protocols: the station's devices and
hands satisfy them, and so does a test's stand-in, without the cycle knowing which it has (or
whether the station is simulated)."""

from __future__ import annotations

from typing import Protocol

from controller.readers import TrayReader
from hardware.interfaces import BoardInfo, ReleaseCounter
from station.hands import Hands, NoHands

__all__ = ["BeamBoard", "Funnel", "Hands", "NoHands", "TrayReader"]


class Funnel(Protocol):
    """The funnel's release: one call is one drop; the device's own count of its releases settles
    a release that raised or that a dead process left unfinished (``None``: it keeps none)."""

    def release(self) -> None: ...

    def release_counter(self) -> ReleaseCounter | None: ...


class BeamBoard(Protocol):
    """The tray board as the drop cycle uses it: its break-beam cube counter, kept as evidence, and
    its boot id (a board that restarted since its beam was zeroed lost the count: it stands for
    nothing), its vibration motor to spread a pile before the tray is read again, and its LED ring,
    switched on for each read."""

    def hello(self) -> BoardInfo: ...

    def reset_beam(self) -> None: ...

    def beam_count(self) -> int: ...

    def vibrate(self, seconds: float) -> float | None: ...

    def set_leds(self, level: float) -> None: ...
