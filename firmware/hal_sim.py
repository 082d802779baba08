"""A simulated tray-board HAL: no pins, every output recorded, beam pulses injectable.

Used when the firmware runs on a host: under the MicroPython unix port on a pseudo-terminal (see
``simulation/firmware_pty.py``) and in-process on CPython (the link soak benchmark and the tests).
Each output change is kept in ``events``, a ring of the last ``EVENT_RING`` changes (the board's
memory is bounded: a list here ran the unix port out of heap after about a thousand events), and,
when a ``log`` stream is given, written to it as one JSON line (``{"t": ms, "ev": "servo", "v":
9000}``) so that a test watching the firmware from outside can check everything the "pins" did.

The simulated flash: ``state_path`` is a file standing for the Pico's flash, where the board keeps
its release count across resets (``load_blob``/``save_blob``, written atomically by a rename); with
no path the blob lives in this object, so a new ``Board`` on the same HAL is a reset that keeps it.
Faults (``log_fault``) go to the log stream as a ``fault`` line, never to the data link.
"""

import json
import os
import time

TYPE_CHECKING = False  # MicroPython has no typing module: what it guards is for mypy only
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import IO

    from firmware.ring import Ring
else:
    try:
        from ring import Ring
    except ImportError:  # on the host the firmware is the ``firmware`` package
        from firmware.ring import Ring

_HAS_TICKS = hasattr(time, "ticks_ms")
EVENT_RING = 64  # output changes kept in memory; the log stream has them all


class SimHal:
    """Simulated pins. ``clock`` (a function returning milliseconds) makes time controllable."""

    def __init__(self, log: "IO[str] | None" = None, clock: "Callable[[], int] | None" = None,
                 seed: int | None = None, state_path: str | None = None) -> None:
        self.log = log
        self._clock = clock
        self.events = Ring(EVENT_RING)
        self.servo: int | None = None
        self.leds = 0
        self.vibrating = False
        self._beam = 0
        self._seed = seed
        self.state_path = state_path
        self._blob: bytes | None = None
        self.faults = 0
        self.fail_saves = False  # tests: the flash refuses writes (full, worn out)

    # time: MicroPython's wrapping ticks when there are any, plain integers on CPython
    def ticks_ms(self) -> int:
        if self._clock is not None:
            return self._clock()
        if _HAS_TICKS:
            return time.ticks_ms()  # type: ignore[attr-defined,no-any-return]  # MicroPython
        return int(time.monotonic() * 1000)

    def ticks_diff(self, new: int, old: int) -> int:
        if self._clock is None and _HAS_TICKS:
            return time.ticks_diff(new, old)  # type: ignore[attr-defined,no-any-return]  # MicroPython
        return new - old

    def ticks_add(self, t: int, ms: int) -> int:
        if self._clock is None and _HAS_TICKS:
            return time.ticks_add(t, ms)  # type: ignore[attr-defined,no-any-return]  # MicroPython
        return t + ms

    def random_u32(self) -> int:
        if self._seed is not None:
            return self._seed & 0xFFFFFFFF
        b = os.urandom(4)
        return b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24)

    def announce(self, name: str, value: object) -> None:
        """Log a non-output event (e.g. ``boot``)."""
        self._event(name, value)

    def _event(self, name: str, value: object) -> None:
        self.events.append((name, value))
        if self.log is not None:
            self.log.write(json.dumps({"t": self.ticks_ms(), "ev": name, "v": value}) + "\n")

    # -- the simulated flash ------------------------------------------------------------------
    def load_blob(self) -> bytes | None:
        """The bytes last saved, or ``None`` when nothing was ever saved."""
        if self.state_path is None:
            return self._blob
        try:
            with open(self.state_path, "rb") as fh:
                return fh.read()
        except OSError:
            return None

    def save_blob(self, data: bytes) -> None:
        """Keep ``data`` across resets; raises ``OSError`` when the flash cannot be written."""
        if self.fail_saves:
            raise OSError(28, "simulated flash full")
        if self.state_path is None:
            self._blob = bytes(data)
            return
        tmp = self.state_path + ".tmp"
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.rename(tmp, self.state_path)  # atomic: the old count or the new, never half of one

    def log_fault(self, code: int, text: str) -> None:
        """A firmware fault: on the log stream (stderr under the unix port), never on the link."""
        self.faults += 1
        self._event("fault", code)
        if self.log is not None:
            self.log.write(json.dumps({"t": self.ticks_ms(), "ev": "fault_text", "v": text[-400:]}) + "\n")

    # -- outputs ------------------------------------------------------------------------------
    def servo_write(self, cdeg: int) -> None:
        self.servo = cdeg
        self._event("servo", cdeg)

    def servo_detach(self) -> None:
        self.servo = None
        self._event("servo", None)

    def leds_set(self, permille: int) -> None:
        self.leds = permille
        self._event("leds", permille)

    def vibration_set(self, on: bool) -> None:
        if on != self.vibrating:
            self.vibrating = on
            self._event("vibration", on)

    def beam_total(self) -> int:
        return self._beam

    def inject_beam(self, pulses: int) -> None:
        """Simulation only: as if ``pulses`` cubes had broken the beam."""
        self._beam = (self._beam + pulses) & 0x3FFFFFFF  # the Pico's counter wraps here too
        self._event("beam", self._beam)

    def watchdog(self, timeout_ms: int) -> None:
        """No hardware watchdog off the Pico (the unix port has no ``machine.WDT``)."""
        return None
