"""Simulated cube towers: what comes out when cubes are thrown in, and what stays stuck inside.

A real Wallenstein tower has ledges that hold some cubes back and release them in a later battle;
that memory is what makes the tower a fair random source. Three published descriptions of the
behaviour are modelled, each seeded by the caller's ``random.Random`` so that a simulated game can be
replayed exactly:

* ``spielbyweb``: every newly thrown cube comes out with probability 2/3 (else it sticks); every cube
  already stuck inside comes out with probability 1/3 per throw.
* ``wallenstein-online``: new cubes come out with 1/2, stuck cubes with 0.6 per throw.
* ``shelves``: two shelves one above the other. A cube reaching a shelf passes it with 0.85, else it
  stays on that shelf; every cube that passes a shelf knocks each cube stored on that shelf loose with
  probability 1/40, and a cube knocked loose falls on to the next shelf (or out).

Each model keeps the cubes inside per colour and round-trips through a JSON-able ``state()`` so that
the simulated world survives a restart. The long-run figures of each model are printed by
``bench/bench_tower_models.py``.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections import Counter
from typing import Any

TOWER_MODELS = ("spielbyweb", "wallenstein-online", "shelves")


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
        self.p_new = p_new
        self.p_stuck = p_stuck
        self.inside: Counter[str] = Counter()

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
    """Cubes fall past a stack of shelves; each shelf keeps some and is shaken loose by passing cubes."""

    def __init__(self, n_shelves: int = 2, p_pass: float = 0.85, p_knock: float = 1 / 40) -> None:
        self.name = "shelves"
        self.p_pass = p_pass
        self.p_knock = p_knock
        self.shelves: list[Counter[str]] = [Counter() for _ in range(n_shelves)]

    def drop(self, cubes: list[str], rng: random.Random) -> list[str]:
        falling = list(cubes)
        rng.shuffle(falling)  # the order in which cubes leave the funnel
        for shelf in self.shelves:
            below: list[str] = []
            for colour in falling:
                if rng.random() >= self.p_pass:
                    shelf[colour] += 1
                    continue
                below.append(colour)
                # This cube brushed past the shelf: each cube stored there may be knocked loose.
                for stored in sorted(shelf):
                    loose = sum(1 for _ in range(shelf[stored]) if rng.random() < self.p_knock)
                    if loose:
                        shelf[stored] -= loose
                        below.extend([stored] * loose)
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


def make_tower_model(name: str) -> TowerModel:
    """A fresh, empty tower of the named model."""
    if name == "spielbyweb":
        return TwoChanceTower(name, p_new=2 / 3, p_stuck=1 / 3)
    if name == "wallenstein-online":
        return TwoChanceTower(name, p_new=0.5, p_stuck=0.6)
    if name == "shelves":
        return ShelvesTower()
    raise ValueError(f"unknown tower model {name!r} (known: {', '.join(TOWER_MODELS)})")
