"""Joins the firmware engineer's serial link (``hardware/serial_board.py``, ``hardware/firmware_pty.py``)
to the station: a tray board on a serial port or on the MicroPython firmware's pty, and a funnel
moved by that board. On a simulated station the board-driven release also moves the simulated cubes.
"""

from __future__ import annotations

from typing import Any

from hardware.config import StationConfig
from hardware.errors import ConfigError
from hardware.interfaces import FunnelRelease, TrayBoard


def open_serial_board(cfg: StationConfig, sim: Any, extras: list[Any]) -> TrayBoard:
    raise ConfigError(f"board.backend: {cfg.board.backend!r} is not available in this build yet")


def open_board_funnel(cfg: StationConfig, board: TrayBoard, sim: Any) -> FunnelRelease:
    raise ConfigError("funnel.backend: 'board' is not available in this build yet")
