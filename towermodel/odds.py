"""The odds of a battle before its drop (``tower odds``, ``spec/tower-model.md``).

What a battle drops comes from the engine's plan (armies, bonus cubes, peasants, and every cube
lying in the tray); what is inside the tower comes from ``tower_before``. Only three colours decide
the outcome: the attacker's, the defender's and the peasants' (green). Cubes of other colours do
not fight, but under the shelves model they still knock stored cubes loose, so they are kept as one
lumped group (all cubes behave alike, so lumping them is exact).

* Two-chance models: the cubes of a colour that come out are a sum of two independent binomials
  (thrown cubes with ``p_new``, cubes inside with ``p_stuck``), independent across colours. Their
  distributions are convolved exactly and the outcome rule is applied to every combination:
  ``method: exact``.
* Shelves: how the cubes inside lie on the shelves is hidden, so drops of the tower are simulated
  from a fixed seed (``method: simulated``), but only the tower's part: the rule never looks at a
  colour, so a simulated drop is a pair (thrown cubes out, inside cubes out), drawn by
  :func:`towermodel.shelf_sampler.draw_shelves`. Which colours those are is a draw without
  replacement from each origin, and its part is computed exactly: :func:`outcome_given_origins`
  gives P(outcome | pair) for every pair. Two more parts are taken out of the variance, honestly:

  - the old cubes lying on the last shelf come out independently with one chance per drop (set
    by how many cubes pass that shelf), so their number is binomial and is averaged exactly
    (:func:`with_last_shelf_averaged`); each drop gives P(outcome | the rest of the drop), whose
    mean over the drops is the same expectation (Rao-Blackwellisation);
  - a few counts of each drop have exact means in closed form (the old cubes on the first shelf,
    the thrown and the old cubes leaving it, and of those the ones passing the second shelf), and
    the number of thrown cubes passing the second shelf has an exact distribution (a small Markov
    chain), so they and an indicator per likely value of that number serve as control variates
    (:func:`towermodel.shelf_sampler.controls_for`): the odds are the intercept of the
    least-squares fit of the per-drop values on the controls minus their means
    (:func:`control_variate_means`), with its standard error.

  The number of drops follows from that standard error: at least :data:`MIN_SAMPLES`, and as many
  as bring each probability within 0.005 of the exact value at 95 % confidence (1.96 standard
  errors), at most :data:`SAMPLES` (which a plain proportion needs, 1.96 * sqrt(0.25 / 40,000) =
  0.0049; the values lie in [0, 1] and the fit only takes variance out, so the ceiling always meets
  the bound).

The outcome rule mirrors the engine's resolver (``engine/resolver.py``); tests check every odds
figure against a brute-force enumeration that calls the engine's own ``resolve`` on every tray.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.special import comb
from scipy.stats import binom

from engine.api import plan
from engine.colours import PEASANTS
from engine.errors import BattleInputError, json_path
from engine.model import Attack, Revolt
from engine.parse import battle_from_json
from towermodel.models import Shelves, TowerModelParams, TwoChance
from towermodel.shelf_sampler import ShelvesDraws, controls_for, draw_shelves
from towermodel.tower import sample_came_out

SAMPLES = 40_000
"""Simulated drops per battle at most: a plain proportion is within 0.005 of the exact one at 95 %
confidence with 40,000 (two-chance models simulated use exactly this many)."""

MIN_SAMPLES = 1_000
"""Simulated shelves drops at least, so that the variance the number of drops is chosen from is
itself estimated well."""

Z95, HALF_WIDTH = 1.96, 0.005
"""Each simulated probability is within ``HALF_WIDTH`` of the exact one at 95 % confidence."""

SEED = 20_260_101
"""The simulated odds are seeded, so that the same battle always gets the same figures."""

ATTACKER_WINS, TIE, DEFENDER_WINS = 0, 1, 2


@dataclass(frozen=True)
class Sides:
    """Who fights whom: ``attacker`` ``None`` means the peasants attack (a revolt); ``defender``
    ``None`` a neutral county that the peasants defend; ``allies`` that the peasants in the tray
    fight for the defender (an attack on a county without revolt markers)."""

    attacker: str | None
    defender: str | None
    allies: bool


def battle_sides(battle: Attack | Revolt) -> Sides:
    if isinstance(battle, Attack):
        return Sides(battle.attacker, battle.defender, battle.revolt_markers == 0 or battle.defender is None)
    return Sides(None, battle.defender, False)


def outcome_codes(sides: Sides, attacker: NDArray[Any], own: NDArray[Any], peasants: NDArray[Any]
                  ) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """The outcome code, attacker strength and defender strength for trays holding ``attacker``
    cubes of the attacker's colour, ``own`` of the defender's and ``peasants`` green (broadcast)."""
    if sides.attacker is None:  # a revolt: the peasants attack the county's owner
        a, d = peasants + 0 * own, own + 0 * peasants
        code = np.where(a > d, ATTACKER_WINS, np.where(d > a, DEFENDER_WINS, TIE))
        return code, a, d
    d = own + (peasants if sides.allies else 0 * peasants)
    a = attacker + 0 * d
    d = d + 0 * attacker
    defender_really_wins = (d > a) & ((own > 0) if sides.defender is not None else True)
    code = np.where(a > d, ATTACKER_WINS, np.where(defender_really_wins, DEFENDER_WINS, TIE))
    return code, a, d


def came_out_pmf(dropped: int, inside: int, model: TwoChance) -> NDArray[Any]:
    """P(k cubes of one colour come out), k = 0..dropped+inside, under a two-chance model."""
    thrown = binom.pmf(np.arange(dropped + 1), dropped, model.p_new)
    stuck = binom.pmf(np.arange(inside + 1), inside, model.p_stuck)
    return np.convolve(thrown, stuck)


def _prepare(data: dict[str, Any]) -> tuple[Sides, dict[str, int], dict[str, int]]:
    battle = battle_from_json(data)
    if not isinstance(battle, Attack | Revolt):
        raise BattleInputError("the odds are for an attack, a revolt or a winter revolt, not the initial fill",
                               json_path("battle"))
    if battle.context.tower_before is None:
        raise BattleInputError("'tower_before' (the cubes inside the tower) is needed for the odds",
                               json_path("tower_before"))
    dropped = {c: n for c, n in plan(data)["drop"].items() if n > 0}
    inside = {c: n for c, n in battle.context.tower_before.items() if n > 0}
    return battle_sides(battle), dropped, inside


def _result(sides: Sides, probs: NDArray[Any], a_mean: float, d_mean: float) -> dict[str, Any]:
    total = float(probs.sum())
    p = [float(x) / total for x in probs]
    return {
        "attacker_wins": round(p[ATTACKER_WINS], 4),
        "tie": round(p[TIE], 4),
        "defender_wins": round(p[DEFENDER_WINS], 4),
        "expected_in_tray": {"attacker": round(a_mean, 2), "defender": round(d_mean, 2)},
        "attacker": sides.attacker if sides.attacker is not None else PEASANTS,
        "defender": sides.defender if sides.defender is not None else PEASANTS,
    }


def _exact(sides: Sides, dropped: dict[str, int], inside: dict[str, int], model: TwoChance
           ) -> tuple[NDArray[Any], float, float]:
    def pmf(colour: str | None) -> NDArray[Any]:
        if colour is None:
            return np.ones(1)
        return came_out_pmf(dropped.get(colour, 0), inside.get(colour, 0), model)

    involved_peasants = sides.attacker is None or sides.allies or sides.defender is None
    pa = pmf(sides.attacker)
    po = pmf(sides.defender)
    pg = pmf(PEASANTS) if involved_peasants else np.ones(1)
    weight = pa[:, None, None] * po[None, :, None] * pg[None, None, :]
    a, o, g = np.ix_(np.arange(len(pa)), np.arange(len(po)), np.arange(len(pg)))
    code, a_str, d_str = outcome_codes(sides, a, o, g)
    probs = np.bincount(code.ravel(), weights=weight.ravel(), minlength=3)
    return probs, float((weight * a_str).sum()), float((weight * d_str).sum())


def simulated_by_colour(sides: Sides, dropped: dict[str, int], inside: dict[str, int], model: TowerModelParams,
                        samples: int, seed: int) -> tuple[NDArray[Any], float, float]:
    """Outcome counts and mean strengths over ``samples`` simulated drops, every cube's colour drawn
    (:func:`towermodel.tower.sample_came_out`): the plain estimate, used for simulated two-chance
    odds and to check the shelves' Rao-Blackwellised one."""
    involved_peasants = sides.attacker is None or sides.allies or sides.defender is None
    fighters = [c for c in (sides.attacker, sides.defender, PEASANTS if involved_peasants else None) if c is not None]
    fighters = list(dict.fromkeys(fighters))
    groups = {c: (dropped.get(c, 0), inside.get(c, 0)) for c in fighters}
    groups["others"] = (sum(n for c, n in dropped.items() if c not in fighters),
                        sum(n for c, n in inside.items() if c not in fighters))
    # A group with no cube at all cannot come out: leave it out of the simulation (it is faster).
    drawn = [g for g, (d, i) in groups.items() if d + i > 0]
    zeros = np.zeros(samples, dtype=np.int64)
    column: dict[str, NDArray[Any]] = dict.fromkeys(groups, zeros)
    if drawn:
        out = sample_came_out(model, np.array([groups[g][0] for g in drawn]), np.array([groups[g][1] for g in drawn]),
                              samples, np.random.default_rng(seed))
        column.update({g: out[:, k] for k, g in enumerate(drawn)})
    att = column[sides.attacker] if sides.attacker is not None else zeros
    own = column[sides.defender] if sides.defender is not None else zeros
    peasants = column[PEASANTS] if involved_peasants else zeros
    code, a_str, d_str = outcome_codes(sides, att, own, peasants)
    return np.bincount(code, minlength=3).astype(float), float(a_str.mean()), float(d_str.mean())


def _difference_pmf(plus: int, minus_own: int, minus_ally: int, neutral: int) -> NDArray[Any]:
    """For cubes of four kinds (counting for the attacker, the defender's own colour, counting for
    the defender but not his own colour, counting for nobody), taken ``k`` at a time without
    replacement: P(attacker's minus defender's count = ``diff``, own colour drawn or not), as an
    array ``[k, diff + total, own > 0]`` for every ``k`` (a multivariate hypergeometric, summed)."""
    total = plus + minus_own + minus_ally + neutral
    p, m, q, z = np.ix_(np.arange(plus + 1), np.arange(minus_own + 1), np.arange(minus_ally + 1), np.arange(neutral + 1))
    ways = comb(plus, p) * comb(minus_own, m) * comb(minus_ally, q) * comb(neutral, z)
    k, diff, own = np.broadcast_arrays(p + m + q + z, p - m - q + total, (m > 0).astype(np.int64))
    cell = (k * (2 * total + 1) + diff) * 2 + own
    pmf = np.bincount(cell.ravel(), weights=ways.ravel(), minlength=(total + 1) * (2 * total + 1) * 2)
    pmf = pmf.reshape(total + 1, 2 * total + 1, 2)
    normalised: NDArray[Any] = pmf / comb(total, np.arange(total + 1))[:, None, None]
    return normalised


def outcome_given_origins(sides: Sides, dropped: dict[str, int], inside: dict[str, int]) -> NDArray[Any]:
    """P(outcome | ``t`` thrown cubes and ``i`` cubes from inside came out): an array ``[code, t, i]``.

    Given how many of each origin came out, the colours are two independent draws without
    replacement (from the thrown cubes, from those inside). The outcome depends only on the
    attacker's strength minus the defender's, and on whether any cube of the defender's own colour
    is in the tray (``outcome_codes``: without one, a defender does not win, it is a tie), so the
    pmf of that difference per origin and per ``k`` (split by own colour drawn or not) and one
    matrix product per outcome give every pair at once."""
    if sides.attacker is None:  # a revolt: the peasants against the owner, no 'own > 0' condition
        plus, own, ally = PEASANTS, sides.defender, None
    else:
        plus, own, ally = sides.attacker, sides.defender, PEASANTS if sides.allies else None
    own_condition = sides.attacker is not None and sides.defender is not None

    def kinds(counts: dict[str, int]) -> NDArray[Any]:
        p, m, q = (counts.get(c, 0) if c is not None else 0 for c in (plus, own, ally))
        return _difference_pmf(p, m, q, sum(counts.values()) - p - m - q)

    thrown, stuck = kinds(dropped), kinds(inside)
    t_total, i_total = thrown.shape[1] // 2, stuck.shape[1] // 2
    diff = (np.arange(2 * t_total + 1) - t_total)[:, None] + (np.arange(2 * i_total + 1) - i_total)[None, :]
    both_t, both_i = thrown.sum(axis=2), stuck.sum(axis=2)
    attacker_wins = both_t @ (diff > 0).astype(float) @ both_i.T
    defender_wins = both_t @ (diff < 0).astype(float) @ both_i.T
    if own_condition:  # the defender's colour in neither draw: no defender win
        defender_wins -= thrown[:, :, 0] @ (diff < 0).astype(float) @ stuck[:, :, 0].T
    tie = np.clip(1.0 - attacker_wins - defender_wins, 0.0, 1.0)
    return np.stack([attacker_wins, tie, defender_wins])


def _strength_shares(sides: Sides, counts: dict[str, int]) -> tuple[float, float]:
    """The share of ``counts`` that counts for the attacker and for the defender."""
    total = sum(counts.values())
    if total == 0:
        return 0.0, 0.0
    if sides.attacker is None:
        a, d = counts.get(PEASANTS, 0), counts.get(sides.defender or "", 0)
    else:
        a = counts.get(sides.attacker, 0)
        d = (counts.get(sides.defender, 0) if sides.defender is not None else 0) + (
            counts.get(PEASANTS, 0) if sides.allies else 0)
    return a / total, d / total


@dataclass(frozen=True)
class ShelvesEstimate:
    """The simulated shelves odds: P(outcome) in outcome-code order, the expected thrown and inside
    cubes out, the 95 % half-width of the least precise probability, and the drops simulated."""

    probs: NDArray[Any]
    thrown_out: float
    inside_out: float
    half_width: float
    samples: int


def poisson_binomial(chances: NDArray[Any]) -> NDArray[Any]:
    """P(``x`` of independent events happen), ``x`` = 0..r, for each column of ``chances`` (``(r, n)``,
    one event per row): an ``(n, r + 1)`` array, built one event at a time."""
    rows, n = chances.shape
    pmf = np.zeros((n, rows + 1))
    pmf[:, 0] = 1.0
    for row, chance in enumerate(chances):
        happened = pmf[:, : row + 1] * chance[:, None]
        pmf[:, : row + 1] *= 1.0 - chance[:, None]
        pmf[:, 1 : row + 2] += happened
    return pmf


def _averaged_over_lying(given: NDArray[Any], thrown: NDArray[Any], inside: NDArray[Any], lying: NDArray[Any],
                         passing: NDArray[Any], p_knock: float) -> tuple[NDArray[Any], NDArray[Any]]:
    """P(attacker wins) and P(defender wins) when ``thrown`` and ``inside`` cubes came out and each of
    ``lying`` more inside cubes comes out with ``1 - (1 - p_knock) ** passing`` (per entry). Entries
    alike share one value, so it is computed once per distinct entry, each binomial once per
    distinct (lying, passing) pair; the values it weighs are one window of ``given`` per entry."""
    width = given.shape[2]
    span = int(passing.max(initial=0)) + 1
    kinds, entry_kind = np.unique((thrown * width + inside) * (width * span) + lying * span + passing,
                                  return_inverse=True)
    origins, kind_pair = kinds // (width * span), kinds % (width * span)
    pairs, pair_index = np.unique(kind_pair, return_inverse=True)
    most = int(lying.max(initial=0))
    chances = 1.0 - (1.0 - p_knock) ** (pairs % span)
    weights = binom.pmf(np.arange(most + 1)[None, :], (pairs // span)[:, None], chances[:, None])[pair_index.ravel()]
    # Windows of `most + 1` inside counts from each entry's own; past the cubes inside the weight is 0.
    padded = np.zeros((given.shape[1], width + most, 2))
    padded[:, :width, 0], padded[:, :width, 1] = given[ATTACKER_WINS], given[DEFENDER_WINS]
    windows = np.lib.stride_tricks.sliding_window_view(padded, most + 1, axis=1)  # [t, i, code, b]
    both = np.einsum("kcb,kb->ck", windows[origins // width, origins % width], weights)
    return both[0][entry_kind.ravel()], both[1][entry_kind.ravel()]


def with_last_shelf_averaged(given: NDArray[Any], draws: ShelvesDraws) -> NDArray[Any]:
    """Per drop, P(outcome | the drop) with the last shelf's knocks averaged exactly (a ``(3, n)``
    array; the tie is what the other two leave).

    Given which cubes reached the last shelf and which of them passed it, every cube lying there
    comes out independently with a chance of its own (``draws``): the thrown cubes that came to
    rest there add a Poisson-binomial number of thrown cubes out, the old cubes lying there before
    the drop a binomial number of inside cubes out. P(outcome) is ``given`` weighted by both; the
    inside cubes knocked out from the streams above stay as drawn."""
    knocked = poisson_binomial(draws.thrown_resting_chances)
    drop, extra = np.nonzero(knocked > 0.0)
    weight = knocked[drop, extra]
    attacker, defender = _averaged_over_lying(given, draws.thrown_passing_last[drop] + extra, draws.inside_out[drop],
                                              draws.last_lying[drop], draws.last_passing[drop], draws.p_knock)
    n = len(draws.thrown_out)
    averaged = np.empty((3, n))
    averaged[ATTACKER_WINS] = np.bincount(drop, weights=weight * attacker, minlength=n)
    averaged[DEFENDER_WINS] = np.bincount(drop, weights=weight * defender, minlength=n)
    averaged[TIE] = 1.0 - averaged[ATTACKER_WINS] - averaged[DEFENDER_WINS]
    return averaged


def control_variate_means(values: NDArray[Any], controls: NDArray[Any], means: NDArray[Any]
                          ) -> tuple[NDArray[Any], NDArray[Any]]:
    """Each row's mean over the drops (columns) of ``values``, and its standard error, taking out the
    part of its variance that the ``controls`` (one row per drop) explain linearly: their exact
    ``means`` are known, so the intercept of the least-squares fit of each row on ``controls -
    means`` estimates the row's expectation (the control-variate estimator), with the usual
    standard error of an intercept (residual variance, the design's inverse Gram matrix)."""
    n = values.shape[1]
    design = np.column_stack([np.ones(n), controls - means])
    gram = design.T @ design
    inverse_gram = np.linalg.pinv(gram)
    moments = design.T @ values.T
    coef = inverse_gram @ moments
    # The residual sum of squares without the residuals: y'y - coef' X'y (least squares).
    squares = np.einsum("rn,rn->r", values, values) - np.einsum("cr,cr->r", coef, moments)
    dof = max(n - int(np.linalg.matrix_rank(gram)), 1)
    variance = np.maximum(squares, 0.0) / dof
    return coef[0], np.sqrt(variance * inverse_gram[0, 0])


def shelves_estimate(sides: Sides, dropped: dict[str, int], inside: dict[str, int], model: Shelves, seed: int
                     ) -> ShelvesEstimate:
    """The shelves odds from simulated drops (module docstring): :data:`MIN_SAMPLES` drops first; while
    the estimate's standard error asks for more, to bring each probability within
    :data:`HALF_WIDTH` at 95 % confidence, more are drawn from the same generator (5 % more than the
    error asks for, so that one more round is almost always enough), up to :data:`SAMPLES`."""
    given = outcome_given_origins(sides, dropped, inside)
    thrown, stuck = sum(dropped.values()), sum(inside.values())
    controls = controls_for(model, thrown, stuck)
    rng = np.random.default_rng(seed)
    rows: list[NDArray[Any]] = []
    columns: list[NDArray[Any]] = []
    more = MIN_SAMPLES
    while True:
        draws = draw_shelves(model, thrown, stuck, more, rng)
        expected_thrown = draws.thrown_passing_last + draws.thrown_resting_chances.sum(axis=0)
        expected_inside = draws.inside_out + draws.last_lying * draws.last_chance
        rows.append(np.vstack([with_last_shelf_averaged(given, draws), expected_thrown, expected_inside]))
        columns.append(controls.columns(draws))
        values = np.concatenate(rows, axis=1)
        estimate, error = control_variate_means(values, np.concatenate(columns), controls.means)
        samples = values.shape[1]
        half_width = float(Z95 * error[:3].max())
        need = int(np.ceil(samples * (half_width / HALF_WIDTH) ** 2))
        if need <= samples or samples >= SAMPLES:
            probs = np.clip(estimate[:3], 0.0, None)
            return ShelvesEstimate(probs / probs.sum(), float(estimate[3]), float(estimate[4]), half_width, samples)
        more = min(SAMPLES, int(need * 1.05) + 1) - samples


def _shelves_odds(sides: Sides, dropped: dict[str, int], inside: dict[str, int], model: Shelves, seed: int
                  ) -> tuple[NDArray[Any], float, float, int]:
    """The shelves odds (:func:`shelves_estimate`) and the number of drops simulated. The expected
    strengths are conditioned the same way: given the origin counts, each side's expected cubes are
    its share of each origin times the cubes out of it."""
    estimate = shelves_estimate(sides, dropped, inside, model, seed)
    a_t, d_t = _strength_shares(sides, dropped)
    a_i, d_i = _strength_shares(sides, inside)
    t, i = estimate.thrown_out, estimate.inside_out
    return estimate.probs, a_t * t + a_i * i, d_t * t + d_i * i, estimate.samples


def battle_odds(data: dict[str, Any], model: TowerModelParams, model_name: str, *,
                method: str = "auto", samples: int = SAMPLES, seed: int = SEED) -> dict[str, Any]:
    """The ``tower odds`` object for the battle JSON ``data`` under ``model``.

    ``method`` ``auto`` computes exactly where the model allows it (two-chance) and simulates
    otherwise; ``simulated`` forces the simulation (to check one against the other). Shelves odds
    choose their number of drops themselves (:func:`_shelves_odds`); ``samples`` is that of a
    simulated two-chance model. Raises :class:`engine.errors.BattleInputError` for invalid input,
    as ``tower plan`` does."""
    sides, dropped, inside = _prepare(data)
    if isinstance(model, TwoChance) and method == "auto":
        probs, a_mean, d_mean = _exact(sides, dropped, inside, model)
        result = _result(sides, probs, a_mean, d_mean)
        return {"model": model_name, "method": "exact", **result}
    if isinstance(model, Shelves):
        probs, a_mean, d_mean, samples = _shelves_odds(sides, dropped, inside, model, seed)
    else:
        probs, a_mean, d_mean = simulated_by_colour(sides, dropped, inside, model, samples, seed)
    result = _result(sides, probs, a_mean, d_mean)
    return {"model": model_name, "method": "simulated", "samples": samples, **result}
