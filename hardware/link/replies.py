"""The tray board's replies in host units: its ``STATUS`` and its ``RELEASE_COUNT``.

``BoardLink.request`` hands back a command's result as a ``Result``, keyed by the field names of the
command's row in ``firmware.tray_protocol.COMMANDS``; the two replies the host reasons about get a
type of their own here, read from those names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from firmware import tray_protocol as tp

Result = dict[str, Any]  # a command's OK result by field name (int values; HELLO's firmware name is str)


@dataclass(frozen=True)
class BoardStatus:
    """The board's ``STATUS`` reply in host units."""

    releasing: bool
    vibrating: bool
    servo_attached: bool
    session: bool
    safe_tripped: bool
    servo_angle: float | None
    leds: float
    beam_count: int
    releases: int
    uptime_s: float
    safe_trips: int
    faults: int = 0
    faulted: bool = False  # a fault happened on the board since the last STATUS

    @classmethod
    def from_result(cls, r: Result) -> BoardStatus:
        flags = r["flags"]
        return cls(
            releasing=bool(flags & tp.FLAG_RELEASING),
            vibrating=bool(flags & tp.FLAG_VIBRATING),
            servo_attached=bool(flags & tp.FLAG_SERVO_ATTACHED),
            session=bool(flags & tp.FLAG_SESSION),
            safe_tripped=bool(flags & tp.FLAG_SAFE),
            servo_angle=None if r["servo_cdeg"] == 0xFFFF else r["servo_cdeg"] / 100,
            leds=r["leds"] / 1000,
            beam_count=r["beam_count"],
            releases=r["releases"],
            uptime_s=r["uptime_ms"] / 1000,
            safe_trips=r["safe_trips"],
            faults=r["faults"],
            faulted=bool(flags & tp.FLAG_FAULT),
        )


@dataclass(frozen=True)
class ReleaseCount:
    """The board's ``RELEASE_COUNT``: its own count of releases, and whether it survives a reset."""

    count: int
    boot_id: int
    since_boot: int
    persistent: bool
    releasing: bool

    @classmethod
    def from_result(cls, r: Result) -> ReleaseCount:
        return cls(count=r["count"], boot_id=r["boot_id"], since_boot=r["since_boot"],
                   persistent=bool(r["flags"] & tp.COUNT_PERSISTENT), releasing=bool(r["flags"] & tp.COUNT_RELEASING))
