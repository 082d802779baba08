"""Tray-board firmware entry point: the main loop joining the USB serial port to ``tray_board.Board``.

On a Raspberry Pi Pico (``sys.platform == "rp2"``) the hardware is ``hal_pico`` and ``machine.WDT``
restarts a hung loop. Anywhere else (the MicroPython unix port on a pseudo-terminal, for tests and
``examples/sim-firmware.toml``) the hardware is simulated by ``hal_sim``, whose output changes are
logged as JSON lines on stderr. The link itself is stdin/stdout in both cases: on the Pico that is
the USB CDC port the host opens as ``/dev/ttyACM0``.

Nothing but frames goes onto that link: an exception anywhere in the loop is caught, its traceback
goes to the HAL's fault log (a small file on the Pico's flash, the JSON log on a host), the board
closes the funnel and switches everything off, and the loop carries on. On a host pty whose host
went away, a release in progress is finished before the process exits, as a real board would (it
outlives the host; it only stops when its power does).
"""

import gc
import os
import sys
import time

TYPE_CHECKING = False  # MicroPython has no typing module: what it guards is for mypy only
if TYPE_CHECKING:
    import select
    from typing import Any

    from firmware import tray_board
else:
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


def _sleep_ms(ms: int) -> None:
    sleep_ms = getattr(time, "sleep_ms", None)
    if sleep_ms is not None:
        sleep_ms(ms)
    else:
        time.sleep(ms / 1000)


def make_hal() -> "tuple[Any, str]":
    """The HAL for this platform and a short platform name for HELLO (``None`` for the HAL when the
    Pico's REPL jumper asks the firmware to stay out of the way)."""
    if sys.platform == "rp2":
        import hal_pico

        if hal_pico.repl_requested():
            return None, "rp2"
        return hal_pico.PicoHal(), "rp2"
    if TYPE_CHECKING:
        from firmware import hal_sim
    else:
        try:
            import hal_sim
        except ImportError:
            from firmware import hal_sim
    # TRAY_FW_STATE: the file standing for the Pico's flash (the release count survives a restart)
    getenv = getattr(os, "getenv", None)
    state_path = getenv("TRAY_FW_STATE") if getenv is not None else None
    hal = hal_sim.SimHal(log=sys.stderr, state_path=state_path or None)
    hal.announce("boot", sys.platform)  # firmware_pty waits for this line
    return hal, "sim-" + sys.platform


class HostGone(Exception):
    """The host pty was closed: nobody can reach this simulated board again."""


class StdioPort:
    """Non-blocking byte I/O on stdin/stdout (USB CDC on the Pico, the pty on a host)."""

    def __init__(self) -> None:
        try:
            import micropython

            micropython.kbd_intr(-1)  # 0x03 is data here, not Ctrl-C
        except (ImportError, AttributeError):
            pass
        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)

    def read(self, timeout_ms: int) -> bytes:
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
                    raise HostGone()
                _sleep_ms(timeout_ms)  # USB unplugged from a powered board: keep the timers running
                break
            byte = self._in.read(1)
            if not byte:
                break
            data += byte
            wait = 0
        return data

    def write(self, data: bytes) -> None:
        self._out.write(data)
        flush = getattr(self._out, "flush", None)
        if flush is not None:
            flush()


def run() -> None:
    hal, platform = make_hal()
    if hal is None:
        print("tray-fw: REPL jumper fitted; the link is not started")
        return
    board = tray_board.Board(hal, platform)
    port = StdioPort()
    wdt = hal.watchdog(WATCHDOG_MS)
    while True:
        try:
            data = port.read(POLL_MS)
            out = board.receive(data) if data else b""
            out += board.tick()
            if out:
                port.write(out)
        except HostGone:
            finish_release(board)
            raise SystemExit("tray-fw: the host closed the pseudo-terminal") from None
        except Exception as exc:  # noqa: BLE001 - logged off the link, the loop goes on
            gc.collect()
            board.fault(exc)
            try:  # noqa: SIM105 - no contextlib on the Pico
                board.enter_safe_state()
            except Exception:  # noqa: BLE001
                pass
        if wdt is not None:
            wdt.feed()


def finish_release(board: "tray_board.Board") -> None:
    """Let a release in progress run to its end on the board's own clock (open, dwell, close)."""
    while board.release_phase:
        _sleep_ms(POLL_MS)
        board.tick()


if __name__ == "__main__":
    run()
