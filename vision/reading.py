"""What the counter says about one frame."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vision.geometry import ALL_COLOURS, PLAYER_COLOURS


@dataclass
class Detection:
    """One thing found in the tray: a cube, a courtier pawn, or something foreign.

    ``outline`` is a closed polygon in the original frame's pixel coordinates (for annotation);
    ``centre_mm`` is its centre on the plate; ``score`` how sure the counter is of it (0..1).
    """

    kind: str  # "cube" | "courtier" | "foreign"
    colour: str | None
    outline: np.ndarray
    centre_mm: tuple[float, float]
    count: int = 1
    score: float = 1.0
    note: str | None = None
    doubt: bool = False  # this patch puts its colour in doubt (circled on the annotated photo)


def empty_cubes() -> dict[str, int]:
    return {c: 0 for c in ALL_COLOURS}


def empty_courtiers() -> dict[str, int]:
    return {c: 0 for c in PLAYER_COLOURS}


@dataclass
class TrayReading:
    usable: bool
    reason: str | None
    cubes: dict[str, int] = field(default_factory=empty_cubes)
    courtiers: dict[str, int] = field(default_factory=empty_courtiers)
    confidence: float = 0.0
    detections: list[Detection] = field(default_factory=list)
    doubts: list[str] = field(default_factory=list)
    marker_ids: tuple[int, ...] = ()
    #: the station would act on this frame alone (never true of an unusable reading)
    trusted: bool = False
    #: only the colours in doubt: (count, probability) pairs, most likely first, the first equal to
    #: ``cubes[colour]``; empty when nothing is in doubt
    alternatives: dict[str, list[tuple[int, float]]] = field(default_factory=dict)

    @classmethod
    def unusable(cls, reason: str, detections: list[Detection] | None = None,
                 marker_ids: tuple[int, ...] = ()) -> TrayReading:
        return cls(False, reason, confidence=0.0, detections=detections or [], marker_ids=marker_ids)

    def to_json(self, image_path: str | None = None) -> dict[str, Any]:
        """The object ``tower count --json`` prints for one image."""
        return {
            "image": image_path,
            "usable": self.usable,
            "reason": self.reason,
            "cubes": {c: int(self.cubes.get(c, 0)) for c in ALL_COLOURS},
            "courtiers": {c: int(self.courtiers.get(c, 0)) for c in PLAYER_COLOURS},
            "confidence": round(float(self.confidence), 3),
            "trusted": bool(self.trusted),
            "alternatives": {c: [{"count": int(n), "p": round(float(p), 3)} for n, p in alts]
                             for c, alts in self.alternatives.items()},
        }
