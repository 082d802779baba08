"""A long simulated game keeps every colour's cubes accounted for (bench/bench_soak.py runs 2,000)."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_scripts import load


@pytest.mark.slow
def test_five_hundred_battles_conserve_every_colour(tmp_path: Path) -> None:
    bench = load("bench_soak")
    f = bench.soak(tmp_path, 500, seed=11)
    assert f["problems"] == []
    assert f["battles"] == 500 and f["checked"] == 500 and f["releases"] == 501 == f["released_drops"]
    assert f["verify_ok"]
    assert set(f["kinds"]) >= {"attack", "attack_neutral", "revolt", "winter_revolt", "court"}
    for colour, row in f["conservation"].items():
        assert row["total"] == row["expected"], colour
