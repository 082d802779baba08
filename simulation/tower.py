"""Simulated cube towers: what comes out when cubes are thrown in, and what stays stuck inside.

A real Wallenstein tower has ledges that hold some cubes back and release them in a later battle;
that memory is what makes the tower a fair random source. The models themselves (the published
``spielbyweb``, ``wallenstein-online`` and ``shelves`` towers) live in :mod:`towermodel`, where the
odds before a drop and the fit to a station's drops use the very same code; this module is the
simulated station's name for them. Each tower is seeded by the caller's ``random.Random`` so that a
simulated game can be replayed exactly, and round-trips through a JSON-able ``state()``. The
long-run figures of each model are printed by ``bench/bench_tower_models.py``.
"""

from __future__ import annotations

from towermodel.tower import TOWER_MODELS, ShelvesTower, TowerModel, TwoChanceTower, make_tower_model

__all__ = ["TOWER_MODELS", "ShelvesTower", "TowerModel", "TwoChanceTower", "make_tower_model"]
