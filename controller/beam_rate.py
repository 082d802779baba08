"""How often this station's break-beam counts two cubes as one, measured on the drops it has seen.

The drop cycle weighs the beam by its clump rate (``board.beam_clump``, :mod:`controller.verify`):
the chance that a cube right behind another crosses the beam with it and is not counted. The
default is a guess. Every drop whose beam stood leaves a pair on record: the beam's count (kept with
each reading) and the tray as finally settled (the last resolution). Those pairs measure the rate:
the maximum-likelihood rate under the same model the drop cycle weighs the beam by
(:func:`controller.verify.beam_evidence`: a beam short of the tray by clumps, or above it by cubes
a pile hid from the camera), with a 95 % interval from the likelihood ratio.

A drop is left out where its beam did not stand (none, or a board that restarted) or where the
beam helped choose the tray: a reading the beam reconciled among the counter's alternatives, with
no host's word after it, would measure the beam by itself. A tray the host settled (an answer, a
correction, a confirmation) is used: the host's count does not lean on the beam; but not where the
beam counted more cubes than it (a hand through the beam, or a cube the host missed: no rate of
clumps explains a beam over a whole tray).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from scipy import optimize, stats

from controller.droplog import drop_outcome, records_by_drop
from controller.records import Record
from controller.verify import beam_evidence, beam_likelihood
from hardware.config import BEAM_CLUMP_MAX

LEFT_OUT_NO_BEAM = "no break-beam count"
LEFT_OUT_BEAM_DECIDED = "the break-beam helped choose the tray"
LEFT_OUT_OVER_HOST = "the break-beam counted more cubes than the host's tray holds"

RATE_MAX = BEAM_CLUMP_MAX
"""The configuration's bound on the rate (``board.beam_clump``): the fit looks from 0 to it."""
CHI2_95 = float(stats.chi2.ppf(0.95, df=1))
"""The likelihood-ratio bound of a 95 % interval for one parameter (3.84)."""


@dataclass(frozen=True)
class BeamDrop:
    """One resolved drop's evidence on the beam: its count, the cubes the tray settled on, and who
    settled them (``counter`` or ``host``)."""

    drop_id: int
    beam: int
    cubes: int
    settled_by: str


@dataclass
class BeamDrops:
    """The drops a fit may use, and how many were left out and why."""

    used: list[BeamDrop] = field(default_factory=list)
    left_out: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class ClumpFit:
    """The measured clump rate: ``rate`` (maximum likelihood) within ``low``-``high`` (95 %), from
    ``drops`` drops with ``chances`` cubes that could have clumped (each drop's cubes after its first)
    and ``short`` cubes the beam missed in all (where it counted fewer than the tray holds)."""

    rate: float
    low: float
    high: float
    drops: int
    chances: int
    short: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def beam_drops(records: list[Record], session: int | None = None) -> BeamDrops:
    """The drops on record whose beam count and settled tray measure the beam (of one session, or
    of all: the beam is the station's, not the game's)."""
    out = BeamDrops()
    for drop_id, kept in records_by_drop(records, session).items():
        drop = drop_outcome(kept)
        if drop.tray_after is None or drop.cancelled:
            continue  # never resolved, or cancelled: not a drop of the game's
        reconciliation = (drop.reading or {}).get("reconciliation") or {}
        beam = (drop.reading or {}).get("beam", reconciliation.get("beam"))  # older records kept it only there
        cubes = sum(int(n) for n in drop.tray_after.values())
        if beam is None:
            why = LEFT_OUT_NO_BEAM
        elif reconciliation.get("cubes") is not None and not drop.host_spoke:
            why = LEFT_OUT_BEAM_DECIDED
        elif drop.host_spoke and int(beam) > cubes:
            why = LEFT_OUT_OVER_HOST  # a hand through the beam, or a cube the host missed: no clump explains it
        else:
            out.used.append(BeamDrop(drop_id, int(beam), cubes, "host" if drop.host_spoke else "counter"))
            continue
        out.left_out[why] = out.left_out.get(why, 0) + 1
    return out


def log_likelihood(drops: list[BeamDrop], rate: float) -> float:
    """The log-likelihood of a clump rate given the drops (``-inf`` where one drop rules it out). A
    tray the counter settled may hide cubes that fell through the beam (:func:`beam_evidence`); a
    tray the host settled is taken as whole (:func:`beam_likelihood`)."""
    total = 0.0
    for d in drops:
        chance = beam_evidence(d.beam, d.cubes, rate) if d.settled_by == "counter" else beam_likelihood(
            d.beam, d.cubes, rate)
        if chance <= 0.0:
            return -math.inf
        total += math.log(chance)
    return total


def fit_clump(drops: list[BeamDrop]) -> ClumpFit:
    """The maximum-likelihood clump rate between 0 and :data:`RATE_MAX` and the rates within the
    likelihood-ratio bound of it (95 %), by SciPy's bounded scalar search and root finding (the
    log-likelihood has one peak in the rate). ValueError without drops, or where no rate explains them."""
    if not drops:
        raise ValueError("no drop on record has both a break-beam count and a settled tray to measure the beam by")
    if all(d.beam >= d.cubes for d in drops):
        best = 0.0  # the beam never fell short: the likelihood falls from a rate of 0
    else:
        found = optimize.minimize_scalar(lambda r: -log_likelihood(drops, r), bounds=(1e-6, RATE_MAX),
                                         method="bounded", options={"xatol": 1e-5})
        best = float(found.x)
    peak = log_likelihood(drops, best)
    if peak == -math.inf:
        raise ValueError("no clump rate explains these drops: a beam counted more cubes than a whole tray held")

    def beyond(rate: float) -> float:  # > 0 outside the interval
        ll = log_likelihood(drops, rate)
        return math.inf if ll == -math.inf else 2.0 * (peak - ll) - CHI2_95

    low = 0.0 if beyond(0.0) <= 0 else float(optimize.brentq(beyond, 0.0, best, xtol=1e-5))
    high = RATE_MAX if beyond(RATE_MAX) <= 0 else float(optimize.brentq(beyond, best, RATE_MAX, xtol=1e-5))
    return ClumpFit(rate=round(best, 4), low=round(low, 4), high=round(high, 4), drops=len(drops),
                    chances=sum(max(d.cubes - 1, 0) for d in drops),
                    short=sum(max(d.cubes - d.beam, 0) for d in drops))
