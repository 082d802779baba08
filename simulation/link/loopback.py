"""The firmware's own board logic, in-process, as a transport: no serial port, no MicroPython.

``InProcessBoard`` runs ``firmware.tray_board.Board`` with the simulated HAL behind the
``Transport`` shape, so host code (``BoardLink``, ``SerialTrayBoard``) talks to the exact logic the
Pico runs. With a ``VirtualClock`` shared by the board and the link, waiting costs no real time:
the soak benchmark pushes 10,000 commands through a lossy link in seconds, deterministically.
"""

from __future__ import annotations

import time
from typing import Any

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
    """A tray board in this process. ``actions`` lists every command the current boot carried out
    (kept here on the host: the board itself keeps no such list), ``all_actions`` those of every
    boot. ``reset()`` is a power cycle that keeps the board's flash (its release count)."""

    def __init__(
        self, clock: VirtualClock | None = None, seed: int | None = None, name: str = "in-process board"
    ):
        self.name = name
        self.clock = clock
        self.all_actions: list[tuple[str, tuple[Any, ...]]] = []
        self.boots = 0
        self._rx = bytearray()
        self.closed = False
        self._boot(seed, flash=None)

    def _boot(self, seed: int | None, flash: bytes | None) -> None:
        self.hal = SimHal(clock=self.clock.ms if self.clock is not None else None, seed=seed)
        self.hal._blob = flash
        self.actions: list[tuple[str, tuple[Any, ...]]] = []
        self.board = Board(self.hal, "in-process", on_action=self._acted)
        self.boots += 1

    def _acted(self, name: str, args: tuple[Any, ...]) -> None:
        self.actions.append((name, args))
        self.all_actions.append((name, args))

    def reset(self, seed: int | None = None, keep_flash: bool = True) -> None:
        """Simulate a power cycle: a new boot id, every state lost but the flash (unless
        ``keep_flash`` is false: a new or erased board)."""
        self._boot(seed, self.hal.load_blob() if keep_flash else None)
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
