"""The drop log of ``spec/tower-model.md``: one line per drop of one tower that was empty before the
first line, ``{"dropped": {...}, "came_out": {...}}``; other keys on a line are allowed and ignored.

:func:`parse_drop_log` checks the log as a whole (a line whose ``came_out`` holds more of a colour
than was dropped plus was inside the tower is an error naming the line) and returns the drops with
the tower's contents before each, which is what the models need.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


class DropLogError(ValueError):
    """A drop log that cannot be read or cannot be true; the message names the line."""


@dataclass(frozen=True)
class Drop:
    """One drop: what was thrown in, what was inside before, what came out (per colour)."""

    dropped: dict[str, int]
    inside: dict[str, int]
    came_out: dict[str, int]

    @property
    def total_dropped(self) -> int:
        return sum(self.dropped.values())

    @property
    def total_inside(self) -> int:
        return sum(self.inside.values())

    @property
    def total_out(self) -> int:
        return sum(self.came_out.values())


def _count_map(value: Any, line: int, key: str) -> dict[str, int]:
    if not isinstance(value, dict):
        raise DropLogError(f"line {line}: '{key}' must be an object of colour counts")
    out: dict[str, int] = {}
    for colour, n in value.items():
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise DropLogError(f"line {line}: '{key}.{colour}' must be a whole number >= 0 (got {n!r})")
        if n:
            out[str(colour)] = n
    return out


def drops_from_lines(entries: Iterable[dict[str, Any]]) -> list[Drop]:
    """The drops of a log given as parsed lines (1-based line numbers in errors)."""
    inside: dict[str, int] = {}
    drops: list[Drop] = []
    for line, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict):
            raise DropLogError(f"line {line}: a drop is a JSON object with 'dropped' and 'came_out'")
        for key in ("dropped", "came_out"):
            if key not in entry:
                raise DropLogError(f"line {line}: '{key}' is missing")
        dropped = _count_map(entry["dropped"], line, "dropped")
        came_out = _count_map(entry["came_out"], line, "came_out")
        for colour, n in came_out.items():
            there = dropped.get(colour, 0) + inside.get(colour, 0)
            if n > there:
                raise DropLogError(f"line {line}: {n} {colour} came out but only {there} were dropped or inside the tower")
        drops.append(Drop(dropped, dict(inside), came_out))
        for colour in set(dropped) | set(inside):
            left = inside.get(colour, 0) + dropped.get(colour, 0) - came_out.get(colour, 0)
            if left:
                inside[colour] = left
            else:
                inside.pop(colour, None)
    return drops


def parse_drop_log(text: str) -> list[Drop]:
    """The drops of a JSON Lines drop log; blank lines are skipped (but counted in line numbers)."""
    entries: list[dict[str, Any]] = []
    numbers: list[int] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            entries.append(json.loads(raw))
        except json.JSONDecodeError as exc:
            raise DropLogError(f"line {number}: not valid JSON ({exc.msg})") from None
        numbers.append(number)
    try:
        return drops_from_lines(entries)
    except DropLogError as exc:  # name the line of the file, not the index among non-blank lines
        message = str(exc)
        index = int(message.split(":")[0].removeprefix("line ")) - 1
        raise DropLogError(f"line {numbers[index]}:{message.split(':', 1)[1]}") from None


def drop_log_lines(drops: Iterable[tuple[dict[str, int], dict[str, int]]], extra: Iterable[dict[str, Any]] | None = None
                   ) -> list[str]:
    """``(dropped, came_out)`` pairs as drop log lines, each with optional extra keys."""
    extras = list(extra) if extra is not None else None
    lines = []
    for k, (dropped, came_out) in enumerate(drops):
        entry: dict[str, Any] = {"dropped": {c: n for c, n in dropped.items() if n},
                                 "came_out": {c: n for c, n in came_out.items() if n}}
        if extras is not None:
            entry.update(extras[k])
        lines.append(json.dumps(entry))
    return lines
