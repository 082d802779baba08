"""The host end of the tray-board link: one command in flight, retransmission with backoff,
HELLO handshake, reset detection and a heartbeat (``docs/protocol.md``).

``BoardLink`` turns "do X on the board" into a frame, sends it, and waits for the acknowledgement
with the same sequence number. A timeout or a NAK sends the *same* frame again (the board answers a
retransmission from memory without acting twice), with the wait doubling each time; after the last
try it raises ``LinkError`` naming the port, the command, the tries and the time spent. A changed
boot id raises ``BoardResetError`` once. Every transport failure surfaces as one of the errors of
``hardware/errors.py``; nothing is retried silently forever.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from firmware import tray_protocol as tp
from hardware.errors import BoardResetError, LinkError
from hardware.interfaces import BoardInfo
from hardware.link.replies import BoardStatus, ReleaseCount, Result
from hardware.link.transport import SerialTransport, Transport

__all__ = ["BoardBusyError", "BoardFaultError", "BoardLink", "BoardRejectedError", "BoardStatus", "LinkStats",
           "ReleaseCount", "Result", "open_link"]

log = logging.getLogger(__name__)


class BoardRejectedError(LinkError, ValueError):
    """The board understood the frame but refused the command (bad value, bad length, unknown)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class BoardFaultError(LinkError):
    """The firmware hit an exception (or could not save its release count) while carrying out a
    command; ``code`` is the FAULT code. The board stays up and went to its safe state."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


class BoardBusyError(LinkError):
    """The board is still carrying out a release; ask again when it is done."""


@dataclass
class LinkStats:
    """What the link did, for ``tower hw check`` and the soak benchmark's figures."""

    commands: int = 0
    frames_sent: int = 0
    retransmissions: int = 0
    timeouts: int = 0
    naks: int = 0
    stale_responses: int = 0
    failures: int = 0
    heartbeats: int = 0
    resets: int = 0  # board restarts noticed (each raised BoardResetError once)
    rejected_frames: int = 0  # received frames that failed the header or CRC check


class BoardLink:
    """A session with one tray board over ``transport``.

    timeout_s: first wait for an acknowledgement; doubled (``backoff``) on every retransmission up
        to ``max_timeout_s``.
    retries: retransmissions after the first try (so ``retries + 1`` tries in all).
    heartbeat_s: ``PING`` after this long without traffic (``start_heartbeat()``); 0 disables it.
    silence_s: the board's host-silence timeout sent in HELLO (default ``3 × heartbeat_s``, at least
        0.5 s): after it the board closes the funnel and switches everything off by itself.
    clock, sleep: injectable for tests (``loopback.VirtualClock``).
    first_seq: the sequence number of the first command (``open_link`` draws it at random, so that
        a restarted host's HELLO is not a copy of the last host's, which the board would drop).
    """

    def __init__(
        self,
        transport: Transport,
        *,
        timeout_s: float = 0.2,
        retries: int = 5,
        backoff: float = 2.0,
        max_timeout_s: float = 2.0,
        heartbeat_s: float = 1.0,
        silence_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        first_seq: int = 1,
    ) -> None:
        if timeout_s <= 0:
            raise ValueError(f"timeout_s must be positive, got {timeout_s!r}")
        if retries < 0:
            raise ValueError(f"retries must not be negative, got {retries!r}")
        self.transport = transport
        self.name = transport.name
        self.timeout_s = timeout_s
        self.retries = retries
        self.backoff = backoff
        self.max_timeout_s = max(max_timeout_s, timeout_s)
        self.heartbeat_s = heartbeat_s
        if silence_s is None:
            silence_s = max(3.0 * heartbeat_s, 3.0) if heartbeat_s > 0 else 3.0
        self.silence_s = min(max(silence_s, tp.MIN_SILENCE_MS / 1000), tp.MAX_SILENCE_MS / 1000)
        self.clock = clock
        self.sleep = sleep
        self.stats = LinkStats()
        self.info: BoardInfo | None = None
        self.closed_angle: float | None = None
        self._decoder = tp.FrameDecoder()
        self._seq = (first_seq - 1) & 0xFF
        self._lock = threading.RLock()
        self._last_traffic = clock()
        self._pending_error: LinkError | None = None
        self._heartbeat: threading.Thread | None = None
        self._stop = threading.Event()
        self._users = 0
        self._closed = False

    # -- the exchange -------------------------------------------------------------------------------

    def _exchange(self, cmd: int, payload: bytes) -> tuple[int, bytes]:
        """Send one command until its acknowledgement comes; ``(status, data)`` of the response."""
        if self._closed:
            raise LinkError(f"the link to the tray board on {self.name} is closed")
        self._seq = (self._seq + 1) & 0xFF
        seq = self._seq
        frame = tp.encode_frame(seq, cmd, payload)
        self._decoder.reset()  # whatever is buffered belongs to an earlier exchange
        self.stats.commands += 1
        started = self.clock()
        wait = self.timeout_s
        for attempt in range(self.retries + 1):
            if attempt:
                self.stats.retransmissions += 1
            self.stats.frames_sent += 1
            self.transport.write(frame)
            deadline = self.clock() + wait
            while True:
                remaining = deadline - self.clock()
                if remaining <= 0:
                    self.stats.timeouts += 1
                    break
                nak = False
                received = self._decoder.feed(self.transport.read_some(remaining))
                self.stats.rejected_frames = self._decoder.bad_crc + self._decoder.bad_header
                for rseq, rcmd, rpayload in received:
                    if rcmd == tp.NAK:
                        nak = True
                    elif rseq == seq and rcmd == cmd | tp.RESPONSE_BIT and rpayload:
                        self._last_traffic = self.clock()
                        return tp.split_response(rpayload)
                    else:
                        self.stats.stale_responses += 1
                if nak:
                    self.stats.naks += 1
                    break
            wait = min(wait * self.backoff, self.max_timeout_s)
        self.stats.failures += 1
        raise LinkError(
            f"tray board on {self.name} did not answer {tp.command_name(cmd)} (seq {seq}) after "
            f"{self.retries + 1} tries over {self.clock() - started:.1f} s"
        )

    def exchange_budget_s(self) -> float:
        """The longest one exchange can take: every try waiting its full (backed-off) timeout."""
        total, wait = 0.0, self.timeout_s
        for _ in range(self.retries + 1):
            total += wait
            wait = min(wait * self.backoff, self.max_timeout_s)
        return total

    def request(self, cmd: int, *args: int) -> Result:
        """Carry out one command; its result by field name (the command's row in ``tp.COMMANDS``).

        Raises ``BoardResetError`` if the board restarted (noticed now or by the heartbeat),
        ``BoardBusyError`` while a release runs, ``BoardRejectedError`` for a refused command and
        ``LinkError`` when the board does not answer.
        """
        payload = tp.pack_request(cmd, *args)
        with self._lock:
            self._raise_pending()
            status, data = self._exchange(cmd, payload)
            if status == tp.NO_SESSION and cmd != tp.HELLO:
                # The board has no session: it restarted, or this host never said HELLO. A changed
                # boot id raises BoardResetError here and the command is *not* replayed.
                self._hello_locked()
                status, data = self._exchange(cmd, payload)
            return self._result(cmd, status, data)

    def _result(self, cmd: int, status: int, data: bytes) -> Result:
        name = tp.command_name(cmd)
        if status == tp.OK:
            try:
                result: Result = tp.read_result(cmd, data)
                return result
            except tp.ProtocolError as exc:
                raise LinkError(f"tray board on {self.name} sent a malformed {name} result: {exc}") from exc
        if status == tp.BUSY:
            raise BoardBusyError(f"tray board on {self.name} is busy with a release; {name} refused")
        if status == tp.FAULT:
            code = data[0] if data else 0
            raise BoardFaultError(
                f"tray board on {self.name} had a fault during {name}: "
                f"{tp.FAULT_NAMES.get(code, f'code {code}')} (its fault log has the details)", code)
        what = tp.STATUS_NAMES.get(status, f"status {status}")
        raise BoardRejectedError(f"tray board on {self.name} refused {name}: {what}", status)

    def _raise_pending(self) -> None:
        if self._pending_error is not None:
            error, self._pending_error = self._pending_error, None
            raise error

    # -- session ------------------------------------------------------------------------------------

    def hello(self, closed_angle: float | None = None) -> BoardInfo:
        """Handshake (also after a reset). ``closed_angle`` tells the board where its safe state
        puts the servo; ``None`` keeps the last one given (or "no servo")."""
        with self._lock:
            if closed_angle is not None:
                self.closed_angle = closed_angle
            self._raise_pending()
            return self._hello_locked()

    def _hello_locked(self) -> BoardInfo:
        closed = tp.NO_SERVO if self.closed_angle is None else _cdeg(self.closed_angle, "closed_angle")
        status, data = self._exchange(
            tp.HELLO, tp.pack_request(tp.HELLO, tp.PROTOCOL_VERSION, round(self.silence_s * 1000), closed)
        )
        if status == tp.VERSION:
            theirs = tp.read_result(tp.HELLO, data)["version"] if len(data) >= 5 else "unknown"
            raise LinkError(
                f"tray board on {self.name} speaks link protocol version {theirs}, this host speaks "
                f"{tp.PROTOCOL_VERSION}: update the firmware (firmware/) or the host"
            )
        hello = self._result(tp.HELLO, status, data)
        info = BoardInfo(protocol_version=hello["version"], boot_id=hello["boot_id"], firmware=hello["firmware"])
        self._check_boot(info.boot_id)
        self.info = info
        return info

    def _check_boot(self, boot_id: int) -> None:
        if self.info is not None and boot_id != self.info.boot_id:
            old = self.info.boot_id
            self.info = BoardInfo(self.info.protocol_version, boot_id, self.info.firmware)
            self.stats.resets += 1
            raise BoardResetError(
                f"tray board on {self.name} restarted (boot id {old:08x} -> {boot_id:08x}); its beam count, "
                "LED level and any release in progress were lost"
            )

    def ping(self) -> int:
        """One heartbeat; returns the board's uptime in ms. Notices a reset like ``hello()``."""
        with self._lock:
            self._raise_pending()
            pong = self._result(tp.PING, *self._exchange(tp.PING, b""))
            self._check_boot(pong["boot_id"])  # the next command re-opens the session with HELLO
            return int(pong["uptime_ms"])

    def status(self) -> BoardStatus:
        return BoardStatus.from_result(self.request(tp.STATUS))

    def release_count(self) -> ReleaseCount:
        """The board's own release count (kept across its resets where it can save it)."""
        return ReleaseCount.from_result(self.request(tp.RELEASE_COUNT))

    # -- heartbeat ----------------------------------------------------------------------------------

    def start_heartbeat(self) -> None:
        """PING in the background whenever the link has been idle for ``heartbeat_s``."""
        if self.heartbeat_s <= 0 or self._heartbeat is not None:
            return
        self._heartbeat = threading.Thread(target=self._beat, name=f"heartbeat {self.name}", daemon=True)
        self._heartbeat.start()

    def stop_heartbeat(self) -> None:
        """Stop the background PING (``close()`` does it too)."""
        self._stop.set()
        if self._heartbeat is not None and self._heartbeat is not threading.current_thread():
            self._heartbeat.join(timeout=5.0)

    def _beat(self) -> None:
        while not self._stop.wait(self.heartbeat_s / 2):
            if self.clock() - self._last_traffic < self.heartbeat_s:
                continue
            if not self._lock.acquire(blocking=False):
                continue  # a command is in flight: that is traffic enough
            try:
                if self._pending_error is None and not self._closed:
                    self.stats.heartbeats += 1
                    self.ping()
            except LinkError as exc:  # kept for the next caller, who can act on it
                log.warning("tray board heartbeat failed: %s", exc)
                self._pending_error = exc
                self._last_traffic = self.clock()
            finally:
                self._lock.release()

    # -- sharing and closing ------------------------------------------------------------------------

    def attach(self) -> BoardLink:
        """One more device uses this link (the tray board and the funnel share one port)."""
        self._users += 1
        return self

    def detach(self) -> None:
        """A device is done with the link; the last one closes it."""
        self._users -= 1
        if self._users <= 0:
            self.close()

    def close(self) -> None:
        """Stop the heartbeat and close the port; calling it twice is harmless."""
        if self._closed:
            return
        self._stop.set()
        if self._heartbeat is not None and self._heartbeat is not threading.current_thread():
            self._heartbeat.join(timeout=5.0)
        with self._lock:
            self._closed = True
            self.transport.close()


def _cdeg(angle: float, what: str) -> int:
    if not 0.0 <= angle <= 180.0:
        raise ValueError(f"{what} must be between 0 and 180 degrees, got {angle!r}")
    return round(angle * 100)


def open_link(
    port: str,
    baudrate: int = 115200,
    timeout_s: float = 0.2,
    retries: int = 5,
    heartbeat_s: float = 1.0,
    *,
    silence_s: float | None = None,
) -> BoardLink:
    """Open ``port`` with pyserial, say HELLO, start the heartbeat; the ready ``BoardLink``.

    ``port`` is anything ``serial.serial_for_url`` opens: ``/dev/ttyACM0``, the pty path from
    ``FirmwarePty.start()``, ``socket://host:port``. (The simulated station's serial faults are put
    in between by ``simulation.link.open_faulty_link``, which ends in :func:`link_over`.)
    """
    return link_over(SerialTransport(port, baudrate), timeout_s=timeout_s, retries=retries,
                     heartbeat_s=heartbeat_s, silence_s=silence_s)


def link_over(transport: Transport, *, timeout_s: float = 0.2, retries: int = 5, heartbeat_s: float = 1.0,
              silence_s: float | None = None) -> BoardLink:
    """A ready ``BoardLink`` over an open transport: HELLO said, heartbeat started (closed again on
    a failed HELLO)."""
    link = BoardLink(
        transport, timeout_s=timeout_s, retries=retries, heartbeat_s=heartbeat_s, silence_s=silence_s,
        first_seq=random.randrange(256),
    )
    try:
        link.hello()
    except BaseException:
        link.close()
        raise
    link.start_heartbeat()
    return link
