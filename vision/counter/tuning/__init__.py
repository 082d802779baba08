"""Every number the counter's stages decide by, in one documented object.

The values are lengths and areas in millimetres on the plane of the cube tops (the tray view), so
they hold for any camera pose the markers give. Most come from the geometry of a 10 mm cube under a
ring light seen from about 300 mm; the decision model's numbers (how often each kind of reading is
wrong) are fitted on the tuning renders and live in ``doubt_model.json`` (see
:mod:`vision.counter.doubt`). ``TUNING`` is the instance the stages use; a test or a tuning script
may build a ``Tuning(...)`` with other values.
"""

from __future__ import annotations

from dataclasses import dataclass

from vision import geometry as g
from vision.counter.tuning.courtiers import CourtierTuning
from vision.counter.tuning.faces import FaceTuning
from vision.counter.tuning.guards import GuardTuning
from vision.counter.tuning.piles import PileTuning
from vision.counter.tuning.units import FACE_AREA_MM2, PPM

__all__ = ["FACE_AREA_MM2", "PPM", "TUNING", "Tuning"]


@dataclass(frozen=True, kw_only=True)
class Tuning(FaceTuning, CourtierTuning, PileTuning, GuardTuning):
    """Every number of the counter, each stage's written beside its reasons in the module of this
    package named for it; one object, so that a stage, a test or a tuning script passes them whole."""

    @property
    def QUARTER_FACE_MM2(self) -> float:  # noqa: N802 - a derived constant
        """The least visible top that can make a cube count: right under the camera."""
        return self.VISIBLE_FRACTION * self.TOP_SHARE_OF_VISIBLE * FACE_AREA_MM2

    @property
    def BEYOND_TOP_MM2(self) -> float:  # noqa: N802
        """The least top a counted lower cube shows beyond an upper one's square (about half is
        taken by the seam filter along the upper cube's bevel)."""
        return 0.5 * self.QUARTER_FACE_MM2

    @property
    def FACE_CORE_MM2(self) -> float:  # noqa: N802
        """A full top face once seams are removed: it loses half a seam kernel along each edge."""
        edge = g.CUBE_EDGE_MM - self.SEAM_KERNEL_MM * 0.5
        return edge * edge


TUNING = Tuning()
