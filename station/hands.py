"""The players' hands, as the drop cycle asks for them.

At a real table the players load the funnel and clear the tray; the station only tells them what to
do and then checks the tray, so its hands do nothing (``NoHands``) and it cannot see into the
funnel (``funnel_contents`` is ``None``: unknown). On a simulated station nobody is there, and
``simulation.hands.SimHands`` plays them on the simulated world.
"""

from __future__ import annotations

from typing import Protocol


class Hands(Protocol):
    """What the drop cycle asks of the players' hands (each call is safe to repeat after a crash)."""

    def load_funnel(self, drop: dict[str, int]) -> None:
        """Everything of the drop in the funnel, nothing left in the tray."""

    def clear_tray(self, remaining: dict[str, int]) -> None:
        """Take out of the tray everything but ``remaining``."""

    def fill_tray(self, target: dict[str, int]) -> None:
        """Put into the tray what it lacks of ``target``."""

    def empty_station(self) -> dict[str, int] | None:
        """Empty the funnel, the tray and the tower; what was taken out (``None``: not known)."""

    def funnel_contents(self) -> dict[str, int] | None:
        """What still lies in the funnel (``None``: the station cannot see into it)."""


class NoHands:
    """A real table's hands: the players' own, which the station neither moves nor sees."""

    def load_funnel(self, drop: dict[str, int]) -> None:
        return None

    def clear_tray(self, remaining: dict[str, int]) -> None:
        return None

    def fill_tray(self, target: dict[str, int]) -> None:
        return None

    def empty_station(self) -> dict[str, int] | None:
        return None

    def funnel_contents(self) -> dict[str, int] | None:
        return None
