"""Byte transports under the link: a pyserial port, or anything with the same three methods.

``BoardLink`` only needs ``write(data)``, ``read_some(timeout_s) -> bytes`` (whatever arrives within
the timeout, possibly nothing) and ``close()``, plus a ``name`` for error messages. The real one
wraps ``serial.serial_for_url`` (so ``/dev/ttyACM0``, a pty path, or pyserial URLs such as
``loop://`` and ``socket://host:port`` all work); ``faults.FaultInjectingTransport`` and
``loopback.InProcessBoard`` implement the same shape for tests and the soak benchmark.
"""

from __future__ import annotations

import contextlib
from typing import Protocol

from hardware.errors import LinkError

READ_SLICE_S = 0.005  # pyserial's read timeout: how finely read_some() can wait


class Transport(Protocol):
    """What ``BoardLink`` needs of a byte transport."""

    name: str

    def write(self, data: bytes) -> None: ...

    def read_some(self, timeout_s: float) -> bytes: ...

    def close(self) -> None: ...


class SerialTransport:
    """A pyserial port as a ``Transport``; pyserial's errors become ``LinkError`` naming the port."""

    def __init__(self, port: str, baudrate: int = 115200) -> None:
        import serial  # pyserial; imported here so that merely importing the link stays cheap

        self.name = port
        self._serial_error = serial.SerialException
        try:
            self._ser = serial.serial_for_url(port, baudrate=baudrate, timeout=READ_SLICE_S, write_timeout=2.0)
        except (serial.SerialException, OSError, ValueError) as exc:
            raise LinkError(f"cannot open the tray board's serial port {port!r}: {exc}") from exc

    def write(self, data: bytes) -> None:
        try:
            self._ser.write(data)
        except (self._serial_error, OSError) as exc:
            raise LinkError(f"writing to the tray board on {self.name} failed: {exc}") from exc

    def read_some(self, timeout_s: float) -> bytes:
        try:
            self._ser.timeout = max(timeout_s, 0.0)
            first = self._ser.read(1)
            if not first:
                return b""
            waiting = self._ser.in_waiting
            return bytes(first) + (bytes(self._ser.read(waiting)) if waiting else b"")
        except (self._serial_error, OSError) as exc:
            raise LinkError(f"reading from the tray board on {self.name} failed: {exc}") from exc

    def close(self) -> None:
        with contextlib.suppress(self._serial_error, OSError):
            self._ser.close()
