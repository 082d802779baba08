"""The gate bench's cases (bench/bench_gate.py) are the doubts they say they are."""

from __future__ import annotations

from bench_scripts import load

from controller.rereads import read_verified


def test_each_case_gives_the_doubt_it_names_and_the_gate_asks_the_host() -> None:
    bench = load("bench_gate")
    reads, beam = bench.CASES["six colours in doubt (4096 combinations), four reads"]()
    assert all(len(r.alternatives) == 6 and all(len(a) == 4 for a in r.alternatives.values()) for r in reads)
    for case in bench.CASES.values():
        reads, beam = case()
        tray = bench.Tray(reads, beam)
        verified = read_verified(tray, tray, "drop-000001", {}, None)
        assert tray.done == 4 and verified.doubts  # every read made, and none of these trays is sure
