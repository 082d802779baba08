"""Fitting a tower model to a drop log by maximum likelihood (``tower model fit``, ``spec/tower-model.md``).

Log-likelihoods and AIC are reported for the same observations in both families, so that they
compare: for every drop, the number of cubes that came out, given how many were thrown in and how
many were inside the tower before (both known exactly from the log).

* ``two-chance``: the parameters are fitted to every colour's cubes out of every drop, each
  Bin(thrown, p_new) + Bin(inside, p_stuck) convolved exactly (the colours are independent in this
  family): the colours tell cubes that were inside from cubes just thrown, which halves the
  parameters' uncertainty. The log-likelihood reported is that of the total cubes out per drop at
  these parameters, as for the shelves.
* ``shelves`` (two shelves), fitted to the total cubes out per drop (colours left aside: its hidden
  state would otherwise be a split of every colour over the shelves): which of the cubes inside lie
  on the upper shelf is hidden. The likelihood is exact all the same, by a forward filter (the
  forward algorithm of a hidden Markov model) over that one number: the total inside is known
  before every drop, so the cubes on the upper shelf say where every cube lies. Within a drop the
  rule is the contract's, literally (a cube that came to rest earlier in the drop can be knocked
  loose by the cubes behind it), and the filter needs no sum over arrival orders: how many cubes
  lie on a shelf after a drop depends only on how many reached it (each arrival is the same step of
  one chain, :func:`_shelf_chain`), and the lower shelf is reached by exactly the cubes that left
  the upper one, ``thrown + s - u`` when the upper shelf went from ``s`` cubes to ``u``. So each
  drop's transition is a product of two powers of one matrix (:class:`_ShelvesDrop`). A log
  starts with an empty tower, so the filter starts certain.

Parameters are optimised on the logit scale (so they stay in (0, 1)); 95 % confidence intervals are
Wald intervals on that scale from the numerical Hessian of the log-likelihood, mapped back (so they
stay inside (0, 1) and are asymmetric near the edges). AIC = 2 k - 2 log L with k = 2 for both
families (the shelves family's ``n_shelves`` is fixed at 2, not fitted).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.special import expit, gammaln, logit, xlog1py, xlogy

from towermodel.droplog import Drop
from towermodel.models import FAMILIES, Shelves, TowerModelParams, TwoChance

MIN_DROPS = 30
"""Below this many drops a fit is reported but marked as not to be trusted."""

MAX_CI_WIDTH = 0.3
"""A 95 % interval wider than this says the drops do not pin the parameter down."""

_LOG_FACTORIAL = gammaln(np.arange(1, 4001, dtype=float))


def _binom_pmf(k: NDArray[Any], n: NDArray[Any], p: NDArray[Any] | float) -> NDArray[Any]:
    """Bin(k; n, p) for broadcast integer arrays, 0 where k is outside 0..n."""
    k, n = np.asarray(k), np.asarray(n)
    valid = (k >= 0) & (k <= n)
    kk, nn = np.where(valid, k, 0), np.where(valid, n, 0)
    log = (_LOG_FACTORIAL[nn] - _LOG_FACTORIAL[kk] - _LOG_FACTORIAL[nn - kk]
           + xlogy(kk, p) + xlog1py(nn - kk, -np.asarray(p)))
    return np.where(valid, np.exp(log), 0.0)


def _totals(logs: list[list[Drop]]) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    drops = [d for log in logs for d in log]
    return (np.array([d.total_dropped for d in drops]), np.array([d.total_inside for d in drops]),
            np.array([d.total_out for d in drops]))


def _per_colour(logs: list[list[Drop]]) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    pairs = [(d.dropped.get(c, 0), d.inside.get(c, 0), d.came_out.get(c, 0))
             for log in logs for d in log for c in sorted(set(d.dropped) | set(d.inside))]
    if not pairs:
        return np.zeros(0, dtype=int), np.zeros(0, dtype=int), np.zeros(0, dtype=int)
    thrown, inside, out = (np.array(column) for column in zip(*pairs, strict=True))
    return thrown, inside, out


def two_chance_log_likelihood(model: TwoChance, logs: list[list[Drop]], *, by_colour: bool = False) -> float:
    """log P(cubes out of every drop | thrown, inside) under a two-chance model; ``by_colour``: of
    every colour's cubes out (the colours are independent in this family, so this is exact too)."""
    thrown, inside, out = _per_colour(logs) if by_colour else _totals(logs)
    if len(thrown) == 0:
        return 0.0
    a = np.arange(int(thrown.max()) + 1)[None, :]  # thrown cubes that came out
    new = _binom_pmf(a, thrown[:, None], model.p_new)
    stuck = _binom_pmf(out[:, None] - a, inside[:, None], model.p_stuck)
    per_drop = (new * stuck).sum(axis=1)
    return float(np.log(np.maximum(per_drop, 1e-300)).sum())


def _shelf_chain(p: NDArray[Any], k: NDArray[Any], size: int) -> NDArray[Any]:
    """``M[P, r, r']``: one cube reaching a shelf that holds ``r`` cubes leaves ``r'`` on it, for P
    parameter sets. It comes to rest (``r + 1``) with ``1 - p_pass``, or passes and knocks each of
    the ``r`` loose with ``p_knock`` (``r' = r - Bin(r, p_knock)``)."""
    r = np.arange(size)
    kept = r[None, :]
    passing: NDArray[Any] = p[:, None, None] * _binom_pmf(r[:, None] - kept, r[:, None], k[:, None, None])  # (P, r, r')
    passing[:, r[:-1], r[:-1] + 1] += (1.0 - p)[:, None]
    return passing


class _ShelvesDrop:
    """One drop of a two-shelf tower, for the forward filter over the cubes on the upper shelf.

    The filter rests on one fact of the rule: at each shelf, how many cubes lie there after a drop
    depends only on how many cubes reached it, not on their order or origin (each arrival is the
    same chain step, :func:`_shelf_chain`, whether it was thrown or knocked loose above). The upper
    shelf is reached by the ``thrown`` cubes; the lower one by every cube that left the upper shelf,
    passing or knocked loose: ``a2 = thrown + s - u`` when the upper shelf went from ``s`` cubes to
    ``u``. So P(upper ``s -> u``, lower ``inside - s -> after - u``) = ``M^thrown[s, u] *
    M^a2[inside - s, after - u]``, exactly, and ``after`` (the cubes inside after the drop) is
    known from the log."""

    def __init__(self, thrown: int, inside: int, out: int) -> None:
        self.thrown, self.inside, self.out = thrown, inside, out
        self.after = inside + thrown - out
        self.size = inside + thrown + 1
        s = np.arange(inside + 1)[:, None]
        u = np.arange(self.after + 1)[None, :]
        arrivals = thrown + s - u
        lower_after = self.after - u
        self.valid = (arrivals >= 0) & (u < self.size) & (lower_after < self.size) & (lower_after >= 0)
        self.s, self.u = np.broadcast_arrays(s, u)
        self.arrivals = np.where(self.valid, arrivals, 0)
        self.lower_after = np.where(self.valid, lower_after, 0)
        self.u_index = np.where(self.valid, np.broadcast_to(u, self.valid.shape), 0)

    def step(self, alpha: NDArray[Any], p: NDArray[Any], k: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
        """One drop for P parameter sets at once: ``alpha[P, s]`` = P(s cubes on the upper shelf | drops
        so far) before this drop -> after it, and log P(this drop's cubes out) per parameter set."""
        sets, thrown, inside = len(p), self.thrown, self.inside
        chain = _shelf_chain(p, k, self.size)
        eye = np.eye(self.size)
        upper = np.broadcast_to(eye[: inside + 1], (sets, inside + 1, self.size))
        for _ in range(thrown):
            upper = upper @ chain
        lower = np.empty((thrown + inside + 1, sets, inside + 1, self.size))
        lower[0] = eye[inside - np.arange(inside + 1)]
        for a in range(1, thrown + inside + 1):
            lower[a] = lower[a - 1] @ chain
        rows = np.arange(inside + 1)[:, None]
        moved = upper[:, rows, self.u_index]  # (P, s, u)
        below = lower[self.arrivals, :, rows, self.lower_after]  # (s, u, P)
        joint = np.where(self.valid[None], moved * np.moveaxis(below, 2, 0), 0.0)
        new_alpha = np.einsum("ps,psu->pu", alpha, joint)
        total = new_alpha.sum(axis=1)
        dead = ~(total > 0)
        total = np.where(dead, 1.0, total)
        new_alpha = new_alpha / total[:, None]
        new_alpha[dead] = np.eye(1, self.after + 1)[0]
        return new_alpha, np.where(dead, -700.0, np.log(total))


def _prepared(logs: list[list[Drop]]) -> list[list[_ShelvesDrop]]:
    return [[_ShelvesDrop(d.total_dropped, d.total_inside, d.total_out) for d in log] for log in logs]


def shelves_log_likelihoods(p_pass: NDArray[Any], p_knock: NDArray[Any], logs: list[list[_ShelvesDrop]]) -> NDArray[Any]:
    """log P(cubes out of every drop | thrown, inside) for many two-shelf parameter sets at once."""
    p_pass, p_knock = np.atleast_1d(np.asarray(p_pass, float)), np.atleast_1d(np.asarray(p_knock, float))
    total = np.zeros(len(p_pass))
    for log in logs:
        alpha: NDArray[Any] = np.ones((len(p_pass), 1))  # an empty tower: nothing on the upper shelf
        for drop in log:
            alpha, step = drop.step(alpha, p_pass, p_knock)
            total += step
    return total


def shelves_log_likelihood(model: Shelves, logs: list[list[Drop]]) -> float:
    """log P(cubes out of every drop | thrown, inside) under a two-shelf model (exact forward filter)."""
    if model.n_shelves != 2:
        raise ValueError("the shelves likelihood is written for two shelves")
    return float(shelves_log_likelihoods(np.array([model.p_pass]), np.array([model.p_knock]), _prepared(logs))[0])


def log_likelihood(model: TowerModelParams, logs: list[list[Drop]]) -> float:
    if isinstance(model, TwoChance):
        return two_chance_log_likelihood(model, logs)
    return shelves_log_likelihood(model, logs)


@dataclass
class Fit:
    """One family fitted to a set of drops (``tower model fit``'s list entries)."""

    family: str
    model: TowerModelParams
    ci95: dict[str, tuple[float, float] | None]
    log_likelihood: float
    drops: int
    trusted: bool
    notes: list[str] = field(default_factory=list)

    @property
    def aic(self) -> float:
        return 2 * 2 - 2 * self.log_likelihood

    def to_json(self) -> dict[str, Any]:
        params = self.model.params()
        return {
            "family": self.family,
            "params": {key: round(v, 4) if isinstance(v, float) else v for key, v in params.items()},
            "ci95": {key: None if ci is None else [round(ci[0], 4), round(ci[1], 4)] for key, ci in self.ci95.items()},
            "log_likelihood": round(self.log_likelihood, 2),
            "aic": round(self.aic, 2),
            "drops": self.drops,
            "trusted": self.trusted,
            "notes": self.notes,
        }


_FREE = {"two-chance": ("p_new", "p_stuck"), "shelves": ("p_pass", "p_knock")}
_STARTS = {"two-chance": [(0.6, 0.4), (0.4, 0.6), (0.8, 0.2), (0.5, 0.8)],
           "shelves": [(0.85, 0.025), (0.7, 0.1), (0.95, 0.005), (0.6, 0.3)]}
_STEP = 1e-3  # finite-difference step on the logit scale
_STENCIL = np.array([(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1), (1, 1)], dtype=float)


def _build(family: str, values: NDArray[Any]) -> TowerModelParams:
    a, b = (float(v) for v in values)
    return TwoChance(p_new=a, p_stuck=b) if family == "two-chance" else Shelves(p_pass=a, p_knock=b)


def _objective(family: str, logs: list[list[Drop]]) -> Any:
    """thetas (P, 2) on the logit scale -> negative log-likelihoods (P,), evaluated together."""
    if family == "shelves":
        prepared = _prepared(logs)

        def negative(thetas: NDArray[Any]) -> NDArray[Any]:
            probs = expit(np.clip(thetas, -15, 15))
            return -shelves_log_likelihoods(probs[:, 0], probs[:, 1], prepared)
        return negative

    def negative_two_chance(thetas: NDArray[Any]) -> NDArray[Any]:
        probs = expit(np.clip(thetas, -15, 15))
        return np.array([-two_chance_log_likelihood(TwoChance(float(a), float(b)), logs, by_colour=True)
                         for a, b in probs])
    return negative_two_chance


def _derivatives(negative: Any, theta: NDArray[Any]) -> tuple[float, NDArray[Any], NDArray[Any]]:
    """Value, gradient and Hessian at ``theta`` from one batched evaluation of a 6-point stencil."""
    f0, fx, fx_, fy, fy_, fxy = negative(theta[None, :] + _STEP * _STENCIL)
    grad = np.array([fx - fx_, fy - fy_]) / (2 * _STEP)
    hess = np.empty((2, 2))
    hess[0, 0] = (fx - 2 * f0 + fx_) / _STEP**2
    hess[1, 1] = (fy - 2 * f0 + fy_) / _STEP**2
    hess[0, 1] = hess[1, 0] = (fxy - fx - fy + f0) / _STEP**2
    return float(f0), grad, hess


def _maximise(family: str, negative: Any) -> tuple[NDArray[Any], float, NDArray[Any]]:
    """Newton's method on the logit scale from the best of a few starting points, each iteration one
    batched evaluation (the stencil) and a backtracking line search. Returns theta, -log L, Hessian."""
    starts = logit(np.array(_STARTS[family]))
    theta = starts[int(np.argmin(negative(starts)))]
    value, grad, hess = _derivatives(negative, theta)
    for _ in range(60):
        try:
            eigen = np.linalg.eigvalsh(hess)
            step = -np.linalg.solve(hess, grad) if eigen.min() > 0 else -grad / max(1.0, float(np.abs(grad).max()))
        except np.linalg.LinAlgError:
            step = -grad / max(1.0, float(np.abs(grad).max()))
        step = np.clip(step, -3, 3)
        for scale in (1.0, 0.5, 0.25, 0.1, 0.03):
            trial = np.clip(theta + scale * step, -12, 12)
            if float(negative(trial[None, :])[0]) < value - 1e-10:
                break
        else:
            break
        moved = float(np.abs(trial - theta).max())
        theta = trial
        value, grad, hess = _derivatives(negative, theta)
        if moved < 1e-6:
            break
    return theta, value, hess


def fit_family(family: str, logs: list[list[Drop]]) -> Fit:
    """The maximum-likelihood ``family`` model for the drops of ``logs`` (each log starts with an empty tower)."""
    if family not in FAMILIES:
        raise ValueError(f"unknown tower model family {family!r} (known: {', '.join(FAMILIES)})")
    drops = sum(len(log) for log in logs)
    if drops == 0:
        raise ValueError("there are no drops to fit a model to")
    theta, value, hess = _maximise(family, _objective(family, logs))
    names = _FREE[family]
    notes: list[str] = []
    ci95: dict[str, tuple[float, float] | None] = {}
    try:
        variances = np.diag(np.linalg.inv(hess))
        if np.any(variances <= 0) or not np.all(np.isfinite(variances)):
            raise np.linalg.LinAlgError
        for name, centre, var in zip(names, theta, variances, strict=True):
            half = 1.959964 * float(np.sqrt(var))
            ci95[name] = (float(expit(centre - half)), float(expit(centre + half)))
    except np.linalg.LinAlgError:
        ci95 = dict.fromkeys(names)
        notes.append("the likelihood is flat around the best fit: no confidence interval")
    if drops < MIN_DROPS:
        notes.append(f"only {drops} drops: at least {MIN_DROPS} are needed before this fit can be trusted")
    wide = [n for n, ci in ci95.items() if ci is not None and ci[1] - ci[0] > MAX_CI_WIDTH]
    if wide:
        notes.append(f"the drops leave {', '.join(wide)} uncertain (95 % interval wider than {MAX_CI_WIDTH})")
    if np.any(np.abs(theta) > 9):
        notes.append("a parameter sits at the edge of [0, 1]: the family may not suit this tower")
    model = _build(family, expit(theta))
    # The families are compared on what they share: the cubes out per drop (see the module's docstring).
    shared = -value if family == "shelves" else log_likelihood(model, logs)
    return Fit(family, model, ci95, shared, drops, trusted=not notes, notes=notes)


def fit_models(logs: list[list[Drop]], families: tuple[str, ...] = FAMILIES) -> list[Fit]:
    """Every family in ``families`` fitted to the same drops, best (lowest AIC) first."""
    return sorted((fit_family(f, logs) for f in families), key=lambda fit: fit.aic)
