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
    # True on the patch(es) that put a colour in doubt: the one to circle on the annotated photo.
    doubt: bool = False


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
    # The station would act on this frame alone (the counter's doubt model says it is practically
    # certain). An unusable reading is never trusted.
    trusted: bool = False
    # Only the colours in doubt: (count, probability) most likely first, the first count equal to
    # ``cubes[colour]``, probabilities summing to 1 (3 places), at most 4 a colour. {} when sure.
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
            "trusted": bool(self.trusted and self.usable),
            "alternatives": {c: [{"count": int(k), "p": round(float(p), 3)} for k, p in options]
                             for c, options in self.alternatives.items()},
        }
