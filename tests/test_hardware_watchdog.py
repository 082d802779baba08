"""The systemd notifier: READY once, WATCHDOG only while healthy, over a real notify socket."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from simulation import SimWorld
from simulation.board import SimTrayBoard
from station.factory import Station
from station.watchdog import ServiceWatchdog, station_health_checks, watchdog_interval_s


class Recorder:
    def __init__(self) -> None:
        self.sent: list[str] = []

    def notify(self, state: str) -> None:
        self.sent.append(state)


def test_pings_only_while_healthy() -> None:
    healthy = {"ok": True}
    rec = Recorder()
    dog = ServiceWatchdog([lambda: None if healthy["ok"] else "camera gone"], notifier=rec, interval_s=1)
    dog.ready()
    assert dog.beat() is True
    healthy["ok"] = False
    assert dog.beat() is False and dog.beat() is False
    healthy["ok"] = True
    assert dog.beat() is True
    assert rec.sent == ["READY=1\nSTATUS=station ready", "WATCHDOG=1", "STATUS=unhealthy: camera gone",
                        "STATUS=station ready", "WATCHDOG=1"]


def test_a_crashing_check_counts_as_unhealthy() -> None:
    def boom() -> str | None:
        raise RuntimeError("bang")

    rec = Recorder()
    assert ServiceWatchdog([boom], notifier=rec).beat() is False
    assert rec.sent == ["STATUS=unhealthy: health check failed: bang"]


def test_board_health_follows_the_link(tmp_path: Path) -> None:
    table = SimWorld(tmp_path / "w.json")
    station = Station(config=None, funnel=None, camera=None, tray_board=SimTrayBoard(table, sleep=lambda s: None),  # type: ignore[arg-type]
                      world=table)
    dog = ServiceWatchdog(station_health_checks(station), notifier=Recorder())
    assert dog.beat() is True
    table.faults.serial_loss = 1.0
    assert dog.beat() is False
    assert "tray board" in (dog.last_problem or "")


def test_interval_from_systemd(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "20000000")
    assert watchdog_interval_s() == 10.0
    monkeypatch.setenv("WATCHDOG_USEC", "junk")
    assert watchdog_interval_s(3.0) == 3.0


def test_real_sdnotify_socket(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = str(tmp_path / "notify.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(path)
    server.settimeout(2.0)
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    try:
        dog = ServiceWatchdog([], interval_s=0.05)  # the real sdnotify.SystemdNotifier
        dog.ready("devices up")
        dog.start()
        time.sleep(0.2)
        dog.stop()
        got = []
        server.settimeout(0.2)
        while True:
            try:
                got.append(server.recv(4096).decode())
            except TimeoutError:
                break
    finally:
        server.close()
    assert got[0] == "READY=1\nSTATUS=devices up"
    assert got.count("WATCHDOG=1") >= 2
    assert got[-1].startswith("STOPPING=1")
