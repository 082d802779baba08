"""A tower with cubes inside: the models of :mod:`towermodel.models` played out one drop at a time.

Two kinds of sampling live here, both of the same model:

* :class:`TwoChanceTower` and :class:`ShelvesTower` keep the cubes inside per colour (per shelf) and
  throw one drop at a time with the caller's ``random.Random``, so that a simulated game replays
  exactly; they round-trip through a JSON-able ``state()``. The simulated station
  (``simulation``) is built on them.
* :func:`sample_came_out` draws many drops at once with NumPy, for the simulated odds of a battle
  (:mod:`towermodel.odds`) and for simulated drop logs (:mod:`towermodel.fit` tests).
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections import Counter
from typing import Any

import numpy as np
from scipy.stats import binom

from towermodel.models import NAMED_MODELS, Shelves, TowerModelParams, TwoChance, named_model


def _counts(counter: Counter[str]) -> dict[str, int]:
    return {colour: n for colour, n in sorted(counter.items()) if n > 0}


class TowerModel(ABC):
    """A tower's inner state and the rule that decides which cubes come out of one throw."""

    name: str

    @abstractmethod
    def drop(self, cubes: list[str], rng: random.Random) -> list[str]:
        """Throw ``cubes`` (one colour per cube) in; return the colours that come out, in falling order."""

    @abstractmethod
    def contents(self) -> dict[str, int]:
        """Cubes inside the tower per colour (only non-zero colours)."""

    @abstractmethod
    def state(self) -> dict[str, Any]:
        """JSON-able inner state."""

    @abstractmethod
    def load_state(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`state` returned."""

    def total_inside(self) -> int:
        return sum(self.contents().values())


class TwoChanceTower(TowerModel):
    """One store of stuck cubes: new cubes come out with ``p_new``, stuck ones with ``p_stuck``."""

    def __init__(self, name: str, p_new: float, p_stuck: float) -> None:
        self.name = name
        self.model = TwoChance(p_new=p_new, p_stuck=p_stuck)
        self.inside: Counter[str] = Counter()

    @property
    def p_new(self) -> float:
        return self.model.p_new

    @property
    def p_stuck(self) -> float:
        return self.model.p_stuck

    def drop(self, cubes: list[str], rng: random.Random) -> list[str]:
        out: list[str] = []
        # Cubes already stuck get their chance first, before this throw's own cubes can stick.
        for colour in sorted(self.inside):
            freed = sum(1 for _ in range(self.inside[colour]) if rng.random() < self.p_stuck)
            self.inside[colour] -= freed
            out.extend([colour] * freed)
        for colour in cubes:
            if rng.random() < self.p_new:
                out.append(colour)
            else:
                self.inside[colour] += 1
        rng.shuffle(out)
        return out

    def contents(self) -> dict[str, int]:
        return _counts(self.inside)

    def state(self) -> dict[str, Any]:
        return {"inside": self.contents()}

    def load_state(self, state: dict[str, Any]) -> None:
        self.inside = Counter({str(k): int(v) for k, v in state.get("inside", {}).items()})


class ShelvesTower(TowerModel):
    """Cubes fall past a stack of shelves; each shelf keeps some and is shaken loose by passing cubes.

    The cubes a passing cube can knock loose are those that lay on the shelf when the drop arrived;
    one that comes to rest during the drop waits for the next drop. This is the reading of the
    contract that keeps the likelihood of a drop computable (``docs/tower-model.md``)."""

    def __init__(self, n_shelves: int = 2, p_pass: float = 0.85, p_knock: float = 1 / 40, name: str = "shelves") -> None:
        self.name = name
        self.model = Shelves(p_pass=p_pass, p_knock=p_knock, n_shelves=n_shelves)
        self.shelves: list[Counter[str]] = [Counter() for _ in range(n_shelves)]

    @property
    def p_pass(self) -> float:
        return self.model.p_pass

    @property
    def p_knock(self) -> float:
        return self.model.p_knock

    def drop(self, cubes: list[str], rng: random.Random) -> list[str]:
        falling = list(cubes)
        rng.shuffle(falling)  # the order in which cubes leave the funnel
        for index, resting in enumerate(self.shelves):
            below: list[str] = []
            came_to_rest: Counter[str] = Counter()
            for colour in falling:
                if rng.random() >= self.p_pass:
                    came_to_rest[colour] += 1
                    continue
                below.append(colour)
                # This cube brushed past the shelf: each cube resting there may be knocked loose.
                for stored in sorted(resting):
                    loose = sum(1 for _ in range(resting[stored]) if rng.random() < self.p_knock)
                    if loose:
                        resting[stored] -= loose
                        below.extend([stored] * loose)
            resting.update(came_to_rest)
            self.shelves[index] = +resting
            falling = below
        return falling

    def contents(self) -> dict[str, int]:
        total: Counter[str] = Counter()
        for shelf in self.shelves:
            total.update(shelf)
        return _counts(total)

    def shelf_contents(self) -> list[dict[str, int]]:
        return [_counts(shelf) for shelf in self.shelves]

    def state(self) -> dict[str, Any]:
        return {"shelves": self.shelf_contents()}

    def load_state(self, state: dict[str, Any]) -> None:
        shelves = state.get("shelves", [])
        if len(shelves) != len(self.shelves):
            raise ValueError(f"shelves tower state has {len(shelves)} shelves, expected {len(self.shelves)}")
        self.shelves = [Counter({str(k): int(v) for k, v in s.items()}) for s in shelves]


def tower_for(model: TowerModelParams, name: str) -> TowerModel:
    """A fresh, empty tower that plays ``model``."""
    if isinstance(model, TwoChance):
        return TwoChanceTower(name, p_new=model.p_new, p_stuck=model.p_stuck)
    return ShelvesTower(n_shelves=model.n_shelves, p_pass=model.p_pass, p_knock=model.p_knock, name=name)


def make_tower_model(name: str) -> TowerModel:
    """A fresh, empty tower of the named model (``spielbyweb``, ``wallenstein-online``, ``shelves``)."""
    return tower_for(named_model(name), name)


TOWER_MODELS = tuple(NAMED_MODELS)


def binomial_rows(counts: np.ndarray, p: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` draws of Bin(``counts[g]``, ``p``) for each group ``g``: a ``(groups, n)`` array.

    Where every draw of a row has the same count, inverting the row's cumulative distribution at
    uniform draws is several times faster than NumPy's general binomial sampler (which sets itself
    up again whenever its arguments change); the draws are exact all the same."""
    out = np.empty((len(counts), n), dtype=np.int64)
    for g, count in enumerate(np.asarray(counts, dtype=np.int64)):
        if count == 0 or p == 0.0:
            out[g] = 0
        elif p == 1.0:
            out[g] = count
        else:
            cdf = np.cumsum(binom.pmf(np.arange(count + 1), count, p))
            cdf[-1] = 1.0
            out[g] = np.searchsorted(cdf, rng.random(n), side="right")
    return out


def split_over_shelves(inside: np.ndarray, n_shelves: int, n: int, rng: np.random.Generator) -> list[np.ndarray]:
    """``n`` draws of how the cubes ``inside`` (per group) lie on the shelves, when only the totals are
    known: a ``(groups, n)`` array per shelf.

    Each cube lies on any shelf with the same chance. That is where a shelves tower settles: in the
    long run each shelf takes in as many cubes per drop as are knocked off it, and every shelf sees
    the same stream of cubes (all that fall past the shelf above, loosened ones included), so the
    shelves hold the same on average (``docs/tower-model.md``)."""
    inside = np.asarray(inside, dtype=np.int64)
    left = np.broadcast_to(inside[:, None], (len(inside), n))
    shelves = []
    for j in range(n_shelves - 1):
        share = 1.0 / (n_shelves - j)
        on_this = binomial_rows(inside, share, n, rng) if j == 0 else rng.binomial(left, share)
        shelves.append(on_this)
        left = left - on_this
    shelves.append(np.asarray(left))
    return shelves


def sample_came_out(model: TowerModelParams, dropped: np.ndarray, inside: np.ndarray, n: int,
                    rng: np.random.Generator) -> np.ndarray:
    """``n`` independent draws of the cubes that come out of one drop: an ``(n, groups)`` int array.

    ``dropped`` and ``inside`` count cubes per group (a colour, or several colours lumped together:
    every cube behaves alike, so a lumped group is exact). For the shelves family ``inside`` is the
    total per group; its spread over the shelves is drawn by :func:`split_over_shelves`.

    Draws are laid out one group after another (``(groups, n)``), so that NumPy's binomial sampler
    meets the same ``(n, p)`` many times in a row and reuses its set-up: about twice as fast."""
    dropped = np.asarray(dropped, dtype=np.int64)
    inside = np.asarray(inside, dtype=np.int64)
    shape = (len(dropped), n)
    if isinstance(model, TwoChance):
        out = rng.binomial(np.broadcast_to(dropped[:, None], shape), model.p_new) + rng.binomial(
            np.broadcast_to(inside[:, None], shape), model.p_stuck)
        return np.asarray(out.T)
    if model.n_shelves == 2:
        return _two_shelves(model, dropped, inside, n, rng)
    falling = np.broadcast_to(dropped[:, None], shape)
    for j, resting in enumerate(split_over_shelves(inside, model.n_shelves, n, rng)):
        passed = binomial_rows(dropped, model.p_pass, n, rng) if j == 0 else rng.binomial(falling, model.p_pass)
        knocked = 1.0 - (1.0 - model.p_knock) ** passed.sum(axis=0)
        falling = passed + rng.binomial(resting, knocked[None, :])
    return np.asarray(falling.T)


def _two_shelves(model: Shelves, dropped: np.ndarray, inside: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """:func:`sample_came_out` for two shelves with one draw fewer per group, exactly.

    Each cube inside lies on the upper shelf with 1/2 and is knocked loose there with q1 (given the
    cubes passing it), so the upper shelf's loosened cubes are Bin(inside, q1 / 2); each of the
    others lies on the lower shelf with 1/2 / (1 - q1 / 2) and is knocked off it with q2, so the
    lower shelf's loosened cubes are Bin(inside - loosened above, q2 / 2 / (1 - q1 / 2)): the
    split itself never needs drawing."""
    p, k = model.p_pass, model.p_knock
    passed1 = binomial_rows(dropped, p, n, rng)
    q1 = 1.0 - (1.0 - k) ** passed1.sum(axis=0)
    inside_rows = np.broadcast_to(inside[:, None], passed1.shape)
    loose1 = rng.binomial(inside_rows, (q1 / 2.0)[None, :])
    passed2 = rng.binomial(passed1 + loose1, p)
    q2 = 1.0 - (1.0 - k) ** passed2.sum(axis=0)
    loose2 = rng.binomial(inside_rows - loose1, (q2 * 0.5 / (1.0 - q1 / 2.0))[None, :])
    return np.asarray((passed2 + loose2).T)
