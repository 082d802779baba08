"""The held-out bench's summary of the station's gate (bench/heldout_counter.py)."""

from __future__ import annotations

from typing import Any

from bench_scripts import load


def _bench() -> Any:
    return load("heldout_counter")


def _row(bench: Any, name: str, station: str, *, foreign: bool = False, right: bool = True) -> Any:
    return bench.Scored(name, foreign, station != "refuses", right, right, station == "acts", 0, 0, 10,
                        float("nan"), (1280, 960), 1.0, 1.0, {}, {}, {}, None, station=station,
                        station_right=right)


def test_the_gate_is_also_given_on_the_clean_trays_where_a_set_has_foreign_objects() -> None:
    bench = _bench()
    rows = [_row(bench, "t1", "acts"), _row(bench, "t2", "acts"), _row(bench, "t3", "asks"),
            _row(bench, "t4", "refuses", foreign=True)]
    lines = bench.station_summary(rows)
    assert "acts without asking 2/4 (50.0 %), wrong 0" in lines[0]
    assert lines[1] == "  on the clean trays: acts without asking 2/3 (66.7 %)"
    clean_only = bench.station_summary(rows[:3])
    assert not any("clean trays" in line for line in clean_only)  # the first line says it already
