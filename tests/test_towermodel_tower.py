"""towermodel's towers: the stateful towers and the many-at-once sampler play the same model."""

from __future__ import annotations

import random

import numpy as np
import pytest

from towermodel.models import Shelves, TwoChance, model_from_json, model_to_json, named_model
from towermodel.tower import ShelvesTower, TwoChanceTower, sample_came_out


def test_named_models_and_json_round_trip() -> None:
    assert named_model("spielbyweb") == TwoChance(2 / 3, 1 / 3)
    for name in ("spielbyweb", "wallenstein-online", "shelves"):
        assert model_from_json(model_to_json(named_model(name))) == named_model(name)
    with pytest.raises(ValueError, match="unknown tower model 'stairs'"):
        named_model("stairs")
    with pytest.raises(ValueError, match="p_new must lie in"):
        model_from_json({"family": "two-chance", "params": {"p_new": 1.5, "p_stuck": 0.2}})
    with pytest.raises(ValueError, match="lacks the parameter 'p_knock'"):
        model_from_json({"family": "shelves", "params": {"p_pass": 0.8}})


def test_a_cube_resting_since_this_drop_is_knocked_loose_by_the_cubes_behind_it() -> None:
    # One shelf, every passing cube knocks every cube lying there loose: what stays is the run of
    # cubes that came to rest after the last cube that passed (the contract's rule, literally).
    # Were cubes that landed during the drop safe from it, the shelf would keep Bin(5, 1/2) = 2.5.
    rng = random.Random(1)
    kept = []
    for _ in range(4000):
        tower = ShelvesTower(n_shelves=1, p_pass=0.5, p_knock=1.0)
        out = tower.drop(["red"] * 5, rng)
        kept.append(tower.total_inside())
        assert len(out) + tower.total_inside() == 5
    expected = sum(j * 0.5 ** (j + 1) for j in range(5)) + 5 * 0.5**5  # 0.96875
    assert np.mean(kept) == pytest.approx(expected, abs=0.06)
    assert ShelvesTower(n_shelves=1, p_pass=0.0, p_knock=1.0).drop(["red"] * 5, rng) == []


def _mean_out_stateful(tower_factory, state, dropped, rng, n):  # type: ignore[no-untyped-def]
    total = np.zeros(len(dropped))
    colours = list(dropped)
    for _ in range(n):
        tower = tower_factory()
        tower.load_state(state)
        out = tower.drop([c for c in colours for _ in range(dropped[c])], rng)
        total += [out.count(c) for c in colours]
    return total / n


def test_sampler_matches_the_stateful_two_chance_tower() -> None:
    model = TwoChance(0.6, 0.3)
    dropped, inside = {"red": 6, "blue": 2}, {"red": 3, "blue": 5}
    stateful = _mean_out_stateful(lambda: TwoChanceTower("t", 0.6, 0.3), {"inside": inside}, dropped,
                                  random.Random(2), 4000)
    drawn = sample_came_out(model, np.array([6, 2]), np.array([3, 5]), 40000, np.random.default_rng(2)).mean(axis=0)
    assert np.allclose(stateful, drawn, atol=0.08)
    assert np.allclose(drawn, [6 * 0.6 + 3 * 0.3, 2 * 0.6 + 5 * 0.3], atol=0.03)


def test_sampler_matches_the_stateful_shelves_tower() -> None:
    # Strong knocking so that the shelves' contents and the knocks within one drop matter; the sampler
    # spreads the cubes inside evenly, so the stateful towers are loaded the same way.
    model = Shelves(p_pass=0.7, p_knock=0.2)
    rng = random.Random(3)
    n = 4000
    stateful = np.zeros((n, 2))
    for i in range(n):
        tower = ShelvesTower(p_pass=0.7, p_knock=0.2)
        up = sum(1 for _ in range(8) if rng.random() < 0.5)
        tower.load_state({"shelves": [{"blue": up}, {"blue": 8 - up}]})
        out = tower.drop(["red"] * 5 + ["blue"] * 3, rng)
        stateful[i] = [out.count("red"), out.count("blue")]
    drawn = sample_came_out(model, np.array([5, 3]), np.array([0, 8]), 40000, np.random.default_rng(3))
    assert np.allclose(stateful.mean(axis=0), drawn.mean(axis=0), atol=0.08)
    # The whole distribution of the red cubes out, not only its mean.
    for reds in range(6):
        assert np.mean(drawn[:, 0] == reds) == pytest.approx(np.mean(stateful[:, 0] == reds), abs=0.03), reds
    # Red cubes resting on a shelf are knocked loose by the red cubes behind them: more than 5 * 0.7 ** 2 come out.
    assert drawn[:, 0].mean() > 5 * 0.7 * 0.7 + 0.5
