"""The MicroPython firmware on a pty, coupled to the simulated world: the tray board and the funnel
of ``board.backend = "firmware-pty"`` (the real serial board is ``station/serial_glue.py``).

The firmware moves only its simulated
servo; the cubes live in the ``SimWorld``. ``SimCoupledRelease`` and ``SimCoupledBoard`` tie the two:
after the firmware confirms a release, the simulated cubes fall and the beam breaks they make (a
clump counts once, ``[board] beam_clump``) are fed to the firmware's beam counter (``SIM_BEAM``), so
the board's count is the firmware's own; LED and
vibration commands reach the firmware and are mirrored into the simulated tray. The serial faults
of ``[sim.faults]`` go into the link's fault-injecting transport, and ``board_reset`` restarts the
firmware process just before a command, which the link then reports as ``BoardResetError``.

The board outlives the host: its simulated flash and hardware log live in ``<data_dir>/tray-board/``
(``FirmwarePty(state_dir=...)``), so the firmware that a new controller process starts keeps the
release count of the one before. The cubes fall when the firmware's servo opens, whether or not the
host lived to hear of it: on opening, ``SimCoupledRelease`` compares the board's own release count
with the last one whose cubes fell in the simulated world and lets the missing drop fall.
"""

from __future__ import annotations

import contextlib

from firmware import tray_protocol as tp
from hardware.config import StationConfig
from hardware.errors import LinkError, ReleaseError
from hardware.interfaces import BoardInfo, FunnelRelease, ReleaseCounter, TrayBoard
from hardware.serial_board import SerialFunnelRelease, SerialTrayBoard
from simulation.firmware_pty import FirmwarePty
from simulation.link import open_faulty_link
from simulation.world import SimWorld

BOARD_DIR = "tray-board"  # in the data directory: the simulated board's flash and hardware log


def open_firmware_board(cfg: StationConfig, world: SimWorld, extras: list[object]) -> SimCoupledBoard:
    """Start the firmware on a pty (its flash in ``<data_dir>/tray-board/``), open the link with the
    world's serial faults in between, and couple the board to the world."""
    b = cfg.board
    firmware = FirmwarePty(state_dir=cfg.data_dir / BOARD_DIR)
    extras.append(firmware)  # closed after the devices: stops the MicroPython process
    port = firmware.start()
    f = world.faults
    link = open_faulty_link(port, baudrate=b.baudrate, timeout_s=b.timeout_s, retries=b.retries,
                            heartbeat_s=b.heartbeat_s, corrupt=f.serial_corrupt, loss=f.serial_loss,
                            delay_s=f.serial_delay_s, seed=cfg.sim.seed)
    try:
        board = SerialTrayBoard(link)
    except BaseException:
        link.close()
        raise
    return SimCoupledBoard(board, world, firmware)


def open_coupled_funnel(cfg: StationConfig, board: SimCoupledBoard) -> SimCoupledRelease:
    """The firmware's servo, followed by the simulated cubes falling."""
    f = cfg.funnel
    funnel = SerialFunnelRelease(board.inner, open_angle=f.open_angle, closed_angle=f.closed_angle,
                                 dwell_s=f.dwell_s, move_s=f.move_s, min_angle=f.min_angle, max_angle=f.max_angle)
    return SimCoupledRelease(funnel, board)


class SimCoupledBoard(TrayBoard):
    """The firmware's tray board, with the simulated world mirrored (LEDs, vibration, resets)."""

    def __init__(self, inner: SerialTrayBoard, table: SimWorld, firmware: FirmwarePty) -> None:
        self.inner = inner
        self.table = table
        self.firmware = firmware

    def _maybe_reset(self) -> None:
        if self.table.faults.strikes("board_reset"):
            self.firmware.restart()
            self.table.reset_board()

    def hello(self) -> BoardInfo:
        self._maybe_reset()
        return self.inner.hello()

    def reset_beam(self) -> None:
        self._maybe_reset()
        self.inner.reset_beam()

    def beam_count(self) -> int:
        self._maybe_reset()
        return int(self.inner.beam_count())

    def feed_beam(self, cubes: int) -> None:
        """Tell the firmware's simulated beam that ``cubes`` cubes fell past it."""
        while cubes > 0:
            chunk = min(cubes, tp.MAX_SIM_PULSES)
            self.inner.simulate_beam(chunk)
            cubes -= chunk

    def set_leds(self, level: float) -> None:
        self._maybe_reset()
        self.inner.set_leds(level)
        self.table.set_leds(level)

    def vibrate(self, seconds: float) -> None:
        self._maybe_reset()
        applied = self.inner.vibrate(seconds)
        self.table.vibrate(applied if applied is not None else seconds)

    def close(self) -> None:
        self.inner.close()

    def describe(self) -> str:
        return f"{self.inner.describe()} [MicroPython on a pty]"


class SimCoupledRelease(FunnelRelease):
    """The firmware's release, followed by the simulated cubes falling (or not, on a servo jam)."""

    def __init__(self, inner: SerialFunnelRelease, board: SimCoupledBoard) -> None:
        self.inner = inner
        self.board = board
        self.table = board.table
        self.catch_up()

    def release_counter(self) -> ReleaseCounter | None:
        """The board's own count (never the simulated world's): what a real station would ask."""
        return self.inner.release_counter()

    def _fall(self, board_release: int | None) -> None:
        jammed = self.table.faults.strikes("servo_jam")
        out = self.table.release(jammed=jammed, board_release=board_release)
        if out:
            self.board.feed_beam(self.table.last_beam_passes)  # a clump of cubes breaks the beam once

    def catch_up(self) -> None:
        """Let fall the cubes of a release the board made but the world never saw (the host died
        while the trapdoor was open); adopt the count of a new or reflashed board."""
        try:
            count = self.inner.release_counter().count
        except LinkError:
            return  # asked again at the next release
        applied = self.table.board_releases
        if applied is None or count < applied:
            self.table.note_board_releases(count)
        elif count > applied:
            self._fall(board_release=count)  # the funnel emptied at the first of them

    def _trapdoor_opened_since(self, mark: int) -> bool:
        """Whether the firmware's simulated servo went to the open angle after log byte ``mark``:
        the physical truth, whatever the link could confirm."""
        open_cdeg = round(self.inner.open_angle * 100)
        return any(e.get("ev") == "servo" and e.get("v") is not None and abs(e["v"] - open_cdeg) <= 100
                   for e in self.board.firmware.events(since=mark))

    def release(self) -> None:
        self.board._maybe_reset()
        self.catch_up()
        mark = self.board.firmware.log_size()
        applied = self.table.board_releases
        try:
            self.inner.release()
        except ReleaseError:
            # The link could not confirm the release (or it did not finish cleanly). The cubes fall
            # exactly when the firmware's servo really opened, as they would on the real table.
            if self._trapdoor_opened_since(mark):
                self._fall((applied or 0) + 1)
            raise
        self._fall(self.inner.last_release_number)

    def sweep(self) -> None:
        mark = self.board.firmware.log_size()
        try:
            self.inner.sweep()
        finally:
            if self.table.funnel_contents() and self._trapdoor_opened_since(mark):
                self.table.release(jammed=False)  # the trapdoor opened: whatever lay in the funnel fell

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.inner.close()

    def describe(self) -> str:
        return self.inner.describe()
