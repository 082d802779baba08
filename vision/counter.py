"""The tray counter: one frame in, exact counts (or an honest "unusable") out.

Pipeline, prepared once per profile (``TrayCounter(profile)``) and run per frame:

1. Markers -> camera pose -> the tray warped to a top-down view on the plane of the cube tops, so a
   lying cube's top face is a 10 mm square wherever it lies (``vision.rectify``, ``vision.plate``).
2. White balance on the grey plate, then every pixel classified against the profile
   (``vision.colour``); a pixel that sensor noise threw out of every class takes its 3 x 3 median's.
3. Faces, not blobs: under the ring light a cube's top face is bright and even, its bevelled edges
   and the gaps to its neighbours are thin dark seams. Removing seam pixels (a black-hat filter,
   relative to the local brightness so it works for black cubes as for yellow) splits touching
   cubes of one colour, against each other and against the walls, into one *core* per visible top
   face. Dark side faces are thin slivers (a few millimetres at most from 300 mm) and are dropped by
   their inscribed radius.
4. Each core is measured in millimetres: its area in units of a cube's top face (a core that
   merged several faces is cut at the narrow necks where they touch, and each part counted by its
   size, or by the dark grooves between flush faces), its squareness (a pawn's ball-shaped head is round, a cube's face
   square; a pawn lying down is a tapered oblong) and its shading (a ball's surface turns away from
   the light, so it is darker than a flat top of its colour). A pawn merged with a face of its
   colour is split off it by fitting the face's square.
5. Partly hidden cubes: a cube counts when a quarter of its silhouette is visible (the spec's rule).
   A partial face's visible area is its colour's pixels around its core (the seam band given back);
   strips of a lower cube's top too thin to keep a core of their own are found as the colour's
   pixels that no core reaches. Either is compared with a quarter of the cube's silhouette as the
   camera sees it there (top face plus the side faces turned to the camera, growing with the
   distance from the camera's nadir).
6. Anything large that matches no colour - a coin, a finger - makes the frame unusable, as does
   anything reaching over the walls from outside (a hand).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision import geometry as g
from vision.colour import (
    BACKGROUND,
    COLOUR_CODES,
    UNKNOWN,
    PixelClassifier,
    bgr_to_lab,
    lab_to_reflectance,
    reflectance_to_lab,
)
from vision.plate import HAND_RING_MASK, PLATE_VIEW, TRAY_VIEW, plate_level
from vision.profile import ColourProfile
from vision.reading import Detection, TrayReading, empty_courtiers, empty_cubes
from vision.rectify import MarkerLocator, NoMarkers, PlatePose

PPM = TRAY_VIEW.ppm
FACE_AREA_MM2 = g.CUBE_EDGE_MM**2
# A seam is a thin line darker than its surroundings by this fraction of their brightness.
SEAM_DEPTH = 0.10
SEAM_KERNEL_MM = 2.0
SEAM_FLOOR = 3.0  # grey levels: below this a dip is noise even on a black top
# A visible face must keep at least this inscribed radius once seams are removed (the quarter of a
# 10 mm face that makes a cube count is a 5 x 5 mm corner, less its seams; side faces seen from above
# are under ~3 mm wide and split from their top by the bevel seam).
MIN_FACE_RADIUS_MM = 1.3
MIN_FACE_AREA_MM2 = 0.15 * FACE_AREA_MM2
HOLED_RADIUS_MM = 3.0  # a core this thin may be a face riddled with noise: measured again, holes filled
# A visible face, whole or partly hidden, is a convex patch; the dark crevices and shadows between
# cubes that can pass for black are ragged. Cores filling less of their convex hull are not faces.
MIN_SOLIDITY = 0.6
FACE_GATE = 12.0
MAX_FACE_LENGTH_MM = 1.1 * math.sqrt(2) * g.CUBE_EDGE_MM  # a face's diagonal, magnified on layer 3  # Mahalanobis^2 of a face's median colour: within 3 standard deviations
FLOOR_LEVEL_SIGMA_MM = 8.0  # smoothing of the local floor level (in mm; the level map is 1 px/mm)
BLACK_SPLIT_EXPONENT = 1 / 3  # where between black (0) and floor (1), in log grey, shadowed floor starts
PAWN_ROUNDNESS = 0.55
PAWN_MAX_SQUARENESS = 0.88  # a disc fills pi/4 of its bounding square, a face nearly all of it
# A pawn lying down: its core (about 12-13 x 9-10 mm) is longer than a whole face's core, even one
# magnified on the third layer (10.7 mm less the seams), and tapered (its outline fills well under
# the 0.9 of its rectangle that any whole face fills).
LYING_PAWN_MIN_LENGTH_MM = 11.0
# A standing pawn's head seen from above is a ball about 7 mm across (38 mm2) over its 10 mm base: what
# is split off a face as a pawn must be at least that wide and most of that area (a strip of a lower
# cube beside the face is thinner).
PAWN_HEAD_MIN_MM2 = 0.3 * FACE_AREA_MM2
PAWN_HEAD_MIN_RADIUS_MM = 2.5
PAWN_TOP_ROUNDNESS = 0.8
PAWN_SHARE_MIN = 0.15  # a face with a pawn merged is darker than a top by at least this share of the gap  # a disc fills ~0.9 of its enclosing circle, any part of a square face < 0.7
LYING_PAWN_MAX_SQUARENESS = 0.8
# ... and it shows its whole body, as wide as its 10 mm base less the seams, and most of a face's
# area: a part of a face that long (a tilted face merged with a strip of another) is a sliver.
LYING_PAWN_MIN_WIDTH_MM = 0.8 * g.COURTIER_BASE_MM
LYING_PAWN_MIN_MM2 = 0.6 * FACE_AREA_MM2
# Its outline is rounded (the base's rim, the head's ball) and fills about half its enclosing circle;
# a face cut to an oblong by a neighbour keeps its corners and fills under 0.4.
LYING_PAWN_MIN_ROUNDNESS = 0.45
# How sure each kind of reading is (multiplied into the frame's confidence).
PAWN_SCORE = 0.95
SMALL_FACE_SCORE = 0.9
TILTED_SCORE = 0.95
MERGED_SCORE = 0.9
SMALL_FACE_MM2 = 0.35 * FACE_AREA_MM2
# A cube counts when at least a quarter of its silhouette is visible from above (the spec's rule). The
# silhouette is its top face plus the side faces the camera sees (see TrayCounter._quarter_mm2); a
# partly hidden cube shows part of a side face below its visible top, which is too dark for its
# colour's gate, so the visible top alone must make up this share of the quarter.
VISIBLE_FRACTION = 0.25
TOP_SHARE_OF_VISIBLE = 0.75
# The least visible top that can make a cube count: right under the camera, where no side shows.
QUARTER_FACE_MM2 = VISIBLE_FRACTION * TOP_SHARE_OF_VISIBLE * FACE_AREA_MM2
NEAR_QUARTER = 0.8  # a partial face showing from this share of the quarter up to it is left out, with doubt
# How far from a face's core its own pixels reach: the seam band removed around the core (half the
# seam kernel) and the bevel beyond it.
FACE_REACH_MM = 1.5
# A strip of a cube's top face left visible around a cube lying on it, with no core of its own (the
# seam filter takes thin strips for seams): at least a quarter face that is at least as wide as a
# quarter face's strip (2.5 mm, less a pixel at each edge), and no longer than a face's diagonal.
STRIP_MIN_RADIUS_MM = 1.1
THIN_STRIP_RADIUS_MM = 0.25 * g.CUBE_EDGE_MM  # narrower than half a face (5 mm wide) ...
THIN_STRIP_MAX_LENGTH_MM = 1.3 * g.CUBE_EDGE_MM  # ... it lies along one edge: an edge long, magnified, and the side face beyond its end
# Counting merged faces (see TrayCounter._cubes_in).
SINGLE_MAX_MM2 = 1.75 * FACE_AREA_MM2
SINGLE_SQUARENESS = 0.92
# One cube, tilted, shows its top foreshortened and one side: together at most a face's diagonal long
# (magnified up to ~4 % on the second layer) and a face wide (10.7 mm on the third layer, plus a pixel).
TILTED_MAX_LENGTH_MM = 1.04 * math.sqrt(2) * g.CUBE_EDGE_MM
TILTED_MAX_WIDTH_MM = 1.2 * g.CUBE_EDGE_MM
# A core outside both one-cube outlines whose brightest part is one whole top face (a square of a
# face's side, less its bevels or magnified, filling its rectangle) and that reaches this far beyond
# it holds a second cube's top (see TrayCounter._beyond_top_square): the least top a counted lower
# cube shows, less the band along the upper cube's bevel that the seam filter takes (about half).
TOP_SHARE = 0.85
TOP_SQUARE_FILL = 0.9
TOP_SQUARE_SIDES_MM = (0.85 * g.CUBE_EDGE_MM, 1.1 * g.CUBE_EDGE_MM)
BEYOND_TOP_MM2 = 0.5 * QUARTER_FACE_MM2
PILE_FIRST_MM2 = 1.15 * FACE_AREA_MM2
PILE_NEXT_MM2 = 0.97 * FACE_AREA_MM2
SUMMIT_SPACING_MM = 7.0
SUMMIT_MIN_MM = 2.5
# Faces merged at a corner or along part of an edge join through a neck narrower than this twice over.
NECK_MM = 2.5
GROOVE_SHARE = 0.8  # a groove between flush faces: darker than this share of the tops around it
GROOVED_FACE_MM2 = (g.CUBE_EDGE_MM - 0.5) ** 2  # a face with the groove's half beside it, in a flush block
NECK_SEED_MM2 = 3.0  # a face's part that deep is a few mm across; ragged edges leave specks
PAWN_ROUNDNESS_BLACK = 0.8
# Something that matches no colour and is wider than any cube face (inscribed radius > 5 mm) is
# foreign: a coin (20 mm), a fingertip (~16 mm).
FOREIGN_RADIUS_MM = 5.5
# A patch of a cube colour: a tilted cube on the third layer can show a face core of up to ~5.5 mm
# inscribed radius (magnified, with a sliver of side face); a 20 mm coin shows ~9 mm.
FOREIGN_COLOURED_RADIUS_MM = 7.0
# ... and a disc (filling most of its enclosing circle, as no face or union of faces does) needs less:
# sensor noise nibbles a coin's rim down to ~6.7 mm, while a face's core stays under ~5.5 mm.
FOREIGN_ROUND_RADIUS_MM = 6.0
FOREIGN_ROUNDNESS = 0.75
HAND_AREA_MM2 = 40.0
# What tint the plate keeps under an arm's shadow after the white balance (the ring light alone
# against the balanced mix: a von Kries change of log gains of up to about +-0.12 between red and
# blue when a 2700-3000 K room light outshines the ring, as in t0024; 0.08 called such shadows
# hands), and how far beyond the plate's chroma under it a hand's colour must be (skin: 15-40).
HAND_TINT = 0.12
HAND_CHROMA_FACTOR = 1.0


@dataclass
class _Core:
    colour: str
    area_mm2: float
    radius_mm: float
    squareness: float
    roundness: float
    lightness: float
    contour: np.ndarray  # in tray-view pixels
    centre: tuple[float, float]  # tray-view pixels
    summits: int = 1  # separate distance-transform summits (faces merged through missed seams)
    length_mm: float = 0.0  # long side of the minimum-area rectangle around the core
    width_mm: float = 0.0  # and its short side
    # The face's visible area: its colour's pixels (seams and edges included) within reach of the
    # core and nearer to it than to any other core of the colour. Measured for partial faces only.
    visible_mm2: float | None = None
    strip: bool = False  # a visible part found around other faces, with no core of its own
    quarter_mm2: float = 0.0  # the visible top area that makes this cube count (see _quarter_mm2)
    # A merged core cut at its necks (see TrayCounter._parts): per part, its area (mm2) and the long
    # side of its minimum-area rectangle (mm). Empty: not cut.
    parts: tuple[tuple[float, float, int], ...] = ()


def _disc(mm: float) -> np.ndarray:
    k = max(3, int(round(mm * PPM)) | 1)
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))


class TrayCounter:
    """Counts cubes per colour and courtier pawns in frames of the tray station.

    Build it once (markers detector, colour lookup table, kernels) and call ``count`` per frame.
    """

    def __init__(self, profile: ColourProfile) -> None:
        self.profile = profile
        self.locator = MarkerLocator()
        self.classifier = PixelClassifier(profile)
        self._seam_kernel = _disc(SEAM_KERNEL_MM)
        self._summit_kernel = _disc(SUMMIT_SPACING_MM)
        self._strip_kernel = _disc(2 * STRIP_MIN_RADIUS_MM - 1 / PPM)
        self._reach_kernel = _disc(2 * FACE_REACH_MM)
        self._pawn_open_kernel = _disc(2.0)  # what is left beside a face: slivers along its edges go
        self._k3 = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
        self._top_l = {c: m.mean[0] for c, m in profile.colours.items()}
        self._models = {c: self.classifier.tolerant_model(c) for c in profile.colours}
        # Black's brightness relative to the floor as calibrated, in encoded grey levels; halfway (in
        # log terms) between that and the floor itself is the line between black and shadowed floor.
        black_l = float(lab_lightness_to_grey(profile.colours["black"].mean[0]))
        floor_l = float(lab_lightness_to_grey(profile.background.mean[0]))
        self._black_ratio = max(min(black_l / max(floor_l, 1e-6), 1.0), 1e-3) ** BLACK_SPLIT_EXPONENT
        self._pawn_l = {c: m.mean[0] for c, m in profile.courtiers.items()}
        self.debug: dict[str, object] = {}
        self._frame_h: np.ndarray | None = None
        self._hand_chroma = HAND_CHROMA_FACTOR * _tinted_chroma(profile.background, HAND_TINT)
        self._frame_pose: PlatePose | None = None
        # Per colour, its pixels (1) in its padded bounding box and the box's origin (set by _cores).
        self._colour_boxes: dict[str, tuple[np.ndarray, int, int]] = {}
        self._gray: np.ndarray | None = None  # the frame's tray view in grey (set by count)

    # -- frame level -------------------------------------------------------------------------------
    def count(self, frame_bgr: np.ndarray) -> TrayReading:
        frame = _check_frame(frame_bgr)
        try:
            pose = self.locator.locate(frame)
        except NoMarkers as exc:
            return TrayReading.unusable(str(exc))
        plate = PLATE_VIEW.warp(frame, pose)
        level = plate_level(plate)
        tray = TRAY_VIEW.warp(frame, pose)
        labels = self._labels(tray, level)

        hand = self._hand_over_walls(plate, level)
        if hand is not None:
            return TrayReading.unusable(hand, marker_ids=pose.marker_ids)
        foreign = self._foreign(labels, pose)
        if foreign:
            return TrayReading.unusable(
                "something that is neither a cube nor a pawn is in the tray (a coin, a finger?): "
                "remove it and count again",
                detections=foreign,
                marker_ids=pose.marker_ids,
            )
        gray = cv2.cvtColor(tray, cv2.COLOR_BGR2GRAY)
        self._gray = gray  # for _beyond_top_square
        self._shadow_is_not_black(gray, labels)
        cores = self._cores(tray, gray, labels, level)
        cores += self._visible_parts(tray, labels, level, cores, pose)
        cores += self._pawns_beside_faces(tray, level, cores)
        # No face of a 10 mm cube is wider than 10 mm: a round patch of a cube colour that is (a
        # brass coin looks yellow) is something else lying in the tray.
        odd = [c for c in cores if (c.radius_mm > FOREIGN_COLOURED_RADIUS_MM and c.roundness > 0.6)
               or (c.radius_mm > FOREIGN_ROUND_RADIUS_MM and c.roundness > FOREIGN_ROUNDNESS)]
        if odd:
            return TrayReading.unusable(
                f"a round {odd[0].colour}-looking object {2 * odd[0].radius_mm:.0f} mm across is in the "
                "tray (a coin?): it is not a cube; remove it and count again",
                detections=[self._detection("foreign", c.colour, c.contour, pose) for c in odd],
                marker_ids=pose.marker_ids,
            )
        return self._decide(cores, pose)

    def _labels(self, tray: np.ndarray, level: np.ndarray) -> np.ndarray:
        """Class codes of the tray view. Sensor noise (strong on dark or dim faces) throws pixels of a
        uniform top face out of every colour's gate, and the face breaks into fragments too thin to
        count (a whole cube can be lost that way). A pixel that matched no class takes the class of
        its 3 x 3 median colour: the median undoes the noise, while every pixel that did match a
        class (a dark seam taken for black or floor included) keeps its own."""
        labels = self.classifier.classify(tray, level)
        holes = labels == UNKNOWN
        if holes.any():
            smooth = cv2.medianBlur(tray, 3)[holes]  # N x 3: classify just those pixels
            labels[holes] = self.classifier.classify(smooth.reshape(-1, 1, 3), level).reshape(-1)
        return labels

    def _shadow_is_not_black(self, gray: np.ndarray, labels: np.ndarray) -> None:
        """Floor in an arm's shadow can be as dark as a black cube in absolute terms, but not next to
        the floor around it: a black face reflects a few per cent of the light, a shadow still lets
        through half of it. So "black" pixels brighter than ``self._black_ratio`` of the local floor
        level (the floor's own pixels, smoothed over a few centimetres) are floor. Twice, so floor
        won back from the shadow informs the level inside it. Modifies ``labels`` in place."""
        black = COLOUR_CODES["black"]
        if not (labels == black).any():
            return
        # The floor level varies over centimetres: half a pixel per millimetre is plenty.
        small_size = (max(1, int(round(gray.shape[1] / PPM / 2))), max(1, int(round(gray.shape[0] / PPM / 2))))
        sigma = FLOOR_LEVEL_SIGMA_MM / 2
        g = cv2.resize(gray, small_size, interpolation=cv2.INTER_AREA).astype(np.float32)
        for _ in range(2):
            is_black = labels == black
            floor = cv2.resize((labels == BACKGROUND).astype(np.float32), small_size, interpolation=cv2.INTER_AREA)
            num = cv2.GaussianBlur(g * floor, (0, 0), sigma)
            den = cv2.GaussianBlur(floor, (0, 0), sigma)
            if float(den.max()) <= 1e-3:
                return
            wide_num = cv2.GaussianBlur(num, (0, 0), 2 * sigma)
            wide_den = cv2.GaussianBlur(den, (0, 0), 2 * sigma)
            level = np.where(den > 0.05, num / np.maximum(den, 1e-6), wide_num / np.maximum(wide_den, 1e-6))
            level = cv2.resize(level, (gray.shape[1], gray.shape[0]), interpolation=cv2.INTER_LINEAR)
            lit = is_black & (gray.astype(np.float32) > self._black_ratio * level)
            if not lit.any():
                return
            labels[lit] = BACKGROUND

    def _hand_over_walls(self, plate: np.ndarray, level: np.ndarray) -> str | None:
        """A hand or finger reaching in crosses the plate right around the tray. Anything there that
        the classifier does not take for the grey plate (which it accepts under a shadow or another
        tint of light, like the tray's floor) is a hand: nothing else lies on the plate."""
        labels = self.classifier.classify(plate, level)
        odd = (labels != BACKGROUND) & (HAND_RING_MASK > 0)
        if odd.any():
            # ... and that is coloured beyond what any light could tint the grey plate: a deep
            # shadow lit by the ring light alone is still grey-blue, skin is far more coloured.
            lab = bgr_to_lab(plate[odd].reshape(-1, 1, 3), level).reshape(-1, 3)
            odd[odd] = np.hypot(lab[:, 1], lab[:, 2]) > self._hand_chroma
        odd = odd.astype(np.uint8)
        odd = cv2.morphologyEx(odd, cv2.MORPH_OPEN, self._k3)
        area = float(cv2.countNonZero(odd)) / (PLATE_VIEW.ppm**2)
        self.debug["hand_area_mm2"] = area
        if area >= HAND_AREA_MM2:
            return f"a hand or finger is over the tray ({area:.0f} mm2 of it on the plate by the walls)"
        return None

    def _foreign(self, labels: np.ndarray, pose: PlatePose) -> list[Detection]:
        unknown = (labels == UNKNOWN).astype(np.uint8)
        unknown = cv2.morphologyEx(unknown, cv2.MORPH_OPEN, self._k3)
        dist = cv2.distanceTransform(unknown, cv2.DIST_L2, 3)
        self.debug["foreign_radius_mm"] = float(dist.max()) / PPM
        if dist.max() < FOREIGN_RADIUS_MM * PPM:
            return []
        n, comp = cv2.connectedComponents(unknown)
        out = []
        for i in range(1, n):
            blob = comp == i
            r = float(dist[blob].max()) / PPM
            if r < FOREIGN_RADIUS_MM:
                continue
            contour = _largest_contour(blob.astype(np.uint8))
            out.append(self._detection("foreign", None, contour, pose, note=f"{r * 2:.0f} mm wide, no colour"))
        return out

    # -- faces -------------------------------------------------------------------------------------
    def _cores(self, tray: np.ndarray, gray: np.ndarray, labels: np.ndarray, level: np.ndarray) -> list[_Core]:
        # Smooth first: a black top's sensor noise is as deep as its seams are.
        smooth = cv2.GaussianBlur(gray, (5, 5), 0)
        closed = cv2.morphologyEx(smooth, cv2.MORPH_CLOSE, self._seam_kernel)
        depth = cv2.subtract(closed, smooth)
        not_seam = (depth.astype(np.float32) <= SEAM_DEPTH * closed.astype(np.float32) + SEAM_FLOOR).view(np.uint8)
        cores: list[_Core] = []
        height, width = labels.shape
        self._colour_boxes = {}
        for colour, code in COLOUR_CODES.items():
            is_colour = (labels == code).view(np.uint8)  # 0 or 1
            bx, by, bw, bh = cv2.boundingRect(is_colour)
            if bw == 0 or bh == 0:
                continue
            # Work in the colour's bounding box (padded): the same result, a fraction of the pixels.
            ox, oy = max(bx - 3, 0), max(by - 3, 0)
            box = (slice(oy, min(by + bh + 3, height)), slice(ox, min(bx + bw + 3, width)))
            self._colour_boxes[colour] = (is_colour[box], ox, oy)  # for _visible_parts
            mask = is_colour[box] & not_seam[box]
            mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, self._k3)
            n, comp, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=4)
            if n <= 1:
                continue
            dist = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
            means: list[tuple[float, ...]] = []
            found: list[tuple] = []
            for i in range(1, n):
                area_mm2 = stats[i, cv2.CC_STAT_AREA] / PPM**2
                if area_mm2 < 0.1 * FACE_AREA_MM2:
                    continue
                lx, ly, w, h = stats[i, :4]  # in the box
                x, y = lx + ox, ly + oy  # in the tray view
                sub = comp[ly:ly + h, lx:lx + w] == i
                dsub = np.where(sub, dist[ly:ly + h, lx:lx + w], 0).astype(np.float32)
                r = float(dsub.max()) / PPM
                contour = None
                if r < HOLED_RADIUS_MM:
                    # Sensor noise punches holes into a dark face (the seam filter or the colour gate
                    # drops single pixels): a hole is not an edge, so measure the outline filled.
                    local = _largest_contour(sub.astype(np.uint8))
                    filled = np.zeros((h + 2, w + 2), np.uint8)
                    cv2.drawContours(filled, [(local + 1).reshape(-1, 1, 2)], -1, 1, -1)
                    r = float(cv2.distanceTransform(filled, cv2.DIST_L2, 3).max()) / PPM
                    contour = local + np.array([x, y])
                if r < MIN_FACE_RADIUS_MM:
                    continue
                if contour is None:
                    contour = _largest_contour(sub.astype(np.uint8)) + np.array([x, y])
                rect_w, rect_h = cv2.minAreaRect(contour.astype(np.float32))[1]
                rect_area = max(rect_w * rect_h, 1.0)
                (_, _), rad = cv2.minEnclosingCircle(contour.astype(np.float32))
                px_area = float(stats[i, cv2.CC_STAT_AREA])
                hull_area = max(cv2.contourArea(cv2.convexHull(contour.astype(np.int32))), 1.0)
                small = area_mm2 < 1.5 * self._face_core_area()
                if px_area / hull_area < MIN_SOLIDITY and small:
                    continue
                # No part of one face is longer than its diagonal; a sliver that long but no wider
                # than a face part is a crevice or a shadow between cubes.
                if small and max(rect_w, rect_h) / PPM > MAX_FACE_LENGTH_MM:
                    continue
                means.append(cv2.mean(tray[y:y + h, x:x + w], sub.astype(np.uint8))[:3])
                found.append((i, area_mm2, r, px_area / rect_area, _filled_area(contour) / (math.pi * rad * rad),
                              contour, rect_w, rect_h, sub, dsub, x, y, w, h))
            if not found:
                continue
            # Each pixel passed the colour's gate, but the face as a whole must be that colour too:
            # the mean of many pixels sits near the model's centre for a real face, while a dark
            # crevice between cubes only brushes black's edge pixel by pixel. (All of a colour's
            # candidates at once: one conversion instead of one per face.)
            labs = bgr_to_lab(np.array(means, np.float32).reshape(-1, 1, 3), level).reshape(-1, 3)
            gated = self._models[colour].mahalanobis2(labs) <= FACE_GATE
            for (i, area_mm2, r, squareness, roundness, contour, rect_w, rect_h, sub, dsub, x, y, w, h), lab, ok in zip(
                    found, labs, gated, strict=True):
                if not ok:
                    continue
                parts = self._parts(sub, gray[y:y + h, x:x + w]) if area_mm2 > SINGLE_MAX_MM2 else ()
                cores.append(
                    _Core(colour, area_mm2, r, squareness, roundness, float(lab[0]), contour,
                          (float(cents[i][0] + ox), float(cents[i][1] + oy)),
                          self._summits(dsub) if area_mm2 > SINGLE_MAX_MM2 and not parts else 1,
                          max(rect_w, rect_h) / PPM, width_mm=min(rect_w, rect_h) / PPM, parts=parts)
                )
        return cores

    def _visible_parts(self, tray: np.ndarray, labels: np.ndarray, level: np.ndarray,
                       cores: list[_Core], pose: PlatePose) -> list[_Core]:
        """How much of each partly hidden face is visible, and the strips of faces that have no core.

        A cube half under another shows its top face as a strip or an L around the upper cube. The
        core of such a face says that it is there, but the core has lost its seam band on every
        side, so its area understates what is visible most for thin strips; and a strip under about
        4 mm wide loses its core entirely. So, per colour, every pixel of the colour is given to the
        nearest core within ``FACE_REACH_MM`` (a Voronoi split of the colour's mask): a partial
        face's visible area is what it gets (``visible_mm2``, set in place). Pixels no core reaches
        are strips of faces that have no core; each that could be a quarter of a face is returned
        as a core of its own (``strip``)."""
        strips: list[_Core] = []
        camera = pose.camera_position_mm()
        by_colour: dict[str, list[_Core]] = {}
        for core in cores:
            by_colour.setdefault(core.colour, []).append(core)
        for colour in COLOUR_CODES:
            if colour not in self._colour_boxes:
                continue
            box, ox, oy = self._colour_boxes[colour]
            mask = cv2.morphologyEx(box, cv2.MORPH_OPEN, self._k3)
            own = by_colour.get(colour, [])
            if own:
                seeds = np.zeros(mask.shape, np.uint8)
                cv2.drawContours(seeds, [(c.contour - np.array([ox, oy])).reshape(-1, 1, 2).astype(np.int32)
                                         for c in own], -1, 1, -1)
                rest = cv2.subtract(mask, cv2.dilate(seeds, self._reach_kernel))
                for core in own:
                    if core.area_mm2 < SMALL_FACE_MM2:
                        core.visible_mm2 = self._owned_mm2(core, own, mask, (ox, oy))
                        core.quarter_mm2 = self._quarter_mm2(core.centre, camera)
            else:
                rest = mask
            # A strip has a pixel at least STRIP_MIN_RADIUS_MM from its edge: most colours have none.
            if cv2.countNonZero(rest) < QUARTER_FACE_MM2 * PPM**2 or not cv2.countNonZero(
                    cv2.erode(rest, self._strip_kernel)):
                continue
            n, comp, stats, cents = cv2.connectedComponentsWithStats(rest, connectivity=8)
            rdist: np.ndarray | None = None
            for i in range(1, n):
                area_mm2 = stats[i, cv2.CC_STAT_AREA] / PPM**2
                centre = (float(cents[i][0] + ox), float(cents[i][1] + oy))
                quarter = self._quarter_mm2(centre, camera)
                if area_mm2 < quarter:
                    continue
                if rdist is None:
                    rdist = cv2.distanceTransform(rest, cv2.DIST_L2, 3)
                lx, ly, w, h = stats[i, :4]
                sub = comp[ly:ly + h, lx:lx + w] == i
                r = float(rdist[ly:ly + h, lx:lx + w][sub].max()) / PPM
                if r < STRIP_MIN_RADIUS_MM:
                    continue
                contour = _largest_contour(sub.astype(np.uint8)) + np.array([lx + ox, ly + oy])
                rect_w, rect_h = cv2.minAreaRect(contour.astype(np.float32))[1]
                # Part of one face: no longer than its diagonal, and a band narrower than half a face
                # runs along one edge, so no longer than an edge (a dark crevice between cubes can be).
                longest = MAX_FACE_LENGTH_MM if r >= THIN_STRIP_RADIUS_MM else THIN_STRIP_MAX_LENGTH_MM
                if max(rect_w, rect_h) / PPM > longest:
                    continue
                x, y = lx + ox, ly + oy
                mean_bgr = np.array(cv2.mean(tray[y:y + h, x:x + w], sub.astype(np.uint8))[:3], np.float32)
                med = bgr_to_lab(mean_bgr.reshape(1, 1, 3), level).reshape(3)
                if float(self._models[colour].mahalanobis2(med)[0]) > FACE_GATE:
                    continue
                strips.append(_Core(colour, area_mm2, r, 0.0, 0.0, float(med[0]), contour, centre,
                                    length_mm=max(rect_w, rect_h) / PPM, visible_mm2=area_mm2, strip=True,
                                    quarter_mm2=quarter))
        return strips

    def _pawns_beside_faces(self, tray: np.ndarray, level: np.ndarray, cores: list[_Core]) -> list[_Core]:
        """Pawns standing against a cube of their colour, split off the cube's face.

        A pawn's head touching a face of its colour can merge with it into one core (the ball's rim
        against the face's edge leaves no dark seam), which by its area would read as two cubes.
        Such a core is a square face with a round bulge: the face is the square of the core's
        inscribed size, centred on one of the core's two deepest points (the pawn's 10 mm base is
        as wide as a face) and turned to cover most of the core; what is
        left, if it looks like a pawn's head (round, shaded darker than a flat top), is a pawn, and
        the core keeps the face alone (modified in place). Returns the pawns as cores."""
        pawns: list[_Core] = []
        for core in cores:
            if (core.colour not in self._pawn_l or core.strip or not (FACE_AREA_MM2 < core.area_mm2 <= SINGLE_MAX_MM2)
                    or (core.squareness >= SINGLE_SQUARENESS and core.length_mm <= MAX_FACE_LENGTH_MM)):
                continue
            # The shaded ball darkens the merged core's mean: a third of it or more is the pawn's.
            top, pawn = self._top_l[core.colour], self._pawn_l[core.colour]
            if core.lightness > top - PAWN_SHARE_MIN * (top - pawn):
                continue
            x, y, w, h = cv2.boundingRect(core.contour.reshape(-1, 1, 2).astype(np.int32))
            origin = np.array([x - 1, y - 1])
            mask = np.zeros((h + 2, w + 2), np.uint8)
            cv2.drawContours(mask, [(core.contour - origin).reshape(-1, 1, 2).astype(np.int32)], -1, 1, -1)
            dist = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
            # The face's centre is one of the core's two deepest points (the pawn's base is as wide).
            _, r_max, _, peak = cv2.minMaxLoc(dist)
            other = dist.copy()
            cv2.circle(other, peak, int(round(0.7 * g.CUBE_EDGE_MM * PPM)), 0, -1)
            _, r_next, _, peak_next = cv2.minMaxLoc(other)
            found = None
            for centre, r in ((peak, r_max), (peak_next, r_next)):
                if r <= 0:
                    continue
                found = self._pawn_beside(core, mask, origin, centre, r, tray, level)
                if found is not None:
                    break
            if found is None:
                continue
            head, blob = found
            face = _largest_contour(mask & (1 - blob))
            core.contour = face + origin
            core.area_mm2 -= head.area_mm2
            core.squareness = max(core.squareness, SINGLE_SQUARENESS)  # what is left is the square face
            core.length_mm = min(core.length_mm, MAX_FACE_LENGTH_MM)
            pawns.append(head)
        return pawns

    def _pawn_beside(self, core: _Core, mask: np.ndarray, origin: np.ndarray, centre: tuple[int, int],
                     r: float, tray: np.ndarray, level: np.ndarray) -> tuple[_Core, np.ndarray] | None:
        """The pawn beside a face centred at ``centre`` (in ``mask``, a core's pixels from ``origin``
        in the tray view) with inscribed radius ``r`` px, as a core and its pixels; or None."""
        cx, cy = centre
        half = min(r, 0.5 * g.CUBE_EDGE_MM * PPM)
        best, best_poly = -1, None
        for angle in range(0, 90, 10):
            box = cv2.boxPoints(((cx, cy), (2 * half, 2 * half), angle)).astype(np.int32)
            poly = np.zeros_like(mask)
            cv2.fillConvexPoly(poly, box, 1)
            cover = int(np.count_nonzero(poly & mask))
            if cover > best:
                best, best_poly = cover, poly
        assert best_poly is not None
        rest = mask & (1 - cv2.dilate(best_poly, self._k3))
        rest = cv2.morphologyEx(rest, cv2.MORPH_OPEN, self._pawn_open_kernel)
        n, comp, stats, cents = cv2.connectedComponentsWithStats(rest, connectivity=4)
        if n <= 1:
            return None
        i = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        blob = (comp == i).astype(np.uint8)
        area_mm2 = float(stats[i, cv2.CC_STAT_AREA]) / PPM**2
        contour = _largest_contour(blob)
        (_, _), rad = cv2.minEnclosingCircle(contour.astype(np.float32))
        rect_w, rect_h = cv2.minAreaRect(contour.astype(np.float32))[1]
        bx, by = int(origin[0]), int(origin[1])
        sub = tray[by:by + blob.shape[0], bx:bx + blob.shape[1]]
        mean_bgr = np.array(cv2.mean(sub, blob[:sub.shape[0], :sub.shape[1]])[:3], np.float32)
        light = float(bgr_to_lab(mean_bgr.reshape(1, 1, 3), level).reshape(3)[0])
        r_in = float(cv2.distanceTransform(blob, cv2.DIST_L2, 3).max()) / PPM
        head = _Core(core.colour, area_mm2, r_in, float(stats[i, cv2.CC_STAT_AREA]) / max(rect_w * rect_h, 1.0),
                     _filled_area(contour) / (math.pi * rad * rad), light, contour + origin,
                     (float(cents[i][0] + origin[0]), float(cents[i][1] + origin[1])),
                     length_mm=max(rect_w, rect_h) / PPM, width_mm=min(rect_w, rect_h) / PPM)
        if area_mm2 < PAWN_HEAD_MIN_MM2 or r_in < PAWN_HEAD_MIN_RADIUS_MM or not self._looks_like_pawn(head):
            return None
        return head, blob

    @staticmethod
    def _quarter_mm2(centre_px: tuple[float, float], cam: np.ndarray) -> float:
        """The visible top area (mm2) that makes a partly hidden cube at ``centre_px`` (tray view)
        count. Seen from the camera a cube d mm from the camera's nadir shows, beside its 10 x 10
        top, the two side faces turned towards the camera, each about ``edge * d / (H - edge)``
        wide (H the camera's height); averaged over the cube's turn, their area is
        ``edge * (4 / pi) * d * edge / (H - edge)``. A quarter of that silhouette must be visible,
        ``TOP_SHARE_OF_VISIBLE`` of it as top face. ``cam``: the camera centre in plate mm."""
        x = TRAY_VIEW.x0 + (centre_px[0] + 0.5) / PPM
        y = TRAY_VIEW.y0 + (centre_px[1] + 0.5) / PPM
        d = math.hypot(x - cam[0], y - cam[1])
        edge = g.CUBE_EDGE_MM
        sides = edge * (4 / math.pi) * d * edge / max(abs(float(cam[2])) - edge, edge)
        return VISIBLE_FRACTION * TOP_SHARE_OF_VISIBLE * (FACE_AREA_MM2 + sides)

    @staticmethod
    def _owned_mm2(core: _Core, others: list[_Core], mask: np.ndarray, origin: tuple[int, int]) -> float:
        """The pixels of ``mask`` (a colour's, offset by ``origin`` in the tray view) that are within
        ``FACE_REACH_MM`` of ``core`` and no nearer to another core of the colour, in mm2."""
        reach = FACE_REACH_MM * PPM
        pad = int(math.ceil(reach)) + 1
        x, y, w, h = cv2.boundingRect(core.contour.reshape(-1, 1, 2).astype(np.int32))
        x0, y0 = max(x - origin[0] - pad, 0), max(y - origin[1] - pad, 0)
        x1, y1 = min(x - origin[0] + w + pad, mask.shape[1]), min(y - origin[1] + h + pad, mask.shape[0])
        if x1 <= x0 or y1 <= y0:
            return 0.0
        shift = np.array([origin[0] + x0, origin[1] + y0])
        mine = np.ones((y1 - y0, x1 - x0), np.uint8)
        cv2.drawContours(mine, [(core.contour - shift).reshape(-1, 1, 2).astype(np.int32)], -1, 0, -1)
        theirs = np.ones_like(mine)
        cv2.drawContours(theirs, [(c.contour - shift).reshape(-1, 1, 2).astype(np.int32) for c in others
                                  if c is not core], -1, 0, -1)
        d_mine = cv2.distanceTransform(mine, cv2.DIST_L2, 3)
        d_theirs = cv2.distanceTransform(theirs, cv2.DIST_L2, 3)
        owned = (mask[y0:y1, x0:x1] > 0) & (d_mine <= reach) & (d_mine <= d_theirs)
        return float(np.count_nonzero(owned)) / PPM**2

    def _decide(self, cores: list[_Core], pose: PlatePose) -> TrayReading:
        cubes = empty_cubes()
        courtiers = empty_courtiers()
        pending: list[tuple[str, str, np.ndarray, int, float, str]] = []
        doubts: list[str] = []
        confidence = 1.0
        if len(pose.marker_ids) < len(g.MARKER_IDS):
            confidence *= 0.95
        # A cube left out for showing a little less than a quarter is as doubtful as one counted for
        # a little more (those carry SMALL_FACE_SCORE): say so.
        for c in cores:
            if c.visible_mm2 is not None and NEAR_QUARTER * c.quarter_mm2 <= c.visible_mm2 < c.quarter_mm2:
                doubts.append(f"a cube about a quarter visible ({c.visible_mm2:.0f} mm2 of its top) left out "
                              f"({c.colour})")
                confidence *= SMALL_FACE_SCORE
        # A small core stands for a cube when the visible area around it makes a quarter (a thin
        # strip's core is small once its seam band is gone); without that measure, by its own area.
        cores = [c for c in cores if c.area_mm2 >= MIN_FACE_AREA_MM2
                 or (c.visible_mm2 is not None and c.visible_mm2 >= c.quarter_mm2)]
        pawn = [c.colour in self._pawn_l and not c.strip and self._looks_like_pawn(c) for c in cores]
        heads = [c.centre for c, p in zip(cores, pawn, strict=True) if p]
        for core, is_pawn in zip(cores, pawn, strict=True):
            kind = "cube"
            if is_pawn:
                kind = "courtier"
            elif core.visible_mm2 is not None and core.visible_mm2 < core.quarter_mm2:
                continue  # less than a quarter of this cube is visible: not asked to be counted
            elif self._top_of_a_pawn(core, heads):
                continue
            n, score, doubt = (1, PAWN_SCORE, None) if kind == "courtier" else self._cubes_in(core)
            if doubt:
                doubts.append(f"{doubt} ({core.colour})")
            confidence *= score
            if kind == "courtier":
                courtiers[core.colour] += 1
            else:
                cubes[core.colour] += n
            note = (f"{core.area_mm2:.0f} mm2 v{core.visible_mm2 or 0:.0f} r{core.radius_mm:.1f} sq{core.squareness:.2f} "
                    f"rd{core.roundness:.2f} L{core.lightness:.0f} {core.length_mm:.1f}x{core.width_mm:.1f}"
                    + (" parts " + ",".join(f"{a:.0f}/{ln:.1f}/{k}" for a, ln, k in core.parts) if core.parts else ""))
            pending.append((kind, core.colour, core.contour, n, score, note))
        detections = self._detections(pending, pose)
        reason = None
        if doubts:
            shown = "; ".join(doubts[:3]) + (f"; and {len(doubts) - 3} more" if len(doubts) > 3 else "")
            reason = f"counted, with doubt: {shown}"
        # interim until the counter's own calibrated gate: today's 0.8 confidence gate decides trust
        return TrayReading(True, reason, cubes, courtiers, round(confidence, 3), detections, doubts,
                           pose.marker_ids, trusted=confidence >= 0.8)

    @staticmethod
    def _top_of_a_pawn(core: _Core, pawns: list[tuple[float, float]]) -> bool:
        """The top of a pawn's ball faces the ring light and is as bright as a cube's top: it can
        come out as a small disc of its own inside the shaded ring of the ball (the pawn). A part
        of a square face is never that round; a disc centred on a pawn is part of it."""
        if core.area_mm2 >= SMALL_FACE_MM2 or core.roundness < PAWN_TOP_ROUNDNESS:
            return False
        reach = 0.5 * g.COURTIER_BASE_MM * PPM
        return any(math.hypot(core.centre[0] - x, core.centre[1] - y) <= reach for x, y in pawns)

    def _cubes_in(self, core: _Core) -> tuple[int, float, str | None]:
        """How many cubes one core stands for, how sure that is (0..1), and the doubt if any.

        Up to the largest silhouette one cube can show from above (a tilted cube: its face times
        about 1.7), a core that fills its bounding rectangle and is no longer than a face's diagonal
        is one cube, seen tilted (two flat cubes side by side fill a 10 x 20 rectangle). Beyond that,
        faces merged where seams were missed: the area gives a bracket (every face whole: area over
        a face's core; faces partly hidden by their neighbours, as in a pile: a first face and then
        about a face per extra cube), and the faces counted part by part once the core is cut at
        its necks (``_parts``; the distance transform's summits where it does not fall apart) pick
        inside it: a pick that no longer hinges on one summit more or less.
        """
        a = core.area_mm2
        if core.strip:
            return 1, SMALL_FACE_SCORE, f"a strip of {a:.0f} mm2 around other cubes taken for a cube under them"
        if a < SMALL_FACE_MM2:
            return 1, SMALL_FACE_SCORE, f"a small patch {a:.0f} mm2 taken for a partly hidden cube"
        if a <= SINGLE_MAX_MM2 and core.squareness >= SINGLE_SQUARENESS and core.length_mm <= MAX_FACE_LENGTH_MM:
            return 1, 1.0 if a <= self._face_core_area() * 1.4 else TILTED_SCORE, None
        if a <= SINGLE_MAX_MM2 and core.length_mm <= TILTED_MAX_LENGTH_MM and core.width_mm <= TILTED_MAX_WIDTH_MM:
            # It fits in what one tilted cube shows (top and side together are at most a face's
            # diagonal long, one face wide): one cube whose outline a JPEG block or the noise made
            # ragged, not two (one partly on another mostly overhangs that box, not always).
            return 1, TILTED_SCORE, f"a patch of {a:.0f} mm2, not square, read as one tilted cube" if a > 1.4 * self._face_core_area() else None
        whole = max(1, int(round(a / self._face_core_area())))
        if a <= SINGLE_MAX_MM2 and whole == 1 and self._beyond_top_square(core) >= BEYOND_TOP_MM2:
            # Neither a flat nor a tilted cube's outline, yet a whole, clean top square: the colour
            # beyond it is another cube's top, of the same colour, partly under this one.
            return 2, MERGED_SCORE, f"a patch of {a:.0f} mm2 read as a cube's top and a cube under it"
        if a <= SINGLE_MAX_MM2:
            doubt = None if whole == 1 else f"a patch of {a:.0f} mm2 taken for {whole} cubes, one partly on another"
            return whole, 1.0 if whole == 1 else MERGED_SCORE, doubt
        piled = max(1, 1 + int(round((a - PILE_FIRST_MM2) / PILE_NEXT_MM2)))
        lo, hi = min(whole, piled), max(whole, piled)
        guess = sum(self._cubes_in_part(*p) for p in core.parts) if core.parts else core.summits
        n = int(min(max(guess, lo), hi))
        if lo == hi:
            return n, MERGED_SCORE, None
        return n, MERGED_SCORE ** (hi - lo + 1), f"touching faces of {a:.0f} mm2 read as {n} cubes ({lo} to {hi} possible)"

    def _beyond_top_square(self, core: _Core) -> float:
        """How much of a core lies beyond the top face of the cube it shows (mm2); 0 when its
        brightest part is not one whole, clean top face.

        The ring light sits by the camera, so a cube's top (facing it) is the brightest part of its
        colour there; a lower cube's top beside it lies in its contact shadow, and side faces turn
        away from the light. The top is the pixels within ``TOP_SHARE`` of the core's bright
        quartile (3 x 3 median against noise); when they make one face-sized square that fills its
        rectangle, a flat cube's whole top is seen, and its sides are too dark for the colour's
        gate: what of the core lies outside that square (slivers along its edges opened away) is
        not this cube."""
        if self._gray is None:
            return 0.0
        height, width = self._gray.shape
        x, y, w, h = cv2.boundingRect(core.contour.astype(np.int32))
        x0, y0 = max(x - 2, 0), max(y - 2, 0)
        x1, y1 = min(x + w + 2, width), min(y + h + 2, height)
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.drawContours(mask, [(core.contour - [x0, y0]).reshape(-1, 1, 2).astype(np.int32)], -1, 1, -1)
        grey = cv2.medianBlur(np.ascontiguousarray(self._gray[y0:y1, x0:x1]), 3).astype(np.float32)
        bright_level = float(np.percentile(grey[mask > 0], 75))
        top = ((mask > 0) & (grey >= TOP_SHARE * bright_level)).astype(np.uint8)
        top = cv2.morphologyEx(top, cv2.MORPH_OPEN, self._k3)
        n, comp, stats, _ = cv2.connectedComponentsWithStats(top, connectivity=4)
        if n <= 1:
            return 0.0
        top = (comp == 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))).astype(np.uint8)
        rect = cv2.minAreaRect(_largest_contour(top).astype(np.float32))
        side_lo, side_hi = sorted(v / PPM for v in rect[1])
        if (np.count_nonzero(top) / max(rect[1][0] * rect[1][1], 1.0) < TOP_SQUARE_FILL
                or side_lo < TOP_SQUARE_SIDES_MM[0] or side_hi > TOP_SQUARE_SIDES_MM[1]):
            return 0.0
        square = np.zeros_like(mask)
        cv2.fillPoly(square, [cv2.boxPoints(rect).round().astype(np.int32)], 1)
        beyond = cv2.morphologyEx(((mask > 0) & (square == 0)).astype(np.uint8), cv2.MORPH_OPEN, self._k3)
        return float(np.count_nonzero(beyond)) / PPM**2

    def _cubes_in_part(self, area_mm2: float, length_mm: float, cells: int) -> int:
        """Cubes in one part of a merged core: one when it is no larger than one cube can show and
        no longer than a face's diagonal (the part keeps bits of the necks, so it need not fill its
        rectangle). Else several faces that no neck divides: where grooves split the part into
        ``cells`` (see _cells) they are whole faces flush in a block, each a face with half a groove
        around it (``GROOVED_FACE_MM2``); where none show, faces partly hidden by each other (a
        pile), each about a face's core or less, so the area in faces' cores."""
        if area_mm2 <= SINGLE_MAX_MM2 and length_mm <= MAX_FACE_LENGTH_MM:
            return 1
        if cells >= 2:  # grooves inside: whole faces flush in a block, each with its share of groove
            return max(cells, int(round(area_mm2 / GROOVED_FACE_MM2)))
        return max(1, int(round(area_mm2 / self._face_core_area())))

    def _cells(self, part: np.ndarray, gray: np.ndarray) -> int:
        """Faces in a part of a core that no neck divides, told apart by the grooves between them.

        Faces flush along an edge, or piled, leave a groove between them (the bevels of two cubes,
        each about half a millimetre): a line a pixel or two wide, clearly darker than the tops on
        either side, but too thin to survive the smoothing the seam filter needs on noisy dark tops.
        Here, inside one part, any pixel darker than ``GROOVE_SHARE`` of the part's median
        brightness (3 x 3 median against noise) is groove; what is left falls apart into cells, and
        each cell at least a quarter face's core is a face."""
        g = cv2.medianBlur(gray, 3)
        level = float(np.median(g[part > 0]))
        cells = (part > 0) & (g.astype(np.float32) >= GROOVE_SHARE * level)
        cells = cv2.morphologyEx(cells.astype(np.uint8), cv2.MORPH_OPEN, self._k3)
        n, _, stats, _ = cv2.connectedComponentsWithStats(cells, connectivity=4)
        return int(np.count_nonzero(stats[1:, cv2.CC_STAT_AREA] >= MIN_FACE_AREA_MM2 * PPM**2))

    def _parts(self, sub: np.ndarray, gray: np.ndarray) -> tuple[tuple[float, float, int], ...]:
        """A core that merged several faces, cut at its necks.

        Faces of one colour that touch at a corner or along part of an edge merge where the seam
        between them was missed, but they join through a neck much narrower than a face: the part
        of the core deeper than ``NECK_MM`` inside it (a face's core is ~9 mm wide) falls apart
        into one piece per face (two faces flush along a whole edge stay one, and are counted by
        area). Every pixel of the core goes to its nearest piece. ``sub``: the core's pixels (bool).
        Returns, per part, (area mm2, length mm, distance-transform summits); empty when the core
        does not fall apart."""
        # Holes that noise or a glint punched into the core are no necks: measure the filled outline.
        contours, _ = cv2.findContours(sub.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        filled = np.zeros(sub.shape, np.uint8)
        cv2.drawContours(filled, contours, -1, 1, -1)
        sub = filled > 0
        dist = cv2.distanceTransform(filled, cv2.DIST_L2, 3)
        seeds = (dist >= NECK_MM * PPM).astype(np.uint8)
        n, pieces, stats, _ = cv2.connectedComponentsWithStats(seeds, connectivity=8)
        small = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] < NECK_SEED_MM2 * PPM**2)
        small = small[small > 0]
        if small.size:
            seeds[np.isin(pieces, small)] = 0
        if n - 1 - small.size <= 1:
            return ()
        _, nearest = cv2.distanceTransformWithLabels(1 - seeds, cv2.DIST_L2, 3, labelType=cv2.DIST_LABEL_CCOMP)
        out = []
        for piece in np.unique(nearest[seeds > 0]):
            part = (sub & (nearest == piece)).astype(np.uint8)
            px = int(np.count_nonzero(part))
            if px == 0:
                continue
            area_mm2 = px / PPM**2
            if area_mm2 > SINGLE_MAX_MM2:  # more than one face whatever its length
                out.append((area_mm2, math.inf, self._cells(part, gray)))
                continue
            (w, h) = cv2.minAreaRect(_largest_contour(part).astype(np.float32))[1]
            out.append((area_mm2, max(w, h) / PPM, 1))
        return tuple(out) if len(out) > 1 else ()

    def _summits(self, dist: np.ndarray) -> int:
        summit = (dist >= cv2.dilate(dist, self._summit_kernel)) & (dist >= SUMMIT_MIN_MM * PPM)
        n, _ = cv2.connectedComponents(summit.astype(np.uint8))
        return max(1, n - 1)

    def _face_core_area(self) -> float:
        # A full top face loses about half a seam kernel along each edge once seams are removed.
        edge = g.CUBE_EDGE_MM - SEAM_KERNEL_MM * 0.5
        return edge * edge

    def _looks_like_pawn(self, core: _Core) -> bool:
        """A pawn's head is a ball: its surface turns away from the ring light, so it is darker than a
        flat top of its colour (as calibrated), and its outline is round, not square. A black ball
        hardly shades (it reflects little light either way, and a shadow darkens a black cube just as
        much), so black needs the round outline of an unbroken core.

        A pawn lying on its side shows its body from the side: a tapered outline about 14 x 10 mm
        (base to head), curved, so darker than a flat top too. No part of a cube's top is that
        long unless the face is whole and tilted, and then it fills its bounding rectangle."""
        top, pawn = self._top_l[core.colour], self._pawn_l[core.colour]
        darker = abs(core.lightness - pawn) < abs(core.lightness - top)
        if not darker or core.area_mm2 >= 0.9 * FACE_AREA_MM2 or core.squareness >= PAWN_MAX_SQUARENESS:
            return False
        if (core.length_mm >= LYING_PAWN_MIN_LENGTH_MM and core.squareness < LYING_PAWN_MAX_SQUARENESS
                and core.width_mm >= LYING_PAWN_MIN_WIDTH_MM and core.area_mm2 >= LYING_PAWN_MIN_MM2
                and core.roundness >= LYING_PAWN_MIN_ROUNDNESS):
            return True
        roundness = PAWN_ROUNDNESS_BLACK if core.colour == "black" else PAWN_ROUNDNESS
        # A disc fills ~100 % of its enclosing circle, a square face 64 %, a partly hidden face less.
        # ... and a core that fills its bounding rectangle is a face, however dark.
        return core.roundness > roundness

    def _detections(self, pending: list[tuple[str, str, np.ndarray, int, float, str]],
                    pose: PlatePose) -> list[Detection]:
        """``_detection`` for many readings (kind, colour, contour, count, score, note) at once: one
        projection of every outline into the image instead of one per reading."""
        if not pending:
            return []
        if self._frame_h is None or self._frame_pose is not pose:
            self._frame_h, self._frame_pose = TRAY_VIEW.view_to_image(pose), pose
        outlines = [p[2].reshape(-1, 2) for p in pending]
        pts = np.concatenate(outlines).reshape(-1, 1, 2).astype(np.float64)
        img = cv2.perspectiveTransform(pts, self._frame_h).reshape(-1, 2).astype(np.float32)
        out, start = [], 0
        for (kind, colour, _, count, score, note), view in zip(pending, outlines, strict=True):
            c = view.mean(axis=0)
            centre = (TRAY_VIEW.x0 + (c[0] + 0.5) / PPM, TRAY_VIEW.y0 + (c[1] + 0.5) / PPM)
            out.append(Detection(kind, colour, img[start:start + len(view)], centre, count, score, note))
            start += len(view)
        return out

    def _detection(self, kind: str, colour: str | None, contour_view: np.ndarray, pose: PlatePose,
                   count: int = 1, score: float = 1.0, note: str | None = None) -> Detection:
        if self._frame_h is None or self._frame_pose is not pose:
            self._frame_h, self._frame_pose = TRAY_VIEW.view_to_image(pose), pose
        pts = contour_view.reshape(-1, 1, 2).astype(np.float64)
        img = cv2.perspectiveTransform(pts, self._frame_h).reshape(-1, 2)
        c = contour_view.reshape(-1, 2).mean(axis=0)
        centre = (TRAY_VIEW.x0 + (c[0] + 0.5) / PPM, TRAY_VIEW.y0 + (c[1] + 0.5) / PPM)
        return Detection(kind, colour, img.astype(np.float32), centre, count, score, note)


def _tinted_chroma(model: ColourProfile | object, t: float) -> float:
    """Chroma (Lab) of a model's mean colour under the warm or cool tint ``t``, whichever is larger."""
    refl = lab_to_reflectance(model.mean_array)[0]  # type: ignore[attr-defined]
    out = 0.0
    for sign in (1.0, -1.0):
        gains = np.array([np.exp(sign * t), 1.0, np.exp(-sign * t)])
        lab = reflectance_to_lab((refl * gains).reshape(1, 1, 3)).reshape(3)
        out = max(out, float(np.hypot(lab[1], lab[2])))
    return out


def lab_lightness_to_grey(l_star: float) -> float:
    """CIE L* to an sRGB-encoded grey level in 0..1 (the scale of the camera's grey image)."""
    y = ((l_star + 16) / 116) ** 3 if l_star > 8 else l_star / 903.3
    return 12.92 * y if y <= 0.0031308 else 1.055 * y ** (1 / 2.4) - 0.055


def _largest_contour(mask: np.ndarray) -> np.ndarray:
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return np.zeros((1, 2), np.int32)
    return max(contours, key=cv2.contourArea).reshape(-1, 2)


def _check_frame(frame: np.ndarray) -> np.ndarray:
    if not isinstance(frame, np.ndarray):
        raise TypeError(f"a frame must be a numpy array, not {type(frame).__name__}")
    if frame.dtype != np.uint8:
        raise ValueError(f"a frame must be 8-bit (uint8), not {frame.dtype}")
    if frame.ndim == 2:
        return cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    if frame.ndim != 3 or frame.shape[2] not in (3, 4):
        raise ValueError(f"a frame must be H x W x 3 (BGR), not {frame.shape}")
    if frame.shape[2] == 4:
        return cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    if frame.shape[0] < 240 or frame.shape[1] < 320:
        raise ValueError(f"a frame of {frame.shape[1]}x{frame.shape[0]} is too small to read the tray")
    return frame


def _filled_area(contour: np.ndarray) -> float:
    """Area inside an outline, holes included (a pawn's glossy highlight leaves a hole in its core)."""
    return float(cv2.contourArea(contour.astype(np.float32).reshape(-1, 1, 2)))
