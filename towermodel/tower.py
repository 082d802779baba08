"""A tower with cubes inside: the models of :mod:`towermodel.models` played out one drop at a time.

Two kinds of sampling live here, both of the same model:

* :class:`TwoChanceTower` and :class:`ShelvesTower` keep the cubes inside per colour (per shelf) and
  throw one drop at a time with the caller's ``random.Random``, so that a simulated game replays
  exactly; they round-trip through a JSON-able ``state()``. The simulated station
  (``simulation``) is built on them.
* :func:`sample_came_out` draws many drops at once with NumPy, every cube's colour included (the
  shelves' part comes from :mod:`towermodel.shelf_sampler`, which the shelves odds use directly).
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections import Counter
from typing import Any

import numpy as np
from numpy.typing import NDArray

from towermodel.models import NAMED_MODELS, Shelves, TowerModelParams, TwoChance, named_model
from towermodel.shelf_sampler import shelves_out_by_origin


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

    The contract's rule, literally: the thrown cubes fall in turn (in random order); a cube reaching
    a shelf passes it with ``p_pass``, else it lies on it from then on; each cube that passes a
    shelf knocks each cube lying there loose with ``p_knock``, including cubes that came to rest
    earlier in the same drop. A loosened cube falls on to the next shelf, where it is a cube
    reaching a shelf like any other (or out, below the last). The cubes reach each shelf in the
    order they left the one above: a passing cube, then the cubes it knocked loose (in random
    order). ``docs/tower-model.md`` says why this order is the whole rule."""

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
        for resting in self.shelves:
            below: list[str] = []
            for colour in falling:
                if rng.random() >= self.p_pass:
                    resting[colour] += 1  # lies here now: the cubes behind it may knock it loose
                    continue
                below.append(colour)
                # This cube brushed past the shelf: each cube lying there may be knocked loose.
                loose: list[str] = []
                for stored in sorted(resting):
                    n = sum(1 for _ in range(resting[stored]) if rng.random() < self.p_knock)
                    if n:
                        resting[stored] -= n
                        loose.extend([stored] * n)
                rng.shuffle(loose)
                below.extend(loose)
            falling = below
        for index, shelf in enumerate(self.shelves):
            self.shelves[index] = +shelf
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


def sample_came_out(model: TowerModelParams, dropped: NDArray[Any], inside: NDArray[Any], n: int,
                    rng: np.random.Generator) -> NDArray[Any]:
    """``n`` independent draws of the cubes that come out of one drop: an ``(n, groups)`` int array.

    ``dropped`` and ``inside`` count cubes per group (a colour, or several colours lumped together:
    every cube behaves alike, so a lumped group is exact). For the shelves family ``inside`` is the
    total per group; its spread over the shelves is drawn by :func:`towermodel.shelf_sampler.split_over_shelves`.

    Two-chance draws are laid out one group after another (``(groups, n)``), so that NumPy's
    binomial sampler meets the same ``(n, p)`` many times in a row and reuses its set-up."""
    dropped = np.asarray(dropped, dtype=np.int64)
    inside = np.asarray(inside, dtype=np.int64)
    shape = (len(dropped), n)
    if isinstance(model, TwoChance):
        out = rng.binomial(np.broadcast_to(dropped[:, None], shape), model.p_new) + rng.binomial(
            np.broadcast_to(inside[:, None], shape), model.p_stuck)
        return np.asarray(out.T)
    thrown_out, inside_out = shelves_out_by_origin(model, int(dropped.sum()), int(inside.sum()), n, rng)
    came_out: NDArray[Any] = (multivariate_hypergeometric(dropped, thrown_out, rng)
                              + multivariate_hypergeometric(inside, inside_out, rng))
    return came_out


def multivariate_hypergeometric(counts: NDArray[Any], drawn: NDArray[Any], rng: np.random.Generator) -> NDArray[Any]:
    """For each ``drawn[i]``, how many of each group come out when ``drawn[i]`` cubes are taken at
    random, without replacement, from ``counts[g]`` cubes of group ``g``: an ``(n, groups)`` array.

    Draws of the same size are made together by NumPy's multivariate sampler (a drop has few
    distinct sizes; one call per size is far faster than one hypergeometric per group and row)."""
    counts = np.asarray(counts, dtype=np.int64)
    drawn = np.asarray(drawn, dtype=np.int64)
    out = np.zeros((len(drawn), len(counts)), dtype=np.int64)
    if counts.sum() == 0:
        return out
    sizes, inverse = np.unique(drawn, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    starts = np.searchsorted(inverse[order], np.arange(len(sizes) + 1))
    for index, size in enumerate(sizes):
        rows = order[starts[index]: starts[index + 1]]
        if size > 0:
            out[rows] = rng.multivariate_hypergeometric(counts, int(size), size=len(rows), method="marginals")
    return out
