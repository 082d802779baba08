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
    (:func:`towermodel.shelves_estimate.with_last_shelf_averaged`); each drop gives P(outcome | the rest of the drop), whose
    mean over the drops is the same expectation (Rao-Blackwellisation);
  - a few counts of each drop have exact means in closed form (the old cubes on the first shelf,
    the thrown and the old cubes leaving it, and of those the ones passing the second shelf), and
    the number of thrown cubes passing the second shelf has an exact distribution (a small Markov
    chain), so they and an indicator per likely value of that number serve as control variates
    (:func:`towermodel.shelf_sampler.controls_for`): the odds are the intercept of the
    least-squares fit of the per-drop values on the controls minus their means
    (:func:`towermodel.shelves_estimate.control_variate_means`), with its standard error.

  The number of drops follows from that standard error: at least 1,000, and as many as bring each
  probability within 0.005 of the exact value at 95 % confidence (1.96 standard errors), at most
  40,000, which a plain proportion needs (1.96 * sqrt(0.25 / 40,000) = 0.0049; the values lie in
  [0, 1] and the fit only takes variance out, so the ceiling always meets the bound); see
  :mod:`towermodel.shelves_estimate`.

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
from towermodel.shelves_estimate import SAMPLES, shelves_estimate
from towermodel.tower import sample_came_out

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


def _shelves_odds(sides: Sides, dropped: dict[str, int], inside: dict[str, int], model: Shelves, seed: int
                  ) -> tuple[NDArray[Any], float, float, int]:
    """The shelves odds (:func:`towermodel.shelves_estimate.shelves_estimate`) and the number of drops
    simulated. The expected strengths are conditioned the same way: given the origin counts, each
    side's expected cubes are its share of each origin times the cubes out of it."""
    estimate = shelves_estimate(outcome_given_origins(sides, dropped, inside), model, sum(dropped.values()),
                                sum(inside.values()), seed)
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
