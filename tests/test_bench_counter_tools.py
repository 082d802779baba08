"""The counter's tuning aids: readings compared, misses explained, held-out sets refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bench_scripts import load


def _meta(fractions: list[float], in_tray: int) -> dict[str, Any]:
    pieces = [{"type": "cube", "colour": "red", "visible_fraction": f} for f in fractions]
    pieces.append({"type": "courtier", "colour": "red", "visible_fraction": 1.0})  # not a cube: never counted
    return {"cubes": {"red": in_tray}, "pieces": pieces}


def test_readings_that_differ_or_are_missing_on_either_side_are_named() -> None:
    readings = load("counter_readings")
    before = {"tray_dev/t0001": {"cubes": 3}, "tray_dev/t0002": {"cubes": 5}, "tray_dev/t0003": {"cubes": 1}}
    now = {"tray_dev/t0001": {"cubes": 3}, "tray_dev/t0002": {"cubes": 6}, "tray_dev/t0004": {"cubes": 2}}
    assert readings.differences(now, before) == ["tray_dev/t0002", "tray_dev/t0003", "tray_dev/t0004"]
    assert readings.differences(before, dict(before)) == []


def test_a_held_out_render_set_is_refused_before_anything_is_read(tmp_path: Path) -> None:
    readings = load("counter_readings")
    held = tmp_path / "r4737"
    (held / "test").mkdir(parents=True)
    (held / "manifest.json").write_text(json.dumps({"seed": 4737}))
    with pytest.raises(SystemExit, match="held out"):
        readings.main([str(tmp_path / "out.json"), "--data", str(held)])
    assert not (tmp_path / "out.json").exists()


def test_a_colour_is_wrong_outside_the_cubes_showing_a_quarter_and_the_cubes_in_the_tray() -> None:
    misses = load("counter_misses")
    meta = _meta([0.9, 0.27, 0.1], in_tray=3)  # one cube shows a quarter and a little, one is hidden
    assert misses.wrong_colours(meta, {"red": 1}) == {"red": (1, 2, 3)}
    assert misses.wrong_colours(meta, {"red": 2}) == {}
    assert misses.wrong_colours(meta, {"red": 3}) == {}  # the hidden cube may be counted
    assert misses.wrong_colours(meta, {"red": 4}) == {"red": (4, 2, 3)}
    # with the band at 0.30, the cube showing 27 % may be counted or not
    assert misses.wrong_colours(meta, {"red": 1}, 0.30) == {}
