"""The simulated shelves odds from drops of :mod:`towermodel.shelf_sampler`, with as few drops as
the 0.005 bound allows (``docs/tower-model.md``, "Shelves, simulated").

The input is ``given``: P(outcome | thrown cubes out, inside cubes out) for every pair, one row per
outcome (:func:`towermodel.odds.outcome_given_origins`); each row of it is a distribution over the
outcomes. Each simulated drop contributes ``given`` averaged exactly over the last shelf's knocks
(:func:`with_last_shelf_averaged`), and the mean over the drops is taken with control variates of
known means (:func:`control_variate_means`); both keep the expectation and take variance out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.stats import binom

from towermodel.models import Shelves
from towermodel.shelf_sampler import ShelvesDraws, controls_for, draw_shelves

SAMPLES = 40_000
"""Simulated drops per battle at most: a plain proportion is within 0.005 of the exact one at 95 %
confidence with 40,000 (two-chance models simulated use exactly this many)."""

MIN_SAMPLES = 1_000
"""Simulated shelves drops at least, so that the variance the number of drops is chosen from is
itself estimated well."""

Z95, HALF_WIDTH = 1.96, 0.005
"""Each simulated probability is within ``HALF_WIDTH`` of the exact one at 95 % confidence."""


@dataclass(frozen=True)
class ShelvesEstimate:
    """The simulated shelves odds: P(outcome) in the order of ``given``'s rows, the expected thrown and
    inside cubes out, the 95 % half-width of the least precise probability, and the drops simulated."""

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
                         passing: NDArray[Any], p_knock: float) -> NDArray[Any]:
    """P(outcome) for every outcome but the last (``(outcomes - 1, entries)``) when ``thrown`` and
    ``inside`` cubes came out and each of ``lying`` more inside cubes comes out with ``1 - (1 -
    p_knock) ** passing`` (per entry). Entries alike share one value, so it is computed once per
    distinct entry, each binomial once per distinct (lying, passing) pair; the values it weighs are
    one window of ``given`` per entry."""
    outcomes, width = given.shape[0] - 1, given.shape[2]
    span = int(passing.max(initial=0)) + 1
    kinds, entry_kind = np.unique((thrown * width + inside) * (width * span) + lying * span + passing,
                                  return_inverse=True)
    origins, kind_pair = kinds // (width * span), kinds % (width * span)
    pairs, pair_index = np.unique(kind_pair, return_inverse=True)
    most = int(lying.max(initial=0))
    chances = 1.0 - (1.0 - p_knock) ** (pairs % span)
    weights = binom.pmf(np.arange(most + 1)[None, :], (pairs // span)[:, None], chances[:, None])[pair_index.ravel()]
    # Windows of `most + 1` inside counts from each entry's own; past the cubes inside the weight is 0.
    padded = np.zeros((given.shape[1], width + most, outcomes))
    padded[:, :width, :] = np.moveaxis(given[:outcomes], 0, -1)
    windows = np.lib.stride_tricks.sliding_window_view(padded, most + 1, axis=1)  # [t, i, outcome, b]
    averaged: NDArray[Any] = np.einsum("kcb,kb->ck", windows[origins // width, origins % width], weights)
    return averaged[:, entry_kind.ravel()]


def with_last_shelf_averaged(given: NDArray[Any], draws: ShelvesDraws) -> NDArray[Any]:
    """Per drop, P(outcome | the drop) with the last shelf's knocks averaged exactly (an ``(outcomes,
    n)`` array; the last outcome is what the others leave).

    Given which cubes reached the last shelf and which of them passed it, every cube lying there
    comes out independently with a chance of its own (``draws``): the thrown cubes that came to
    rest there add a Poisson-binomial number of thrown cubes out, the old cubes lying there before
    the drop a binomial number of inside cubes out. P(outcome) is ``given`` weighted by both; the
    inside cubes knocked out from the streams above stay as drawn."""
    knocked = poisson_binomial(draws.thrown_resting_chances)
    drop, extra = np.nonzero(knocked > 0.0)
    weight = knocked[drop, extra]
    each = _averaged_over_lying(given, draws.thrown_passing_last[drop] + extra, draws.inside_out[drop],
                                draws.last_lying[drop], draws.last_passing[drop], draws.p_knock)
    n = len(draws.thrown_out)
    averaged = np.empty((given.shape[0], n))
    for outcome, values in enumerate(each):
        averaged[outcome] = np.bincount(drop, weights=weight * values, minlength=n)
    averaged[-1] = 1.0 - averaged[:-1].sum(axis=0)
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


def shelves_estimate(given: NDArray[Any], model: Shelves, thrown: int, inside: int, seed: int) -> ShelvesEstimate:
    """The odds of ``given``'s outcomes under ``model`` when ``thrown`` cubes are thrown into a tower
    holding ``inside``: :data:`MIN_SAMPLES` drops first; while the estimate's standard error asks
    for more, to bring each probability within :data:`HALF_WIDTH` at 95 % confidence, more are drawn
    from the same generator (5 % more than the error asks for, so that one more round is almost
    always enough), up to :data:`SAMPLES`."""
    outcomes = given.shape[0]
    controls = controls_for(model, thrown, inside)
    rng = np.random.default_rng(seed)
    rows: list[NDArray[Any]] = []
    columns: list[NDArray[Any]] = []
    more = MIN_SAMPLES
    while True:
        draws = draw_shelves(model, thrown, inside, more, rng)
        expected_thrown = draws.thrown_passing_last + draws.thrown_resting_chances.sum(axis=0)
        expected_inside = draws.inside_out + draws.last_lying * draws.last_chance
        rows.append(np.vstack([with_last_shelf_averaged(given, draws), expected_thrown, expected_inside]))
        columns.append(controls.columns(draws))
        values = np.concatenate(rows, axis=1)
        estimate, error = control_variate_means(values, np.concatenate(columns), controls.means)
        samples = values.shape[1]
        half_width = float(Z95 * error[:outcomes].max())
        need = int(np.ceil(samples * (half_width / HALF_WIDTH) ** 2))
        if need <= samples or samples >= SAMPLES:
            probs = np.clip(estimate[:outcomes], 0.0, None)
            return ShelvesEstimate(probs / probs.sum(), float(estimate[outcomes]), float(estimate[outcomes + 1]),
                                   half_width, samples)
        more = min(SAMPLES, int(need * 1.05) + 1) - samples
