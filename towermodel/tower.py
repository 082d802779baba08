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
from numpy.typing import NDArray
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


def binomial_rows(counts: NDArray[Any], p: float, n: int, rng: np.random.Generator) -> NDArray[Any]:
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


def split_over_shelves(inside: NDArray[Any], n_shelves: int, n: int, rng: np.random.Generator) -> list[NDArray[Any]]:
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


def sample_came_out(model: TowerModelParams, dropped: NDArray[Any], inside: NDArray[Any], n: int,
                    rng: np.random.Generator) -> NDArray[Any]:
    """``n`` independent draws of the cubes that come out of one drop: an ``(n, groups)`` int array.

    ``dropped`` and ``inside`` count cubes per group (a colour, or several colours lumped together:
    every cube behaves alike, so a lumped group is exact). For the shelves family ``inside`` is the
    total per group; its spread over the shelves is drawn by :func:`split_over_shelves`.

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


FRESH, OLD = 1, 2
"""A cube's origin in :func:`shelves_out_by_origin`: thrown in this drop, or inside before it."""


def shelves_out_by_origin(model: Shelves, thrown: int, inside: int, n: int, rng: np.random.Generator
                          ) -> tuple[NDArray[Any], NDArray[Any]]:
    """``n`` draws of a shelves drop, colour-blind: how many of the ``thrown`` cubes and how many of
    the ``inside`` cubes come out (two ``(n,)`` arrays).

    The rule is :class:`ShelvesTower`'s, played for all draws at once, shelf by shelf: the cubes
    reaching a shelf are a stream (one column per draw, padded with empty places), each cube in
    turn passes (and knocks each cube lying on the shelf loose, those that came to rest earlier in
    this drop included) or comes to rest; the stream leaving the shelf (a passing cube, then the
    cubes it knocked loose, in random order) is the next shelf's. Cubes behave alike, so only their
    origin is followed: which colours came out is then a draw without replacement from each
    origin's colours (:func:`multivariate_hypergeometric`), which is exact because the rule never
    looks at a colour. The cubes inside are spread over the shelves by :func:`split_over_shelves`.

    The last shelf needs no stream of its own: given which of its arrivals pass, a cube lying there
    (since before the drop, or from its own arrival on) stays only if every passing cube behind it
    misses it, so each comes out independently with ``1 - (1 - p_knock) ** passing_behind`` (see
    :func:`_last_shelf`)."""
    p, k = model.p_pass, model.p_knock
    old_on = split_over_shelves(np.array([inside]), model.n_shelves, n, rng)
    stream: NDArray[Any] = np.full((thrown, n), FRESH, dtype=np.int8)
    for shelf in range(model.n_shelves - 1):
        stream = _shelf_stream(stream, np.array(old_on[shelf][0], dtype=np.int64), p, k, rng)
    return _last_shelf(stream, np.array(old_on[-1][0], dtype=np.int64), p, k, rng)


def _knock_loose(fresh: NDArray[Any], old: NDArray[Any], k: float, stream: NDArray[Any], ends: NDArray[Any],
                 passing: NDArray[Any], u: NDArray[Any], rng: np.random.Generator) -> None:
    """A cube has just passed the shelf in each draw where ``passing``; the shelf holds ``fresh`` and
    ``old`` cubes: knock each loose with ``k``, take it off the shelf and append it to the draw's
    ``stream``. ``u`` is one uniform number per draw.

    The cubes lying there are taken in random order and geometric jumps, G ~ Geom(k), land on the
    ones knocked loose; the first jump lands within the shelf exactly when ``u < 1 - (1 - k) **
    lying``, one comparison that settles most draws (with a small ``k`` the most common case is that
    nothing is knocked loose; NumPy's binomial sampler would cost far more). Whether a landing is on
    an old cube is decided when it lands, from the cubes not yet knocked loose, so the loosened
    cubes come out in random order, as the rule says."""
    if k <= 0.0:
        return
    lying = fresh + old
    none_loose = (1.0 - k) ** np.arange(len(stream) + 1)
    columns = np.flatnonzero(passing & (u < 1.0 - none_loose[lying]))
    if not len(columns):
        return
    lying = lying[columns]
    draw = u[columns].astype(np.float64)
    at = np.zeros(len(columns), dtype=np.int64)
    knocked = np.zeros(len(columns), dtype=np.int64)
    log_miss = np.log1p(-k) if k < 1.0 else -np.inf
    while len(columns):
        jump = 1 if k >= 1.0 else np.floor(np.log1p(-draw) / log_miss).astype(np.int64) + 1
        at = at + jump
        hit = at <= lying
        columns, lying, at, knocked = columns[hit], lying[hit], at[hit], knocked[hit]
        if not len(columns):
            break
        is_old = rng.random(len(columns)) * (lying - knocked) < old[columns]
        old[columns] -= is_old
        fresh[columns] -= ~is_old
        stream[ends[columns], columns] = np.where(is_old, OLD, FRESH)
        ends[columns] += 1
        knocked += 1
        draw = rng.random(len(columns))


def _shelf_stream(stream: NDArray[Any], old: NDArray[Any], p: float, k: float, rng: np.random.Generator) -> NDArray[Any]:
    """The stream of cubes leaving a shelf that holds ``old`` cubes, reached by ``stream`` (position, draw)."""
    length, n = stream.shape
    fresh = np.zeros(n, dtype=np.int64)
    below = np.zeros((length + int(old.max(initial=0)), n), dtype=np.int8)
    ends = np.zeros(n, dtype=np.int64)
    every = np.arange(n)
    u_pass = rng.random((length, n), dtype=np.float32)
    u_knock = rng.random((length, n), dtype=np.float32)
    for position in range(length):
        kinds = stream[position]
        arrived = kinds > 0
        passing = (u_pass[position] < p) & arrived
        resting = arrived & ~passing
        fresh += resting & (kinds == FRESH)
        old += resting & (kinds == OLD)
        # The passing cube leaves first (in a draw where none passes, this writes 0 on an empty place).
        below[ends, every] = np.where(passing, kinds, 0)
        ends += passing
        _knock_loose(fresh, old, k, below, ends, passing, u_knock[position], rng)
    return below[: int(ends.max(initial=0))]


def _last_shelf(stream: NDArray[Any], old: NDArray[Any], p: float, k: float, rng: np.random.Generator
                ) -> tuple[NDArray[Any], NDArray[Any]]:
    """Fresh and old cubes out of the last shelf, which holds ``old`` cubes and is reached by ``stream``.

    A cube reaching it passes (out) or comes to rest; one at rest (or lying there before the drop)
    is knocked out by each passing cube behind it with ``p_knock``, independently, so it stays with
    ``(1 - p_knock) ** passing_behind``. Nothing below needs the order of what leaves."""
    arrived = stream > 0
    u = rng.random(stream.shape, dtype=np.float32)
    passing = (u < p) & arrived
    counts = passing.astype(np.int16)
    behind = np.cumsum(counts[::-1], axis=0, dtype=np.int16)[::-1] - counts  # passing cubes after each place
    # A cube that did not pass has u uniform on [p, 1): it stays with (1 - k) ** behind when u < p + (1 - p) * that.
    stays_below = (p + (1.0 - p) * (1.0 - k) ** np.arange(len(stream) + 1)).astype(np.float32)
    out = passing | (arrived & (u >= stays_below[behind]))
    out_fresh = (out & (stream == FRESH)).sum(axis=0)
    out_old = (out & (stream == OLD)).sum(axis=0)
    out_old = out_old + rng.binomial(old, 1.0 - (1.0 - k) ** passing.sum(axis=0))
    return out_fresh.astype(np.int64), out_old.astype(np.int64)


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
