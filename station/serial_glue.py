"""Joins the serial link (``hardware/link``, ``hardware/serial_board.py``) to the station: a tray
board on a serial port, and a funnel moved by that board.

The firmware-on-a-pty board of a simulated station is ``simulation/coupled.py``.
"""

from __future__ import annotations

from hardware.config import StationConfig
from hardware.link import open_link
from hardware.serial_board import SerialFunnelRelease, SerialTrayBoard


def open_serial_board(cfg: StationConfig) -> SerialTrayBoard:
    """The tray board on ``[board] port``: the link opened (HELLO said), the board on top of it."""
    b = cfg.board
    link = open_link(b.port, baudrate=b.baudrate, timeout_s=b.timeout_s, retries=b.retries,
                     heartbeat_s=b.heartbeat_s)
    try:
        return SerialTrayBoard(link)
    except BaseException:
        link.close()
        raise


def open_board_funnel(cfg: StationConfig, board: SerialTrayBoard) -> SerialFunnelRelease:
    """The funnel's servo moved by the tray board (``funnel.backend = "board"``)."""
    f = cfg.funnel
    return SerialFunnelRelease(board, open_angle=f.open_angle, closed_angle=f.closed_angle, dwell_s=f.dwell_s,
                               move_s=f.move_s, min_angle=f.min_angle, max_angle=f.max_angle)
