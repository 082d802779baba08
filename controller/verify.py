"""Is a tray reading fit to decide a battle, and where the counter hesitates, which reading is it?

A wrong count decides a battle wrongly, and a battle cannot be dropped again, so a reading is only
used when nothing speaks against it: the frame is usable, the counter trusts it (``obs.trusted``,
the counter's own calibrated gate), no colour shows more cubes than could have come out of the
tower (what was dropped plus what the ledger says was inside: the engine's own
:func:`engine.ledger.check_reading` decides), and, where the tray board has a
break-beam, its count of falling cubes fits the camera's total.

Where the counter hesitates between counts ("red 6 or 7", ``obs.alternatives``) the station
reconciles before it asks (:func:`reconcile`): every combination of the alternatives is weighed by
the counter's probabilities, the tower ledger (hard: no more of a colour than could have come out)
and the beam. The beam is evidence, not truth: a single break-beam counts two cubes that pass it
together as one, so it may count fewer cubes than fell, never more. Its count is weighed by that
clump model (:func:`beam_likelihood`) and by how many cubes a pile hides from the camera
(:mod:`vision.hidden`: those fell through the beam too; :func:`beam_evidence`): a beam equal to a
combination's total is strong evidence for it, a beam below it weak evidence, a beam above it
evidence of a colour read short or of cubes hidden, as likely as each is. Where one combination holds
all but :data:`UNSURE_SHARE` of the weight it is used without asking and the reason is recorded;
otherwise the host is asked, only about the colours still in doubt ("Is it 6 or 7 red?"). Where
the likeliest combination holds fewer cubes than the beam counted, cubes lie hidden: the tray is
shaken and read again first (a hidden cube is never silently given to a colour in doubt).

What the cycle does with a doubted read (read again, shake the tray, ask the host) is
:mod:`controller.rereads`.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass, field
from typing import Any

from engine.errors import ImpossibleReadingError
from engine.ledger import check_reading
from hardware.config import DEFAULT_BEAM_CLUMP
from vision.hidden import hidden_chance
from vision.reading import TrayReading

#: A combination is used without asking only where all the others together keep less than this
#: share of the weight (the 99 % credible set holds one combination).
UNSURE_SHARE = 0.01
#: The beam and the ledger settle a combination of the counter's alternatives only where what the
#: alternatives leave out (``TrayReading.alternatives_cover``) keeps at most this share of the weight
#: after the evidence: as much doubt as the counter left a reading it trusted when this was set (its
#: trust bar was 0.908; since the fit on 284 tuning scenes it is 0.887, which leaves up to 11 %: this
#: stays at the stricter 9 %).
LEFT_OUT_SHARE = 0.09
#: A beam below the camera's total fits when the clump model gives an undercount at least that
#: large at least this chance; a bigger gap is a doubt (a miscount, or cubes from elsewhere). Small,
#: because every honest drop has this chance of being doubted: 1 in 10,000 (at the default clump
#: rate: 40 cubes may count as 33, not as 32; 10 as 7, not as 6).
PLAUSIBLE_UNDERCOUNT = 1e-4
#: A reason names at most this many combinations and sums up the rest: a reading unsure of all six
#: colours weighs 4096, and the host reads the reason under the question.
NAMED_COMBINATIONS = 3
#: A record keeps at most this many combinations (the likeliest first), and a tally of the rest:
#: every combination, 4096 of them, made a reading record of about 0.8 MB, and each read of a
#: shaken tray keeps its own. The rest can be weighed again from what the record keeps (the reading
#: and its alternatives, the ledger, the beam): :func:`reconcile` is a pure function of them.
RECORDED_COMBINATIONS = 64


def beam_likelihood(beam: int, total: int, clump: float) -> float:
    """P(the beam counts ``beam`` | ``total`` cubes fell): each cube after the first crosses the
    beam together with the one before it, and is not counted, with chance ``clump``."""
    if beam > total or beam < 0:
        return 0.0
    if total == 0:
        return 1.0
    missed, chances = total - beam, total - 1
    if missed > chances:
        return 0.0
    return math.comb(chances, missed) * clump ** missed * (1 - clump) ** (chances - missed)


#: Hidden cubes weighed beyond the beam's surplus over a reading (each more needs one more clump too).
HIDDEN_BEYOND_SURPLUS = 4


@functools.lru_cache(maxsize=4096)
def beam_evidence(beam: int, seen: int, clump: float) -> float:
    """P(the beam counts ``beam`` | the camera sees ``seen``): the cubes a pile hides fell through the
    beam too (:mod:`vision.hidden`, fitted on renders), and any cube may pass with the one before it
    uncounted (:func:`beam_likelihood`). A beam above a reading is so explained by hidden cubes as
    well as by a colour read short, which the counter's own probabilities then weigh."""
    if beam < 0:
        return 0.0
    most = max(beam - seen, 0) + HIDDEN_BEYOND_SURPLUS
    return sum(hidden_chance(h, seen) * beam_likelihood(beam, seen + h, clump) for h in range(most + 1))


@functools.lru_cache(maxsize=4096)
def undercount_plausible(beam: int, total: int, clump: float) -> bool:
    """Whether a beam ``total - beam`` cubes short is one the clump model explains (tail chance)."""
    if beam > total:
        return False
    tail = sum(beam_likelihood(b, total, clump) for b in range(0, beam + 1))
    return beam == total or tail >= PLAUSIBLE_UNDERCOUNT


def question_text(question: dict[str, list[int]]) -> str:
    """``{"red": [6, 7]}`` -> "Is it 6 or 7 red?"."""
    def one(colour: str, counts: list[int]) -> str:
        words = [str(n) for n in counts]
        return (", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else words[0]) + f" {colour}"
    return "Is it " + ", and ".join(one(c, n) for c, n in sorted(question.items())) + "?"


@dataclass
class Reconciliation:
    """The counter's alternatives weighed against the ledger and the beam.

    ``cubes``: the whole tray to use, where one combination fits (else ``None``); ``question``: the
    colours the host must settle, each with the counts that still fit; ``best``: the likeliest
    combination that fits (the base an answer completes); ``candidates``: every combination with its
    prior, its weight after the evidence (``posterior``) and why it was ruled out; ``courtiers``: the
    courtiers that go with ``cubes`` where reads joined settled them (else ``None``: as read)."""

    reason: str
    candidates: list[dict[str, Any]]
    beam: int | None
    clump: float
    cubes: dict[str, int] | None = None
    best: dict[str, int] | None = None
    question: dict[str, list[int]] = field(default_factory=dict)
    beam_too_high: bool = False
    # the share of the weight, after the evidence, of what the alternatives leave out
    left_out: float = 0.0
    courtiers: dict[str, int] | None = None

    def as_dict(self) -> dict[str, Any]:
        """What the record keeps: every combination where they are at most
        :data:`RECORDED_COMBINATIONS` (as weighed), else the likeliest that many and, as
        ``unrecorded``, how many were left out, how many of those fit, and their share."""
        out: dict[str, Any] = {
            "cubes": self.cubes, "reason": self.reason, "question": self.question,
            "question_text": question_text(self.question) if self.question else None,
            "best": self.best, "beam": self.beam, "clump": self.clump, "candidates": self.candidates,
            "left_out": self.left_out, "courtiers": self.courtiers}
        if len(self.candidates) > RECORDED_COMBINATIONS:
            ranked = _likeliest_first(self.candidates)
            kept, rest = ranked[:RECORDED_COMBINATIONS], ranked[RECORDED_COMBINATIONS:]
            out["candidates"] = kept
            # their share is what the kept leave of the whole: summing thousands of rounded shares
            # would not say it (each under 0.00005 rounds to nothing)
            fits = kept[0]["out"] is None  # the fitting come first: if the first is out, all are
            share = max(0.0, 1.0 - sum(c["posterior"] for c in kept)) if fits else 0.0
            out["unrecorded"] = {"combinations": len(rest), "fitting": sum(c["out"] is None for c in rest),
                                 "posterior": round(share, 4)}
        return out


def _likeliest_first(candidates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Combinations by their share after the evidence, then those ruled out by their prior (a
    stable sort: ties keep the order they were weighed in)."""
    return sorted(candidates, key=lambda c: (c["out"] is not None, -c["posterior"], -c["prior"]))


def _named(parts: list[str], rest: str) -> list[str]:
    """The first :data:`NAMED_COMBINATIONS` of ``parts``, and ``rest`` (its ``{n}`` the number left
    out) where at least two more follow (one more is named: its sum would be no shorter)."""
    if len(parts) <= NAMED_COMBINATIONS + 1:
        return parts
    return parts[:NAMED_COMBINATIONS] + [rest.format(n=len(parts) - NAMED_COMBINATIONS)]


def ledger_faults(counts: dict[str, int], dropped: dict[str, int], tower_before: dict[str, int] | None) -> list[str]:
    """Why ``counts`` cannot be the tray after this drop, one sentence per colour (empty: it can).

    The engine's ledger decides (:func:`engine.ledger.check_reading`: no more of a colour than exist,
    than were dropped plus were inside the tower); each colour is checked on its own so that every
    colour at fault is named. A colour that is not the game's is left to the engine's resolve."""
    found = []
    for colour, n in sorted(counts.items()):
        try:
            check_reading(dropped, {colour: n}, tower_before=tower_before)
        except ImpossibleReadingError as exc:
            found.append(exc.message)
        except ValueError:
            continue
    return found


def reconcile(obs: TrayReading, dropped: dict[str, int], tower_before: dict[str, int] | None,
              beam: int | None, clump: float = DEFAULT_BEAM_CLUMP) -> Reconciliation | None:
    """Weigh every combination of ``obs.alternatives`` (``None`` where there are none)."""
    colours = sorted(c for c, alts in obs.alternatives.items() if alts)
    if not colours:
        return None
    candidates: list[dict[str, Any]] = []
    # what the ledger says of each colour's count, worked out once: the combinations are many (4
    # counts in each of 6 colours: 4096) but their counts few (the beam's functions keep their own)
    @functools.cache
    def faults_of(colour: str, n: int) -> list[str]:
        return ledger_faults({colour: n}, dropped, tower_before)

    for combo in itertools.product(*(obs.alternatives[c] for c in colours)):
        counts = {**obs.cubes, **{c: int(n) for c, (n, _) in zip(colours, combo, strict=True)}}
        prior = math.prod(float(p) for _, p in combo)
        total = sum(counts.values())
        faults = [fault for colour, n in sorted(counts.items()) for fault in faults_of(colour, n)]
        out = faults[0] if faults else None
        weight = prior
        if out is None and beam is not None:
            if beam < total and not undercount_plausible(beam, total, clump):
                out = f"{total} cubes in all, too many for the break-beam's {beam} (clumps do not explain it)"
            else:
                weight = prior * beam_evidence(beam, total, clump)
                if weight <= 0.0:
                    out = f"{total} cubes in all, but the break-beam counted {beam} falling"
        candidates.append({"counts": {c: counts[c] for c in colours}, "total": total, "prior": round(prior, 4),
                           "weight": weight if out is None else 0.0, "out": out, "_cubes": counts})
    fit = sorted((c for c in candidates if c["out"] is None and c["weight"] > 0), key=lambda c: -c["weight"])
    norm = sum(c["weight"] for c in fit)
    # What the alternatives leave out (a colour not in doubt one off, a count too unlikely to show)
    # may explain the beam as well as the best combination does; its share of the weight after the
    # evidence must be as small as a trusted reading's doubt for the beam to settle anything.
    uncovered = 1.0 - min(max(float(obs.alternatives_cover), 0.0), 1.0)  # its prior
    outside = uncovered * max((c["weight"] / c["prior"] for c in fit if c["prior"] > 0), default=0.0)
    for c in candidates:
        c["posterior"] = round(c.pop("weight") / norm, 4) if norm and c["out"] is None else 0.0
    cubes_of = {id(c): c.pop("_cubes") for c in candidates}
    rec = Reconciliation("", candidates, beam, clump)
    if not fit:
        totals = [c["total"] for c in candidates]
        rec.beam_too_high = beam is not None and beam > max(totals)
        rec.reason = "no combination of the counter's alternatives fits: " + "; ".join(_named(
            [f"{combination_text(c['counts'])}: {c['out']}" for c in candidates], "and {n} more, each ruled out too"))
        return rec
    credible, share = [], 0.0
    for c in fit:
        credible.append(c)
        share += c["posterior"]
        if share >= 1 - UNSURE_SHARE:
            break
    rec.left_out = round(outside / (outside + norm * (1.0 - uncovered)), 4) if norm else 0.0
    unsure_rest = rec.left_out > LEFT_OUT_SHARE
    if len(credible) == 1 and unsure_rest and len(fit) > 1:
        # one combination holds the alternatives' weight, but not against what they leave out:
        # the host is asked, offered the likeliest two for the colours in doubt
        credible = fit[:2]
    rec.best = cubes_of[id(fit[0])]
    # The likeliest reading holds fewer cubes than the beam counted: cubes lie hidden under others,
    # and the tray is shaken and read again before anything is used or asked.
    rec.beam_too_high = beam is not None and beam > fit[0]["total"]
    if len(credible) == 1 and unsure_rest:
        rec.reason = (f"only {combination_text(credible[0]['counts'])} of the counter's alternatives fits, but its other "
                      f"counts may be off ({rec.left_out:.0%} of the weight after the evidence)")
        return rec
    if len(credible) == 1:
        chosen = credible[0]
        others = [c for c in candidates if c is not chosen]
        if len(others) > NAMED_COMBINATIONS + 1:  # some are summed up: the likeliest are named
            others = _likeliest_first(others)
        unnamed = others[NAMED_COMBINATIONS:]
        rest = ("and {n} more, each ruled out too" if all(c["out"] is not None for c in unnamed) else
                f"nor {{n}} others (together {sum(c['posterior'] for c in unnamed):.1%} after the evidence)")
        why = "; ".join(_named([f"{combination_text(c['counts'])}: {c['out'] or _weak(c, beam)}" for c in others], rest))
        rec.reason = f"read as {combination_text(chosen['counts'])}, not " + why
        if not rec.beam_too_high:
            rec.cubes = rec.best
        return rec
    for colour in colours:
        values = sorted({c["counts"][colour] for c in credible})
        if len(values) > 1:
            rec.question[colour] = values
    left = sum(c["posterior"] for c in credible[NAMED_COMBINATIONS:])
    rec.reason = (f"the break-beam ({'none' if beam is None else beam}) and the ledger leave "
                  + " or ".join(_named([f"{combination_text(c['counts'])} ({c['posterior']:.0%})" for c in credible],
                                       f"{{n}} other combinations ({left:.0%} together)")))
    return rec


def combination_text(counts: dict[str, int]) -> str:
    """Counts as a reason names them: "6 blue, 2 red"."""
    return ", ".join(f"{n} {c}" for c, n in sorted(counts.items()))


def _weak(candidate: dict[str, Any], beam: int | None) -> str:
    if beam is not None and candidate["total"] < beam:
        return (f"{candidate['total']} cubes in all would need {beam - candidate['total']} hidden under others "
                f"(chance {candidate['posterior']:.1%} after the evidence)")
    if beam is not None and candidate["total"] > beam:
        return (f"{candidate['total']} cubes in all would need {candidate['total'] - beam} to pass the "
                f"break-beam ({beam}) unnoticed (chance {candidate['posterior']:.1%} after the evidence)")
    return f"chance {candidate['posterior']:.1%} after the evidence"


def courtiers_in_doubt(obs: TrayReading, counts: dict[str, int]) -> dict[str, int]:
    """Per colour, how many of the cubes ``counts`` leaves out of ``obs.cubes`` may be courtiers:
    where the counter saw a courtier of that colour in the tray, or took a courtier's head for a
    cube (``obs.pawn_cubes``), a patch the evidence says is no cube may well be a courtier (a pawn
    lying on its side looks much like a cube from above); elsewhere it is a sliver or a shadow."""
    out = {}
    for colour, read in obs.cubes.items():
        fewer = read - counts.get(colour, read)
        if fewer > 0 and (obs.courtiers.get(colour, 0) or obs.pawn_cubes.get(colour, 0)):
            out[colour] = fewer
    return out


@dataclass
class Assessment:
    """One read judged: the doubts, the counts to use where there are none, and the reconciliation."""

    doubts: list[str]
    counts: dict[str, int]
    reconciliation: Reconciliation | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def question(self) -> dict[str, list[int]]:
        return self.reconciliation.question if self.reconciliation is not None else {}


def assess(obs: TrayReading, dropped: dict[str, int], tower_before: dict[str, int] | None, beam: int | None,
           funnel_left: dict[str, int] | None = None, *, clump: float = DEFAULT_BEAM_CLUMP) -> Assessment:
    """Judge one read: every reason not to use it, and the tray to use (reconciled) where there is none."""
    found: list[str] = []
    notes: list[str] = []
    counts = dict(obs.cubes)
    if not obs.usable:
        return Assessment([f"the frame is unusable: {obs.reason or 'no reason given'}"], counts)
    if not obs.settled:
        found.append("the tray did not settle before the timeout")
    rec = reconcile(obs, dropped, tower_before, beam, clump)
    if rec is not None:
        if rec.beam_too_high:
            seen = sum(rec.best.values()) if rec.best is not None else max(c["total"] for c in rec.candidates)
            found.append(f"the break-beam counted {beam} cubes falling but the likeliest reading holds "
                         f"{seen}: a cube may lie hidden under others")
        elif rec.cubes is not None and (fewer := courtiers_in_doubt(obs, rec.cubes)):
            # fewer cubes of a colour than read, where courtiers of that colour are about: what the
            # evidence takes away may be a courtier read as a cube, which the cubes alone cannot say
            found.extend(f"{rec.reason}; but a courtier may have been read as a cube: "
                         f"{obs.courtiers.get(colour, 0)} to {obs.courtiers.get(colour, 0) + n} {colour} courtiers"
                         for colour, n in sorted(fewer.items()))
        elif rec.cubes is not None:
            counts = dict(rec.cubes)
            notes.append(f"reconciled without asking: {rec.reason}")
        elif rec.question and obs.trusted and rec.candidates[0]["out"] is None:
            # a trusted reading's runner-up is tiny: soft evidence (a beam a clump short) does not
            # overturn it, only hard evidence does (the ledger, a beam too far below its total)
            notes.append(f"the counter's trusted reading kept: {rec.reason}")
        elif rec.question:
            found.append(f"{question_text(rec.question)} The counter cannot tell, and {rec.reason}")
        else:
            found.append(rec.reason)
    elif not obs.trusted:
        found.append(f"the counter is unsure (confidence {obs.confidence:.2f}): {obs.reason or 'no reason given'}")
    if rec is None:
        found.extend(ledger_faults(obs.cubes, dropped, tower_before))
        total = sum(obs.cubes.values())
        if beam is not None and beam > total:
            found.append(f"the break-beam counted {beam} cubes falling but the camera sees {total}")
        elif beam is not None and beam < total:
            if undercount_plausible(beam, total, clump):
                notes.append(f"the break-beam counted {beam} of the {total} cubes seen: "
                             f"{total - beam} passed it together with another")
            else:
                found.append(f"the break-beam counted {beam} cubes falling but the camera sees {total}, "
                             "more than cubes passing the beam together explain")
    total = sum(counts.values())
    if funnel_left:
        found.append(f"the trapdoor jammed: {sum(funnel_left.values())} cubes are still in the funnel")
    elif funnel_left is None and dropped and beam is not None and beam == 0 and total == 0:
        # every cube can stay inside the tower, but on a station that cannot see its funnel a jam
        # looks the same: the host looks
        found.append("nothing came out: the trapdoor may have jammed with the cubes still in the funnel")
    return Assessment(found, counts, rec, notes)


def doubts(obs: TrayReading, dropped: dict[str, int], tower_before: dict[str, int] | None,
           beam: int | None, funnel_left: dict[str, int] | None = None, *,
           clump: float = DEFAULT_BEAM_CLUMP) -> list[str]:
    """Every reason not to trust ``obs`` as the tray after this drop (empty: trust it).

    ``funnel_left``: what the station can see still lying in the funnel (``None``: it cannot see;
    a real funnel cannot, a simulated one can)."""
    return assess(obs, dropped, tower_before, beam, funnel_left, clump=clump).doubts
