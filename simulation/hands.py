"""The players' hands on a simulated station.

At a real table the players load the funnel and clear the tray; the station only tells them what to
do and then checks the tray. On a simulated station nobody is there, so ``SimHands`` plays the
hands on the simulated world. Each moves the world towards a target state computed from what the
world holds now, so calling one again after a crash (half done or done) never moves a cube twice.
"""

from __future__ import annotations

from simulation.world import SimWorld


def _diff(have: dict[str, int], want: dict[str, int]) -> tuple[dict[str, int], dict[str, int]]:
    """(what to add, what to take away) to turn ``have`` into ``want``."""
    add = {c: want.get(c, 0) - have.get(c, 0) for c in set(have) | set(want)}
    return ({c: n for c, n in add.items() if n > 0}, {c: -n for c, n in add.items() if n < 0})


class SimHands:
    """The players' hands on the simulated world (``station.hands.Hands``)."""

    def __init__(self, sim: SimWorld) -> None:
        self.sim = sim

    def funnel_contents(self) -> dict[str, int] | None:
        """What still lies in the simulated funnel (a real station cannot see into its funnel)."""
        return self.sim.funnel_contents()

    def load_funnel(self, drop: dict[str, int]) -> None:
        """Everything of the drop in the funnel, nothing left in the tray (its cubes are part of the drop)."""
        tray = self.sim.tray_contents()
        if tray:
            self.sim.take_from_tray(tray)
        more, extra = _diff(self.sim.funnel_contents(), drop)
        if extra:
            raise RuntimeError(f"the simulated funnel holds cubes that are not part of the drop: {extra}")
        if more:
            self.sim.load_funnel(more)

    def clear_tray(self, remaining: dict[str, int]) -> None:
        """Take out of the tray everything but what should remain there (after a battle, or a court
        conversion: the target is the session's account of the tray, committed first)."""
        _, take = _diff(self.sim.tray_contents(), remaining)
        if take:
            self.sim.take_from_tray(take)

    def fill_tray(self, target: dict[str, int]) -> None:
        """Put into the tray what it lacks of ``target`` (armies a favor or bonus card places there
        from a supply); cubes already there are not placed again."""
        more, _ = _diff(self.sim.tray_contents(), target)
        if more:
            self.sim.add_to_tray(more)

    def empty_station(self) -> dict[str, int]:
        """Empty the funnel, the tray and the tower before a new game's initial fill."""
        return self.sim.empty_all()
