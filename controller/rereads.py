"""Reading the tray until a reading is beyond doubt: read again, shake the tray, ask the host.

Each read is judged by :func:`controller.verify.assess`. A doubt a still tray keeps (the counter's
own "6 or 7", a cube hidden in the pile) has the tray shaken at once with the tray board's
vibration motor, where there is one, and read again: a spread tray is the kind the counter reads
best, and reading a pile again where it lies reads the same. A read after such a shake is used
only where the reads before it allowed it too. One still unsure alone is used where it and the
read before it, the tray shaken between them, together leave no real doubt (:func:`joined`);
else the tray is shaken once more and read a third time. Other doubts (a hand that may have moved
away, a cube still settling) are read again as the tray lies, then after a shake. What is still in
doubt after that is the host's, asked only about the colours in doubt where that is all that is
open (``docs/controller.md``, *Shaking before asking*).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from controller.verify import (
    Assessment,
    Reconciliation,
    assess,
    combination_text,
    courtiers_in_doubt,
    question_text,
)
from hardware.config import DEFAULT_BEAM_CLUMP
from vision.reading import TrayReading

#: How many reads before the host is asked: the first, then a re-read or a read after shaking the
#: tray, then one after a shake.
MAX_READS = 3
#: How long the vibration motor runs to spread a pile before the tray is read again.
SHAKE_SECONDS = 0.5
#: Two reads, before and after a shake, settle a combination without the host only where together
#: they leave it at least this probable. A read settled by the beam and the ledger alone needs 99 %
#: of its alternatives' weight and at most 9 % left out of them (``controller.verify``), about 90 %
#: in all; this asks more, because it takes the two reads' errors as independent, which only a
#: tray that really moved between them makes plausible.
JOINT_BAR = 0.95
#: A cube patch after the shake lies where the read before saw one of its colour when their
#: centres are within this (mm): a read of the same cubes in the same places repeats the same errors.
UNMOVED_MM = 2.0
#: The two reads count as two looks only where at most this share of the patches after the shake
#: lies unmoved; a shake that left most of the pile where it was gives no second opinion.
UNMOVED_SHARE = 0.25


#: A read unsure only of the counter's own counts, kept to hold later reads against: its assessment
#: and what it saw.
Witness = tuple[Assessment, TrayReading]


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


def checked_against(witnesses: list[Witness], after: Assessment, obs: TrayReading, beam: int | None,
                    clump: float) -> Assessment:
    """A read after shaking that has no doubt of its own (``after``), held against the reads before
    it that were unsure only of the counter's own counts (``witnesses``, from the read before the
    first shake on): used, with a note, where each allowed it; else a question about the colours
    they disagree on (:func:`contradicts`), nothing used without the host."""
    odd: dict[str, list[int]] = {}
    for before, _ in witnesses:
        for colour, counts in contradicts(before, after.counts).items():
            odd[colour] = sorted(set(odd.get(colour, [])) | set(counts))
    if not odd:
        first = witnesses[0][0]
        after.notes.append("read again after shaking the tray, as the read before it left open: "
                           + (first.doubts[0] if first.doubts else "its counter's doubt"))
        return after
    rec = after.reconciliation or Reconciliation("", [], beam, clump)
    rec.question, rec.cubes = odd, None
    rec.reason = ("the reads before and after shaking the tray disagree ("
                  + "; ".join(f"{' or '.join(map(str, n))} {colour}" for colour, n in odd.items()) + ")")
    sentence = rec.reason[0].upper() + rec.reason[1:]
    return Assessment([f"{question_text(odd)} {sentence}."], dict(obs.cubes), rec, after.notes)


def unmoved_share(before: TrayReading, after: TrayReading) -> float | None:
    """The share of ``after``'s cube patches lying where ``before`` saw a patch of the same colour
    (within :data:`UNMOVED_MM`); None where either read has no cube patch to compare (a reader that
    gives no detections cannot show that the tray moved)."""
    then = [(d.colour, d.centre_mm) for d in before.detections if d.kind == "cube"]
    now = [(d.colour, d.centre_mm) for d in after.detections if d.kind == "cube"]
    if not then or not now:
        return None
    still = sum(any(c == colour and math.dist(p, q) <= UNMOVED_MM for c, q in then) for colour, p in now)
    return still / len(now)


def combination_chance(rec: Reconciliation, cubes: dict[str, int], whole: dict[str, int], cover: float,
                       after_evidence: bool) -> float:
    """P(the tray is ``whole``) by one read: its combination's share of the counter's weight (its
    ``prior`` times what its alternatives cover, ``cover``), or after the beam and the ledger (its
    ``posterior`` times what they leave to the alternatives, ``1 - left_out``); 0 where no
    combination of the read is ``whole``. ``cubes``: the read's own counts, which a combination
    completes."""
    for c in rec.candidates:
        if c["out"] is None and {**cubes, **c["counts"]} == whole:
            return float(c["posterior"]) * (1.0 - rec.left_out) if after_evidence else float(c["prior"]) * cover
    return 0.0


def joined(witnesses: list[Witness], after: Assessment, obs: TrayReading) -> Assessment:
    """A read after shaking that is still unsure alone (only the counter's question open), held
    with the read just before it: its likeliest combination is used without the host where the two
    together make it at least :data:`JOINT_BAR` probable, and every earlier read unsure only of its
    counts (``witnesses``) allowed it; else ``after`` is returned as it is.

    Two reads of a tray that moved between them err apart: the pile's doubts (a cube partly under
    another, touching faces) are gone from the spread tray, and a spread tray shaken again puts
    every cube somewhere new. Taking the two reads' errors as independent, ``p = p1 p2 / (p1 p2 +
    (1 - p1)(1 - p2))``: the chance both are right over the chance they agree, with each read's
    error all on one and the same rival (the worst case for the combination). The beam's evidence
    is counted once, in the later read (``p2``); ``p1`` is the earlier read's counter alone. Only
    where the tray visibly moved (:func:`unmoved_share`) are they two looks. The two are the last
    two, fixed beforehand: no choosing, after the fact, the pair that agrees best."""
    rec = after.reconciliation
    if rec is None or rec.best is None or rec.beam_too_high or not witnesses:
        return after
    still = unmoved_share(witnesses[-1][1], obs)
    if still is None or still > UNMOVED_SHARE:
        return after
    whole = dict(rec.best)
    # each earlier read's chance of it, the last of them p1
    chances = [combination_chance(w.reconciliation, o.cubes, whole, o.alternatives_cover, False)
               if w.reconciliation is not None else 0.0 for w, o in witnesses]
    if min(chances) <= 0.0:
        return after  # a read before left this combination out: the reads disagree
    p1 = chances[-1]
    p2 = combination_chance(rec, obs.cubes, whole, obs.alternatives_cover, True)
    if p2 <= 0.0 or courtiers_in_doubt(obs, whole):
        return after
    both = p1 * p2 / (p1 * p2 + (1.0 - p1) * (1.0 - p2))
    if both < JOINT_BAR:
        return after
    rec.cubes, rec.question = whole, {}
    rec.reason = (f"read as {combination_text({c: n for c, n in whole.items() if n})} by the last two reads "
                  f"together, the tray shaken between them ({both:.1%}; {p1:.0%} by the read before the shake, "
                  f"{p2:.0%} after it, {still:.0%} of the cubes unmoved)")
    return Assessment([], whole, rec, [*after.notes, f"reconciled without asking: {rec.reason}"])


def read_verified(reader: Any, board: Any, tag: str, dropped: dict[str, int],
                  tower_before: dict[str, int] | None, funnel_left: Any = None, *,
                  clump: float = DEFAULT_BEAM_CLUMP) -> VerifiedReading:
    """Read the tray until a reading is beyond doubt, at most :data:`MAX_READS` times.

    A doubt a still tray keeps (:func:`shaking_may_settle`) has the tray shaken at once, where
    there is a tray board, and read again; a read after shaking is used only where the reads before
    it allowed it too (:func:`contradicts`), and one still unsure alone only where it and the read
    before it together make its counts sure (:func:`joined`); else the tray is shaken once more
    and read a last time. Other doubts are read again as the tray lies (a hand may have moved away,
    a cube may have settled), then after a shake.

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
    # the read before a shake meant to settle the counter's doubt, and each read after it still
    # unsure only of its counts
    witnesses: list[Witness] = []
    shaken = False
    can_shake = board is not None
    for attempt in range(1, MAX_READS + 1):
        if can_shake and verdict is not None and (
                attempt == MAX_READS or (not shaken and shaking_may_settle(verdict))):
            try:
                board.vibrate(SHAKE_SECONDS)
                attempts.append({"action": "vibrate", "seconds": SHAKE_SECONDS})
                shaken = True
                if not witnesses and only_the_counters_question(verdict):
                    assert obs is not None
                    witnesses.append((verdict, obs))
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
        if witnesses and not verdict.doubts:
            verdict = checked_against(witnesses, verdict, obs, beam, clump)
        elif witnesses and only_the_counters_question(verdict):
            verdict = joined(witnesses, verdict, obs)
            if verdict.doubts:
                witnesses.append((verdict, obs))
        entry: dict[str, Any] = {"read": attempt, "cubes": obs.to_record()["cubes"], "doubts": verdict.doubts}
        if verdict.reconciliation is not None:
            entry["reconciliation"] = verdict.reconciliation.as_dict()
        attempts.append(entry)
        if not verdict.doubts:
            break
        if only_the_counters_question(verdict) and not can_shake:
            break  # only the counter's 6-or-7 is open and the tray cannot be spread: ask now
    assert obs is not None and verdict is not None
    return VerifiedReading(obs, verdict.doubts, attempts=attempts, earlier=earlier, counts=verdict.counts,
                           reconciliation=verdict.reconciliation, notes=verdict.notes)
