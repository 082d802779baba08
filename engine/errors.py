"""The errors the engine raises for input that cannot describe a real battle.

Both inherit :class:`ValueError`, the builtin a caller would catch for bad values. Each carries a
one-sentence ``message`` a player understands and the ``field`` it concerns as a JSON path
(``$.attacker``, ``$.tray_after.blue``), or ``None`` when no single field is to blame; the
``tower plan``/``tower resolve`` commands print exactly these two as the error object.
"""

from __future__ import annotations


class BattleInputError(ValueError):
    """The battle as described is invalid (wrong shape, wrong type, or against the rules)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field

    def to_json(self) -> dict[str, str | None]:
        """The error object of the battle JSON contract."""
        return {"error": self.message, "field": self.field}


class ImpossibleReadingError(BattleInputError):
    """A tray reading (or a ledger update) that cannot be true: more cubes than can be there."""


def json_path(*parts: str | int) -> str:
    """The JSON path of a field, e.g. ``json_path("tray_after", "blue") == "$.tray_after.blue"``."""
    path = "$"
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path
