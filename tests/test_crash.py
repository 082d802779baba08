"""Exactly once under SIGKILL: the controller is killed at 100 random moments during simulated battles
and restarted each time (bench/bench_crash.py, with the camera swapped for a direct tray reading)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "bench_crash.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_crash", BENCH)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_a_hundred_sigkills_never_release_twice_and_lose_no_record(tmp_path: Path) -> None:
    figures = _bench().crash_run(tmp_path, kills=100, seed=5, max_delay=0.4)
    print(f"\ncrash run: {figures}")
    assert figures["problems"] == []
    assert figures["kills"] == 100
    assert figures["verify_ok"]
    assert figures["servo_moves"] == figures["releases"] == figures["drops"]
    # the kills landed inside battles, not only between them
    inside = sum(n for phase, n in figures["killed_in"].items() if phase != "between drops")
    assert inside >= 50


def test_the_checker_notices_a_second_release(tmp_path: Path) -> None:
    """The crash run's checks are not blind: a servo that moved once too often is reported."""
    bench = _bench()
    figures = bench.crash_run(tmp_path, kills=2, seed=1, max_delay=0.2)
    assert figures["problems"] == []
    from hardware.config import load_config
    from hardware.sim.table import SimTable

    sim = SimTable.from_config(load_config(None).replace(station={"data_dir": str(tmp_path)}))
    sim.release()  # an extra actuation nobody recorded
    problems = bench.check(tmp_path)["problems"]
    assert any("servo moved" in p for p in problems)
