"""The tower ledger: which cubes are inside the tower, and which tray readings can be true.

The tower is never emptied during a game, so from the initial fill on (the tower starts empty)
its contents are known exactly: after every drop ``inside += dropped - came_out`` colour by
colour. That knowledge also rejects readings no tower could produce: a colour can never show more
cubes in the tray than exist in the game, nor (when the tower's contents are known) more than were
dropped plus were inside, nor more than the cubes of that colour not known to be somewhere else
(a supply, the county an attacker left).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from engine.colours import cubes_in_game
from engine.counts import Counts, add, get, nonzero, subtract
from engine.errors import ImpossibleReadingError, json_path


def check_reading(
    dropped: Counts,
    tray_after: Counts,
    tower_before: Counts | None = None,
    elsewhere: Counts | None = None,
) -> None:
    """Raise :class:`ImpossibleReadingError` naming the colour if ``tray_after`` cannot be true.

    ``tower_before``: the tower's contents before the drop, if known. ``elsewhere``: cubes known
    not to be in the tower or tray (the supplies after the drop, armies left in a county).
    """
    for colour in sorted(tray_after):
        seen = tray_after[colour]
        field_path = json_path("tray_after", colour)
        exist = cubes_in_game(colour)
        if seen > exist:
            raise ImpossibleReadingError(
                f"the reading shows {seen} {colour} cubes in the tray, but only {exist} exist in the game",
                field_path,
            )
        if tower_before is not None and seen > get(dropped, colour) + get(tower_before, colour):
            raise ImpossibleReadingError(
                f"the reading shows {seen} {colour} cubes in the tray, but only {get(dropped, colour)} "
                f"{'was' if get(dropped, colour) == 1 else 'were'} dropped and {get(tower_before, colour)} "
                f"{'was' if get(tower_before, colour) == 1 else 'were'} inside the tower",
                field_path,
            )
        away = get(elsewhere, colour) if elsewhere is not None else 0
        if seen > exist - away:
            raise ImpossibleReadingError(
                f"the reading shows {seen} {colour} cubes in the tray, but {away} of the {exist} "
                f"{colour} cubes are known to be in a supply or a county",
                field_path,
            )


@dataclass(frozen=True)
class TowerLedger:
    """The cubes inside the tower per colour, exact from the initial fill on."""

    inside: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for colour, n in self.inside.items():
            if n < 0:
                raise ImpossibleReadingError(
                    f"the tower cannot hold a negative number of {colour} cubes ({n})",
                    json_path("tower_before", colour),
                )
            if n > cubes_in_game(colour):
                raise ImpossibleReadingError(
                    f"the tower cannot hold {n} {colour} cubes: only {cubes_in_game(colour)} exist",
                    json_path("tower_before", colour),
                )
        object.__setattr__(self, "inside", MappingProxyType(nonzero(self.inside)))

    @classmethod
    def empty(cls) -> TowerLedger:
        """The tower before the initial fill."""
        return cls({})

    def check(self, dropped: Counts, tray_after: Counts) -> None:
        """Raise :class:`ImpossibleReadingError` if ``tray_after`` cannot follow ``dropped``."""
        check_reading(dropped, tray_after, tower_before=self.inside)

    def after_drop(self, dropped: Counts, tray_after: Counts) -> TowerLedger:
        """The ledger once ``dropped`` went in and ``tray_after`` came out (checked first)."""
        self.check(dropped, tray_after)
        return TowerLedger(add(self.inside, subtract(dropped, tray_after)))

    def to_json(self) -> dict[str, int]:
        """The tower's contents as a count map."""
        return dict(self.inside)
