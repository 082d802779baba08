"""The tower models of ``spec/tower-model.md``: two families, their parameters and the named models.

A model is a value (frozen dataclass): it says how likely each way of a drop is, and nothing more.
Keeping the parameters apart from any tower's contents lets the same model drive the simulated
tower (:mod:`towermodel.tower`), the odds before a drop (:mod:`towermodel.odds`) and the fit to
this station's drops (:mod:`towermodel.fit`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class TwoChance:
    """Each cube already inside comes out with ``p_stuck``; each thrown cube with ``p_new``; all independent."""

    p_new: float
    p_stuck: float

    family = "two-chance"

    def params(self) -> dict[str, float]:
        return {"p_new": self.p_new, "p_stuck": self.p_stuck}


@dataclass(frozen=True)
class Shelves:
    """Cubes fall past ``n_shelves`` shelves in turn; a cube reaching a shelf passes it with ``p_pass``,
    else it lies on it; each cube passing a shelf knocks each cube lying there loose with ``p_knock``
    (those that came to rest earlier in the same drop included), and a loosened cube falls on to
    the next shelf, where it is a cube reaching a shelf like any other (or out, below the last).
    ``towermodel.tower.ShelvesTower`` plays the rule; docs/tower-model.md says how it is read."""

    p_pass: float
    p_knock: float
    n_shelves: int = 2

    family = "shelves"

    def params(self) -> dict[str, float]:
        return {"n_shelves": self.n_shelves, "p_pass": self.p_pass, "p_knock": self.p_knock}


TowerModelParams = TwoChance | Shelves

FAMILIES = ("two-chance", "shelves")

NAMED_MODELS: dict[str, TowerModelParams] = {
    "spielbyweb": TwoChance(p_new=2 / 3, p_stuck=1 / 3),
    "wallenstein-online": TwoChance(p_new=0.5, p_stuck=0.6),
    "shelves": Shelves(p_pass=0.85, p_knock=1 / 40, n_shelves=2),
}
"""The models of the published digital versions of the game (``fitted`` is this station's own)."""


def named_model(name: str) -> TowerModelParams:
    """The named model ``name`` (not ``fitted``: that one lives with a station's drops)."""
    try:
        return NAMED_MODELS[name]
    except KeyError:
        raise ValueError(f"unknown tower model {name!r} (known: {', '.join(NAMED_MODELS)})") from None


def model_to_json(model: TowerModelParams) -> dict[str, Any]:
    """``{"family": ..., "params": {...}}``, as ``tower model fit`` prints a model."""
    return {"family": model.family, "params": model.params()}


def model_from_json(data: dict[str, Any]) -> TowerModelParams:
    """The inverse of :func:`model_to_json`; raises ``ValueError`` naming what is wrong."""
    family = data.get("family")
    params = data.get("params")
    if not isinstance(params, dict):
        raise ValueError("a tower model needs 'params' (an object)")
    try:
        if family == "two-chance":
            model: TowerModelParams = TwoChance(p_new=float(params["p_new"]), p_stuck=float(params["p_stuck"]))
        elif family == "shelves":
            model = Shelves(p_pass=float(params["p_pass"]), p_knock=float(params["p_knock"]),
                            n_shelves=int(params.get("n_shelves", 2)))
        else:
            raise ValueError(f"unknown tower model family {family!r} (known: {', '.join(FAMILIES)})")
    except KeyError as missing:
        raise ValueError(f"the {family} model lacks the parameter {missing.args[0]!r}") from None
    check_model(model)
    return model


def check_model(model: TowerModelParams) -> None:
    """Raise ``ValueError`` where a probability lies outside [0, 1] or a shelf count is below 1."""
    for key, value in asdict(model).items():
        if key == "n_shelves":
            if value < 1:
                raise ValueError(f"n_shelves must be at least 1 (got {value})")
        elif not 0.0 <= value <= 1.0:
            raise ValueError(f"{key} must lie in [0, 1] (got {value})")
