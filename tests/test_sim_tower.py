"""The simulated tower models: seeded, keeping cubes per colour, and behaving as each model says."""

from __future__ import annotations

import random

import pytest

from simulation.tower import TOWER_MODELS, ShelvesTower, make_tower_model

COLOURS = ("red", "blue", "green")


@pytest.mark.parametrize("name", TOWER_MODELS)
def test_cubes_are_conserved_per_colour(name: str) -> None:
    tower = make_tower_model(name)
    rng = random.Random(3)
    thrown: dict[str, int] = {c: 0 for c in COLOURS}
    out: dict[str, int] = {c: 0 for c in COLOURS}
    for _ in range(200):
        cubes = [rng.choice(COLOURS) for _ in range(rng.randint(1, 12))]
        for c in cubes:
            thrown[c] += 1
        for c in tower.drop(cubes, rng):
            out[c] += 1
    inside = tower.contents()
    for c in COLOURS:
        assert thrown[c] == out[c] + inside.get(c, 0)


@pytest.mark.parametrize("name", TOWER_MODELS)
def test_same_seed_same_outcome_and_state_round_trip(name: str) -> None:
    a, b = make_tower_model(name), make_tower_model(name)
    ra, rb = random.Random(9), random.Random(9)
    for _ in range(20):
        assert a.drop(["red"] * 5 + ["blue"] * 3, ra) == b.drop(["red"] * 5 + ["blue"] * 3, rb)
    c = make_tower_model(name)
    c.load_state(a.state())
    assert c.contents() == a.contents()
    assert c.drop(["green"] * 4, random.Random(1)) == a.drop(["green"] * 4, random.Random(1))


@pytest.mark.parametrize(("name", "p_new"), [("spielbyweb", 2 / 3), ("wallenstein-online", 0.5)])
def test_new_cubes_come_out_at_the_model_rate(name: str, p_new: float) -> None:
    rng = random.Random(5)
    n, out = 20000, 0
    for _ in range(n // 10):
        tower = make_tower_model(name)  # empty tower: only new cubes
        out += len(tower.drop(["red"] * 10, rng))
    assert abs(out / n - p_new) < 0.015


@pytest.mark.parametrize(("name", "p_stuck"), [("spielbyweb", 1 / 3), ("wallenstein-online", 0.6)])
def test_stuck_cubes_come_out_at_the_model_rate(name: str, p_stuck: float) -> None:
    rng = random.Random(6)
    freed = total = 0
    for _ in range(2000):
        tower = make_tower_model(name)
        tower.load_state({"inside": {"blue": 10}})
        freed += tower.drop([], rng).count("blue")
        total += 10
    assert abs(freed / total - p_stuck) < 0.015


def test_shelves_pass_rate_and_knock_loose() -> None:
    rng = random.Random(7)
    # An empty two-shelf tower lets a cube through with 0.85 * 0.85.
    through = sum(len(ShelvesTower().drop(["red"], rng)) for _ in range(20000))
    assert abs(through / 20000 - 0.85**2) < 0.012
    # A cube passing a shelf knocks each stored cube loose with 1/40 (then that cube falls to the next shelf).
    tower = ShelvesTower(n_shelves=1, p_pass=1.0)
    tower.load_state({"shelves": [{"blue": 40000}]})
    out = tower.drop(["red"], rng)
    assert out.count("red") == 1
    assert abs(out.count("blue") / 40000 - 1 / 40) < 0.003
    assert tower.contents()["blue"] == 40000 - out.count("blue")


def test_unknown_model_is_named() -> None:
    with pytest.raises(ValueError, match="unknown tower model 'stairs'"):
        make_tower_model("stairs")
