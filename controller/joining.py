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

import itertools
import math
from collections.abc import Sequence

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


def joint_chances(reads: Sequence[TrayReading], beam: int | None, clump: float, dropped: dict[str, int],
                  tower_before: dict[str, int] | None,
                  spread: Sequence[bool] | None = None) -> list[tuple[float, dict[str, int]]]:
    """Every tray content the reads together leave weight to, with its share of the weight, the
    likeliest first (empty where none fits the beam and the ledger). ``spread``: for each read,
    whether it was made after a shake (none, where not given). Each colour's counts are
    weighed apart (the reads' sights and the hidden cubes factor by colour), then put together
    with the beam, which sees only the total."""
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
            return []
        per_colour.append([(n, w / total) for n, w in weights.items() if w / total >= NEGLIGIBLE])
    trays = []
    for choice in itertools.product(*per_colour):
        weight = math.prod(w for _, w in choice)
        if beam is not None:
            weight *= beam_likelihood(beam, sum(n for n, _ in choice), clump)
        if weight > 0.0:
            trays.append((weight, {c: n for c, (n, _) in zip(colours, choice, strict=True)}))
    norm = sum(w for w, _ in trays)
    return sorted(((w / norm, tray) for w, tray in trays), key=lambda t: -t[0])
