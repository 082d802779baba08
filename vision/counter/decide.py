"""The decision: from the frame's cores to a reading, with the doubt model's verdict on it.

Each core becomes a pawn, a count of cubes (:func:`vision.counter.merged.cubes_in`), or nothing (a
cube showing less than a quarter, the top of a pawn's ball). Each count is tagged with the kind of
reading it was (a whole face, a tilted cube, touching faces ...); the doubt model
(:mod:`vision.counter.doubt`), fitted on the tuning renders, turns those kinds into each colour's
probable counts, whether the frame is trusted, and which patches are in doubt.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vision import geometry as g
from vision.counter.doubt import DoubtModel
from vision.counter.frame import Core, Frame, Prepared
from vision.counter.leftover import leftover
from vision.counter.merged import SMALL_FACE_SCORE, Count, cubes_in, shade
from vision.counter.partial import side_band_mm
from vision.counter.pawns import looks_like_pawn, top_of_a_pawn
from vision.reading import TrayReading, empty_courtiers, empty_cubes

PAWN_SCORE = 0.95


@dataclass
class Counted:
    """One core as the decision read it (for the doubt model, the fitting script and debugging)."""

    core: Core
    kind: str  # "cube" | "courtier"
    count: Count


def read_cores(prep: Prepared, frame: Frame, cores: list[Core]) -> tuple[list[Counted], list[str], float]:
    """Every core read: the counted ones, the doubts in words, and the legacy confidence (product of
    the readings' scores).

    The quarter rule says which cubes a camera must count; a cube that shows less and is in the
    tray may be counted (the battle needs every cube in the tray). On the tuning renders every
    partial face the stages kept that showed from ``NEAR_QUARTER`` of the quarter up was a real
    cube, most of them a quarter visible or more: such a face is counted, with doubt (``quarter``)."""
    t = prep.tuning
    doubts: list[str] = []
    confidence = 1.0 if len(frame.pose.marker_ids) >= len(g.MARKER_IDS) else 0.95
    out: list[Counted] = []
    # A small core stands for a cube when the visible area around it makes (nearly) a quarter; without
    # that measure, by its own area.
    cores = [c for c in cores if c.area_mm2 >= t.MIN_FACE_AREA_MM2
             or (c.visible_mm2 is not None and c.visible_mm2 >= t.NEAR_QUARTER * c.quarter_mm2)]
    # a core marked corner is a cube's faces (found whole, or too wide for a ball), never a head
    pawn = [c.ball or c.lying or (not c.strip and not c.corner and looks_like_pawn(prep, c)) for c in cores]
    heads = [c.centre for c, p in zip(cores, pawn, strict=True) if p]
    camera = frame.camera_mm
    for core, is_pawn in zip(cores, pawn, strict=True):
        if is_pawn:
            out.append(Counted(core, "courtier", Count(1, "pawn", PAWN_SCORE)))
            confidence *= PAWN_SCORE
            continue
        if core.visible_mm2 is not None and core.visible_mm2 < t.NEAR_QUARTER * core.quarter_mm2:
            continue  # well under a quarter of this cube is visible: not asked to be counted
        if top_of_a_pawn(prep, core, heads):
            continue
        if core.visible_mm2 is not None and core.visible_mm2 < core.quarter_mm2:
            count = Count(1, "quarter", SMALL_FACE_SCORE, f"a cube about a quarter visible ({core.visible_mm2:.0f} "
                          "mm2 of its top) counted", 0, 1, faces=core.area_mm2 / t.FACE_CORE_MM2)
        else:
            count = cubes_in(prep, core, frame.gray, side_band_mm(core.centre, camera))
        if count.doubt:
            doubts.append(f"{count.doubt} ({core.colour})")
        confidence *= count.score
        out.append(Counted(core, "cube", count))
    return out, doubts, confidence


def model_patches(prep: Prepared, counted: list[Counted]) -> list[tuple[Core, Count]]:
    """Every counted patch as the decision model sees it, in the reading's order: a cube patch its
    count; a pawn none of the colour's cubes (``Count(0, "pawn")``), whose odds of being a cube
    face after all (a noisy face reads round) the model knows from the tuning renders; a head found
    as a ball (:mod:`vision.counter.balls`) is its own kind, ``ball``, with its own odds."""
    t = prep.tuning
    out = []
    for c in counted:
        if c.kind == "cube":
            out.append((c.core, c.count))
        else:
            out.append((c.core, Count(0, "ball" if c.core.ball else "pawn", faces=c.core.area_mm2 / t.FACE_CORE_MM2,
                                      shade=shade(prep, c.core))))
    return out


def pawns_that_were_cubes(patches: list[tuple[Core, Count]], tables: list[npt.NDArray[np.float64]], counted: dict[str, int],
                          decided: dict[str, int], courtiers: dict[str, int]) -> dict[str, int]:
    """The courtiers once the decision model has raised a colour's cubes: a pawn more probably a cube
    face than not (its table's +1 above its 0) is that cube, not a courtier, up to the rise."""
    out = dict(courtiers)
    for colour, n in decided.items():
        rise = n - counted.get(colour, 0)
        likely = sorted((float(t[3]), i) for i, ((core, count), t) in enumerate(zip(patches, tables, strict=True))
                        if count.kind == "pawn" and core.colour == colour and t[3] > t[2])
        for _ in likely[::-1][:max(rise, 0)]:
            out[colour] = max(out.get(colour, 0) - 1, 0)
    return out


def reading_from_cores(prep: Prepared, frame: Frame, cores: list[Core], model: DoubtModel) -> TrayReading:
    counted, doubts, confidence = read_cores(prep, frame, cores)
    frame.debug["counted"] = counted
    frame.debug["leftover"] = leftover(prep, frame, [c.core for c in counted])
    cubes, courtiers = empty_cubes(), empty_courtiers()
    for c in counted:
        if c.kind == "courtier":
            courtiers[c.core.colour] += 1
        else:
            cubes[c.core.colour] += c.count.n
    patches = model_patches(prep, counted)
    complete = len(frame.pose.marker_ids) >= len(g.MARKER_IDS)
    verdict, model_tables = model.judge(cubes, patches, complete, frame.debug["leftover"], frame)
    frame.debug["verdict"] = verdict
    read_courtiers = dict(courtiers)
    courtiers = pawns_that_were_cubes(patches, model_tables, cubes, verdict.cubes, courtiers)
    pawn_cubes = {c: read_courtiers[c] - n for c, n in courtiers.items() if read_courtiers[c] > n}
    cubes = dict(verdict.cubes)
    pending: list[tuple[str, str | None, npt.NDArray[np.int32], int, float, str | None]] = []
    flags: list[bool] = []
    for i, c in enumerate(counted):
        core = c.core
        note = (f"{c.count.kind} {core.area_mm2:.0f} mm2 v{core.visible_mm2 or 0:.0f} r{core.radius_mm:.1f} "
                f"sq{core.squareness:.2f} rd{core.roundness:.2f} L{core.lightness:.0f} "
                f"{core.length_mm:.1f}x{core.width_mm:.1f}")
        pending.append((c.kind, core.colour, core.contour, c.count.n, c.count.score, note))
        flags.append(i in verdict.doubtful)
    detections = frame.detections(pending)
    for det, flag in zip(detections, flags, strict=True):
        det.doubt = flag
    reason = None
    if doubts:
        shown = "; ".join(doubts[:3]) + (f"; and {len(doubts) - 3} more" if len(doubts) > 3 else "")
        reason = f"counted, with doubt: {shown}"
    return TrayReading(True, reason, cubes, courtiers, round(float(np.clip(confidence, 0.0, 1.0)), 3),
                       detections, doubts, frame.pose.marker_ids, trusted=verdict.trusted,
                       alternatives=verdict.alternatives, pawn_cubes=pawn_cubes,
                       alternatives_cover=round(float(verdict.cover), 4))
