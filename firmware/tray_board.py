"""The tray board's logic: commands, retransmission memory, timed release, safe state.

Everything here is plain Python in the common subset of CPython and MicroPython and touches the
hardware only through a HAL object (``hal_pico.PicoHal`` on the Pico, ``hal_sim.SimHal`` on a
host), so the very code that runs on the board also runs in-process in the host's tests and in the
link soak benchmark. ``docs/protocol.md`` is the contract this implements.

The HAL provides: ``ticks_ms()``, ``ticks_diff(new, old)``, ``ticks_add(t, ms)`` (wrapping ticks, as
MicroPython's ``time`` has them), ``random_u32()``, ``servo_write(cdeg)``, ``servo_detach()``,
``leds_set(permille)``, ``vibration_set(on)``, ``beam_total()``, and optionally ``inject_beam(n)``
(simulation only), ``load_blob()``/``save_blob(data)`` (a few bytes kept across resets: the Pico's
flash) and ``log_fault(code, text)`` (a fault log that is not the data link).

The board counts its releases itself and keeps the count across resets where the HAL can save it
(``RELEASE_COUNT``): the host dies, the board outlives it, and a restarted host asks the board, not
its own memory, whether the funnel opened. The count is saved *before* the servo moves, so it can
never be lower than the number of times the trapdoor opened; if it cannot be saved the release is
refused (``FAULT``/``FAULT_STORAGE``) and nothing moves (``saved_count.py`` keeps it).

Memory is bounded: nothing on the board grows with the number of commands or hardware events.
"""

TYPE_CHECKING = False  # MicroPython has no typing module: what it guards is for mypy only
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from firmware import tray_protocol as tp
    from firmware.saved_count import StorageError, load_count, save_count
else:
    try:
        import tray_protocol as tp
        from saved_count import StorageError, load_count, save_count
    except ImportError:  # on the host the firmware is the ``firmware`` package
        from firmware import tray_protocol as tp
        from firmware.saved_count import StorageError, load_count, save_count

FIRMWARE_VERSION = "2.0"
SAFE_HOLD_MS = 500  # how long the safe state holds the servo at closed before detaching
DEFAULT_SILENCE_MS = 3000


class Board:
    """One tray board. Feed it received bytes with ``receive()``; call ``tick()`` often.

    Both return the bytes to send back to the host. ``on_action(name, args)`` (tests and the soak
    benchmark) is called for every command actually carried out, so that they can prove that a
    retransmitted frame never acted twice; the board itself keeps no list of them.
    """

    def __init__(self, hal: "Any", platform: str = "host",
                 on_action: "Callable[[str, tuple[int, ...]], None] | None" = None) -> None:
        self.hal = hal
        self.name = "tray-fw " + FIRMWARE_VERSION + " (" + platform + ")"
        self.boot_id = hal.random_u32() & 0xFFFFFFFF
        now = hal.ticks_ms()
        self.boot_ms = now
        self.decoder = tp.FrameDecoder()
        self.last_byte_ms = now
        self.session = False
        self.silence_ms = DEFAULT_SILENCE_MS
        self.closed_cdeg: int | None = None
        self.last_rx_ms = now
        self.silent = False
        self.safe_flag = False
        self.safe_trips = 0
        self.last_key: tuple[int, int, int] | None = None
        self.last_seq: int | None = None
        self.hello_key: tuple[int, int, int] | None = None
        self.stale = 0
        self.last_response = b""
        self.duplicates = 0
        self.naks = 0
        self.executed = 0
        self.on_action = on_action
        self.faults = 0
        self.fault_flag = False
        self.last_fault = 0
        self.servo_cdeg: int | None = None  # None: detached (no pulses)
        self.servo_detach_at: int | None = None
        self.release_phase = 0  # 0 idle, 1 open + dwell, 2 closing
        self.release_deadline = 0
        self.release_closed = 0
        self.release_travel = 0
        self.releases_since_boot = 0
        self.releases, self.count_persistent = load_count(hal)
        self.vibrate_until: int | None = None
        self.leds = 0
        self.beam_base = 0

    # -- time -------------------------------------------------------------------------------

    def _elapsed(self, since: int) -> int:
        elapsed: int = self.hal.ticks_diff(self.hal.ticks_ms(), since)
        return elapsed

    def uptime_ms(self) -> int:
        return self._elapsed(self.boot_ms) & 0xFFFFFFFF

    # -- bytes in and out ---------------------------------------------------------------------

    def receive(self, data: bytes) -> bytes:
        """Handle received bytes; return the response bytes to send."""
        self.last_byte_ms = self.hal.ticks_ms()
        return self._answer(self.decoder.feed(data))

    def tick(self) -> bytes:
        """Advance timers (release phases, servo hold, vibration, silence watchdog, stale input)."""
        out = b""
        if self.decoder.pending() and self._elapsed(self.last_byte_ms) >= tp.STALE_MS:
            out = self._answer(self.decoder.expire())
            self.last_byte_ms = self.hal.ticks_ms()
        now = self.hal.ticks_ms()
        if self.release_phase and self.hal.ticks_diff(now, self.release_deadline) >= 0:
            if self.release_phase == 1:
                self._servo(self.release_closed)
                self.release_phase = 2
                self.release_deadline = self.hal.ticks_add(now, self.release_travel)
            else:
                self._detach()
                self.release_phase = 0
        if self.servo_detach_at is not None and self.hal.ticks_diff(now, self.servo_detach_at) >= 0:
            self._detach()
        if self.vibrate_until is not None and self.hal.ticks_diff(now, self.vibrate_until) >= 0:
            self._vibration(False)
        if self.session and not self.silent and self._elapsed(self.last_rx_ms) >= self.silence_ms:
            self.enter_safe_state()
        return out

    def _answer(self, frames: list[tuple[int, int, bytes]]) -> bytes:
        out = b""
        for seq in self.decoder.pop_rejected():
            self.naks += 1
            out += tp.encode_frame(seq, tp.NAK, bytes((tp.NAK_CRC,)))
        for seq, cmd, payload in frames:
            out += self.handle_frame(seq, cmd, payload)
        return out

    def handle_frame(self, seq: int, cmd: int, payload: bytes) -> bytes:
        """The response frame to one valid command frame (carrying it out unless a duplicate)."""
        self.last_rx_ms = self.hal.ticks_ms()
        self.silent = False
        key = (seq, cmd, tp.crc32(payload))
        if cmd != tp.HELLO and key == self.last_key:
            self.duplicates = (self.duplicates + 1) & 0x3FFFFFFF
            return self.last_response
        if cmd == tp.HELLO and self.session and key == self.hello_key and seq != self.last_seq:
            # A late copy of the HELLO that opened this session, after commands of that session: it
            # must not wipe the memory that keeps their retransmissions from acting twice.
            self.stale = (self.stale + 1) & 0x3FFFFFFF
            return b""
        if cmd != tp.HELLO and self.last_seq is not None and 1 <= (self.last_seq - seq) & 0xFF <= tp.STALE_WINDOW:
            # A late copy of a command older than the last one carried out (it was delayed past its
            # own retransmission): the host has moved on, so it is neither carried out nor answered.
            self.stale = (self.stale + 1) & 0x3FFFFFFF
            return b""
        self.last_seq = seq
        try:
            status, data = self._dispatch(cmd, payload)
        except Exception as exc:  # noqa: BLE001 - a fault answers FAULT; it never kills the board
            status, data = tp.FAULT, bytes((self.fault(exc),))
        rcmd, rpayload = tp.pack_response(cmd, status, data)
        response = tp.encode_frame(seq, rcmd, rpayload)
        if cmd == tp.HELLO:
            self.last_key = None
            self.last_response = b""
            self.hello_key = key
        else:
            self.last_key = key
            self.last_response = response
        return response

    # -- commands -------------------------------------------------------------------------------

    def _dispatch(self, cmd: int, payload: bytes) -> tuple[int, bytes]:
        try:
            args = tp.unpack_request(cmd, payload)
        except tp.ProtocolError as exc:
            return exc.status, b""
        if cmd == tp.HELLO:
            return self._hello(*args)
        if cmd == tp.PING:
            return tp.OK, tp.pack_result(tp.PING, self.boot_id, self.uptime_ms())
        if not self.session:
            return tp.NO_SESSION, b""
        handlers: dict[int, Callable[..., tuple[int, bytes]]] = {
            tp.SERVO: self._cmd_servo,
            tp.RELEASE: self._cmd_release,
            tp.BEAM_RESET: self._cmd_beam_reset,
            tp.BEAM_COUNT: self._cmd_beam_count,
            tp.LEDS: self._cmd_leds,
            tp.VIBRATE: self._cmd_vibrate,
            tp.STATUS: self._cmd_status,
            tp.RELEASE_COUNT: self._cmd_release_count,
            tp.SIM_BEAM: self._cmd_sim_beam,
        }
        return handlers[cmd](*args)

    def _record(self, name: str, args: tuple[int, ...]) -> None:
        self.executed = (self.executed + 1) & 0x3FFFFFFF
        if self.on_action is not None:
            self.on_action(name, args)

    # -- faults -----------------------------------------------------------------------------------

    def fault(self, exc: BaseException, text: str | None = None) -> int:
        """Note a fault (an exception in a command or in the main loop); returns its FAULT code.

        The traceback goes to the HAL's fault log, never onto the data link; the host learns of it
        from the command's FAULT status or from STATUS (flag FAULT, and the count)."""
        code = tp.FAULT_MEMORY if isinstance(exc, MemoryError) else tp.FAULT_INTERNAL
        if isinstance(exc, StorageError):
            code = tp.FAULT_STORAGE
        self.faults = min(self.faults + 1, 0xFFFF)
        self.fault_flag = True
        self.last_fault = code
        log = getattr(self.hal, "log_fault", None)
        if log is not None:
            try:  # noqa: SIM105 - no contextlib on the Pico
                log(code, text if text is not None else _describe(exc))
            except Exception:  # noqa: BLE001 - a fault log that fails must not fault again
                pass
        return code

    def _hello(self, version: int, silence_ms: int, closed_cdeg: int) -> tuple[int, bytes]:
        info = tp.pack_result(tp.HELLO, tp.PROTOCOL_VERSION, self.boot_id) + self.name.encode()
        if version != tp.PROTOCOL_VERSION:
            return tp.VERSION, info
        if closed_cdeg > tp.MAX_ANGLE_CDEG and closed_cdeg != tp.NO_SERVO:
            return tp.BAD_VALUE, b""
        self.silence_ms = min(max(silence_ms, tp.MIN_SILENCE_MS), tp.MAX_SILENCE_MS)
        self.closed_cdeg = None if closed_cdeg == tp.NO_SERVO else closed_cdeg
        self.session = True
        return tp.OK, info

    def _cmd_servo(self, cdeg: int, max_ms: int) -> tuple[int, bytes]:
        if cdeg > tp.MAX_ANGLE_CDEG or not 1 <= max_ms <= tp.MAX_SERVO_HOLD_MS:
            return tp.BAD_VALUE, b""
        if self.release_phase:
            return tp.BUSY, b""
        self._record("SERVO", (cdeg, max_ms))
        self._servo(cdeg)
        self.servo_detach_at = self.hal.ticks_add(self.hal.ticks_ms(), max_ms)
        return tp.OK, b""

    def _cmd_release(self, open_cdeg: int, closed_cdeg: int, dwell_ms: int, travel_ms: int) -> tuple[int, bytes]:
        if (
            open_cdeg > tp.MAX_ANGLE_CDEG
            or closed_cdeg > tp.MAX_ANGLE_CDEG
            or dwell_ms > tp.MAX_DWELL_MS
            or travel_ms > tp.MAX_TRAVEL_MS
        ):
            return tp.BAD_VALUE, b""
        if self.release_phase:
            return tp.BUSY, b""
        count = (self.releases + 1) & 0xFFFFFFFF
        try:
            save_count(self.hal, count)  # before the servo moves: the count is never below the openings
        except StorageError as exc:
            return tp.FAULT, bytes((self.fault(exc),))
        self._record("RELEASE", (open_cdeg, closed_cdeg, dwell_ms, travel_ms))
        self.releases = count
        self.releases_since_boot = (self.releases_since_boot + 1) & 0xFFFFFFFF
        self.closed_cdeg = closed_cdeg
        self.release_closed = closed_cdeg
        self.release_travel = travel_ms
        self.servo_detach_at = None
        self._servo(open_cdeg)
        self.release_phase = 1
        self.release_deadline = self.hal.ticks_add(self.hal.ticks_ms(), travel_ms + dwell_ms)
        return tp.OK, tp.pack_result(tp.RELEASE, self.releases)

    def _beam(self) -> int:
        total: int = self.hal.beam_total()
        return (total - self.beam_base) & 0x3FFFFFFF  # the Pico counter wraps at 2**30

    def _cmd_beam_reset(self) -> tuple[int, bytes]:
        before = self._beam()
        self._record("BEAM_RESET", ())
        self.beam_base = self.hal.beam_total()
        return tp.OK, tp.pack_result(tp.BEAM_RESET, before)

    def _cmd_beam_count(self) -> tuple[int, bytes]:
        return tp.OK, tp.pack_result(tp.BEAM_COUNT, self._beam())

    def _cmd_leds(self, level: int) -> tuple[int, bytes]:
        if level > tp.MAX_LEVEL:
            return tp.BAD_VALUE, b""
        self._record("LEDS", (level,))
        self.leds = level
        self.hal.leds_set(level)
        return tp.OK, b""

    def _cmd_vibrate(self, ms: int) -> tuple[int, bytes]:
        applied = min(ms, tp.MAX_VIBRATE_MS)
        self._record("VIBRATE", (applied,))
        if applied:
            self._vibration(True)
            self.vibrate_until = self.hal.ticks_add(self.hal.ticks_ms(), applied)
        else:
            self._vibration(False)
        return tp.OK, tp.pack_result(tp.VIBRATE, applied)

    def _cmd_status(self) -> tuple[int, bytes]:
        flags = tp.FLAG_SESSION
        if self.release_phase:
            flags |= tp.FLAG_RELEASING
        if self.vibrate_until is not None:
            flags |= tp.FLAG_VIBRATING
        if self.servo_cdeg is not None:
            flags |= tp.FLAG_SERVO_ATTACHED
        if self.safe_flag:
            flags |= tp.FLAG_SAFE
            self.safe_flag = False
        if self.fault_flag:
            flags |= tp.FLAG_FAULT
            self.fault_flag = False
        angle = 0xFFFF if self.servo_cdeg is None else self.servo_cdeg
        data = tp.pack_result(
            tp.STATUS,
            flags,
            angle,
            self.leds,
            self._beam(),
            self.releases,
            self.uptime_ms(),
            self.safe_trips,
            self.faults,
        )
        return tp.OK, data

    def _cmd_release_count(self) -> tuple[int, bytes]:
        flags = tp.COUNT_PERSISTENT if self.count_persistent else 0
        if self.release_phase:
            flags |= tp.COUNT_RELEASING
        data = tp.pack_result(tp.RELEASE_COUNT, self.releases, self.boot_id, self.releases_since_boot, flags)
        return tp.OK, data

    def _cmd_sim_beam(self, pulses: int) -> tuple[int, bytes]:
        inject = getattr(self.hal, "inject_beam", None)
        if inject is None:
            return tp.UNSUPPORTED, b""
        if pulses > tp.MAX_SIM_PULSES:
            return tp.BAD_VALUE, b""
        self._record("SIM_BEAM", (pulses,))
        inject(pulses)
        return tp.OK, tp.pack_result(tp.SIM_BEAM, self._beam())

    # -- outputs ----------------------------------------------------------------------------------

    def _servo(self, cdeg: int) -> None:
        self.servo_cdeg = cdeg
        self.hal.servo_write(cdeg)

    def _detach(self) -> None:
        self.servo_detach_at = None
        if self.servo_cdeg is not None:
            self.servo_cdeg = None
            self.hal.servo_detach()

    def _vibration(self, on: bool) -> None:
        if not on:
            self.vibrate_until = None
        self.hal.vibration_set(on)

    def enter_safe_state(self) -> None:
        """Funnel closed, LEDs off, vibration off: after host silence or a fault (docs/protocol.md)."""
        announce = getattr(self.hal, "announce", None)
        if announce is not None:
            announce("safe", self.safe_trips + 1)  # the simulated HAL's log says why the outputs change
        self.silent = True
        self.safe_flag = True
        self.safe_trips += 1
        self.release_phase = 0
        if self.closed_cdeg is not None:
            self._servo(self.closed_cdeg)
            self.servo_detach_at = self.hal.ticks_add(self.hal.ticks_ms(), SAFE_HOLD_MS)
        self.leds = 0
        self.hal.leds_set(0)
        self._vibration(False)


def _describe(exc: BaseException) -> str:
    """The traceback of ``exc`` as text (MicroPython's ``sys.print_exception`` or CPython's)."""
    try:
        import io
        import sys

        buf = io.StringIO()
        print_exception = getattr(sys, "print_exception", None)
        if print_exception is not None:
            print_exception(exc, buf)
        else:
            import traceback

            traceback.print_exception(type(exc), exc, exc.__traceback__, file=buf)
        return buf.getvalue()
    except Exception:  # noqa: BLE001 - out of memory while describing a MemoryError
        return type(exc).__name__
