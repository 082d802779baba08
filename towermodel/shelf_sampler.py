"""Many drops of a shelves tower at once (NumPy), colour-blind, for the simulated shelves odds
(:mod:`towermodel.odds`) and for :func:`towermodel.tower.sample_came_out`.

The rule is :class:`towermodel.tower.ShelvesTower`'s; only each cube's origin is followed (thrown in
this drop, or inside before it), since the rule never looks at a colour. Besides the cubes out of
each drop, a draw keeps what the odds' estimator needs to take variance out honestly: the part of
the last shelf that can be averaged exactly (each cube lying there comes out with a chance of its
own, kept as that chance), and a few counts from the first two shelves whose exact means and
distribution are known (:func:`count_means`, :func:`thrown_passing_second_pmf`), used as control
variates (:func:`controls_for`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.stats import binom

from towermodel.models import Shelves


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


FRESH, OLD = 1, 2
"""A cube's origin in a stream of cubes: thrown in this drop, or inside before it (0: an empty place)."""

COUNTS = ("old on the first shelf", "thrown cubes leaving the first shelf", "old cubes leaving the first shelf",
          "thrown cubes passing the second shelf", "old cubes passing the second shelf")
"""The counts of :class:`ShelvesDraws` whose exact means are known (:func:`count_means`), in column
order (a tower of two shelves or more)."""

THROWN_PASSING = COUNTS.index("thrown cubes passing the second shelf")

INDICATOR_AT_LEAST = 0.01
"""A value of the thrown cubes passing the second shelf gets its own control (an indicator) where
its exact probability is at least this: rarer values would be absent from a sample too often for
their indicator to say anything."""


@dataclass(frozen=True)
class ShelvesDraws:
    """``n`` drops of a shelves tower, colour-blind: one entry (column) per drop.

    ``thrown_out`` thrown cubes came out, every fate drawn: ``thrown_passing_last`` of them passed
    the last shelf, and of the thrown cubes that came to rest on it each was knocked out afterwards
    with its chance in ``thrown_resting_chances`` (``(r, n)``, padded with chance 0). ``inside_out``
    cubes that were inside came out by way of the streams (knocked off a shelf above the last, then
    out); on top of those, each of the ``last_lying`` cubes that lay on the last shelf before the
    drop comes out independently with :attr:`last_chance` (it stays only if each of the
    ``last_passing`` cubes passing that shelf misses it), which is left as a chance rather than
    drawn. The chances let the odds average over those fates exactly. ``counts`` holds the
    :data:`COUNTS` per drop (``(n, 5)``; ``(n, 0)`` for a tower of one shelf)."""

    thrown_out: NDArray[Any]
    thrown_passing_last: NDArray[Any]
    thrown_resting_chances: NDArray[Any]
    inside_out: NDArray[Any]
    last_lying: NDArray[Any]
    last_passing: NDArray[Any]
    p_knock: float
    counts: NDArray[Any]

    @property
    def last_chance(self) -> NDArray[Any]:
        """Per drop, the chance that a cube lying on the last shelf before the drop comes out."""
        chance: NDArray[Any] = 1.0 - (1.0 - self.p_knock) ** self.last_passing
        return chance

    def inside_out_drawn(self, rng: np.random.Generator) -> NDArray[Any]:
        """Every cube that was inside and came out, the last shelf's own drawn too."""
        total: NDArray[Any] = self.inside_out + rng.binomial(self.last_lying, self.last_chance)
        return total


def draw_shelves(model: Shelves, thrown: int, inside: int, n: int, rng: np.random.Generator) -> ShelvesDraws:
    """``n`` drops of a shelves tower holding ``inside`` cubes, ``thrown`` cubes thrown in.

    Played for all drops at once, shelf by shelf: the cubes reaching a shelf are a stream (one column
    per drop, padded with empty places), each cube in turn passes (and knocks each cube lying on the
    shelf loose, those that came to rest earlier in this drop included) or comes to rest; the stream
    leaving the shelf (a passing cube, then the cubes it knocked loose, in random order) is the next
    shelf's. The cubes inside are spread over the shelves by :func:`split_over_shelves`.

    The last shelf needs no stream of its own: given which of its arrivals pass, a cube lying there
    (since before the drop, or from its own arrival on) stays only if every passing cube behind it
    misses it, so each comes out independently with ``1 - (1 - p_knock) ** passing_behind`` (see
    :func:`_last_shelf`)."""
    p, k = model.p_pass, model.p_knock
    old_on = split_over_shelves(np.array([inside]), model.n_shelves, n, rng)
    stream: NDArray[Any] = np.full((thrown, n), FRESH, dtype=np.int8)
    columns: list[NDArray[Any]] = []
    for shelf in range(model.n_shelves - 1):
        stream, passing_fresh, passing_old = _shelf_stream(stream, np.array(old_on[shelf][0], dtype=np.int64), p, k, rng)
        if shelf == 0:
            columns += [old_on[0][0], (stream == FRESH).sum(axis=0), (stream == OLD).sum(axis=0)]
        elif shelf == 1:
            columns += [passing_fresh, passing_old]
    last_lying = np.array(old_on[-1][0], dtype=np.int64)
    thrown_out, inside_out, passing_fresh, passing_old, resting_chances = _last_shelf(stream, p, k, rng)
    if model.n_shelves == 2:
        columns += [passing_fresh, passing_old]
    counts = np.stack(columns, axis=1).astype(np.float64) if columns else np.zeros((n, 0))
    return ShelvesDraws(thrown_out, passing_fresh, resting_chances, inside_out, last_lying, passing_fresh + passing_old,
                        k, counts)


def count_means(model: Shelves, thrown: int, inside: int) -> NDArray[Any]:
    """The exact expectations of :class:`ShelvesDraws`'s ``counts`` (an empty array for one shelf).

    The first shelf is reached by the thrown cubes alone, each passing it with ``p_pass``
    independently of all else, so a cube lying there stays through ``m`` arrivals behind it with
    ``(1 - p_pass p_knock) ** m``. Its old cubes are Bin(inside, 1 / n_shelves)
    (:func:`split_over_shelves`), and each leaves unless all ``thrown`` arrivals miss it; a thrown
    cube leaves by passing, or comes to rest and is knocked loose by one of those behind it. Every
    cube leaving the first shelf reaches the second and passes it with ``p_pass``, whatever its
    origin."""
    if model.n_shelves < 2:
        return np.zeros(0)
    p, k = model.p_pass, model.p_knock
    old_first = inside / model.n_shelves
    stays = (1.0 - p * k) ** np.arange(thrown)
    thrown_leave = thrown * p + (1.0 - p) * float((1.0 - stays).sum())
    old_leave = old_first * (1.0 - (1.0 - p * k) ** thrown)
    return np.array([old_first, thrown_leave, old_leave, p * thrown_leave, p * old_leave])


def thrown_leaving_first_pmf(model: Shelves, thrown: int) -> NDArray[Any]:
    """P(``m`` thrown cubes leave the first shelf), ``m`` = 0..thrown, exactly.

    How many thrown cubes lie on the first shelf is a Markov chain over the arrivals, whatever the
    old cubes do (each knock hits each lying cube on its own): an arrival comes to rest (one more),
    or passes and each lying cube stays with ``1 - p_knock`` (a binomial thinning)."""
    p, k = model.p_pass, model.p_knock
    size = np.arange(thrown + 1)
    thinning = binom.pmf(size[None, :], size[:, None], 1.0 - k)  # [lying before, lying after]
    lying = np.zeros(thrown + 1)
    lying[0] = 1.0
    for _ in range(thrown):
        rested = np.concatenate([[0.0], lying[:-1]])
        lying = (1.0 - p) * rested + p * (lying @ thinning)
    leaving: NDArray[Any] = lying[::-1]
    return leaving


def thrown_passing_second_pmf(model: Shelves, thrown: int) -> NDArray[Any]:
    """P(``j`` thrown cubes pass the second shelf), ``j`` = 0..thrown, exactly: each of those leaving
    the first shelf (:func:`thrown_leaving_first_pmf`) passes it with ``p_pass``."""
    size = np.arange(thrown + 1)
    passing: NDArray[Any] = thrown_leaving_first_pmf(model, thrown) @ binom.pmf(size[None, :], size[:, None], model.p_pass)
    return passing


@dataclass(frozen=True)
class Controls:
    """The control variates of the shelves odds: the :data:`COUNTS`, and an indicator for each
    likely value of the thrown cubes passing the second shelf but the likeliest (the outcome is
    seldom a straight line in that count, which decides most of the thrown cubes' fate), with their
    exact means."""

    means: NDArray[Any]
    indicated: NDArray[Any]

    def columns(self, draws: ShelvesDraws) -> NDArray[Any]:
        """The controls of each drop of ``draws``: an ``(n, len(means))`` array."""
        if not len(self.indicated):
            return draws.counts
        passing = draws.counts[:, THROWN_PASSING]
        return np.column_stack([draws.counts, (passing[:, None] == self.indicated[None, :]).astype(np.float64)])


def controls_for(model: Shelves, thrown: int, inside: int) -> Controls:
    """The :class:`Controls` of drops of ``model`` with ``thrown`` cubes thrown and ``inside`` inside
    (none for a tower of one shelf)."""
    means = count_means(model, thrown, inside)
    if model.n_shelves < 2:
        return Controls(means, np.zeros(0))
    pmf = thrown_passing_second_pmf(model, thrown)
    likely = np.flatnonzero(pmf >= INDICATOR_AT_LEAST)
    indicated = likely[likely != np.argmax(pmf)]
    return Controls(np.concatenate([means, pmf[indicated]]), indicated.astype(np.float64))


def shelves_out_by_origin(model: Shelves, thrown: int, inside: int, n: int, rng: np.random.Generator
                          ) -> tuple[NDArray[Any], NDArray[Any]]:
    """``n`` draws of a shelves drop, colour-blind: how many of the ``thrown`` cubes and how many of
    the ``inside`` cubes come out (two ``(n,)`` arrays), every cube's fate drawn
    (:func:`draw_shelves`)."""
    draws = draw_shelves(model, thrown, inside, n, rng)
    return draws.thrown_out, draws.inside_out_drawn(rng)


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


def _shelf_stream(stream: NDArray[Any], old: NDArray[Any], p: float, k: float, rng: np.random.Generator
                  ) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """The stream of cubes leaving a shelf that holds ``old`` cubes, reached by ``stream`` (position,
    draw), and how many thrown and how many old cubes passed the shelf in each draw."""
    length, n = stream.shape
    fresh = np.zeros(n, dtype=np.int64)
    below = np.zeros((length + int(old.max(initial=0)), n), dtype=np.int8)
    ends = np.zeros(n, dtype=np.int64)
    every = np.arange(n)
    passed_fresh, passed_old = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    u_pass = rng.random((length, n), dtype=np.float32)
    u_knock = rng.random((length, n), dtype=np.float32)
    for position in range(length):
        kinds = stream[position]
        arrived = kinds > 0
        passing = (u_pass[position] < p) & arrived
        resting = arrived & ~passing
        is_fresh, is_old = kinds == FRESH, kinds == OLD
        fresh += resting & is_fresh
        old += resting & is_old
        passed_fresh += passing & is_fresh
        passed_old += passing & is_old
        # The passing cube leaves first (in a draw where none passes, this writes 0 on an empty place).
        below[ends, every] = np.where(passing, kinds, 0)
        ends += passing
        _knock_loose(fresh, old, k, below, ends, passing, u_knock[position], rng)
    return below[: int(ends.max(initial=0))], passed_fresh, passed_old


def _last_shelf(stream: NDArray[Any], p: float, k: float, rng: np.random.Generator
                ) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any]]:
    """Thrown and old cubes out of the last shelf by way of ``stream`` (the cubes reaching it), how
    many thrown and how many old cubes passed it, and the chance of each thrown cube that came to
    rest there to be knocked out (``(r, n)``, padded with 0).

    A cube reaching it passes (out) or comes to rest; one at rest is knocked out by each passing cube
    behind it with ``p_knock``, independently, so it stays with ``(1 - p_knock) ** passing_behind``.
    Nothing below needs the order of what leaves. The cubes that lay there before the drop are left
    to the caller (:class:`ShelvesDraws`)."""
    arrived = stream > 0
    u = rng.random(stream.shape, dtype=np.float32)
    passing = (u < p) & arrived
    counts = passing.astype(np.int16)
    behind = np.cumsum(counts[::-1], axis=0, dtype=np.int16)[::-1] - counts  # passing cubes after each place
    # A cube that did not pass has u uniform on [p, 1): it stays with (1 - k) ** behind when u < p + (1 - p) * that.
    stays_below = (p + (1.0 - p) * (1.0 - k) ** np.arange(len(stream) + 1)).astype(np.float32)
    out = passing | (arrived & (u >= stays_below[behind]))
    fresh, old = stream == FRESH, stream == OLD
    resting = fresh & ~passing
    # Each draw's thrown cubes at rest, packed to the top rows in stream order.
    row = np.cumsum(resting, axis=0) - 1
    chances = np.zeros((int(row.max(initial=-1)) + 1, stream.shape[1]))
    places, draws = np.nonzero(resting)
    chances[row[places, draws], draws] = 1.0 - (1.0 - k) ** behind[places, draws]
    return ((out & fresh).sum(axis=0).astype(np.int64), (out & old).sum(axis=0).astype(np.int64),
            (passing & fresh).sum(axis=0).astype(np.int64), (passing & old).sum(axis=0).astype(np.int64), chances)
