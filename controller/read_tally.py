"""How the station read the tray in play: each drop on record by how its tray was settled.

The counter's targets (issue 9: at least 90 % of trays acted on without asking, and not one acted
on wrongly) were measured on renders. A station in use keeps the same figures in its records: a
drop whose reading was resolved with no host's word before it was acted on without asking (as
read, after shaking the tray, or with the break-beam and the ledger choosing among the counter's
alternatives); a drop with a host's answer, confirmation or correction before its resolution was
asked about; and a correction after the resolution is a tray the station acted on that the host
then changed: the nearest thing to a silent error a station can see (the host may also have
corrected a right tray by mistake, so it is named, not judged).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.droplog import drop_outcome, records_by_drop
from controller.records import Record

AS_READ = "as read"
AFTER_SHAKING = "after shaking the tray"
WITH_BEAM = "with the break-beam and the ledger"
ASKED = "asked the host"
HOW = (AS_READ, AFTER_SHAKING, WITH_BEAM, ASKED)
"""How a drop's tray was settled, in the order a tally prints them (the first three: without asking)."""


@dataclass(frozen=True)
class DropRead:
    """One resolved drop: how its tray was settled, how many photos the station read for it (the
    last reading's reads), and where the host changed the tray after the station had acted on it,
    the counts before and after that change."""

    drop_id: int
    how: str
    reads: int
    corrected_after: tuple[dict[str, int], dict[str, int]] | None = None


@dataclass
class ReadTally:
    drops: list[DropRead] = field(default_factory=list)

    def count(self, how: str) -> int:
        return sum(1 for d in self.drops if d.how == how)

    @property
    def without_asking(self) -> int:
        return sum(1 for d in self.drops if d.how != ASKED)

    @property
    def corrected_after(self) -> list[DropRead]:
        return [d for d in self.drops if d.corrected_after is not None]

    @property
    def reads_mean(self) -> float:
        """Photos read per drop on average (each shake costs one more, and seconds at the table)."""
        return sum(d.reads for d in self.drops) / len(self.drops) if self.drops else 0.0

    @property
    def reads_most(self) -> int:
        return max((d.reads for d in self.drops), default=0)

    def to_json(self) -> dict[str, Any]:
        return {"drops": len(self.drops), "without_asking": self.without_asking,
                "by_how": {how: self.count(how) for how in HOW},
                "reads_mean": round(self.reads_mean, 2), "reads_most": self.reads_most,
                "corrected_after": [{"drop_id": d.drop_id, "before": d.corrected_after[0], "after": d.corrected_after[1]}
                                    for d in self.corrected_after if d.corrected_after is not None]}


def read_tally(records: list[Record], session: int | None = None) -> ReadTally:
    """Every resolved drop on record (of one session, or of all), by how its tray was settled.
    Drops cancelled, never read or never resolved are left out: the station acted on nothing there."""
    tally = ReadTally()
    for drop_id, kept in sorted(records_by_drop(records, session).items()):
        drop = drop_outcome(kept)
        if not drop.settled:
            continue
        reading = drop.reading or {}
        attempts = reading.get("attempts") or []
        reads = max(1, sum(1 for a in attempts if "read" in a))
        if drop.asked:
            how = ASKED
        elif (reading.get("reconciliation") or {}).get("cubes") is not None:
            how = WITH_BEAM
        elif any(a.get("action") == "vibrate" for a in attempts):
            how = AFTER_SHAKING
        else:
            how = AS_READ
        changes = drop.changes
        changed = (changes[0][0], changes[-1][1]) if changes and changes[0][0] != changes[-1][1] else None
        tally.drops.append(DropRead(drop_id, how, reads, changed))
    return tally
