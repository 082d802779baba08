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


def _held_out_set(root: Path, seed: int) -> Path:
    """An empty render set whose manifest names a held-out seed."""
    held = root / f"r{seed}"
    (held / "test").mkdir(parents=True)
    (held / "manifest.json").write_text(json.dumps({"seed": seed}))
    return held


def test_a_held_out_render_set_is_refused_before_anything_is_read(tmp_path: Path) -> None:
    readings = load("counter_readings")
    held = _held_out_set(tmp_path, 4737)
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


def test_coin_margins_name_the_clean_circles_nearest_each_bar_and_the_coins_that_clear_it_by_least() -> None:
    margins = load("coin_margins")
    circle = margins.Circle
    circles = [circle("a/t0001", "clean", "plain disc's rim arc", 50, 19.6),
               circle("a/t0002", "clean", "plain disc's rim arc", 95, 19.0),  # over its bar: a clean tray refused
               circle("a/t0003", "coin", "plain disc's rim arc", 102, 19.2),
               circle("a/t0004", "coin", "plain disc's rim arc", 60, 19.2),  # not over the bar: not named
               circle("a/t0005", "clean", "any circle's rim arc", 137, 18.0),
               circle("a/t0006", "finger", "any circle's rim arc", 200, 18.0),  # neither clean nor a coin
               # a coin's rim turns less from the radius than the bar allows, straight edges more
               circle("a/t0005", "clean", "rim's turn from the radius", 13.3, 18.0),
               circle("a/t0007", "coin", "rim's turn from the radius", 8.5, 19.0),
               circle("a/t0008", "coin", "rim's turn from the radius", 5.5, 19.0),
               circle("a/t0009", "coin", "rim's turn from the radius", 9.9, 19.0)]  # not under the bar: not named
    bars = {"DISC_PLAIN_RIM_DEG": 90, "DISC_OUTLINE_RIM_DEG": 150, "DISC_RIM_MAX_TURN_DEG": 9.4}
    lines = margins.margins(circles, bars, top=5)
    plain = lines[0:3]
    assert plain[0].startswith("plain disc's rim arc (bar DISC_PLAIN_RIM_DEG = 90): 2 circles on clean trays, 1 at or over")
    assert plain[1] == "  clean, nearest: a/t0002 95, a/t0001 50"
    assert plain[2] == "  coins, least over: a/t0003 102"
    assert lines[3].endswith("1 circles on clean trays, 0 at or over the bar; 0 coins' circles over it")
    assert lines[4] == "  clean, nearest: a/t0005 137" and lines[5] == "  coins, least over: -"
    assert lines[6].startswith("rim's turn from the radius (bar DISC_RIM_MAX_TURN_DEG = 9.4): 1 circles on clean trays, "
                               "0 at or under the bar; 2 coins' circles under it")
    assert lines[7] == "  clean, nearest: a/t0005 13.3"
    assert lines[8] == "  coins, least under: a/t0007 8.5, a/t0008 5.5"
    assert lines[10] == "  clean, nearest: -"  # no tilted rims given


def test_coin_margins_watch_the_guard_only_while_asked() -> None:
    margins = load("coin_margins")
    from vision.counter import guards

    kept, seen = guards.flat_discs, []
    with margins.watching(lambda prep, frame: seen.append((prep, frame))):
        assert guards.flat_discs is not kept
    assert guards.flat_discs is kept and seen == []


def test_coin_margins_refuse_a_held_out_render_set(tmp_path: Path) -> None:
    margins = load("coin_margins")
    with pytest.raises(SystemExit, match="held out"):
        margins.main(["--data", str(_held_out_set(tmp_path, 4751))])
