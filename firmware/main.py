"""Tray-board firmware entry point: the main loop joining the USB serial port to ``tray_board.Board``.

On a Raspberry Pi Pico (``sys.platform == "rp2"``) the hardware is ``hal_pico`` and ``machine.WDT``
restarts a hung loop. Anywhere else (the MicroPython unix port on a pseudo-terminal, for tests and
``examples/sim-firmware.toml``) the hardware is simulated by ``hal_sim``, whose output changes are
logged as JSON lines on stderr. The link itself is stdin/stdout in both cases: on the Pico that is
the USB CDC port the host opens as ``/dev/ttyACM0``.
"""

import sys
import time

try:
    import select
except ImportError:
    import uselect as select

try:
    import tray_board
except ImportError:  # imported as part of the ``firmware`` package on a host
    from firmware import tray_board

WATCHDOG_MS = 2000
POLL_MS = 2  # the loop's idle wait; timers have millisecond resolution anyway
READ_CHUNK = 64


def _sleep_ms(ms):
    sleep_ms = getattr(time, "sleep_ms", None)
    if sleep_ms is not None:
        sleep_ms(ms)
    else:
        time.sleep(ms / 1000)


def make_hal():
    """The HAL for this platform and a short platform name for HELLO (``None`` for the HAL when the
    Pico's REPL jumper asks the firmware to stay out of the way)."""
    if sys.platform == "rp2":
        import hal_pico

        if hal_pico.repl_requested():
            return None, "rp2"
        return hal_pico.PicoHal(), "rp2"
    try:
        import hal_sim
    except ImportError:
        from firmware import hal_sim
    hal = hal_sim.SimHal(log=sys.stderr)
    hal.announce("boot", sys.platform)  # firmware_pty waits for this line
    return hal, "sim-" + sys.platform


class StdioPort:
    """Non-blocking byte I/O on stdin/stdout (USB CDC on the Pico, the pty on a host)."""

    def __init__(self):
        try:
            import micropython

            micropython.kbd_intr(-1)  # 0x03 is data here, not Ctrl-C
        except (ImportError, AttributeError):
            pass
        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)

    def read(self, timeout_ms):
        """Whatever bytes arrive within ``timeout_ms`` (possibly none)."""
        data = b""
        wait = timeout_ms
        while len(data) < READ_CHUNK:
            events = self._poll.poll(wait)
            if not events:
                break
            if events[0][1] & (select.POLLHUP | select.POLLERR) and not events[0][1] & select.POLLIN:
                if sys.platform != "rp2":
                    # On a host pty this means whoever ran us is gone: nobody can reach us again.
                    raise SystemExit("tray-fw: the host closed the pseudo-terminal")
                _sleep_ms(timeout_ms)  # USB unplugged from a powered board: keep the timers running
                break
            byte = self._in.read(1)
            if not byte:
                break
            data += byte
            wait = 0
        return data

    def write(self, data):
        self._out.write(data)
        flush = getattr(self._out, "flush", None)
        if flush is not None:
            flush()


def run():
    hal, platform = make_hal()
    if hal is None:
        print("tray-fw: REPL jumper fitted; the link is not started")
        return
    board = tray_board.Board(hal, platform)
    port = StdioPort()
    wdt = hal.watchdog(WATCHDOG_MS)
    while True:
        data = port.read(POLL_MS)
        out = board.receive(data) if data else b""
        out += board.tick()
        if out:
            port.write(out)
        if wdt is not None:
            wdt.feed()


if __name__ == "__main__":
    run()
