"""The tray board and the board-driven funnel as station devices, over the serial link.

``SerialTrayBoard`` implements ``hardware.interfaces.TrayBoard`` and ``SerialFunnelRelease``
implements ``hardware.interfaces.FunnelRelease``; both talk through one shared
``hardware.link.BoardLink`` (one USB port, one session). The release is timed on the board itself
(``RELEASE``: open, dwell, close, detach), so the dwell is exact whatever the Pi is doing, and the
link guarantees it fires once per call even when frames are lost or corrupted.

Typical use (what ``[board] backend = "serial"`` / ``"firmware-pty"`` maps onto)::

    link = open_link(port, baudrate=115200, timeout_s=0.2, retries=5, heartbeat_s=1.0)
    board = SerialTrayBoard(link)
    funnel = SerialFunnelRelease(board, open_angle=100, closed_angle=10, dwell_s=1.5, move_s=0.4,
                                 min_angle=0, max_angle=180)
    ...
    funnel.close(); board.close()    # the last user of the link closes the port
"""

from __future__ import annotations

import dataclasses

from firmware import tray_protocol as tp
from hardware.errors import BoardResetError, LinkError, ReleaseError
from hardware.interfaces import BoardInfo, FunnelRelease, ReleaseCounter, TrayBoard
from hardware.link.client import BoardBusyError, BoardLink, BoardStatus, ReleaseCount, open_link

__all__ = ["SerialFunnelRelease", "SerialTrayBoard", "open_link"]

POLL_S = 0.05  # how often a release in progress is polled


class SerialTrayBoard(TrayBoard):
    """Break-beam counter, LED ring and vibration motor on the tray board.

    link: an open ``BoardLink`` (``open_link(...)``); this device becomes one of its users and
        ``close()`` lets go of it (the last user closes the port).
    """

    def __init__(self, link: BoardLink) -> None:
        self.link = link.attach()
        self._closed = False
        if link.info is None:
            link.hello()

    def describe(self) -> str:
        info = self.link.info
        fw = (
            f"{info.firmware}, protocol {info.protocol_version}, boot {info.boot_id:08x}"
            if info
            else "no handshake"
        )
        return f"tray board on {self.link.name} ({fw})"

    def hello(self) -> BoardInfo:
        return self.link.hello()

    def reset_beam(self) -> None:
        self.link.request(tp.BEAM_RESET)

    def beam_count(self) -> int:
        return int(self.link.request(tp.BEAM_COUNT)["count"])

    def set_leds(self, level: float) -> None:
        if not 0.0 <= level <= 1.0:
            raise ValueError(f"LED level must be between 0.0 and 1.0, got {level!r}")
        self.link.request(tp.LEDS, round(level * tp.MAX_LEVEL))

    def vibrate(self, seconds: float, wait: bool = True) -> float:
        """Run the motor for ``seconds`` (the board caps it at 5 s); returns the seconds applied.
        ``wait`` blocks until the motor has stopped, so the pile is spread before a photo."""
        if not seconds >= 0.0:
            raise ValueError(f"vibration time must be zero or more seconds, got {seconds!r}")
        ms = min(round(seconds * 1000), tp.MAX_VIBRATE_MS)
        applied: float = self.link.request(tp.VIBRATE, ms)["applied_ms"] / 1000
        if wait and applied:
            self.link.sleep(applied)
        return applied

    def status(self) -> BoardStatus:
        return self.link.status()

    def simulate_beam(self, pulses: int) -> int:
        """Simulation only (firmware under MicroPython / in-process board): as if ``pulses`` cubes
        had broken the beam; returns the new count. A real Pico refuses it (``BoardRejectedError``)."""
        if not 0 <= pulses <= tp.MAX_SIM_PULSES:
            raise ValueError(f"pulses must be 0..{tp.MAX_SIM_PULSES}, got {pulses!r}")
        return int(self.link.request(tp.SIM_BEAM, pulses)["count"])

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.link.detach()


class SerialFunnelRelease(FunnelRelease):
    """The funnel's trapdoor servo, driven by the tray board's ``RELEASE``.

    board: a ``SerialTrayBoard`` or a ``BoardLink``. Angles are in degrees and clamped to
    ``[min_angle, max_angle]`` (the calibrated mechanical range); ``dwell_s`` is how long the
    trapdoor stays open, ``move_s`` how long the servo needs to travel (the board waits that long
    before the dwell starts and before it detaches). The closed angle is also the board's safe
    position when the host goes silent.
    """

    def __init__(
        self,
        board: SerialTrayBoard | BoardLink,
        open_angle: float = 100.0,
        closed_angle: float = 10.0,
        dwell_s: float = 1.5,
        move_s: float = 0.4,
        min_angle: float = 0.0,
        max_angle: float = 180.0,
    ) -> None:
        if not 0.0 <= min_angle <= max_angle <= 180.0:
            raise ValueError(f"need 0 <= min_angle <= max_angle <= 180, got {min_angle!r}..{max_angle!r}")
        if not 0.0 <= dwell_s <= tp.MAX_DWELL_MS / 1000:
            raise ValueError(f"dwell_s must be 0..{tp.MAX_DWELL_MS / 1000:g} s, got {dwell_s!r}")
        if not 0.0 <= move_s <= tp.MAX_TRAVEL_MS / 1000:
            raise ValueError(f"move_s must be 0..{tp.MAX_TRAVEL_MS / 1000:g} s, got {move_s!r}")
        link = board.link if isinstance(board, SerialTrayBoard) else board
        self.link = link.attach()
        self.min_angle, self.max_angle = min_angle, max_angle
        self.open_angle = self._clamp(open_angle)
        self.closed_angle = self._clamp(closed_angle)
        self.dwell_s, self.move_s = dwell_s, move_s
        self.last_release_number: int | None = None
        self._releases: ReleaseCount | None = None  # the board's release count as last seen
        self._closed = False
        link.hello(closed_angle=self.closed_angle)  # the board's safe state needs it

    def _clamp(self, angle: float) -> float:
        return min(max(angle, self.min_angle), self.max_angle)

    def describe(self) -> str:
        return (
            f"funnel servo on the tray board ({self.link.name}): closed {self.closed_angle:g} deg, "
            f"open {self.open_angle:g} deg, dwell {self.dwell_s:g} s"
        )

    def release_counter(self) -> ReleaseCounter:
        """The board's own release count (``RELEASE_COUNT``), kept on its flash across resets."""
        count = self.link.release_count()
        return ReleaseCounter(count=count.count, boot_id=count.boot_id, persistent=count.persistent)

    def release(self) -> None:
        """One drop: the board opens, dwells, closes and detaches; this waits until it is done.

        A lost acknowledgement is retransmitted and answered from the board's memory, so this never
        opens the trapdoor twice. When the ``RELEASE`` itself cannot be confirmed, the board's own
        release count (``RELEASE_COUNT``, kept across its resets) settles whether it fired. Raises
        ``ReleaseError`` (chained to the link error) with ``released`` set to ``False`` (certainly
        nothing dropped: safe to try again), ``True`` (it dropped, but did not finish as it should)
        or ``None`` (unknown: ask a person)."""
        args = (
            round(self.open_angle * 100),
            round(self.closed_angle * 100),
            round(self.dwell_s * 1000),
            round(self.move_s * 1000),
        )
        try:
            if self._releases is None:
                self._releases = self.link.release_count()
        except LinkError as exc:
            raise ReleaseError(f"cannot reach the tray board, nothing was released: {exc}", released=False) from exc
        before = self._releases
        try:
            number = int(self.link.request(tp.RELEASE, *args)["number"])
        except BoardBusyError as exc:
            raise ReleaseError(
                f"the funnel on {self.link.name} is still busy with a release", released=False
            ) from exc
        except LinkError as exc:  # BoardResetError included: the board's saved count settles it
            number = self._settle_unconfirmed(before, exc)
        self._releases = dataclasses.replace(before, count=number, since_boot=before.since_boot + 1)
        self.last_release_number = number
        self._wait_until_done()

    def _settle_unconfirmed(self, before: ReleaseCount, cause: LinkError) -> int:
        """The RELEASE went unanswered (or the board reset): ask the board whether its count moved."""
        self._releases = None
        try:
            after = self.link.release_count()
        except BoardResetError as reset:
            cause = reset  # the board restarted around the release: the caller must hear of it
            try:
                after = self.link.release_count()
            except LinkError as exc:
                raise self._unknown(cause) from exc
        except LinkError as exc:
            raise self._unknown(cause) from exc
        comparable = (before.persistent and after.persistent) or before.boot_id == after.boot_id
        if not comparable:
            raise ReleaseError(
                f"the tray board restarted and kept no release count, so the trapdoor may or may not have "
                f"opened: {cause}", released=None) from cause
        if after.count == before.count:
            raise ReleaseError(
                f"the board never got the release, the trapdoor did not open: {cause}", released=False
            ) from cause
        if after.count == before.count + 1:
            if isinstance(cause, BoardResetError):
                raise ReleaseError(
                    f"the trapdoor opened, but the tray board restarted during the release: {cause}", released=True
                ) from cause
            return after.count  # it fired; only the acknowledgement was lost
        raise ReleaseError(
            f"the board's release count jumped from {before.count} to {after.count}; the funnel's state is unknown",
            released=None,
        ) from cause

    @staticmethod
    def _unknown(cause: LinkError) -> ReleaseError:
        return ReleaseError(
            f"the funnel release could not be confirmed, so the trapdoor may or may not have opened: {cause}",
            released=None,
        )

    def _wait_until_done(self) -> None:
        # the release's own time, plus room for one STATUS that needs every retransmission on a bad
        # line: a slow answer is not a failed release
        budget = 2 * self.move_s + self.dwell_s + 2.0 + self.link.exchange_budget_s()
        deadline = self.link.clock() + budget
        self.link.sleep(min(2 * self.move_s + self.dwell_s, budget))
        while True:
            try:
                status = self.link.status()
            except LinkError as exc:
                raise ReleaseError(f"lost the tray board while the funnel was open: {exc}", released=True) from exc
            if not status.releasing:
                return
            if self.link.clock() >= deadline:
                raise ReleaseError(f"the tray board did not finish the release within {budget:.1f} s", released=True)
            self.link.sleep(POLL_S)

    def sweep(self) -> None:
        """Closed -> open -> closed with ``SERVO`` moves (a hardware check that drops nothing new)."""
        hold_ms = max(round(self.move_s * 1000), 1)
        try:
            for angle in (self.closed_angle, self.open_angle, self.closed_angle):
                self.link.request(tp.SERVO, round(angle * 100), hold_ms + 200)
                self.link.sleep(self.move_s)
        except LinkError as exc:
            raise ReleaseError(f"the servo sweep failed: {exc}", released=None) from exc

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.link.detach()
