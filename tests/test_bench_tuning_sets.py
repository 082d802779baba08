"""The tuning render sets written down once (bench/tuning_sets.py): none of them held out, each
one's options as bench/render_sets.py takes them, and the trainers' --extra flags for those at hand."""

from __future__ import annotations

from pathlib import Path

from bench_scripts import load

from calibration.fit_counter_doubt import HELD_OUT_RENDER_SEEDS


def test_no_tuning_set_is_rendered_with_a_held_out_seed() -> None:
    sets = load("tuning_sets").TUNING_SETS
    seeds = [s.seed for s in sets]
    assert len(seeds) == len(set(seeds))
    assert not set(seeds) & set(HELD_OUT_RENDER_SEEDS)


def test_a_sets_options_are_the_render_scripts() -> None:
    bench = load("tuning_sets")
    piles = bench.TuningSet(5405, 20, (25, 45), twins=2)
    assert piles.options() == ["--seed", "5405", "--n-test", "20", "--cubes", "25,45", "--twins", "2"]
    coins = bench.TuningSet(5408, 16, foreign="coin")
    command = bench.render_command(Path("/renders"), coins, Path("/venv/python"))
    assert command[0] == "/venv/python" and command[1].endswith("bench/render_sets.py")
    assert command[2:] == ["--seed", "5408", "--n-test", "16", "--foreign", "coin", "--data", "/renders/r5408"]
    assert bench.TuningSet(5411, 40, (20, 45), courtiers=True).options()[-1] == "--courtiers"


def test_extras_name_only_the_sets_with_images_at_hand(tmp_path: Path) -> None:
    bench = load("tuning_sets")
    (tmp_path / "r9292" / "test").mkdir(parents=True)
    (tmp_path / "r9292" / "test" / "t0001.jpg").write_bytes(b"")
    (tmp_path / "r31" / "test").mkdir(parents=True)  # begun, nothing rendered yet
    assert bench.extras(tmp_path) == ["--extra", str(tmp_path / "r9292")]


def test_an_unknown_seed_is_refused_by_name(capsys) -> None:
    bench = load("tuning_sets")
    assert bench.main(["--render", "4742"]) == 2
    assert "not a tuning set here: 4742" in capsys.readouterr().err
