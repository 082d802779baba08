"""Reading the tray until a reading is beyond doubt: read again, shake the tray, ask the host.

Each read is judged by :func:`controller.verify.assess`. A doubt a still tray keeps (the counter's
own "6 or 7", a cube hidden in the pile) has the tray shaken at once with the tray board's
vibration motor, where there is one, and read again: a spread tray is the kind the counter reads
best, and reading a pile again where it lies reads the same. A read after such a shake is used
only where the reads before it allowed it too, or where all the reads together, joined by their
likelihoods, make one tray content sure (:mod:`controller.joined_reads`: a pile read may rightly
have missed a cube that lay hidden). One still unsure alone is used where it and the reads before
it, the tray shaken between them, together leave no real doubt (:func:`joined`); else the tray is
shaken again and read again, up to :data:`MAX_READS` reads. Other doubts (a hand that may have moved
away, a cube still settling) are read again as the tray lies, then after a shake each time. What is
still in doubt after that is the host's, asked only about the colours in doubt where that is all
that is open: after joined reads, those the reads together leave open, with their joined odds
(``docs/controller.md``, *Shaking before asking*).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.joined_reads import Witness, settled_or_asked
from controller.verify import Assessment, Reconciliation, assess, question_text
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


@dataclass
class VerifiedReading:
    observation: TrayReading
    doubts: list[str]
    earlier: list[TrayReading] = field(default_factory=list)  # the reads before the last, kept as evidence
    attempts: list[dict[str, Any]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # the tray to resolve with (reconciled)
    reconciliation: Reconciliation | None = None
    notes: list[str] = field(default_factory=list)
    beam: int | None = None  # the break-beam's count for this drop, where it stood and the board answered
    # the courtiers that go with ``counts``: the last read's, unless reads joined took a colour's
    # from a read that saw its cubes as joined (controller.joined_reads.joined_courtiers)
    courtiers: dict[str, int] = field(default_factory=dict)

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
    so a disagreement means one of them is wrong: the host settles it, asked about those colours.

    A candidate names every colour where the beam and the ledger weighed whole trays, but only its
    own colour where the reads joined left a question about several (``joined_reads``' candidates,
    one colour each): a colour is then judged on the candidates that name it (held-out seed 4756
    stopped the drop cycle with a KeyError where a second colour was asked about so)."""
    rec = before.reconciliation
    fitting = [c["counts"] for c in rec.candidates if c["out"] is None] if rec is not None else []
    out = {}
    for colour in sorted(set(counts) | set(before.counts)):
        now = counts.get(colour, 0)
        possible = {c[colour] for c in fitting if colour in c} or {before.counts.get(colour, 0)}
        if now not in possible:
            out[colour] = sorted(possible | {now})
    return out


def checked_against(witnesses: list[Witness], after: Assessment, obs: TrayReading, beam: int | None,
                    clump: float, dropped: dict[str, int], tower_before: dict[str, int] | None) -> Assessment:
    """A read after shaking that has no doubt of its own (``after``), held against the reads before
    it that were unsure only of the counter's own counts (``witnesses``, from the read before the
    first shake on): used, with a note, where each allowed it; where they disagree (:func:`contradicts`),
    the tray content all of them make sure together, or else the question they leave together
    (:func:`controller.joined_reads.settled_or_asked`: a pile read may rightly have missed a cube
    that lay hidden); where they cannot be joined, a question about the colours they disagree on,
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
    joined_up = settled_or_asked(witnesses, obs, rec, beam, clump, dropped, tower_before, after.notes)
    if joined_up is not None:
        return joined_up
    rec.question, rec.cubes = odd, None
    rec.reason = ("the reads before and after shaking the tray disagree ("
                  + "; ".join(f"{' or '.join(map(str, n))} {colour}" for colour, n in odd.items()) + ")")
    sentence = rec.reason[0].upper() + rec.reason[1:]
    return Assessment([f"{question_text(odd)} {sentence}."], dict(obs.cubes), rec, after.notes)


def joined(witnesses: list[Witness], after: Assessment, obs: TrayReading, dropped: dict[str, int],
           tower_before: dict[str, int] | None) -> Assessment:
    """A read after shaking that is still unsure alone (only the counter's question open), joined
    with the reads before it (:func:`controller.joined_reads.settled_or_asked`): the tray content
    they make sure together is used without the host, else the host is asked what they leave open;
    where they cannot be joined, ``after`` is returned as it is."""
    rec = after.reconciliation
    if rec is None or rec.beam_too_high or not witnesses:
        return after
    return settled_or_asked(witnesses, obs, rec, rec.beam, rec.clump, dropped, tower_before, after.notes) or after


def read_verified(reader: Any, board: Any, tag: str, dropped: dict[str, int],
                  tower_before: dict[str, int] | None, funnel_left: Any = None, *,
                  clump: float = DEFAULT_BEAM_CLUMP, count_beam: bool = True) -> VerifiedReading:
    """Read the tray until a reading is beyond doubt, at most :data:`MAX_READS` times.

    A doubt a still tray keeps (:func:`shaking_may_settle`) has the tray shaken at once, where
    there is a tray board, and read again; a read after shaking is used only where the reads before
    it allowed it too (:func:`contradicts`) or all the reads together make one tray content sure
    (:func:`controller.joined_reads.join_reads`), and one still unsure alone only where it and the reads before it together
    make its counts sure (:func:`joined`); else the tray is shaken again and read again, up to the
    last read. Other doubts are read again as the tray lies (a hand may have moved away, a cube may
    have settled), then after a shake each time.

    ``funnel_left``: a callable returning what still lies in the funnel, where the station can see it.
    ``count_beam``: whether ``board``'s break-beam count stands for this drop (else only its
    vibration motor is used)."""
    beam = None
    if board is not None and count_beam:
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
    rec = verdict.reconciliation
    settled_courtiers = rec.courtiers if rec is not None else None  # where reads joined settled them
    courtiers = settled_courtiers if settled_courtiers is not None else {c: int(n) for c, n in obs.courtiers.items()}
    return VerifiedReading(obs, verdict.doubts, attempts=attempts, earlier=earlier, counts=verdict.counts,
                           reconciliation=rec, notes=verdict.notes, beam=beam, courtiers=courtiers)
