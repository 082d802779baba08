"""A rendered coin refused by one of the coin guard's tests alone, the others put out of reach."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from vision.counter.guards import flat_discs
from vision.imageio import read_image
from vision.reading import Detection


def refused_with(counter: Any, image: Path, **out_of_reach: Any) -> list[Detection]:
    """The coins ``guards.flat_discs`` finds in a render that the counter refuses, read with the
    tuning's fields in ``out_of_reach`` replaced (bars no circle or rim can reach), so that what is
    left refuses it alone. The markers are looked for anew, as the benches read a render."""
    prep = counter.prepared
    prep.locator.forget()
    reading, frame = counter.read(read_image(image))
    assert not reading.usable and frame is not None, "the render was chosen for a coin the guard refuses"
    prep.tuning, kept = dataclasses.replace(prep.tuning, **out_of_reach), prep.tuning
    try:
        return flat_discs(prep, frame)
    finally:
        prep.tuning = kept
