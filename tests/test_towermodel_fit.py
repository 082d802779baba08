"""`tower model fit`: maximum likelihood recovers simulated towers (issue 10, must-show 2), and the
drop log is checked line by line."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from towermodel.droplog import DropLogError, parse_drop_log
from towermodel.fit import _ShelvesDrop, fit_family, fit_models
from towermodel.models import Shelves, TwoChance, named_model
from towermodel.simulate import simulated_log
from towermodel.tower import ShelvesTower

DROPS = 300


@pytest.mark.parametrize(("truth", "seed"), [(named_model("spielbyweb"), 1), (named_model("wallenstein-online"), 2),
                                             (TwoChance(0.62, 0.35), 3), (TwoChance(0.75, 0.2), 4)])
def test_two_chance_is_recovered_within_0_05(truth: TwoChance, seed: int) -> None:
    fit = fit_family("two-chance", [simulated_log(truth, DROPS, seed)])
    assert fit.drops == DROPS and fit.trusted
    assert abs(fit.model.p_new - truth.p_new) <= 0.05  # type: ignore[union-attr]
    assert abs(fit.model.p_stuck - truth.p_stuck) <= 0.05  # type: ignore[union-attr]
    lo, hi = fit.ci95["p_new"]  # type: ignore[misc]
    assert lo < fit.model.p_new < hi  # type: ignore[union-attr]


def test_shelves_truth_lies_within_the_stated_intervals_in_9_of_10_seeds() -> None:
    truth = named_model("shelves")
    covered = 0
    for seed in range(10):
        fit = fit_family("shelves", [simulated_log(truth, DROPS, 100 + seed)])
        (pass_lo, pass_hi), (knock_lo, knock_hi) = fit.ci95["p_pass"], fit.ci95["p_knock"]  # type: ignore[misc]
        covered += pass_lo <= truth.p_pass <= pass_hi and knock_lo <= truth.p_knock <= knock_hi  # type: ignore[union-attr]
    assert covered >= 9


def test_the_families_are_compared_on_the_same_drops_and_the_true_one_wins() -> None:
    shelves_log = simulated_log(named_model("shelves"), DROPS, 7)
    fits = fit_models([shelves_log])
    assert [f.family for f in fits] == ["shelves", "two-chance"]
    assert all(f.drops == DROPS for f in fits)
    assert fits[0].aic == pytest.approx(4 - 2 * fits[0].log_likelihood)
    two_chance_log = simulated_log(named_model("wallenstein-online"), DROPS, 8)
    assert fit_models([two_chance_log])[0].family == "two-chance"


def test_too_few_drops_are_not_trusted() -> None:
    fit = fit_family("two-chance", [simulated_log(named_model("spielbyweb"), 8, 1)])
    assert not fit.trusted and any("only 8 drops" in n for n in fit.notes)
    assert fit.to_json()["trusted"] is False


def test_shelves_filter_step_matches_the_simulated_tower() -> None:
    """The forward filter's P(total out | cubes on each shelf) is what the simulated tower does."""
    p_pass, p_knock = 0.7, 0.15  # strong knocking, so that the hidden shelves matter
    upper, lower, thrown = 4, 3, 6
    step = _ShelvesDrop(thrown, upper + lower, 0)
    rng = random.Random(5)
    outs: Counter[int] = Counter()
    trials = 40_000
    for _ in range(trials):
        tower = ShelvesTower(p_pass=p_pass, p_knock=p_knock)
        tower.load_state({"shelves": [{"blue": upper}, {"blue": lower}]})
        outs[len(tower.drop(["red"] * thrown, rng))] += 1
    alpha = np.eye(1, upper + lower + 1, upper)  # certain: 4 cubes on the upper shelf
    for total in range(0, 9):
        drop = _ShelvesDrop(thrown, upper + lower, total)
        _, log_p = drop.step(alpha, np.array([p_pass]), np.array([p_knock]))
        assert np.exp(log_p[0]) == pytest.approx(outs[total] / trials, abs=0.006), total
    assert step.after == upper + lower + thrown


def test_a_drop_log_that_cannot_be_true_names_its_line() -> None:
    good = '{"dropped": {"red": 3}, "came_out": {"red": 2}}\n'
    assert [d.inside for d in parse_drop_log(good * 2)] == [{}, {"red": 1}]
    with pytest.raises(DropLogError, match=r"line 3: 5 red came out but only 4 were dropped or inside"):
        parse_drop_log(good + "\n" + '{"dropped": {"red": 3}, "came_out": {"red": 5}, "ts": 1}\n')
    with pytest.raises(DropLogError, match="line 1: not valid JSON"):
        parse_drop_log("{oops\n")
    with pytest.raises(DropLogError, match="line 1: 'came_out' is missing"):
        parse_drop_log('{"dropped": {}}\n')
    with pytest.raises(DropLogError, match=r"line 1: 'dropped.red' must be a whole number"):
        parse_drop_log('{"dropped": {"red": -1}, "came_out": {}}\n')


def test_shelves_model_with_other_than_two_shelves_is_refused() -> None:
    from towermodel.fit import shelves_log_likelihood

    with pytest.raises(ValueError, match="two shelves"):
        shelves_log_likelihood(Shelves(0.8, 0.1, n_shelves=3), [])
