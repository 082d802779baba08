"""`tower odds` against an independent exact computation (issue 10, must-show 1).

The reference enumerates every way each cube can fall (one Bernoulli per cube, no binomial formula,
no convolution) and asks the engine's own ``resolve`` for the outcome of every tray that can come
out; the odds must agree within 0.005 on at least ten battles of every kind under both two-chance
models, and the simulated method must agree with the exact one.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import numpy as np
import pytest

from engine.api import plan, resolve
from engine.errors import BattleInputError
from towermodel.models import TwoChance, named_model
from towermodel.odds import battle_odds

PLAYERS = ("red", "blue", "yellow", "purple", "black")
KINDS = ("attack", "revolt", "winter_revolt")
TWO_CHANCE = ("spielbyweb", "wallenstein-online")


def _small_battle(kind: str, rng: random.Random) -> dict[str, Any]:
    a, d, bystander = rng.sample(PLAYERS, 3)
    small = {c: rng.randint(0, 2) for c in (a, d, bystander, "green")}
    tray = {c: rng.randint(0, 1) for c in (a, bystander, "green")}
    if kind == "attack":
        neutral = rng.random() < 0.3
        battle: dict[str, Any] = {
            "battle": "attack", "attacker": a, "attacking_armies": rng.randint(1, 3),
            "defender": None if neutral else d, "defending_armies": 0 if neutral else rng.randint(0, 3),
            "revolt_markers": 0 if neutral else rng.choice([0, 0, 1, 2]), "buildings": [],
            "bonus_tiles": {"attack_plus_one": a if rng.random() < 0.3 else None,
                            "defence_plus_one": None},
        }
    else:
        battle = {"battle": kind, "defender": d, "defending_armies": rng.randint(0, 3),
                  "revolt_markers": rng.randint(0 if kind == "winter_revolt" else 1, 2), "buildings": []}
        if kind == "winter_revolt":
            battle["unsupplied_counties"] = 1
    battle["tray_before"] = {c: n for c, n in tray.items() if n}
    battle["tower_before"] = {c: n for c, n in small.items() if n}
    return battle


def _battles(kind: str, n: int = 10) -> list[dict[str, Any]]:
    rng = random.Random(f"odds-{kind}")
    found: list[dict[str, Any]] = []
    while len(found) < n:
        battle = _small_battle(kind, rng)
        try:
            plan(battle)
        except BattleInputError:
            continue
        found.append(battle)
    return found


def _per_cube_pmf(thrown: int, inside: int, model: TwoChance) -> list[float]:
    """P(k of this colour come out), by enumerating each cube's fate."""
    chances = [model.p_new] * thrown + [model.p_stuck] * inside
    pmf = [0.0] * (len(chances) + 1)
    for fates in itertools.product((False, True), repeat=len(chances)):
        weight = 1.0
        for out, p in zip(fates, chances, strict=True):
            weight *= p if out else 1 - p
        pmf[sum(fates)] += weight
    return pmf


def _reference(battle: dict[str, Any], models: list[TwoChance]) -> list[dict[str, float]]:
    dropped = plan(battle)["drop"]
    inside = battle["tower_before"]
    colours = sorted(set(dropped) | set(inside))
    pmfs = [{c: _per_cube_pmf(dropped.get(c, 0), inside.get(c, 0), m) for c in colours} for m in models]
    totals = [{"attacker_wins": 0.0, "tie": 0.0, "defender_wins": 0.0} for _ in models]
    ranges = [range(dropped.get(c, 0) + inside.get(c, 0) + 1) for c in colours]
    for tray in itertools.product(*ranges):
        outcome = resolve({**battle, "tray_after": dict(zip(colours, tray, strict=True))})["outcome"]
        for total, pmf in zip(totals, pmfs, strict=True):
            weight = 1.0
            for c, k in zip(colours, tray, strict=True):
                weight *= pmf[c][k]
            total[outcome] += weight
    return totals


@pytest.mark.parametrize("kind", KINDS)
def test_exact_odds_equal_a_brute_force_enumeration(kind: str) -> None:
    models = [named_model(name) for name in TWO_CHANCE]
    for battle in _battles(kind):
        references = _reference(battle, models)  # type: ignore[arg-type]
        for name, model, ref in zip(TWO_CHANCE, models, references, strict=True):
            odds = battle_odds(battle, model, name)
            assert odds["method"] == "exact"
            for key in ("attacker_wins", "tie", "defender_wins"):
                assert odds[key] == pytest.approx(ref[key], abs=0.005), (battle, name, key)
            assert odds["attacker_wins"] + odds["tie"] + odds["defender_wins"] == pytest.approx(1, abs=0.001)


@pytest.mark.parametrize("kind", KINDS)
def test_simulated_odds_agree_with_the_exact_ones(kind: str) -> None:
    for battle in _battles(kind, n=4):
        for name in TWO_CHANCE:
            exact = battle_odds(battle, named_model(name), name)
            simulated = battle_odds(battle, named_model(name), name, method="simulated")
            assert simulated["method"] == "simulated" and simulated["samples"] >= 38_416
            for key in ("attacker_wins", "tie", "defender_wins"):
                assert simulated[key] == pytest.approx(exact[key], abs=0.01), (battle, name, key)
            assert simulated["expected_in_tray"]["attacker"] == pytest.approx(
                exact["expected_in_tray"]["attacker"], abs=0.05)


def test_the_worked_example_with_an_empty_tower() -> None:
    battle = {"battle": "attack", "attacker": "blue", "attacking_armies": 4, "defender": "yellow",
              "defending_armies": 3, "revolt_markers": 0, "buildings": [], "tray_before": {}, "tower_before": {}}
    odds = battle_odds(battle, named_model("spielbyweb"), "spielbyweb")
    assert odds["expected_in_tray"] == {"attacker": pytest.approx(4 * 2 / 3, abs=0.01),
                                        "defender": pytest.approx(3 * 2 / 3, abs=0.01)}
    assert odds["attacker_wins"] > odds["defender_wins"]


def test_shelves_odds_are_simulated_and_seeded() -> None:
    battle = _battles("attack", n=1)[0]
    first = battle_odds(battle, named_model("shelves"), "shelves")
    assert first["method"] == "simulated" and first == battle_odds(battle, named_model("shelves"), "shelves")


def test_invalid_input_names_the_field() -> None:
    battle = _battles("revolt", n=1)[0]
    del battle["tower_before"]
    with pytest.raises(BattleInputError) as err:
        battle_odds(battle, named_model("spielbyweb"), "spielbyweb")
    assert err.value.field == "$.tower_before"
    with pytest.raises(BattleInputError) as err:
        battle_odds({"battle": "initial_fill", "players": ["red", "blue", "yellow"], "tray_before": {}, "tower_before": {}},
                    named_model("spielbyweb"), "spielbyweb")
    assert err.value.field == "$.battle"


def test_shelves_odds_follow_the_simulated_tower_cube_by_cube() -> None:
    """The shelves odds (NumPy, all draws at once) against the stateful tower that the simulated
    station drops cubes through one at a time, each tray resolved by the engine itself. Strong
    knocking, so that cubes knocked loose within the drop change the outcome."""
    from towermodel.models import Shelves
    from towermodel.tower import ShelvesTower

    battle = {"battle": "attack", "attacker": "blue", "attacking_armies": 3, "defender": "red",
              "defending_armies": 2, "revolt_markers": 0, "buildings": [], "tray_before": {"green": 1},
              "tower_before": {"blue": 2, "red": 3, "green": 2, "yellow": 2}}
    model = Shelves(p_pass=0.7, p_knock=0.3)
    odds = battle_odds(battle, model, "strong")
    dropped = [c for c, n in plan(battle)["drop"].items() for _ in range(n)]
    rng = random.Random(12)
    trials = 6000
    counts = {"attacker_wins": 0, "tie": 0, "defender_wins": 0}
    for _ in range(trials):
        tower = ShelvesTower(p_pass=model.p_pass, p_knock=model.p_knock)
        shelves: list[dict[str, int]] = [{}, {}]
        for colour, n in battle["tower_before"].items():  # type: ignore[union-attr]
            for _ in range(n):
                shelf = shelves[rng.random() < 0.5]
                shelf[colour] = shelf.get(colour, 0) + 1
        tower.load_state({"shelves": shelves})
        out = tower.drop(list(dropped), rng)
        tray = {c: out.count(c) for c in set(out)}
        counts[resolve({**battle, "tray_after": tray})["outcome"]] += 1
    for key, n in counts.items():
        # 6,000 trials: 3 standard errors are at most 0.019; the odds themselves are within 0.005.
        assert odds[key] == pytest.approx(n / trials, abs=0.025), (key, odds, counts)


def _resolved_given_origins(battle: dict[str, Any], t_out: int, i_out: int) -> list[float]:
    """P(outcome | ``t_out`` thrown and ``i_out`` inside cubes came out), by listing every choice of
    those cubes (each equally likely) and asking the engine's ``resolve`` for each tray."""
    thrown = [c for c, n in plan(battle)["drop"].items() for _ in range(n)]
    inside = [c for c, n in battle["tower_before"].items() for _ in range(n)]
    totals = {"attacker_wins": 0, "tie": 0, "defender_wins": 0}
    trays = 0
    for from_thrown in itertools.combinations(thrown, t_out):
        for from_inside in itertools.combinations(inside, i_out):
            out = [*from_thrown, *from_inside]
            totals[resolve({**battle, "tray_after": {c: out.count(c) for c in set(out)}})["outcome"]] += 1
            trays += 1
    return [totals[key] / trays for key in ("attacker_wins", "tie", "defender_wins")]


@pytest.mark.parametrize("kind", KINDS)
def test_outcome_given_origins_equals_listing_every_tray(kind: str) -> None:
    """The exact colour part of the shelves odds, for every pair of origin counts."""
    from towermodel.odds import _prepare, outcome_given_origins

    for battle in _battles(kind, n=3):
        sides, dropped, inside = _prepare(battle)
        given = outcome_given_origins(sides, dropped, inside)
        for t_out in range(sum(dropped.values()) + 1):
            for i_out in range(sum(inside.values()) + 1):
                assert given[:, t_out, i_out] == pytest.approx(_resolved_given_origins(battle, t_out, i_out), abs=1e-9)


LARGE_SHELVES_BATTLES = [
    {"battle": "attack", "attacker": "blue", "attacking_armies": 25, "defender": "yellow", "defending_armies": 12,
     "revolt_markers": 0, "buildings": [], "bonus_tiles": {"attack_plus_one": "blue", "defence_plus_one": "yellow"},
     "tray_before": {"red": 4, "green": 2}, "tower_before": {"blue": 10, "yellow": 10, "red": 8, "purple": 4, "green": 8}},
    # Every cube inside is the defender's: the outcome hangs on the tower alone, the hardest case.
    {"battle": "attack", "attacker": "blue", "attacking_armies": 12, "defender": "yellow", "defending_armies": 1,
     "revolt_markers": 0, "buildings": [], "tray_before": {}, "tower_before": {"yellow": 30}},
    {"battle": "attack", "attacker": "blue", "attacking_armies": 9, "defender": None, "defending_armies": 0,
     "revolt_markers": 0, "buildings": [], "tray_before": {"green": 2}, "tower_before": {"green": 6, "blue": 4, "red": 5}},
    {"battle": "attack", "attacker": "red", "attacking_armies": 6, "defender": "blue", "defending_armies": 5,
     "revolt_markers": 2, "buildings": [], "tray_before": {"green": 1}, "tower_before": {"blue": 7, "green": 5, "red": 3}},
    {"battle": "revolt", "defender": "purple", "defending_armies": 4, "revolt_markers": 3, "buildings": [],
     "tray_before": {}, "tower_before": {"green": 6, "purple": 9, "black": 5}},
]


@pytest.mark.parametrize("index", range(len(LARGE_SHELVES_BATTLES)))
def test_shelves_odds_agree_with_drawing_every_colour(index: int) -> None:
    """The shelves odds against the plain estimate of 40,000 simulated drops whose colours are drawn
    too (other seed); and the number of drops meets the 0.005 bound at 95 % by the estimate's own
    standard error (or is the 40,000 a plain proportion needs)."""
    from towermodel.odds import SEED, _prepare, outcome_given_origins, simulated_by_colour
    from towermodel.shelves_estimate import MIN_SAMPLES, SAMPLES, shelves_estimate

    battle = LARGE_SHELVES_BATTLES[index]
    model = named_model("shelves")
    odds = battle_odds(battle, model, "shelves")
    sides, dropped, inside = _prepare(battle)
    counts, a_mean, d_mean = simulated_by_colour(sides, dropped, inside, model, 40_000, seed=77)
    plain = counts / counts.sum()
    for code, key in enumerate(("attacker_wins", "tie", "defender_wins")):
        assert odds[key] == pytest.approx(plain[code], abs=0.01), (key, odds, plain)
    assert odds["expected_in_tray"]["attacker"] == pytest.approx(a_mean, abs=0.05)
    assert odds["expected_in_tray"]["defender"] == pytest.approx(d_mean, abs=0.05)
    estimate = shelves_estimate(outcome_given_origins(sides, dropped, inside), model, sum(dropped.values()),
                                sum(inside.values()), SEED)
    assert odds["samples"] == estimate.samples
    assert estimate.half_width <= 0.005 or odds["samples"] == SAMPLES
    assert MIN_SAMPLES <= odds["samples"] <= SAMPLES


def test_control_variate_means_take_out_what_the_controls_explain() -> None:
    """Values that are a straight line in a control of known mean: the estimate is the line at that
    mean, exactly, with no error left; with noise on top, the error is the noise's."""
    from towermodel.shelves_estimate import control_variate_means

    rng = np.random.default_rng(4)
    control = rng.binomial(20, 0.3, size=(5000, 1)).astype(float)
    line = 0.02 * control[:, 0] + 0.1
    estimate, error = control_variate_means(line[None, :], control, np.array([6.0]))
    assert estimate[0] == pytest.approx(0.02 * 6 + 0.1, abs=1e-12) and error[0] < 1e-9
    noise = rng.normal(0.0, 0.1, size=5000)
    estimate, error = control_variate_means((line + noise)[None, :], control, np.array([6.0]))
    assert error[0] == pytest.approx(0.1 / np.sqrt(5000), rel=0.05)
    assert estimate[0] == pytest.approx(0.22 + noise.mean(), abs=4 * error[0])


def test_poisson_binomial_lists_every_outcome() -> None:
    from towermodel.shelves_estimate import poisson_binomial

    chances = np.array([[0.1, 0.0], [0.5, 0.3], [0.9, 0.0]])
    pmf = poisson_binomial(chances)
    for column in range(2):
        listed = np.zeros(4)
        for happened in itertools.product((0, 1), repeat=3):
            listed[sum(happened)] += np.prod([c if h else 1 - c for c, h in zip(chances[:, column], happened, strict=True)])
        assert pmf[column] == pytest.approx(listed, abs=1e-15)


PRECISION_BATTLES = [
    # The bench's hardest shelves battle: every cube inside the defender's, 32 dropped.
    {"battle": "attack", "attacker": "blue", "attacking_armies": 25, "defender": "yellow", "defending_armies": 3,
     "revolt_markers": 0, "buildings": [], "tray_before": {"blue": 4}, "tower_before": {"yellow": 40}},
    # One army against a neutral county, the tower full of the attacker's own cubes: two cubes thrown,
    # the most drops asked for of 350 battles searched (about 5,000).
    {"battle": "attack", "attacker": "blue", "attacking_armies": 1, "defender": None, "defending_armies": 0,
     "revolt_markers": 0, "buildings": [], "tray_before": {}, "tower_before": {"blue": 23}},
]


def _long_run(battle: dict[str, Any], drops: int) -> np.ndarray:
    """P(outcome) from ``drops`` simulated drops (another seed) whose every fate in the tower is
    drawn (only the colours are computed): no exact averaging over the last shelf and no control
    variates, so that a mistake in either would show as a difference."""
    from towermodel.odds import _prepare, outcome_given_origins
    from towermodel.shelf_sampler import shelves_out_by_origin

    sides, dropped, inside = _prepare(battle)
    given = outcome_given_origins(sides, dropped, inside)
    rng = np.random.default_rng(99)
    total = np.zeros(3)
    for _ in range(drops // 40_000):
        thrown_out, inside_out = shelves_out_by_origin(named_model("shelves"), sum(dropped.values()),
                                                       sum(inside.values()), 40_000, rng)
        total += given[:, thrown_out, inside_out].sum(axis=1)
    return total / (drops // 40_000 * 40_000)


@pytest.mark.parametrize("index", range(len(PRECISION_BATTLES)))
def test_shelves_odds_are_within_their_bound_of_a_long_run(index: int) -> None:
    """The promise itself: each probability within 0.005 of the exact value at 95 % confidence. The
    exact value is stood in for by 400,000 drops (standard error at most sqrt(0.25 / 400,000) =
    0.0008, so its own 95 % error is below 0.0016); the odds with 20 other seeds must each state a
    half-width within 0.005, miss the long run by more than 0.005 + 0.0016 in at most 2 of the 20
    (about 1 expected, for the least precise probability), and not lean to one side: their mean
    over the 20 seeds within 3 standard errors of the long run (0.003: its 0.0008 and the mean's
    0.0026 / sqrt(20) together), a bias the half-width does not know of."""
    from towermodel.odds import _prepare, outcome_given_origins
    from towermodel.shelves_estimate import shelves_estimate

    battle = PRECISION_BATTLES[index]
    sides, dropped, inside = _prepare(battle)
    reference = _long_run(battle, 400_000)
    errors = []
    given = outcome_given_origins(sides, dropped, inside)
    for seed in range(1, 21):
        estimate = shelves_estimate(given, named_model("shelves"), sum(dropped.values()), sum(inside.values()), seed)
        assert estimate.half_width <= 0.005
        errors.append(estimate.probs - reference)
    worst = np.abs(np.array(errors)).max(axis=1)
    assert np.sum(worst > 0.0066) <= 2, (reference, worst)
    assert np.all(np.abs(np.mean(errors, axis=0)) <= 0.003), (reference, np.mean(errors, axis=0))
