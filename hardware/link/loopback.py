"""The firmware's own board logic, in-process, as a transport: no serial port, no MicroPython.

``InProcessBoard`` runs ``firmware.tray_board.Board`` with the simulated HAL behind the
``Transport`` shape, so host code (``BoardLink``, ``SerialTrayBoard``) talks to the exact logic the
Pico runs. With a ``VirtualClock`` shared by the board and the link, waiting costs no real time:
the soak benchmark pushes 10,000 commands through a lossy link in seconds, deterministically.
"""

from __future__ import annotations

import time

from firmware.hal_sim import SimHal
from firmware.tray_board import Board


class VirtualClock:
    """Seconds that only move when someone sleeps or waits (``now()``, ``sleep(s)``, ``ms()``)."""

    def __init__(self, start: float = 1000.0) -> None:
        self.t = start

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += max(seconds, 0.0)

    def ms(self) -> int:
        return int(self.t * 1000)


class InProcessBoard:
    """A tray board in this process. ``board.actions`` records every command carried out."""

    def __init__(
        self, clock: VirtualClock | None = None, seed: int | None = None, name: str = "in-process board"
    ):
        self.name = name
        self.clock = clock
        self.hal = SimHal(clock=clock.ms if clock is not None else None, seed=seed)
        self.board = Board(self.hal, "in-process", record_actions=True)
        self._rx = bytearray()
        self.closed = False

    def reset(self, seed: int | None = None) -> None:
        """Simulate a power cycle: a new boot id, every state lost."""
        self.hal = SimHal(clock=self.clock.ms if self.clock is not None else None, seed=seed)
        self.board = Board(self.hal, "in-process", record_actions=True)
        self._rx.clear()

    def write(self, data: bytes) -> None:
        self._rx += self.board.tick()
        self._rx += self.board.receive(data)

    def read_some(self, timeout_s: float) -> bytes:
        self._rx += self.board.tick()
        if not self._rx:
            if self.clock is not None:
                self.clock.sleep(timeout_s)
            else:
                time.sleep(timeout_s)
            self._rx += self.board.tick()
        data = bytes(self._rx)
        self._rx.clear()
        return data

    def close(self) -> None:
        self.closed = True
