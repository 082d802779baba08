"""The shelves sampler's control counts: their exact means (closed form) against the sampler and
against the stateful tower that plays the rule cube by cube. The shelves odds subtract these means,
so a wrong one would bias every shelves figure."""

from __future__ import annotations

import random

import numpy as np
import pytest

from towermodel.models import Shelves, named_model
from towermodel.shelf_sampler import (
    COUNTS,
    controls_for,
    count_means,
    draw_shelves,
    shelves_out_by_origin,
    thrown_leaving_first_pmf,
    thrown_passing_second_pmf,
)
from towermodel.tower import ShelvesTower


@pytest.mark.parametrize(("model", "thrown", "inside"), [
    (named_model("shelves"), 32, 40),
    (Shelves(p_pass=0.7, p_knock=0.3), 5, 9),
    (Shelves(p_pass=0.6, p_knock=0.2, n_shelves=3), 12, 20),
    (named_model("shelves"), 0, 10),
])
def test_count_means_are_the_samplers_means(model: Shelves, thrown: int, inside: int) -> None:
    n = 100_000
    draws = draw_shelves(model, thrown, inside, n, np.random.default_rng(21))
    means = count_means(model, thrown, inside)
    assert draws.counts.shape == (n, len(COUNTS)) == (n, len(means))
    error = draws.counts.std(axis=0) / np.sqrt(n)
    assert np.all(np.abs(draws.counts.mean(axis=0) - means) <= 4 * error + 1e-12), (draws.counts.mean(axis=0), means)


def test_one_shelf_has_no_controls() -> None:
    model = Shelves(p_pass=0.5, p_knock=0.5, n_shelves=1)
    draws = draw_shelves(model, 6, 4, 10, np.random.default_rng(1))
    assert draws.counts.shape == (10, 0) and count_means(model, 6, 4).shape == (0,)
    assert controls_for(model, 6, 4).columns(draws).shape == (10, 0)


def test_count_means_follow_the_stateful_tower() -> None:
    """The first shelf's counts as the stateful tower plays them: thrown cubes red, cubes inside
    blue, spread over the two shelves one by one with even chance (as the sampler spreads them)."""
    model = Shelves(p_pass=0.7, p_knock=0.2)
    thrown, inside, trials = 6, 8, 20_000
    rng = random.Random(5)
    counts = np.zeros((trials, 3))
    for trial in range(trials):
        upper = sum(1 for _ in range(inside) if rng.random() < 0.5)
        tower = ShelvesTower(p_pass=model.p_pass, p_knock=model.p_knock)
        tower.load_state({"shelves": [{"blue": upper}, {"blue": inside - upper}]})
        tower.drop(["red"] * thrown, rng)
        first = tower.shelf_contents()[0]
        counts[trial] = [upper, thrown - first.get("red", 0), upper - first.get("blue", 0)]
    error = counts.std(axis=0) / np.sqrt(trials)
    assert np.all(np.abs(counts.mean(axis=0) - count_means(model, thrown, inside)[:3]) <= 4 * error)


def test_the_last_shelf_left_as_a_chance_is_drawn_the_same() -> None:
    """Averaging the last shelf's old cubes needs their number to be Bin(lying, chance): the full
    draw adds exactly that binomial to the cubes out by way of the streams."""
    model = Shelves(p_pass=0.7, p_knock=0.2)
    draws = draw_shelves(model, 5, 12, 50_000, np.random.default_rng(8))
    _, inside_out = shelves_out_by_origin(model, 5, 12, 50_000, np.random.default_rng(8))
    extra = inside_out - draws.inside_out
    assert np.all((extra >= 0) & (extra <= draws.last_lying))
    assert extra.mean() == pytest.approx(float((draws.last_lying * draws.last_chance).mean()), rel=0.01)


@pytest.mark.parametrize(("model", "thrown", "inside"), [
    (named_model("shelves"), 32, 40),
    (Shelves(p_pass=0.7, p_knock=0.3), 5, 9),
    (Shelves(p_pass=0.6, p_knock=0.2, n_shelves=3), 12, 20),
])
def test_the_thrown_cubes_passing_the_second_shelf_follow_their_exact_distribution(
        model: Shelves, thrown: int, inside: int) -> None:
    n = 100_000
    draws = draw_shelves(model, thrown, inside, n, np.random.default_rng(13))
    for column, pmf in ((COUNTS.index("thrown cubes leaving the first shelf"), thrown_leaving_first_pmf(model, thrown)),
                        (COUNTS.index("thrown cubes passing the second shelf"), thrown_passing_second_pmf(model, thrown))):
        assert pmf.sum() == pytest.approx(1.0)
        drawn = np.bincount(draws.counts[:, column].astype(np.int64), minlength=thrown + 1) / n
        assert np.all(np.abs(drawn - pmf) <= 4.5 * np.sqrt(pmf * (1 - pmf) / n) + 1e-9), (column, drawn, pmf)
    controls = controls_for(model, thrown, inside)
    columns = controls.columns(draws)
    assert columns.shape == (n, len(controls.means)) and len(controls.indicated) >= 1
    error = columns.std(axis=0) / np.sqrt(n)
    assert np.all(np.abs(columns.mean(axis=0) - controls.means) <= 4.5 * error)


def test_the_first_shelf_lets_thrown_cubes_go_as_the_stateful_tower_does() -> None:
    model = Shelves(p_pass=0.6, p_knock=0.4)
    thrown, trials = 5, 20_000
    rng = random.Random(6)
    leaving = np.zeros(thrown + 1)
    for _ in range(trials):
        tower = ShelvesTower(p_pass=model.p_pass, p_knock=model.p_knock)
        tower.load_state({"shelves": [{"blue": 3}, {"blue": 2}]})
        tower.drop(["red"] * thrown, rng)
        leaving[thrown - tower.shelf_contents()[0].get("red", 0)] += 1
    pmf = thrown_leaving_first_pmf(model, thrown)
    assert np.all(np.abs(leaving / trials - pmf) <= 4.5 * np.sqrt(pmf * (1 - pmf) / trials) + 1e-9)


def test_the_thrown_cubes_resting_on_the_last_shelf_carry_their_chances() -> None:
    """The odds average over the knocks of the thrown cubes at rest on the last shelf: those drawn
    must be as many as their chances say, on average, and never more than rest there."""
    model = Shelves(p_pass=0.7, p_knock=0.2)
    draws = draw_shelves(model, 8, 6, 50_000, np.random.default_rng(17))
    knocked = draws.thrown_out - draws.thrown_passing_last
    resting = (draws.thrown_resting_chances > 0).sum(axis=0)
    assert np.all((knocked >= 0) & (knocked <= resting))
    assert knocked.mean() == pytest.approx(float(draws.thrown_resting_chances.sum(axis=0).mean()), rel=0.01)
