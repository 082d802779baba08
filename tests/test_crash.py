"""Exactly once under SIGKILL: the `tower` CLI is killed at random moments during battles, on the
default simulated station and on the firmware station, and the servo's openings are counted on the
device itself (bench/bench_crash.py runs 100 kills per station; this is the short version)."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
from bench_scripts import load


def _bench() -> ModuleType:
    return load("bench_crash")


@pytest.mark.slow
@pytest.mark.parametrize("station", ["default", pytest.param("firmware", marks=pytest.mark.micropython)])
def test_sigkills_of_the_cli_never_open_the_servo_twice(station: str, tmp_path: Path) -> None:
    figures = _bench().crash_run(tmp_path / station, station=station, kills=5, seed=5)
    print("\n" + "\n".join(_bench().report(figures)))
    assert figures["problems"] == []
    assert figures["kills"] == 5 and figures["verify_ok"]
    assert figures["openings"] == figures["battles"] >= 1
    if station == "firmware":
        assert figures["board_count"] == figures["openings"]


@pytest.mark.slow
@pytest.mark.micropython
def test_the_checker_counts_openings_on_the_device(tmp_path: Path) -> None:
    """The crash run's checks are not blind: one servo opening more on the device than battles in
    the records is reported, on the firmware station (its hardware log) and on the default one."""
    bench = _bench()
    data = tmp_path / "firmware"
    figures = bench.crash_run(data, station="firmware", kills=1, seed=2)
    assert figures["problems"] == []
    with open(data / "tray-board" / "hal.log", "a", encoding="utf-8") as log:
        log.write(json.dumps({"t": 0, "ev": "servo", "v": 10000}) + "\n")  # an opening nobody recorded
    problems = bench.check(data, "firmware")["problems"]
    assert any("servo opened" in p for p in problems)

    from simulation.world import SimWorld

    SimWorld(data / "sim-world.json").release()  # the default station's servo: its own count
    assert any("servo opened" in p for p in bench.check(data, "default")["problems"])
