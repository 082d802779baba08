"""A simulated tray-board HAL: no pins, every output recorded, beam pulses injectable.

Used when the firmware runs on a host: under the MicroPython unix port on a pseudo-terminal (see
``hardware/firmware_pty.py``) and in-process on CPython (the link soak benchmark and the tests).
Each output change is appended to ``events`` and, when a ``log`` stream is given, written to it as
one JSON line (``{"t": ms, "ev": "servo", "v": 9000}``) so that a test watching the firmware from
outside can check what the "pins" did.
"""

import json
import os
import time

_HAS_TICKS = hasattr(time, "ticks_ms")


class SimHal:
    """Simulated pins. ``clock`` (a function returning milliseconds) makes time controllable."""

    def __init__(self, log=None, clock=None, seed=None):
        self.log = log
        self._clock = clock
        self.events = []
        self.servo = None
        self.leds = 0
        self.vibrating = False
        self._beam = 0
        self._seed = seed

    # time: MicroPython's wrapping ticks when there are any, plain integers on CPython
    def ticks_ms(self):
        if self._clock is not None:
            return self._clock()
        if _HAS_TICKS:
            return time.ticks_ms()
        return int(time.monotonic() * 1000)

    def ticks_diff(self, new, old):
        if self._clock is None and _HAS_TICKS:
            return time.ticks_diff(new, old)
        return new - old

    def ticks_add(self, t, ms):
        if self._clock is None and _HAS_TICKS:
            return time.ticks_add(t, ms)
        return t + ms

    def random_u32(self):
        if self._seed is not None:
            return self._seed & 0xFFFFFFFF
        b = os.urandom(4)
        return b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24)

    def announce(self, name, value):
        """Log a non-output event (e.g. ``boot``)."""
        self._event(name, value)

    def _event(self, name, value):
        self.events.append((name, value))
        if self.log is not None:
            self.log.write(json.dumps({"t": self.ticks_ms(), "ev": name, "v": value}) + "\n")

    def servo_write(self, cdeg):
        self.servo = cdeg
        self._event("servo", cdeg)

    def servo_detach(self):
        self.servo = None
        self._event("servo", None)

    def leds_set(self, permille):
        self.leds = permille
        self._event("leds", permille)

    def vibration_set(self, on):
        if on != self.vibrating:
            self.vibrating = on
            self._event("vibration", on)

    def beam_total(self):
        return self._beam

    def inject_beam(self, pulses):
        """Simulation only: as if ``pulses`` cubes had broken the beam."""
        self._beam += pulses
        self._event("beam", self._beam)

    def watchdog(self, timeout_ms):
        """No hardware watchdog off the Pico (the unix port has no ``machine.WDT``)."""
        return None
