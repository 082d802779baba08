"""systemd service notifications: ``READY=1`` once the devices are up, ``WATCHDOG=1`` only while
they are healthy.

The unit in ``docs/raspberry-pi.md`` uses ``Type=notify`` and ``WatchdogSec=``: systemd waits for
READY before it counts the service as started, and restarts it when the WATCHDOG pings stop. So the
pings must mean something: ``ServiceWatchdog`` sends one only after every health check passed (the
tray board answers, the caller's own checks such as "the drop loop is alive" pass). A wedged USB
port or a hung controller thus ends in a restart, which re-opens the devices and resumes the drop
in flight from the records, instead of a station that looks up but does nothing.

Outside systemd (no ``NOTIFY_SOCKET``) sdnotify sends nothing and everything here is a no-op apart
from the health checks, which still run.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from typing import Any

import sdnotify

from station.factory import Station

HealthCheck = Callable[[], str | None]  # returns a problem description, or None when healthy


def watchdog_interval_s(default: float = 10.0) -> float:
    """Half of systemd's ``WATCHDOG_USEC`` (the customary margin), else ``default``."""
    usec = os.environ.get("WATCHDOG_USEC")
    try:
        return max(int(usec) / 2e6, 0.05) if usec else default
    except ValueError:
        return default


def station_health_checks(station: Station | None) -> list[HealthCheck]:
    """Cheap checks of a ``Station``: the tray board answers a read (the link is alive). The camera
    is not captured from here: a capture would compete with the drop cycle for frames."""
    checks: list[HealthCheck] = []
    board = station.tray_board if station is not None else None
    if board is not None:
        def board_answers() -> str | None:
            try:
                board.beam_count()
            except Exception as exc:
                return f"tray board: {exc}"
            return None

        checks.append(board_answers)
    return checks


class ServiceWatchdog:
    """Send READY once and WATCHDOG while healthy; ``STATUS=`` tells ``systemctl status`` why not.

    notifier: anything with ``notify(str)`` (default ``sdnotify.SystemdNotifier()``).
    checks: health checks run before every ping.
    """

    def __init__(self, checks: Iterable[HealthCheck] = (), *, notifier: Any = None,
                 interval_s: float | None = None) -> None:
        if notifier is None:
            notifier = sdnotify.SystemdNotifier()
        self.notifier = notifier
        self.checks = list(checks)
        self.interval_s = interval_s if interval_s is not None else watchdog_interval_s()
        self.last_problem: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def problems(self) -> list[str]:
        found = []
        for check in self.checks:
            try:
                problem = check()
            except Exception as exc:  # a crashing check is a failing check
                problem = f"health check failed: {exc}"
            if problem:
                found.append(problem)
        return found

    def ready(self, status: str = "station ready") -> None:
        self.notifier.notify(f"READY=1\nSTATUS={status}")

    def beat(self) -> bool:
        """One round: ping systemd if healthy; returns whether it did."""
        problems = self.problems()
        if problems:
            problem = "; ".join(problems)
            if problem != self.last_problem:
                self.notifier.notify(f"STATUS=unhealthy: {problem}")
            self.last_problem = problem
            return False
        if self.last_problem is not None:
            self.notifier.notify("STATUS=station ready")
            self.last_problem = None
        self.notifier.notify("WATCHDOG=1")
        return True

    def start(self) -> None:
        """Ping from a daemon thread every ``interval_s`` until ``stop()``."""
        if self._thread is not None:
            return
        self._stop.clear()

        def loop() -> None:
            while not self._stop.wait(self.interval_s):
                self.beat()

        self._thread = threading.Thread(target=loop, name="systemd-watchdog", daemon=True)
        self._thread.start()

    def stop(self, status: str = "stopping") -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self.notifier.notify(f"STOPPING=1\nSTATUS={status}")
