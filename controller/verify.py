"""Is a tray reading fit to decide a battle?

A wrong count decides a battle wrongly, and a battle cannot be dropped again, so a reading is only
used when nothing speaks against it: the frame is usable, the counter is confident, no colour shows
more cubes than could have come out of the tower (what was dropped plus what the ledger says was
inside), and, where the tray board has a break-beam, its count of falling cubes agrees with the
camera's total. On any doubt the cycle re-reads (a hand may have moved away, a cube may have
settled), shakes the tray with the vibration motor where there is one (a cube lying on another is
hidden), and finally asks the host to confirm or correct the counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.readers import Observation

MIN_CONFIDENCE = 0.8
#: How many reads before the host is asked: first read, a re-read, then one after shaking the tray.
MAX_READS = 3


def doubts(obs: Observation, dropped: dict[str, int], tower_before: dict[str, int] | None,
           beam: int | None, funnel_left: dict[str, int] | None = None) -> list[str]:
    """Every reason not to trust ``obs`` as the tray after this drop (empty: trust it).

    ``funnel_left``: what the station can see still lying in the funnel (``None``: it cannot see;
    a real funnel cannot, a simulated one can)."""
    found = []
    if not obs.usable:
        found.append(f"the frame is unusable: {obs.reason or 'no reason given'}")
        return found
    if obs.confidence < MIN_CONFIDENCE:
        found.append(f"the counter is unsure (confidence {obs.confidence:.2f}): {obs.reason or 'no reason given'}")
    if not obs.settled:
        found.append("the tray did not settle before the timeout")
    if tower_before is not None:
        for colour, n in sorted(obs.cubes.items()):
            possible = dropped.get(colour, 0) + tower_before.get(colour, 0)
            if n > possible:
                found.append(f"{n} {colour} read, but only {possible} could have come out "
                             f"({dropped.get(colour, 0)} dropped + {tower_before.get(colour, 0)} inside)")
    total = sum(obs.cubes.values())
    if beam is not None and beam != total:
        found.append(f"the break-beam counted {beam} cubes falling but the camera sees {total}")
    if funnel_left:
        found.append(f"the trapdoor jammed: {sum(funnel_left.values())} cubes are still in the funnel")
    elif funnel_left is None and dropped and beam is not None and beam == 0 and total == 0:
        # every cube can stay inside the tower, but on a station that cannot see its funnel a jam
        # looks the same: the host looks
        found.append("nothing came out: the trapdoor may have jammed with the cubes still in the funnel")
    return found


@dataclass
class VerifiedReading:
    observation: Observation
    doubts: list[str]
    earlier: list[Observation] = field(default_factory=list)  # the reads before the last, kept as evidence
    attempts: list[dict[str, Any]] = field(default_factory=list)

    @property
    def trusted(self) -> bool:
        return not self.doubts


def read_verified(reader: Any, board: Any, tag: str, dropped: dict[str, int],
                  tower_before: dict[str, int] | None, funnel_left: Any = None) -> VerifiedReading:
    """Read the tray until a reading is beyond doubt, at most :data:`MAX_READS` times.

    ``funnel_left``: a callable returning what still lies in the funnel, where the station can see it."""
    beam = None
    if board is not None:
        try:
            beam = int(board.beam_count())
        except OSError:
            beam = None  # a board that cannot answer gives no cross-check; the camera still decides
    attempts: list[dict[str, Any]] = []
    earlier: list[Observation] = []
    obs = None
    found: list[str] = []
    for attempt in range(1, MAX_READS + 1):
        if attempt == MAX_READS and board is not None:
            try:
                board.vibrate(0.5)
                attempts.append({"action": "vibrate", "seconds": 0.5})
            except OSError as exc:
                attempts.append({"action": "vibrate", "error": str(exc)})
        if obs is not None:
            earlier.append(obs)
        obs = reader.read(f"{tag}-{attempt}" if attempt > 1 else tag)
        found = doubts(obs, dropped, tower_before, beam, funnel_left() if funnel_left is not None else None)
        attempts.append({"read": attempt, "cubes": obs.as_dict()["cubes"], "doubts": found})
        if not found:
            break
    assert obs is not None
    return VerifiedReading(obs, found, attempts=attempts, earlier=earlier)
