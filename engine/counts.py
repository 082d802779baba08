"""Count maps: ``{colour: number of cubes}``, the currency of every drop.

The battle JSON treats a missing colour as 0 and lists only non-zero entries; these helpers keep
that convention in one place and return plain dicts in palette order so that outputs read the same
way every time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from engine.colours import PALETTE

Counts = Mapping[str, int]
"""A read-only count map; missing colours mean 0."""


def _ordered(colours: Iterable[str]) -> list[str]:
    present = set(colours)
    known = [c for c in PALETTE if c in present]
    return known + sorted(present - set(PALETTE))


def nonzero(counts: Counts) -> dict[str, int]:
    """The entries of ``counts`` that are not 0, in palette order (the output convention)."""
    return {c: counts[c] for c in _ordered(counts) if counts[c] != 0}


def add(*maps: Counts) -> dict[str, int]:
    """The colour-wise sum of ``maps``, non-zero entries only."""
    total: dict[str, int] = {}
    for m in maps:
        for colour, n in m.items():
            total[colour] = total.get(colour, 0) + n
    return nonzero(total)


def subtract(a: Counts, b: Counts) -> dict[str, int]:
    """``a - b`` colour by colour; entries may be negative (the tower delta needs that)."""
    return add(a, {c: -n for c, n in b.items()})


def get(counts: Counts, colour: str) -> int:
    """The count of ``colour`` in ``counts`` (0 when missing)."""
    return counts.get(colour, 0)


def total(counts: Counts) -> int:
    """The number of cubes in ``counts``."""
    return sum(counts.values())
