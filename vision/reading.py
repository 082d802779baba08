"""What the counter says about one frame, and the one shape a tray reading keeps up to the records.

:class:`TrayReading` is the vision counter's result and also what the station's tray readers hand
the drop cycle (the camera reader adds the photos it wrote and whether the tray settled; a reader
that knows the tray exactly, as in crash and soak runs, builds one with the defaults: usable,
certain, trusted). :meth:`TrayReading.to_record` is the form a reading takes in the records (and
the session's state); :meth:`TrayReading.from_record` reads it back. ``to_json`` is the other,
older contract: the object ``tower count --json`` prints. :func:`guarded_count` is how the station
and ``tower count`` ask a counter for one.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from numpy.typing import NDArray

from vision.geometry import ALL_COLOURS, PLAYER_COLOURS


@dataclass
class Detection:
    """One thing found in the tray: a cube, a courtier pawn, or something foreign.

    ``outline`` is a closed polygon in the original frame's pixel coordinates (for annotation);
    ``centre_mm`` is its centre on the plate; ``score`` how sure the counter is of it (0..1).
    """

    kind: str  # "cube" | "courtier" | "foreign"
    colour: str | None
    outline: NDArray[Any]
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
    """One reading of the tray. The defaults describe a reading that is certain (a reader that knows
    the tray, the host's own counts); the vision counter always states its confidence and trust."""

    usable: bool = True
    reason: str | None = None
    cubes: dict[str, int] = field(default_factory=empty_cubes)
    courtiers: dict[str, int] = field(default_factory=empty_courtiers)
    confidence: float = 1.0
    detections: list[Detection] = field(default_factory=list)
    doubts: list[str] = field(default_factory=list)
    marker_ids: tuple[int, ...] = ()
    # The station would act on this frame alone (the counter's doubt model says it is practically
    # certain). An unusable reading is never trusted.
    trusted: bool = True
    # Only the colours in doubt: (count, probability) most likely first, the first count equal to
    # ``cubes[colour]``, probabilities summing to 1 (3 places), at most 4 a colour. {} when sure.
    alternatives: dict[str, list[tuple[int, float]]] = field(default_factory=dict)
    # Of each colour's cubes, how many are patches the counter first read as a courtier's head and
    # its decision model then found more probably a cube face (the courtier count is one less for
    # each). Where the drop cycle uses fewer cubes of that colour, those may be courtiers after all.
    pawn_cubes: dict[str, int] = field(default_factory=dict)
    # The counter's probability that the true counts are among the combinations of
    # ``alternatives`` with every other colour as read (without alternatives: that the reading is
    # right as read; 1 where nothing says otherwise: a reading typed in, an old record). What it
    # leaves out, a colour not in doubt off by one or a count too unlikely to show, is why the drop
    # cycle does not settle on a combination by the beam alone unless that combination beats it too.
    alternatives_cover: float = 1.0
    # What the station adds: where the reading came from ("camera", "direct"), whether the tray had
    # settled before the frame, and the photos written for it (raw: the evidence; annotated).
    source: str = "camera"
    settled: bool = True
    raw: Path | None = None
    annotated: Path | None = None
    # The annotated photo captioned in each other language the station speaks ("de" -> its file).
    annotated_in: dict[str, Path] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.usable:
            self.trusted = False

    @property
    def circled_colours(self) -> set[str]:
        """The colours with a patch circled on the annotated photo (``Detection.doubt``). A question
        about another colour (the reads of a shaken tray disagreed on it, or its cubes left colour
        no patch explains) has nothing on the photo to point at."""
        return {d.colour for d in self.detections if d.doubt and d.colour is not None}

    @classmethod
    def unusable(cls, reason: str, detections: list[Detection] | None = None,
                 marker_ids: tuple[int, ...] = ()) -> TrayReading:
        return cls(False, reason, confidence=0.0, detections=detections or [], marker_ids=marker_ids,
                   trusted=False)

    def to_record(self) -> dict[str, Any]:
        """The reading as the records keep it (the ``reading`` of a record and of the session's
        state): the counts that are not zero, the counter's verdict and where it came from. The
        photos are the record's images, not part of this."""
        return {"cubes": {c: n for c, n in self.cubes.items() if n},
                "courtiers": {c: n for c, n in self.courtiers.items() if n},
                "usable": self.usable, "reason": self.reason, "confidence": round(float(self.confidence), 4),
                "source": self.source, "settled": self.settled, "trusted": bool(self.trusted),
                "alternatives": {c: [[int(n), round(float(p), 3)] for n, p in alts]
                                 for c, alts in self.alternatives.items()},
                **({"pawn_cubes": {c: int(n) for c, n in self.pawn_cubes.items() if n}}
                   if any(self.pawn_cubes.values()) else {}),
                **({"alternatives_cover": round(float(self.alternatives_cover), 4)}
                   if self.alternatives_cover < 1.0 else {})}

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> TrayReading:
        """The reading back from :meth:`to_record`'s form (``to_record`` of the result gives it again)."""
        return cls(
            usable=bool(record["usable"]), reason=record.get("reason"),
            cubes={c: int(n) for c, n in record["cubes"].items()},
            courtiers={c: int(n) for c, n in record.get("courtiers", {}).items()},
            confidence=float(record["confidence"]), trusted=bool(record["trusted"]),
            alternatives={c: [(int(n), float(p)) for n, p in alts] for c, alts in record.get("alternatives", {}).items()},
            pawn_cubes={c: int(n) for c, n in record.get("pawn_cubes", {}).items()},
            alternatives_cover=float(record.get("alternatives_cover", 1.0)),
            source=str(record.get("source", "camera")), settled=bool(record.get("settled", True)),
        )

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
            "alternatives_cover": round(float(self.alternatives_cover), 3) if self.usable else 0.0,
        }


log = logging.getLogger("vision.counter")

COUNTER_FAULT = ("the counter failed on this photo ({why}): a fault in the station's software, not in the "
                 "tray; count the tray by hand")
"""The reason of a reading the counter could not finish (:func:`guarded_count`)."""


def guarded_count(counter: Any, frame_bgr: NDArray[Any]) -> TrayReading:
    """``counter.count(frame_bgr)``, where a fault inside the counter (a bug in one of its stages,
    not a bad photo: those are unusable readings already) becomes an unusable reading that says so,
    its traceback logged. The station and ``tower count`` read through this: at the table the drop
    cycle reads again and then asks the host, and the photo already written stays, where a raised
    error would stop the drop and fail again on every resume. The benches and tests call ``count``
    itself, so that a fault shows there as the error it is."""
    try:
        reading: TrayReading = counter.count(frame_bgr)
    except Exception as exc:  # noqa: BLE001 - any fault of the counter's own is reported, never raised at the table
        log.exception("the counter failed on a frame")
        kind = type(exc).__name__ if type(exc).__module__ == "builtins" else f"{type(exc).__module__}.{type(exc).__name__}"
        return TrayReading.unusable(COUNTER_FAULT.format(why=f"{kind}: {exc}".strip()))
    return reading
