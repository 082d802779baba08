"""The luck report's figures: per player, the cubes that came out of the tower in their battles
against what the model expected, with a test of whether that luck is unusual; the upsets; the
tower's retention over the game. Pure: drops and a model in, numbers out (plots are drawn by the
controller).

The test. Before each drop the tower's contents are known (the ledger), so the model gives the
distribution of the player's cubes out of that drop, given everything before it. The randomised
probability integral transform of each observed count, u = F(x - 1) + V (F(x) - F(x - 1)) with V
uniform, is then exactly uniform and independent of the earlier drops' u under the model, however
each drop depends on the ones before. Stouffer's Z = sum(Phi^-1(u)) / sqrt(n) is therefore exactly
standard normal, and its two-sided p-value is an exact test of "this player's cubes came out as the
model says". V is drawn from a fixed seed, so the report repeats. Under the shelves model the
distribution of a drop is simulated (its shelves' contents are hidden), so there the test is
approximate.

Luck is not cheating: a small p-value says that a run of drops was unusual under the model, which
happens to someone at every table now and then (1 player in 20 at p < 0.05), or that the model
does not fit this tower.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.stats import norm

from towermodel.droplog import Drop
from towermodel.models import TowerModelParams, TwoChance
from towermodel.odds import came_out_pmf
from towermodel.tower import sample_came_out

SEED = 20_261_010
SIMULATED = 4000  # drops simulated per drop and player under the shelves model

OUTCOME_WORDS = {"attacker_wins": "the attacker won", "tie": "a tie", "defender_wins": "the defender won"}


def out_distribution(model: TowerModelParams, drop: Drop, colour: str, rng: np.random.Generator) -> NDArray[Any]:
    """P(k cubes of ``colour`` come out of ``drop``), k = 0.., given the tower's contents before it."""
    d, i = drop.dropped.get(colour, 0), drop.inside.get(colour, 0)
    if isinstance(model, TwoChance):
        return came_out_pmf(d, i, model)
    others_d = drop.total_dropped - d
    others_i = drop.total_inside - i
    out = sample_came_out(model, np.array([d, others_d]), np.array([i, others_i]), SIMULATED, rng)[:, 0]
    return np.bincount(out, minlength=d + i + 1) / SIMULATED


@dataclass
class PlayerLuck:
    colour: str
    battles: int
    came_out: int
    expected: float
    z: float | None
    p_value: float | None
    cumulative: list[tuple[int, float]]  # after each of the player's battles: (drop index, out - expected so far)

    def to_json(self) -> dict[str, Any]:
        verdict = None
        if self.p_value is not None:
            verdict = "ordinary luck"
            if self.p_value < 0.05:
                verdict = "unusually good luck" if (self.z or 0) > 0 else "unusually bad luck"
        return {"player": self.colour, "battles": self.battles, "came_out": self.came_out,
                "expected": round(self.expected, 2), "difference": round(self.came_out - self.expected, 2),
                "z": None if self.z is None else round(self.z, 3),
                "p_value": None if self.p_value is None else round(self.p_value, 4), "verdict": verdict}


def player_luck(model: TowerModelParams, drops: list[Drop], entries: list[dict[str, Any]], colour: str,
                rng: np.random.Generator) -> PlayerLuck:
    """``colour``'s cubes out of the battles it fought (attacker or defender; green: the peasants in
    every battle), against the model."""
    scores: list[float] = []
    out_total, expected = 0, 0.0
    cumulative: list[tuple[int, float]] = []
    for index, (drop, entry) in enumerate(zip(drops, entries, strict=True)):
        fought = entry.get("battle") in ("attack", "revolt", "winter_revolt") and (
            colour in (entry.get("attacker"), entry.get("defender")) or colour == "green")
        if not fought or drop.dropped.get(colour, 0) + drop.inside.get(colour, 0) == 0:
            continue
        pmf = out_distribution(model, drop, colour, rng)
        x = drop.came_out.get(colour, 0)
        cdf = np.cumsum(pmf)
        below = float(cdf[x - 1]) if x > 0 else 0.0
        at = float(cdf[min(x, len(cdf) - 1)])
        u = below + rng.random() * max(at - below, 0.0)
        scores.append(float(norm.ppf(min(max(u, 1e-12), 1 - 1e-12))))
        out_total += x
        expected += float((np.arange(len(pmf)) * pmf).sum())
        cumulative.append((index, out_total - expected))
    if not scores:
        return PlayerLuck(colour, 0, 0, 0.0, None, None, [])
    z = float(np.sum(scores) / np.sqrt(len(scores)))
    return PlayerLuck(colour, len(scores), out_total, expected, z, float(2 * norm.sf(abs(z))), cumulative)


def upsets(entries: list[dict[str, Any]], count: int = 5) -> list[dict[str, Any]]:
    """The battles whose outcome had the smallest chance by the odds stored before their drop."""
    found = []
    for entry in entries:
        odds, outcome = entry.get("odds") or {}, entry.get("outcome")
        if outcome not in OUTCOME_WORDS or outcome not in odds:
            continue
        found.append({"drop_id": entry["drop_id"], "battle": entry["battle"], "attacker": odds.get("attacker"),
                      "defender": odds.get("defender"), "outcome": outcome, "chance": odds[outcome],
                      "model": odds.get("model")})
    return sorted(found, key=lambda u: u["chance"])[:count]


def retention(drops: list[Drop]) -> list[dict[str, Any]]:
    """Per drop: cubes thrown, out, inside before and after, and the cubes held back (thrown minus out;
    negative where the tower gave back more than it took)."""
    rows = []
    for drop in drops:
        after = drop.total_inside + drop.total_dropped - drop.total_out
        rows.append({"dropped": drop.total_dropped, "came_out": drop.total_out, "inside_before": drop.total_inside,
                     "inside_after": after, "held_back": drop.total_dropped - drop.total_out})
    return rows


def luck_report(model: TowerModelParams, drops: list[Drop], entries: list[dict[str, Any]], players: list[str]
                ) -> dict[str, Any]:
    """Everything the luck report shows, as JSON-able values (``cumulative`` kept for the plots)."""
    rng = np.random.default_rng(SEED)
    lucks = [player_luck(model, drops, entries, colour, rng) for colour in [*players, "green"]]
    return {
        "players": [luck.to_json() for luck in lucks],
        "cumulative": {luck.colour: luck.cumulative for luck in lucks},
        "upsets": upsets(entries),
        "retention": retention(drops),
        "drops": len(drops),
    }
