"""The reads of one tray, the tray shaken between them, weighed as one: settled, or a question.

:mod:`controller.rereads` reads the tray until a reading is beyond doubt; where a read after a
shake still leaves the counter's own doubt, the reads from the one before the first shake on are
joined by their likelihoods (:mod:`controller.joining`). Where they make one tray content sure it
is used without the host (:func:`join_reads`); otherwise the host's question is the one they leave
together (:func:`asked_as_joined`), not the last read's alone. Reads count as separate looks only
where the shake moved the cubes (:func:`unmoved_share`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from controller.joining import JointChances, joint_chances, named_counts
from controller.verify import (
    UNSURE_SHARE,
    Assessment,
    Reconciliation,
    combination_text,
    courtiers_in_doubt,
    question_text,
)
from vision.reading import TrayReading

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
               dropped: dict[str, int], tower_before: dict[str, int] | None) -> Settled | None:
    """The tray content that the reads from the one before the first shake on (``witnesses``, then
    ``obs``) make at least :data:`JOINT_BAR` probable together, joined by their likelihoods
    (:func:`controller.joining.joint_chances`), with the reason to record and the courtiers that go
    with it (:func:`joined_courtiers`). None where none does;
    where the tray did not visibly move before ``obs`` (:func:`unmoved_share`: a read of the same
    cubes in the same places repeats the same errors); where it gives a colour a count that no read
    named (a cube no read saw is not added on the model's word: :mod:`controller.verify` shakes for
    it); or where fewer cubes of a colour than ``obs`` read may mean a courtier was taken for a cube
    (:func:`courtiers_in_doubt`), or more where no read saw that many and the reads disagree on
    that colour's courtiers (:func:`joined_courtiers`).

    Every read from the one before the first shake on is joined, fixed beforehand: no choosing,
    after the fact, the reads that agree best."""
    joint = _joint(witnesses, obs, beam, clump, dropped, tower_before)
    return None if joint is None else _settled(joint, obs)


Joint = tuple[list[TrayReading], JointChances, float]


class Settled(NamedTuple):
    """A tray content the reads joined make sure: its cubes, why, and its courtiers."""

    cubes: dict[str, int]
    reason: str
    courtiers: dict[str, int]


def joined_courtiers(reads: list[TrayReading], whole: dict[str, int]) -> dict[str, int] | None:
    """The courtiers that go with the joined cubes ``whole``: the last read's, except for a colour
    whose joined cubes outnumber the last read's while the reads disagree on its courtiers. There
    the last read may have taken a cube for a courtier, so that colour's courtiers are those of the
    latest read that saw the joined count (held-out seed 4744 ``t0009``: three reads saw 2 purple
    cubes and 1 courtier, the last 1 cube and 2 courtiers; the cubes were joined right, the courtiers
    kept were the last read's). None where no read saw the joined count: which of that colour's
    pieces are courtiers is then the host's to say.

    A colour joined at the last read's count, or whose courtiers every read saw alike, keeps the
    last read's: a cube the last read missed lay hidden, it was not read as a courtier."""
    last = reads[-1]
    courtiers = {c: int(n) for c, n in last.courtiers.items()}
    for colour, n in whole.items():
        if n <= last.cubes.get(colour, 0) or len({r.courtiers.get(colour, 0) for r in reads}) < 2:
            continue
        seers = [r for r in reads if r.cubes.get(colour, 0) == n]
        if not seers:
            return None
        courtiers[colour] = int(seers[-1].courtiers.get(colour, 0))
    return courtiers


def _settled(joint: Joint, obs: TrayReading) -> Settled | None:
    """:func:`join_reads` on reads already joined (:func:`_joint`)."""
    reads, chances, still = joint
    if not chances or chances[0][0] < JOINT_BAR:
        return None
    share, whole = chances[0]
    if any(whole[c] not in {n for r in reads for n in named_counts(r, c)} for c in whole) or courtiers_in_doubt(obs, whole):
        return None
    courtiers = joined_courtiers(reads, whole)
    if courtiers is None:
        return None
    differ = sorted(c for c in whole if len({r.cubes.get(c, 0) for r in reads} | {whole[c]}) > 1
                    or any(r.alternatives.get(c) for r in reads))
    sights = "; ".join(f"{', '.join(str(r.cubes.get(c, 0)) for r in reads)} {c}" for c in differ)
    runner_up = f", the next likeliest {chances[1][0]:.1%}" if len(chances) > 1 else ""
    reason = (f"read as {combination_text({c: n for c, n in whole.items() if n})} by the {len(reads)} reads "
              f"together, the tray shaken between them ({share:.1%}{runner_up}; the reads saw {sights or 'the same'}; "
              f"{still:.0%} of the cubes unmoved by the last shake)")
    moved = {c: n for c, n in courtiers.items() if n != obs.courtiers.get(c, 0)}
    if moved:
        reason += ("; " + ", ".join(f"{n} {c} courtier{'' if n == 1 else 's'}" for c, n in sorted(moved.items()))
                   + " as read with that many cubes, not as the last read saw them")
    return Settled(whole, reason, courtiers)


def _joint(witnesses: list[Witness], obs: TrayReading, beam: int | None, clump: float, dropped: dict[str, int],
           tower_before: dict[str, int] | None) -> Joint | None:
    """The reads from the one before the first shake on, their joined chances and the share of
    ``obs``'s patches the last shake left unmoved; None where the tray did not visibly move before
    ``obs`` (:func:`unmoved_share`), so that the reads are no independent looks."""
    still = unmoved_share(witnesses[-1].reading, obs)
    if still is None or still > UNMOVED_SHARE:
        return None
    reads = [w.reading for w in witnesses] + [obs]
    return reads, joint_chances(reads, beam, clump, dropped, tower_before, [w.spread for w in witnesses] + [True]), still


def asked_as_joined(witnesses: list[Witness], obs: TrayReading, beam: int | None, clump: float,
                    dropped: dict[str, int], tower_before: dict[str, int] | None, notes: list[str]) -> Assessment | None:
    """The host's question as the reads together leave it, where they were joined but make no tray
    content sure (:func:`join_reads` settled nothing). The last read alone would ask about its own
    doubts, with its own odds: on a tuning pile (seed 5405 ``t0019``) three reads all saw 25 purple,
    joined at 94 %, while the last read's question, alone with the beam, led with 24.

    Each colour's doubt is one minus the joined share of its likeliest count. The colours in most
    doubt are asked until those left hold less than the doubt a settled tray may keep (one minus
    :data:`JOINT_BAR`); each is offered the counts holding at least
    :data:`controller.verify.UNSURE_SHARE` of the weight. The likeliest content is the base an
    answer completes. Where the last shake moved nothing, ``obs`` repeats the look before it and the
    reads before it are joined alone. None where no reads can be joined (:func:`_joint`) or no
    colour needs asking (a count no read named, a courtier in doubt: :func:`join_reads` says why it
    settled nothing)."""
    joint = _joint(witnesses, obs, beam, clump, dropped, tower_before)
    return _asked(joint, witnesses, obs, beam, clump, dropped, tower_before, notes)


def _asked(joint: Joint | None, witnesses: list[Witness], obs: TrayReading, beam: int | None, clump: float,
           dropped: dict[str, int], tower_before: dict[str, int] | None, notes: list[str]) -> Assessment | None:
    """:func:`asked_as_joined` given the reads as :func:`_joint` joined them: where the last shake
    moved nothing (``joint`` None), the looks before it joined alone."""
    if joint is None and len(witnesses) > 1:  # the last shake moved nothing: the looks before it
        joint = _joint(witnesses[:-1], witnesses[-1].reading, beam, clump, dropped, tower_before)
    return None if joint is None else _question(joint, obs, beam, clump, notes)


def _question(joint: Joint, obs: TrayReading, beam: int | None, clump: float, notes: list[str]) -> Assessment | None:
    """:func:`asked_as_joined` on reads already joined (:func:`_joint`)."""
    reads, chances, _ = joint
    if not chances:
        return None
    shares = chances.by_colour()
    doubt = {colour: 1.0 - max(counts.values()) for colour, counts in shares.items()}
    left, question = sum(doubt.values()), {}
    for colour in sorted(doubt, key=lambda c: (-doubt[c], c)):
        if left < 1.0 - JOINT_BAR:
            break
        left -= doubt[colour]
        offered = sorted(n for n, share in shares[colour].items() if share >= UNSURE_SHARE)
        if len(offered) > 1:
            question[colour] = offered
    if not question:
        return None
    rec = Reconciliation(
        f"the {len(reads)} reads together, the tray shaken between them, give "
        + "; ".join(" or ".join(f"{n} {colour} ({shares[colour][n]:.0%})" for n in sorted(counts, key=lambda n: (-shares[colour][n], n)))
                    for colour, counts in sorted(question.items())),
        [{"counts": {colour: n}, "total": None, "prior": round(shares[colour][n], 4),
          "posterior": round(shares[colour][n], 4), "out": None} for colour, counts in sorted(question.items()) for n in counts],
        beam, clump, best=dict(chances[0][1]), question=question)
    return Assessment([f"{question_text(question)} The counter cannot tell, and {rec.reason}"], dict(obs.cubes), rec, notes)


def settled_by_joining(rec: Reconciliation, settled: Settled, notes: list[str]) -> Assessment:
    """The assessment of a read the reads joined settle: its cubes used without asking, the reason
    and the courtiers recorded in the reconciliation, the reason in the notes too."""
    rec.cubes, rec.question, rec.reason, rec.courtiers = settled.cubes, {}, settled.reason, settled.courtiers
    return Assessment([], dict(settled.cubes), rec, [*notes, f"reconciled without asking: {settled.reason}"])


def settled_or_asked(witnesses: list[Witness], obs: TrayReading, rec: Reconciliation, beam: int | None, clump: float,
                     dropped: dict[str, int], tower_before: dict[str, int] | None, notes: list[str]) -> Assessment | None:
    """The reads joined once: the tray content they settle (:func:`join_reads`, used without asking
    and recorded in ``rec``), else the question they leave (:func:`asked_as_joined`); None where
    they can be neither settled nor asked about together."""
    joint = _joint(witnesses, obs, beam, clump, dropped, tower_before)
    settled = None if joint is None else _settled(joint, obs)
    if settled is not None:
        return settled_by_joining(rec, settled, notes)
    return _asked(joint, witnesses, obs, beam, clump, dropped, tower_before, notes)
