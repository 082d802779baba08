"""The reads of one tray, the tray shaken between them, joined by their likelihoods.

Each read of the tray is evidence about what lies in it: the counter's alternatives say how likely
each count of a colour is to be what the camera saw. Joined, the reads weigh every tray content
``w`` by ``P(every read saw what it saw | w)``: the product of each read's chance of its own sight
given ``w`` (the reads taken as independent, which only a tray that moved between them makes
plausible: :func:`controller.joined_reads.unmoved_share` decides that), times the break-beam's chance of
its count given ``w``'s total (:func:`controller.verify.beam_likelihood`), within what the tower
ledger allows.

A read's sight given ``w`` allows for what a read cannot see: a cube lying under others, less than
a quarter visible, is in the tray but rightly not counted (:mod:`vision.hidden`'s model, the hidden
cubes shared out among the colours in proportion to what the read saw, which a Poisson count allows
exactly). So a pile read that rightly missed a hidden cube no longer vetoes the spread reads that
see it (tuning seed 5404 ``t0005``, ``docs/counter-figures.md``), while a read that saw a cube more
than ``w`` holds is explained only by the counter's own doubt. What the counter's alternatives leave
out keeps a floor, the read's uncovered share (:data:`FLOOR` at least), shrinking by
:data:`FLOOR_DECAY` a count further out: no read rules a count out entirely, nor makes a count it
never named likely.

This replaces a bound that put each read's whole doubt on one and the same rival (the worst case)
and needed every earlier read to allow the combination: sound where the reads are alike, but it
let one read that rightly left a hidden cube out veto every later one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import overload

import numpy as np
import numpy.typing as npt

from controller.verify import beam_likelihood, ledger_faults
from vision.hidden import colour_hidden_mean, hidden_count_chance
from vision.reading import TrayReading

#: What a read gives a count its alternatives do not name, at least (next to the named ones): the
#: counter's uncovered share (``TrayReading.alternatives_cover``) where that is larger.
FLOOR = 0.005
#: Each count further from the named ones gets this share of the floor of the one before.
FLOOR_DECAY = 0.3
#: A read of a shaken tray takes this share of :mod:`vision.hidden`'s hidden cubes, which that model
#: gives a pile as it fell from the tower: a spread tray hides fewer. On 63 spread tuning trays (the
#: shaken twins of seed 5404 and of 5405's first six clean piles, and the spread set 5403), 6 cubes
#: lay hidden where the model gives a pile 28.9: a fifth.
SPREAD_HIDDEN = 0.2
#: A read of a shaken tray keeps this share of the doubt the counter states (each count but its
#: likeliest, and what its alternatives leave out): a spread tray is read right more often than the
#: counter, which cannot tell a spread tray from a pile, says. Fitted by likelihood on the 42 shaken
#: twins of tuning seeds 5409 and 5414 (piles): 39 read right at a mean stated 0.84; the truth was
#: likeliest at a half (0.92 stated then), each seed alone between 0.4 and 0.6.
SPREAD_DOUBT = 0.5
#: Hidden cubes of one colour weighed beyond what a read saw (the model gives 4 in a tray of 45 at most).
MOST_HIDDEN = 5
#: A colour's counts whose joined weight is below this share of the colour's are not enumerated.
NEGLIGIBLE = 1e-4


def named_counts(read: TrayReading, colour: str) -> dict[int, float]:
    """The counts of ``colour`` the read names with their probabilities: its alternatives, or the
    count it read, sure, where the colour is not in doubt."""
    return {int(n): float(p) for n, p in read.alternatives.get(colour) or [(read.cubes.get(colour, 0), 1.0)]}


def spread_named(named: dict[int, float]) -> dict[int, float]:
    """A shaken tray's read of one colour, as sure as such reads are right: every count but the
    likeliest keeps :data:`SPREAD_DOUBT` of its probability, the likeliest takes the rest."""
    top = max(named, key=lambda n: named[n])
    rest = {n: p for n, p in named.items() if n != top}
    return {top: named[top] + (1.0 - SPREAD_DOUBT) * sum(rest.values())} | {n: p * SPREAD_DOUBT for n, p in rest.items()}


def sight_chance(read: TrayReading, colour: str, in_tray: int, spread: bool = False) -> float:
    """P(the read saw what it saw of ``colour`` | the tray holds ``in_tray`` cubes of it): each
    count the read may have seen, times the chance that the rest lie hidden. A tray spread by a
    shake (``spread``) hides fewer cubes (:data:`SPREAD_HIDDEN`), and its read is surer than the
    counter says (:data:`SPREAD_DOUBT`, of the alternatives and of what they leave out)."""
    named = named_counts(read, colour)
    floor = max(1.0 - float(read.alternatives_cover), FLOOR)
    seen = sum(read.cubes.values())
    mean = colour_hidden_mean(read.cubes.get(colour, 0), seen)
    if spread:
        mean *= SPREAD_HIDDEN
        named = spread_named(named)
        floor = max(floor * SPREAD_DOUBT, FLOOR)
    chance = 0.0
    for hidden in range(min(in_tray, MOST_HIDDEN) + 1):
        saw = in_tray - hidden
        named_or_floor = named.get(saw, floor * FLOOR_DECAY ** (min(abs(saw - n) for n in named) - 1))
        chance += named_or_floor * hidden_count_chance(hidden, mean)
    return chance


#: The most tray contents weighed at once. Reads of one tray agree on most colours, so their join
#: weighs a few thousand (each colour a handful of counts); reads that disagree on every colour
#: (a hand in the way, a read of another tray) would multiply them past what memory and the page's
#: wait allow (the grid of contents is weighed at once: a million take about 0.1 s and 35 MB here).
#: Past this the least likely counts are dropped, colour by colour, and their weight is kept in the
#: whole as if every tray they make fitted the beam as well as any tray can: no share is overstated,
#: so a join so cut short can only be less sure, never more.
MOST_TRAYS = 1_000_000


class JointChances(Sequence[tuple[float, dict[str, int]]]):
    """Every tray content the reads leave weight to, with its share, the likeliest first (as a
    sequence of ``(share, tray)``), and each colour's counts with their shares (:meth:`by_colour`).

    The contents are a grid, one axis a colour, weighed at once; a tray is named (a dict) only when
    it is asked for, so a join over many contents costs what the grid costs."""

    def __init__(self, colours: list[str], counts: list[npt.NDArray[np.int64]], shares: npt.NDArray[np.float64]) -> None:
        self.colours, self.counts = colours, counts
        flat = shares.ravel()
        kept = np.flatnonzero(flat > 0.0)
        self._order = kept[np.argsort(-flat[kept], kind="stable")]  # ties in the grid's order
        self._flat, self._shares = flat, shares

    def __len__(self) -> int:
        return len(self._order)

    @overload
    def __getitem__(self, i: int) -> tuple[float, dict[str, int]]: ...
    @overload
    def __getitem__(self, i: slice) -> list[tuple[float, dict[str, int]]]: ...

    def __getitem__(self, i: int | slice) -> tuple[float, dict[str, int]] | list[tuple[float, dict[str, int]]]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        flat = int(self._order[i])
        cell = np.unravel_index(flat, self._shares.shape)
        return float(self._flat[flat]), {c: int(n[k]) for c, n, k in zip(self.colours, self.counts, cell, strict=True)}

    def by_colour(self) -> dict[str, dict[int, float]]:
        """Each colour's counts with the share of the trays that hold them (counts of no weight
        left out)."""
        out: dict[str, dict[int, float]] = {}
        for axis, (colour, counts) in enumerate(zip(self.colours, self.counts, strict=True)):
            others = tuple(a for a in range(len(self.colours)) if a != axis)
            marginal = self._shares.sum(axis=others) if others else self._shares
            out[colour] = {int(n): float(w) for n, w in zip(counts, marginal, strict=True) if w > 0.0}
        return out


def joint_chances(reads: Sequence[TrayReading], beam: int | None, clump: float, dropped: dict[str, int],
                  tower_before: dict[str, int] | None,
                  spread: Sequence[bool] | None = None) -> JointChances:
    """Every tray content the reads together leave weight to, with its share of the weight, the
    likeliest first (empty where none fits the beam and the ledger). ``spread``: for each read,
    whether it was made after a shake (none, where not given). Each colour's counts are
    weighed apart (the reads' sights and the hidden cubes factor by colour), then put together
    with the beam, which sees only the total (at most :data:`MOST_TRAYS` contents)."""
    colours = sorted(set().union(*(r.cubes for r in reads)))
    spread = list(spread) if spread is not None else [False] * len(reads)
    per_colour: list[list[tuple[int, float]]] = []
    for colour in colours:
        counts = {n for r in reads for named in named_counts(r, colour) for n in range(max(named - 1, 0), named + 4)}
        weights = {n: math.prod(sight_chance(r, colour, n, s) for r, s in zip(reads, spread, strict=True))
                   for n in sorted(counts)
                   if not ledger_faults({colour: n}, dropped, tower_before)}
        total = sum(weights.values())
        if total <= 0.0:
            return JointChances([], [], np.zeros(0))
        per_colour.append([(n, w / total) for n, w in weights.items() if w / total >= NEGLIGIBLE])
    lo = sum(min(n for n, _ in choice) for choice in per_colour)
    hi = sum(max(n for n, _ in choice) for choice in per_colour)
    likelihood = np.array([beam_likelihood(beam, t, clump) if beam is not None else 1.0 for t in range(lo, hi + 1)])
    per_colour, dropped_weight = _at_most(per_colour, MOST_TRAYS)
    counts_of = [np.array([n for n, _ in choice], np.int64) for choice in per_colour]
    grid: npt.NDArray[np.float64] = np.ones(())
    totals: npt.NDArray[np.int64] = np.zeros((), np.int64)
    for choice, axis in zip(per_colour, counts_of, strict=True):  # the colours' weights multiplied in order
        grid = grid[..., None] * np.array([w for _, w in choice])
        totals = totals[..., None] + axis
    grid = grid * likelihood[totals - lo]
    # the trays dropped to keep the grid small, weighed as if they fitted the beam as well as any could
    norm = float(grid.sum()) + dropped_weight * float(likelihood.max())
    if norm <= 0.0:
        return JointChances([], [], np.zeros(0))
    return JointChances(colours, counts_of, grid / norm)


def _at_most(per_colour: list[list[tuple[int, float]]], most: int) -> tuple[list[list[tuple[int, float]]], float]:
    """Each colour's counts, its least likely ones dropped (the least likely of all first, a colour
    keeping one at least) until the trays they make are at most ``most``; and the weight of the
    trays so dropped, out of the whole's 1."""
    kept = [sorted(choice, key=lambda c: -c[1]) for choice in per_colour]
    while math.prod(len(k) for k in kept) > most:
        colour = min((i for i, k in enumerate(kept) if len(k) > 1), key=lambda i: kept[i][-1][1])
        kept[colour].pop()
    if all(len(k) == len(c) for k, c in zip(kept, per_colour, strict=True)):
        return per_colour, 0.0
    whole = math.prod(sum(w for _, w in c) for c in per_colour)
    left = math.prod(sum(w for _, w in k) for k in kept)
    return [sorted(k) for k in kept], whole - left
