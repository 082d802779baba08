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
* Shelves: how the cubes inside lie on the shelves is hidden, so drops are drawn with
  :func:`towermodel.tower.sample_came_out` from a fixed seed: ``method: simulated`` with
  :data:`SAMPLES` drops, enough that each probability is within 0.005 of the exact value at 95 %
  confidence (1.96 * sqrt(0.25 / 40,000) = 0.0049).

The outcome rule mirrors the engine's resolver (``engine/resolver.py``); tests check every odds
figure against a brute-force enumeration that calls the engine's own ``resolve`` on every tray.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.stats import binom

from engine.api import plan
from engine.colours import PEASANTS
from engine.errors import BattleInputError, json_path
from engine.model import Attack, Revolt
from engine.parse import battle_from_json
from towermodel.models import TowerModelParams, TwoChance
from towermodel.tower import sample_came_out

SAMPLES = 40_000
"""Simulated drops per battle: each probability within 0.005 of the exact one at 95 % confidence."""

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


def _simulated(sides: Sides, dropped: dict[str, int], inside: dict[str, int], model: TowerModelParams,
               samples: int, seed: int) -> tuple[NDArray[Any], float, float]:
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


def battle_odds(data: dict[str, Any], model: TowerModelParams, model_name: str, *,
                method: str = "auto", samples: int = SAMPLES, seed: int = SEED) -> dict[str, Any]:
    """The ``tower odds`` object for the battle JSON ``data`` under ``model``.

    ``method`` ``auto`` computes exactly where the model allows it (two-chance) and simulates
    otherwise; ``simulated`` forces the simulation (to check one against the other). Raises
    :class:`engine.errors.BattleInputError` for invalid input, as ``tower plan`` does."""
    sides, dropped, inside = _prepare(data)
    if isinstance(model, TwoChance) and method == "auto":
        probs, a_mean, d_mean = _exact(sides, dropped, inside, model)
        result = _result(sides, probs, a_mean, d_mean)
        return {"model": model_name, "method": "exact", **result}
    probs, a_mean, d_mean = _simulated(sides, dropped, inside, model, samples, seed)
    result = _result(sides, probs, a_mean, d_mean)
    return {"model": model_name, "method": "simulated", "samples": samples, **result}
