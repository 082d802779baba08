"""The Raspberry Pi Pico (RP2040) HAL: servo and LED PWM, vibration pin, beam interrupt, WDT.

Pins (see firmware/README.md for the wiring): servo signal GP15, break-beam receiver GP14 (open
collector, pulled up; low while a cube blocks the beam), LED ring MOSFET gate GP16, vibration motor
transistor GP17. Only this module imports ``machine``; ``tray_board.py`` never touches a pin.
"""

import os
import time

from machine import PWM, WDT, Pin

SERVO_PIN = 15
BEAM_PIN = 14
LED_PIN = 16
VIBRATION_PIN = 17
REPL_PIN = 22  # tied to GND at power-up: main.py stays out of the way and leaves the REPL

SERVO_HZ = 50
SERVO_MIN_US = 500  # pulse width at 0 degrees
SERVO_MAX_US = 2500  # pulse width at 180 degrees
LED_HZ = 1000
BEAM_DEBOUNCE_US = 1000  # edges closer than this are one cube (receiver ringing)
COUNT_FILE = "tray_count.bin"  # the release count on the Pico's flash (littlefs: rename is atomic)
FAULT_FILE = "tray_fault.txt"  # the last fault's traceback, never sent over the USB data link
FAULT_FILE_MAX = 1024  # bytes kept of it: the flash is small and a fault may repeat


def repl_requested() -> bool:
    """True when the REPL jumper (GP22 to GND) is fitted: the way back to a REPL once main.py
    owns the USB port, since the link disables Ctrl-C."""
    return bool(Pin(REPL_PIN, Pin.IN, Pin.PULL_UP).value() == 0)


class PicoHal:
    def __init__(self) -> None:
        self._servo = PWM(Pin(SERVO_PIN))
        self._servo.freq(SERVO_HZ)
        self._servo.duty_u16(0)  # no pulses until the host says where "closed" is
        self._led = PWM(Pin(LED_PIN))
        self._led.freq(LED_HZ)
        self._led.duty_u16(0)
        self._vibration = Pin(VIBRATION_PIN, Pin.OUT, value=0)
        self._beam_total = 0
        self._last_edge_us: int = time.ticks_us()  # type: ignore[attr-defined]
        self._beam = Pin(BEAM_PIN, Pin.IN, Pin.PULL_UP)
        self._beam.irq(trigger=Pin.IRQ_FALLING, handler=self._on_beam, hard=True)

    def _on_beam(self, pin: object) -> None:
        # hard IRQ: no allocation; integers below 2**30 stay small ints
        now: int = time.ticks_us()  # type: ignore[attr-defined]
        if time.ticks_diff(now, self._last_edge_us) >= BEAM_DEBOUNCE_US:  # type: ignore[attr-defined]
            self._beam_total = (self._beam_total + 1) & 0x3FFFFFFF
        self._last_edge_us = now

    def ticks_ms(self) -> int:
        return time.ticks_ms()  # type: ignore[attr-defined,no-any-return]

    def ticks_diff(self, new: int, old: int) -> int:
        return time.ticks_diff(new, old)  # type: ignore[attr-defined,no-any-return]

    def ticks_add(self, t: int, ms: int) -> int:
        return time.ticks_add(t, ms)  # type: ignore[attr-defined,no-any-return]

    def random_u32(self) -> int:
        b = os.urandom(4)
        return b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24)

    def servo_write(self, cdeg: int) -> None:
        pulse_us = SERVO_MIN_US + (SERVO_MAX_US - SERVO_MIN_US) * cdeg // 18000
        self._servo.duty_ns(pulse_us * 1000)

    def servo_detach(self) -> None:
        self._servo.duty_u16(0)

    def leds_set(self, permille: int) -> None:
        self._led.duty_u16(permille * 65535 // 1000)

    def vibration_set(self, on: bool) -> None:
        self._vibration.value(1 if on else 0)

    def beam_total(self) -> int:
        return self._beam_total

    # -- flash: the release count survives a reset or a power cut ---------------------------------
    def load_blob(self) -> bytes | None:
        try:
            with open(COUNT_FILE, "rb") as fh:
                return fh.read()
        except OSError:
            return None

    def save_blob(self, data: bytes) -> None:
        # One small write per release: littlefs spreads its writes over the flash's blocks, so
        # even 100,000 releases stay far below the flash's erase endurance.
        tmp = COUNT_FILE + ".tmp"
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.rename(tmp, COUNT_FILE)

    def log_fault(self, code: int, text: str) -> None:
        try:
            with open(FAULT_FILE, "w") as fh:
                fh.write("fault " + str(code) + " at " + str(time.ticks_ms()) + " ms\n")  # type: ignore[attr-defined]
                fh.write(text[-FAULT_FILE_MAX:])
        except OSError:
            pass

    def watchdog(self, timeout_ms: int) -> "WDT":
        return WDT(timeout=timeout_ms)
