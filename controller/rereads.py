"""Reading the tray until a reading is beyond doubt: read again, shake the tray, ask the host.

Each read is judged by :func:`controller.verify.assess`. A doubt a still tray keeps (the counter's
own "6 or 7", a cube hidden in the pile) has the tray shaken at once with the tray board's
vibration motor, where there is one, and read again: a spread tray is the kind the counter reads
best, and reading a pile again where it lies reads the same. A read after such a shake is used
only where the reads before it allowed it too, or where all the reads together, joined by their
likelihoods, make one tray content sure (:func:`join_reads`: a pile read may rightly have missed a
cube that lay hidden). One still unsure alone is used where it and the reads before it, the tray
shaken between them, together leave no real doubt (:func:`joined`); else the tray is shaken again
and read again, up to :data:`MAX_READS` reads. Other doubts (a hand that may have moved away, a
cube still settling) are read again as the tray lies, then after a shake each time. What is still
in doubt after that is the host's, asked only about the colours in doubt where that is all that is
open (``docs/controller.md``, *Shaking before asking*).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from controller.joining import joint_chances, named_counts
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
#: tray, then two after a shake each. The fourth was added when the reads came to be joined by their
#: likelihoods: on tuning seed 5404 it settled, rightly, the one clean tray the first three left to
#: the host (``docs/counter-figures.md``, *A fourth read, the reads joined*); it costs a shake and a
#: read only on a tray three reads could not settle.
MAX_READS = 4
#: How long the vibration motor runs to spread a pile before the tray is read again.
SHAKE_SECONDS = 0.5
#: Reads before and after shaking settle a tray content without the host only where, joined by
#: their likelihoods (:mod:`controller.joining`), they leave it at least this probable. A read
#: settled by the beam and the ledger alone needs 99 % of its alternatives' weight and at most 9 %
#: left out of them (``controller.verify``), about 90 % in all; this asks more, because it takes
#: the reads' errors as independent, which only a tray that really moved between them makes
#: plausible. On the tuning piles with shaken twins (seed 5404, and 5405 in part) every join at
#: 95 % or more was the tray's content (``docs/counter-figures.md``, *Reads joined by their
#: likelihoods*).
JOINT_BAR = 0.95
#: A cube patch after the shake lies where the read before saw one of its colour when their
#: centres are within this (mm): a read of the same cubes in the same places repeats the same errors.
UNMOVED_MM = 2.0
#: The two reads count as two looks only where at most this share of the patches after the shake
#: lies unmoved; a shake that left most of the pile where it was gives no second opinion.
UNMOVED_SHARE = 0.25


class Witness(NamedTuple):
    """A read unsure only of the counter's own counts, kept to hold later reads against."""

    verdict: Assessment
    reading: TrayReading
    spread: bool  # read after a shake: a spread tray, which hides fewer cubes than a pile


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
                    clump: float, dropped: dict[str, int], tower_before: dict[str, int] | None) -> Assessment:
    """A read after shaking that has no doubt of its own (``after``), held against the reads before
    it that were unsure only of the counter's own counts (``witnesses``, from the read before the
    first shake on): used, with a note, where each allowed it; where they disagree (:func:`contradicts`),
    the tray content all of them make sure together (:func:`join_reads`: a pile read may rightly
    have missed a cube that lay hidden); else a question about the colours they disagree on,
    nothing used without the host."""
    odd: dict[str, list[int]] = {}
    for before, _, _ in witnesses:
        for colour, counts in contradicts(before, after.counts).items():
            odd[colour] = sorted(set(odd.get(colour, [])) | set(counts))
    if not odd:
        first = witnesses[0].verdict
        after.notes.append("read again after shaking the tray, as the read before it left open: "
                           + (first.doubts[0] if first.doubts else "its counter's doubt"))
        return after
    rec = after.reconciliation or Reconciliation("", [], beam, clump)
    settled = join_reads(witnesses, obs, beam, clump, dropped, tower_before)
    if settled is not None:
        return settled_by_joining(rec, *settled, after.notes)
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


def join_reads(witnesses: list[Witness], obs: TrayReading, beam: int | None, clump: float,
               dropped: dict[str, int], tower_before: dict[str, int] | None) -> tuple[dict[str, int], str] | None:
    """The tray content that the reads from the one before the first shake on (``witnesses``, then
    ``obs``) make at least :data:`JOINT_BAR` probable together, joined by their likelihoods
    (:func:`controller.joining.joint_chances`), with the reason to record. None where none does;
    where the tray did not visibly move before ``obs`` (:func:`unmoved_share`: a read of the same
    cubes in the same places repeats the same errors); where it gives a colour a count that no read
    named (a cube no read saw is not added on the model's word: :mod:`controller.verify` shakes for
    it); or where fewer cubes of a colour than ``obs`` read may mean a courtier was taken for a cube
    (:func:`courtiers_in_doubt`).

    Every read from the one before the first shake on is joined, fixed beforehand: no choosing,
    after the fact, the reads that agree best."""
    still = unmoved_share(witnesses[-1].reading, obs)
    if still is None or still > UNMOVED_SHARE:
        return None
    reads = [w.reading for w in witnesses] + [obs]
    chances = joint_chances(reads, beam, clump, dropped, tower_before, [w.spread for w in witnesses] + [True])
    if not chances or chances[0][0] < JOINT_BAR:
        return None
    share, whole = chances[0]
    if any(whole[c] not in {n for r in reads for n in named_counts(r, c)} for c in whole) or courtiers_in_doubt(obs, whole):
        return None
    differ = sorted(c for c in whole if len({r.cubes.get(c, 0) for r in reads} | {whole[c]}) > 1
                    or any(r.alternatives.get(c) for r in reads))
    sights = "; ".join(f"{', '.join(str(r.cubes.get(c, 0)) for r in reads)} {c}" for c in differ)
    runner_up = f", the next likeliest {chances[1][0]:.1%}" if len(chances) > 1 else ""
    reason = (f"read as {combination_text({c: n for c, n in whole.items() if n})} by the {len(reads)} reads "
              f"together, the tray shaken between them ({share:.1%}{runner_up}; the reads saw {sights or 'the same'}; "
              f"{still:.0%} of the cubes unmoved by the last shake)")
    return whole, reason


def joined(witnesses: list[Witness], after: Assessment, obs: TrayReading, dropped: dict[str, int],
           tower_before: dict[str, int] | None) -> Assessment:
    """A read after shaking that is still unsure alone (only the counter's question open), joined
    with the reads before it (:func:`join_reads`): the tray content they make sure together is used
    without the host; else ``after`` is returned as it is."""
    rec = after.reconciliation
    if rec is None or rec.beam_too_high or not witnesses:
        return after
    settled = join_reads(witnesses, obs, rec.beam, rec.clump, dropped, tower_before)
    return after if settled is None else settled_by_joining(rec, *settled, after.notes)


def settled_by_joining(rec: Reconciliation, whole: dict[str, int], reason: str, notes: list[str]) -> Assessment:
    """The assessment of a read the reads joined settle: ``whole`` used without asking, the reason
    recorded in the reconciliation and the notes."""
    rec.cubes, rec.question, rec.reason = whole, {}, reason
    return Assessment([], dict(whole), rec, [*notes, f"reconciled without asking: {reason}"])


def read_verified(reader: Any, board: Any, tag: str, dropped: dict[str, int],
                  tower_before: dict[str, int] | None, funnel_left: Any = None, *,
                  clump: float = DEFAULT_BEAM_CLUMP) -> VerifiedReading:
    """Read the tray until a reading is beyond doubt, at most :data:`MAX_READS` times.

    A doubt a still tray keeps (:func:`shaking_may_settle`) has the tray shaken at once, where
    there is a tray board, and read again; a read after shaking is used only where the reads before
    it allowed it too (:func:`contradicts`) or all the reads together make one tray content sure
    (:func:`join_reads`), and one still unsure alone only where it and the reads before it together
    make its counts sure (:func:`joined`); else the tray is shaken again and read again, up to the
    last read. Other doubts are read again as the tray lies (a hand may have moved away, a cube may
    have settled), then after a shake each time.

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
    shaken = False  # whether the tray was shaken before the read in hand: a spread tray
    can_shake = board is not None
    for attempt in range(1, MAX_READS + 1):
        if can_shake and verdict is not None and (attempt >= 3 or shaking_may_settle(verdict)):
            try:
                board.vibrate(SHAKE_SECONDS)
                attempts.append({"action": "vibrate", "seconds": SHAKE_SECONDS})
                if not witnesses and only_the_counters_question(verdict):
                    assert obs is not None
                    witnesses.append(Witness(verdict, obs, shaken))  # read before this shake
                shaken = True
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
            verdict = checked_against(witnesses, verdict, obs, beam, clump, dropped, tower_before)
        elif witnesses and only_the_counters_question(verdict):
            verdict = joined(witnesses, verdict, obs, dropped, tower_before)
            if verdict.doubts:
                witnesses.append(Witness(verdict, obs, shaken))
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
