"""Reading the tray until a reading is beyond doubt: read again, shake the tray, ask the host.

Each read is judged by :func:`controller.verify.assess`. A doubt a still tray keeps (the counter's
own "6 or 7", a cube hidden in the pile) has the tray shaken at once with the tray board's
vibration motor, where there is one, and read again: a spread tray is the kind the counter reads
best, and reading a pile again where it lies reads the same. A read after such a shake is used
only where the read before it allowed it too. Other doubts (a hand that may have moved away, a cube
still settling) are read again as the tray lies, then after a shake. What is still in doubt after
that is the host's, asked only about the colours in doubt where that is all that is open
(``docs/controller.md``, *Shaking before asking*).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.verify import Assessment, Reconciliation, assess, question_text
from hardware.config import DEFAULT_BEAM_CLUMP
from vision.reading import TrayReading

#: How many reads before the host is asked: first read, a re-read, then one after shaking the tray.
MAX_READS = 3
#: How long the vibration motor runs to spread a pile before the tray is read again.
SHAKE_SECONDS = 0.5


@dataclass
class VerifiedReading:
    observation: TrayReading
    doubts: list[str]
    earlier: list[TrayReading] = field(default_factory=list)  # the reads before the last, kept as evidence
    attempts: list[dict[str, Any]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # the tray to resolve with (reconciled)
    reconciliation: Reconciliation | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def trusted(self) -> bool:
        return not self.doubts

    @property
    def question(self) -> dict[str, list[int]]:
        return self.reconciliation.question if self.reconciliation is not None and self.doubts else {}




def shaking_may_settle(verdict: Assessment) -> bool:
    """Whether a still tray cannot settle this read's doubt, but a shaken one may: the counter's
    own "6 or 7" alone (a pile read again where it lies reads the same), or a cube hidden under
    others. Shaking spreads the pile: cubes lying on others drop beside it, touching faces part,
    and the spread tray is the kind the counter reads best (on the tuning renders of the shared
    set, every shaken tray read right and three in four were trusted, against 86 % and 43 % of
    trays straight from the tower: ``docs/controller.md``, *Shaking before asking*)."""
    rec = verdict.reconciliation
    return rec is not None and (rec.beam_too_high or only_the_counters_question(verdict))


def only_the_counters_question(verdict: Assessment) -> bool:
    """Whether the one doubt left is the counter's "6 or 7" (no cube hidden, nothing else wrong)."""
    rec = verdict.reconciliation
    return rec is not None and not rec.beam_too_high and bool(rec.question) and len(verdict.doubts) == 1


def contradicts(before: Assessment, counts: dict[str, int]) -> dict[str, list[int]]:
    """The colours where ``counts`` (a read after shaking) is none of the counts the read before
    the shake left possible: for a colour it doubted, any count of a combination that still fitted;
    for the others, what it read. Empty where the two reads agree. Both reads are of the same cubes,
    so a disagreement means one of them is wrong: the host settles it, asked about those colours."""
    rec = before.reconciliation
    fitting = [c["counts"] for c in rec.candidates if c["out"] is None] if rec is not None else []
    out = {}
    for colour in sorted(set(counts) | set(before.counts)):
        now = counts.get(colour, 0)
        if fitting and colour in fitting[0]:
            possible = {c[colour] for c in fitting}
        else:
            possible = {before.counts.get(colour, 0)}
        if now not in possible:
            out[colour] = sorted(possible | {now})
    return out


def checked_against(before: Assessment, after: Assessment, obs: TrayReading, beam: int | None,
                    clump: float) -> Assessment:
    """A read after shaking that has no doubt of its own (``after``), held against the read before
    the shake: used, with a note, where they agree; else a question about the colours they disagree
    on (:func:`contradicts`), nothing used without the host."""
    odd = contradicts(before, after.counts)
    if not odd:
        after.notes.append("read again after shaking the tray, as the read before it left open: "
                           + (before.doubts[0] if before.doubts else "its counter's doubt"))
        return after
    rec = after.reconciliation or Reconciliation("", [], beam, clump)
    rec.question, rec.cubes = odd, None
    rec.reason = ("the reads before and after shaking the tray disagree ("
                  + "; ".join(f"{' or '.join(map(str, n))} {colour}" for colour, n in odd.items()) + ")")
    sentence = rec.reason[0].upper() + rec.reason[1:]
    return Assessment([f"{question_text(odd)} {sentence}."], dict(obs.cubes), rec, after.notes)


def read_verified(reader: Any, board: Any, tag: str, dropped: dict[str, int],
                  tower_before: dict[str, int] | None, funnel_left: Any = None, *,
                  clump: float = DEFAULT_BEAM_CLUMP) -> VerifiedReading:
    """Read the tray until a reading is beyond doubt, at most :data:`MAX_READS` times.

    A doubt a still tray keeps (:func:`shaking_may_settle`) has the tray shaken at once, where
    there is a tray board, and read again; a read after shaking is used only where the one before
    it allowed it too (:func:`contradicts`). Other doubts are read again as the tray lies (a hand
    may have moved away, a cube may have settled), then after a shake.

    ``funnel_left``: a callable returning what still lies in the funnel, where the station can see it."""
    beam = None
    if board is not None:
        try:
            beam = int(board.beam_count())
        except OSError:
            beam = None  # a board that cannot answer gives no cross-check; the camera still decides
    attempts: list[dict[str, Any]] = []
    earlier: list[TrayReading] = []
    obs = None
    verdict: Assessment | None = None
    before_shake: Assessment | None = None  # the read before a shake meant to settle the counter's doubt
    shaken = False
    can_shake = board is not None
    for attempt in range(1, MAX_READS + 1):
        if can_shake and verdict is not None and (
                attempt == MAX_READS or (not shaken and shaking_may_settle(verdict))):
            try:
                board.vibrate(SHAKE_SECONDS)
                attempts.append({"action": "vibrate", "seconds": SHAKE_SECONDS})
                shaken = True
                if before_shake is None and only_the_counters_question(verdict):
                    before_shake = verdict
            except OSError as exc:
                attempts.append({"action": "vibrate", "error": str(exc)})
                can_shake = False
                if only_the_counters_question(verdict):
                    break  # the tray cannot be spread, and a still tray reads the same: ask now
        if obs is not None:
            earlier.append(obs)
        obs = reader.read(f"{tag}-{attempt}" if attempt > 1 else tag)
        verdict = assess(obs, dropped, tower_before, beam, funnel_left() if funnel_left is not None else None,
                         clump=clump)
        if before_shake is not None and not verdict.doubts:
            verdict = checked_against(before_shake, verdict, obs, beam, clump)
        entry: dict[str, Any] = {"read": attempt, "cubes": obs.to_record()["cubes"], "doubts": verdict.doubts}
        if verdict.reconciliation is not None:
            entry["reconciliation"] = verdict.reconciliation.as_dict()
        attempts.append(entry)
        if not verdict.doubts:
            break
        if only_the_counters_question(verdict) and (shaken or not can_shake):
            break  # only the counter's 6-or-7 is open and a shake could not settle it: ask now
    assert obs is not None and verdict is not None
    return VerifiedReading(obs, verdict.doubts, attempts=attempts, earlier=earlier, counts=verdict.counts,
                           reconciliation=verdict.reconciliation, notes=verdict.notes)
