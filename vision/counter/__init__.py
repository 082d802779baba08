"""The tray counter: one frame in, counts (or an honest "unusable") out, with how sure it is.

Pipeline, prepared once per profile (``TrayCounter(profile)``) and run per frame; each stage is a
module taking the prepared tools and the explicit per-frame object (:class:`Frame`):

1. Markers -> camera pose -> the tray warped to a top-down view on the plane of the cube tops, so a
   lying cube's top face is a 10 mm square wherever it lies (``vision.markers``, ``vision.rectify``, ``vision.plate``).
2. White balance on the grey plate, then every pixel classified against the profile
   (:mod:`~vision.counter.faces`); a hand over the walls or a large patch of no colour makes the
   frame unusable (:mod:`~vision.counter.guards`).
3. Faces, not blobs: seams removed, one core per visible top face (:mod:`~vision.counter.faces`).
4. Partly hidden cubes: the visible area of each partial face against a quarter of the cube's
   silhouette, strips of lower cubes with no core (:mod:`~vision.counter.partial`).
5. Pawns: round, shaded heads, split off faces they touch (:mod:`~vision.counter.pawns`); a round,
   evenly lit patch of a cube colour wider than any face is a coin (guards); a cube on an edge or a
   corner whose faces all turn from the light, of no colour at the usual gate, is found at a wider
   one (:mod:`~vision.counter.unlit`); a standing courtier's head, broken into pieces by its
   highlight and shaded rim, is found whole as a shaded ball (:mod:`~vision.counter.balls`).
6. Cubes per core: whole faces, tilted cubes, cubes partly on others, touching faces
   (:mod:`~vision.counter.merged`), then the decision (:mod:`~vision.counter.decide`) and its
   model of doubt, fitted on tuning renders (:mod:`~vision.counter.doubt`): ``trusted`` and, where
   unsure, each doubtful colour's alternatives with their probabilities.

Every threshold is in :mod:`~vision.counter.tuning`.
"""

from __future__ import annotations

from typing import Any

import cv2
from numpy.typing import NDArray

from vision.counter import balls, corners, faces, guards, lying, partial, pawns, unlit
from vision.counter.decide import reading_from_cores
from vision.counter.doubt import DoubtModel
from vision.counter.frame import Frame, Prepared, bgr_frame, lab_lightness_to_grey
from vision.counter.tuning import TUNING, Tuning
from vision.plate import PLATE_VIEW, TRAY_VIEW, plate_level
from vision.profile import ColourProfile
from vision.reading import TrayReading
from vision.rectify import NoMarkers

__all__ = ["DoubtModel", "Frame", "TrayCounter", "Tuning", "lab_lightness_to_grey"]


class TrayCounter:
    """Counts cubes per colour and courtier pawns in frames of the tray station.

    Build it once (markers detector, colour lookup table, kernels, doubt model) and call ``count``
    per frame; ``read`` also returns the frame's state, for tools that look inside.
    """

    def __init__(self, profile: ColourProfile, tuning: Tuning = TUNING, model: DoubtModel | None = None) -> None:
        self.profile = profile
        self.prepared = Prepared(profile, tuning)
        self.model = model or DoubtModel.load()

    def count(self, frame_bgr: NDArray[Any]) -> TrayReading:
        return self.read(frame_bgr)[0]

    def read(self, frame_bgr: NDArray[Any]) -> tuple[TrayReading, Frame | None]:
        """The reading and the frame's state (None when no markers were found)."""
        prep = self.prepared
        image = bgr_frame(frame_bgr)
        try:
            pose = prep.locator.locate(image)
        except NoMarkers as exc:
            return TrayReading.unusable(str(exc)), None
        plate = PLATE_VIEW.warp(image, pose)
        frame = Frame(pose, plate, TRAY_VIEW.warp(image, pose), plate_level(plate))
        frame.labels = faces.labels(prep, frame)
        hand = guards.hand_over_walls(prep, frame)
        if hand is not None:
            return TrayReading.unusable(hand, marker_ids=pose.marker_ids), frame
        foreign = guards.colourless_objects(prep, frame)
        if foreign:
            return TrayReading.unusable(
                "something that is neither a cube nor a pawn is in the tray (a coin, a finger?): "
                "remove it and count again", detections=foreign, marker_ids=pose.marker_ids), frame
        frame.gray = cv2.cvtColor(frame.tray, cv2.COLOR_BGR2GRAY)
        faces.shadow_is_not_black(prep, frame)
        discs = guards.flat_discs(prep, frame)
        if discs:
            return TrayReading.unusable(guards.coin_refusal(discs), detections=discs, marker_ids=pose.marker_ids), frame
        cores = faces.cores(prep, frame)
        cores += partial.visible_parts(prep, frame, cores)
        cores += pawns.pawns_beside_faces(prep, frame, cores)
        odd = guards.coloured_objects(prep, frame, cores)
        if odd:
            return TrayReading.unusable(
                f"a round {odd[0].colour}-looking object {2 * odd[0].radius_mm:.0f} mm across is in the "
                "tray (a coin?): it is not a cube; remove it and count again",
                detections=frame.detections([("foreign", c.colour, c.contour, 1, 1.0, None) for c in odd]),
                marker_ids=pose.marker_ids), frame
        cores += unlit.unlit_cubes(prep, frame, cores)
        cores = corners.pieces_of_corners(prep, cores)
        cores = balls.heads_as_pawns(prep, frame, cores)
        cores = lying.lying_as_pawns(prep, frame, cores)
        return reading_from_cores(prep, frame, cores, self.model), frame
