"""The render sets' specs (bench/render_sets.py): twins, spread and foreign variants of the
renderer's own scenes, made without Blender (the renderer itself is not needed to build them)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from bench_scripts import load


def _bench() -> Any:
    return load("render_sets")


def _specs() -> list[dict[str, Any]]:
    """Three test scenes as the renderer's make_specs gives them (the fields the variants touch),
    one with a coin, and a calibration shot that is not a scene."""
    def scene(i: int, foreign: str | None) -> dict[str, Any]:
        return {"name": f"test/t{i:04d}", "set": "test", "cube_list": ["red"] * i, "courtier_list": [],
                "foreign": foreign, "sim": {"mode": "chute", "chute_end": 1, "release_frames": 9, "speed": 20.0},
                "camera": {"height_mm": 300.0 + i}, "scene_seed": 100 + i, "render_seed": 200 + i}
    return [{"name": "calibration/empty", "set": "calibration"}, scene(1, None), scene(2, "coin"), scene(3, None)]


def test_every_clean_scene_gets_its_shaken_twins_with_the_same_pieces_camera_and_capture() -> None:
    out = _bench().variants(_specs(), 4730, twins=2)
    assert [s["name"] for s in out] == ["test/t0001", "test/t0001s", "test/t0001s2", "test/t0002",
                                        "test/t0003", "test/t0003s", "test/t0003s2"]
    scene, first, second = out[0], out[1], out[2]
    assert scene == _specs()[1]  # the scene itself is the renderer's, untouched
    for twin in (first, second):
        assert twin["cube_list"] == scene["cube_list"] and twin["camera"] == scene["camera"]
        assert twin["sim"]["mode"] == "flat" and 0.0 <= twin["sim"]["min_gap"] <= 0.25
    assert len({scene["scene_seed"], first["scene_seed"], second["scene_seed"]}) == 3  # laid out anew each time
    assert len({scene["render_seed"], first["render_seed"], second["render_seed"]}) == 3


def test_a_set_is_the_same_each_time_and_another_seed_gives_another() -> None:
    bench = _bench()
    once, again = bench.variants(_specs(), 5403, spread=True), bench.variants(_specs(), 5403, spread=True)
    assert json.dumps(once) == json.dumps(again)
    assert json.dumps(once) != json.dumps(bench.variants(_specs(), 5404, spread=True))


def test_a_spread_set_is_clean_and_in_one_layer() -> None:
    out = _bench().variants(_specs(), 5403, spread=True)
    assert [s["name"] for s in out] == ["test/t0001", "test/t0002", "test/t0003"]
    assert all(s["foreign"] is None and s["sim"]["mode"] == "flat" for s in out)


def test_foreign_objects_go_to_the_scenes_in_turn_and_get_no_twins() -> None:
    out = _bench().variants(_specs(), 5402, twins=1, foreign=("coin", "finger"))
    assert [(s["name"], s["foreign"]) for s in out] == [("test/t0001", "coin"), ("test/t0002", "finger"),
                                                        ("test/t0003", "coin")]


def test_courtiers_go_to_every_scene_in_its_own_colours_and_to_its_twins() -> None:
    specs = _specs()
    specs[3]["cube_list"] = ["blue", "green", "green"]
    out = _bench().variants(specs, 5411, twins=1, courtiers=True)
    by_name = {s["name"]: s for s in out}
    for name, colours in (("test/t0001", {"red"}), ("test/t0003", {"blue"})):
        courtiers = by_name[name]["courtier_list"]
        assert 1 <= len(courtiers) <= 3 and set(courtiers) <= colours  # never green: peasants have none
        assert by_name[name + "s"]["courtier_list"] == courtiers  # the twin is the same tray shaken


def test_asking_for_courtiers_leaves_everything_else_of_a_set_as_it_was() -> None:
    bench = _bench()
    plain, rich = bench.variants(_specs(), 5411, twins=2), bench.variants(_specs(), 5411, twins=2, courtiers=True)
    for a, b in zip(plain, rich, strict=True):
        assert {k: v for k, v in a.items() if k != "courtier_list"} == {k: v for k, v in b.items() if k != "courtier_list"}


def test_a_scene_that_has_courtiers_or_only_peasants_is_given_none() -> None:
    bench = _bench()
    specs = _specs()
    specs[1]["courtier_list"] = ["red"]
    specs[3]["cube_list"] = ["green"] * 3
    out = bench.variants(specs, 5411, courtiers=True)
    assert out[0]["courtier_list"] == ["red"]  # kept as the renderer gave it
    assert set(out[1]["courtier_list"]) == {"red"}
    assert out[2]["courtier_list"] == []


@pytest.mark.parametrize("options, message", [
    ({"twins": 4}, "at most 3 twins"),
    ({"spread": True, "foreign": ("coin",)}, "not both"),
    ({"foreign": ("button",)}, "no foreign object called 'button'"),
])
def test_impossible_sets_are_refused_by_name(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _bench().variants(_specs(), 1, **options)


def test_the_held_out_seeds_are_read_from_where_the_fitting_script_declares_them() -> None:
    from calibration.fit_counter_doubt import HELD_OUT_RENDER_SEEDS
    bench = _bench()
    assert all(bench.declared_held_out(s) for s in HELD_OUT_RENDER_SEEDS)
    assert not bench.declared_held_out(5403)
