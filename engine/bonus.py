"""The two bonus tiles that matter in battle.

After the auction for player order each player holds one bonus tile for the round. "+1 army when
attacking" and "+1 army when defending" add one cube from the holder's own supply to the drop, but
only in an attack (the Combat/Movement A or B actions): they do nothing in a revolt, where the
peasants are the aggressor and no movement action is involved.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BonusTiles:
    """Who holds the combat bonus tiles this round (``None``: nobody, e.g. fewer than 5 players)."""

    attack_plus_one: str | None = None
    defence_plus_one: str | None = None

    def attack_bonus(self, attacker: str) -> int:
        """Extra armies ``attacker`` drops when attacking: 1 if they hold "+1 army when attacking"."""
        return 1 if self.attack_plus_one == attacker else 0

    def defence_bonus(self, defender: str | None) -> int:
        """Extra armies a defending player drops: 1 if they hold "+1 army when defending".

        A neutral county (``defender is None``) has no owner to hold the tile.
        """
        return 1 if defender is not None and self.defence_plus_one == defender else 0
