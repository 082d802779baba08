"""The simulated tray board: beam counter, LED ring and vibration motor acting on the ``SimWorld``.

It keeps the link's observable behaviour without the bytes: a command whose frame is lost or
corrupted (faults ``serial_loss``/``serial_corrupt``) is retried up to ``retries`` times and carried
out at most once, a link that never gets through raises ``LinkError``, ``serial_delay_s`` slows every
exchange, and a board reset mid-command (fault ``board_reset``) loses the command, clears the beam
count, changes the boot id and raises ``BoardResetError`` once, as the serial backend does.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from firmware.tray_protocol import PROTOCOL_VERSION
from hardware.errors import BoardResetError, LinkError
from hardware.interfaces import BoardInfo, TrayBoard

T = TypeVar("T")


class SimTrayBoard(TrayBoard):
    def __init__(self, table: Any, *, retries: int = 5, sleep: Callable[[float], None] = time.sleep) -> None:
        self.table = table
        self.retries = retries
        self._sleep = sleep
        self._boot_id: int | None = None
        self.attempts = 0  # frames "sent", retransmissions included (for tests and hw check)

    def _command(self, name: str, action: Callable[[], T]) -> T:
        faults = self.table.faults
        for _ in range(self.retries + 1):
            self.attempts += 1
            if faults.serial_delay_s:
                self._sleep(faults.serial_delay_s)
            if faults.strikes("board_reset"):
                old = self._boot_id
                new = self.table.reset_board()
                self._boot_id = new
                raise BoardResetError(f"simulated tray board restarted during {name} "
                                      f"(boot id {old} -> {new}); the command was lost")
            if faults.strikes("serial_loss") or faults.strikes("serial_corrupt"):
                continue  # no acknowledgement: the host sends the same frame again
            if self._boot_id is not None and self.table.boot_id != self._boot_id:
                old, self._boot_id = self._boot_id, self.table.boot_id
                raise BoardResetError(f"simulated tray board restarted (boot id {old} -> {self._boot_id})")
            return action()
        raise LinkError(f"simulated tray board did not answer {name} after {self.retries + 1} tries")

    def hello(self) -> BoardInfo:
        def act() -> BoardInfo:
            return BoardInfo(protocol_version=PROTOCOL_VERSION, boot_id=self.table.boot_id, firmware="sim")
        info = self._command("HELLO", act)
        if self._boot_id is None:
            self._boot_id = info.boot_id
        return info

    def reset_beam(self) -> None:
        self._command("BEAM_RESET", self.table.reset_beam)

    def beam_count(self) -> int:
        return int(self._command("BEAM_COUNT", self.table.beam_count))

    def set_leds(self, level: float) -> None:
        if not 0.0 <= level <= 1.0:
            raise ValueError(f"LED level {level} is outside 0..1")
        self._command("LEDS", lambda: self.table.set_leds(level))

    def vibrate(self, seconds: float) -> None:
        if not 0.0 <= seconds <= 10.0:
            raise ValueError(f"vibration of {seconds} s is outside 0..10 s")
        self._command("VIBRATE", lambda: self.table.vibrate(seconds))

    def describe(self) -> str:
        return "simulated tray board"
