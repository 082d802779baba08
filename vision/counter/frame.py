"""What the stages share: the counter's prepared tools, one frame's state, and a face's core.

``Prepared`` is built once per colour profile (marker detector, pixel classifier, kernels, the
colour models); ``Frame`` carries one frame through the stages (its views, class labels, pose) so
that no stage keeps per-frame state anywhere else; ``Core`` is one visible face (or merged faces,
a strip, a pawn's head) measured in millimetres.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.colour import PixelClassifier, lab_to_reflectance, reflectance_to_lab
from vision.counter.tuning import PPM, TUNING, Tuning
from vision.imageio import MIN_FRAME_SIZE
from vision.markers import MarkerLocator
from vision.plate import TRAY_VIEW
from vision.profile import ColourProfile
from vision.reading import Detection
from vision.rectify import PlatePose


@dataclass
class Core:
    """One patch of a colour that the stages read as a face (or several merged, a strip, a pawn)."""

    colour: str
    area_mm2: float
    radius_mm: float  # inscribed radius
    squareness: float  # share of its minimum-area rectangle it fills
    roundness: float  # share of its enclosing circle it fills
    lightness: float  # L* of its mean colour
    contour: NDArray[Any]  # in tray-view pixels
    centre: tuple[float, float]  # tray-view pixels
    summits: int = 1  # distance-transform summits (faces merged through missed seams)
    length_mm: float = 0.0  # long side of the minimum-area rectangle
    width_mm: float = 0.0  # and its short side
    # Its colour's pixels within reach of the core and nearer to it than to any other core of the
    # colour (partial faces only; see vision.counter.partial).
    visible_mm2: float | None = None
    strip: bool = False  # a visible part found around other faces, with no core of its own
    # A cube standing on a corner or an edge: round and wider than any face, like a coin, but shaded
    # as such a cube's two or three faces are (vision.counter.guards), or its faces all unlit and
    # of no colour at the usual gate (vision.counter.unlit). Read as one cube, in doubt.
    corner: bool = False
    # A courtier's head found as a shaded ball (vision.counter.balls): read as a pawn, never a cube.
    ball: bool = False
    # A courtier lying on its side, found whole (vision.counter.lying): read as a pawn, never a cube.
    lying: bool = False
    quarter_mm2: float = 0.0  # the visible top area that makes this cube count
    # A merged core cut at its necks: per part (area mm2, length mm, cells). Empty: not cut.
    parts: tuple[tuple[float, float, int], ...] = ()


def disc(mm: float) -> NDArray[Any]:
    k = max(3, int(round(mm * PPM)) | 1)
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))


class Prepared:
    """The tools every frame needs, built once per profile (the expensive part of a counter)."""

    def __init__(self, profile: ColourProfile, tuning: Tuning = TUNING) -> None:
        t = tuning
        self.tuning = t
        self.profile = profile
        self.locator = MarkerLocator()
        self.classifier = PixelClassifier(profile)
        self.seam_kernel = disc(t.SEAM_KERNEL_MM)
        # Per closed grey level, the deepest dip below it that is no seam (faces._not_seam): the
        # float32 bound ``SEAM_DEPTH * level + SEAM_FLOOR`` worked out once for every 8-bit level.
        bound = t.SEAM_DEPTH * np.arange(256, dtype=np.float32) + t.SEAM_FLOOR
        self.seam_limit = np.clip(np.floor(bound), 0, 255).astype(np.uint8)
        self.summit_kernel = disc(t.SUMMIT_SPACING_MM)
        self.strip_kernel = disc(2 * t.STRIP_MIN_RADIUS_MM - 1 / PPM)
        self.reach_kernel = disc(2 * t.FACE_REACH_MM)
        self.pawn_open_kernel = disc(2.0)  # what is left beside a face: slivers along its edges go
        self.k3 = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
        self.k5 = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
        self.hole_kernel = np.ones((max(3, int(round(t.LYING_HOLE_MM * PPM)) | 1),) * 2, np.uint8)  # lying.holes_filled
        self.unlit_box = max(3, int(round(t.UNLIT_BOX_MM * PPM)) | 1)
        self.unlit_clear = max(1, int(round(t.UNLIT_CLEAR_MM * PPM)))  # k3 dilations
        self.top_l = {c: m.mean[0] for c, m in profile.colours.items()}
        self.hue = {c: math.atan2(m.mean[2], m.mean[1]) for c, m in profile.colours.items()}  # of a*, b* (radians)
        black = profile.colours["black"]
        self.black_gap_l = black.mean[0] + t.GAP_MIN_LIFT_SD * math.sqrt(black.cov[0][0])  # see faces.cores
        self.models = {c: self.classifier.tolerant_model(c) for c in profile.colours}
        self.pawn_l = {c: m.mean[0] for c, m in profile.courtiers.items()}
        # Black's brightness relative to the floor as calibrated, in encoded grey; halfway (in log
        # terms) between that and the floor is the line between black and shadowed floor.
        black_l = float(lab_lightness_to_grey(profile.colours["black"].mean[0]))
        floor_l = float(lab_lightness_to_grey(profile.background.mean[0]))
        self.black_ratio = max(min(black_l / max(floor_l, 1e-6), 1.0), 1e-3) ** t.BLACK_SPLIT_EXPONENT
        self.hand_chroma = t.HAND_CHROMA_FACTOR * tinted_chroma(profile.background, t.HAND_TINT)
        self.floor_chroma = tinted_chroma(profile.background, t.FLOOR_TINT)
        self.plate_b = float(profile.background.mean[2])  # b* of the plate, calibrated: warmer is yellower
        self.plate_lightness = max(float(profile.background.mean[0]), 1.0)  # L* of the plate, calibrated


@dataclass
class Frame:
    """One frame on its way through the stages."""

    pose: PlatePose
    plate: NDArray[Any]  # the plate view (BGR), for the hand guard
    tray: NDArray[Any]  # the tray view (BGR) on the plane of the cube tops
    level: NDArray[Any]  # the plate's white level (white balance)
    labels: NDArray[Any] | None = None  # class codes of the tray view
    gray: NDArray[Any] | None = None  # the tray view in grey
    # Per colour, its pixels (1) in its padded bounding box and the box's origin (set by faces).
    colour_boxes: dict[str, tuple[NDArray[Any], int, int]] = field(default_factory=dict)
    debug: dict[str, Any] = field(default_factory=dict)
    _to_image: NDArray[Any] | None = None
    # near_cores' answers this frame: (the cores, their outline arrays, box shape, origin, kernel, answer)
    _near: list[tuple[list[Core], list[NDArray[Any]], tuple[int, ...], tuple[int, int], NDArray[Any], NDArray[Any]]] = field(
        default_factory=list)

    @functools.cached_property
    def camera_mm(self) -> NDArray[Any]:
        """The camera centre in plate mm, worked out once a frame (the partial faces and the
        decision both ask for it)."""
        return self.pose.camera_position_mm()

    def near_cores(self, cores: list[Core], shape: tuple[int, ...], origin: tuple[int, int],
                   kernel: NDArray[Any]) -> NDArray[Any]:
        """:func:`near_cores`, worked out once a frame for the same cores in the same box: the
        partial faces stage and the leftover ask it of a colour's cores, and on the tuning frames
        seven times in ten of the very same ones. The same means the same core objects with the
        same outline arrays (a stage that trims a core gives it a new outline); they are held here,
        so no other core can take their identity. The answer is shared: not to be written to."""
        for kept, outlines, kept_shape, kept_origin, kept_kernel, near in self._near:
            if (kept_shape == shape and kept_origin == origin and kept_kernel is kernel and len(kept) == len(cores)
                    and {id(c) for c in kept} == {id(c) for c in cores}
                    and all(c.contour is outline for c, outline in zip(kept, outlines, strict=True))):
                return near
        near = near_cores(cores, shape, origin, kernel)
        self._near.append((list(cores), [c.contour for c in cores], shape, origin, kernel, near))
        return near

    def detections(self, pending: list[tuple[str, str | None, NDArray[Any], int, float, str | None]]) -> list[Detection]:
        """Detections for readings (kind, colour, tray-view contour, count, score, note): every
        outline projected into the original frame at once."""
        if not pending:
            return []
        if self._to_image is None:
            self._to_image = TRAY_VIEW.view_to_image(self.pose)
        outlines = [p[2].reshape(-1, 2) for p in pending]
        pts = np.concatenate(outlines).reshape(-1, 1, 2).astype(np.float64)
        img = cv2.perspectiveTransform(pts, self._to_image).reshape(-1, 2).astype(np.float32)
        # Each outline's mean point, all at once: its points' sums (exact, in float64) over their number.
        sizes = np.array([len(view) for view in outlines])
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        means = (np.add.reduceat(pts.reshape(-1, 2), starts, axis=0) / sizes[:, None]).tolist()
        out = []
        for (kind, colour, _, count, score, note), start, size, (cx, cy) in zip(pending, starts.tolist(), sizes.tolist(),
                                                                               means, strict=True):
            centre = (TRAY_VIEW.x0 + (cx + 0.5) / PPM, TRAY_VIEW.y0 + (cy + 0.5) / PPM)
            out.append(Detection(kind, colour, img[start:start + size], centre, count, score, note))
        return out


def tinted_chroma(model: Any, t: float) -> float:
    """Chroma (Lab) of a model's mean colour under the warm or cool tint ``t``, whichever is larger."""
    refl = lab_to_reflectance(model.mean_array)[0]
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


def largest_contour(mask: NDArray[Any]) -> NDArray[Any]:
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return np.zeros((1, 2), np.int32)
    return max(contours, key=cv2.contourArea).reshape(-1, 2)


def box_mask(contour: NDArray[Any]) -> tuple[NDArray[Any], int, int]:
    """An outline filled (1) in its bounding box, and the box's origin (x, y) in the view. Drawn
    through ``offset``: shifting the outline's points first cost as much as the drawing."""
    outline = contour.reshape(-1, 1, 2).astype(np.int32, copy=False)
    x, y, w, h = cv2.boundingRect(outline)
    mask = np.zeros((h, w), np.uint8)
    cv2.drawContours(mask, [outline], -1, 1, -1, offset=(-x, -y))
    return mask, x, y


def ringed_box(mask: NDArray[Any]) -> tuple[NDArray[Any], int, int] | None:
    """The bounding box of a 0/1 mask's pixels with a pixel round it (cut at the mask's edges), and
    its origin in the mask; None when the mask is empty. The ring is all 0, so distances to the
    nearest 0, components and their statistics are there as over the whole mask (centroids apart:
    :func:`centroid_in_wider_box`), and where the box meets the mask's edge it meets it as the
    whole mask does."""
    x, y, w, h = cv2.boundingRect(mask)
    if w == 0 or h == 0:
        return None
    height, width = mask.shape[:2]
    x0, y0 = max(x - 1, 0), max(y - 1, 0)
    return mask[y0:min(y + h + 1, height), x0:min(x + w + 1, width)], x0, y0


def centroid_in_wider_box(centre: float, area: int, shift: int) -> float:
    """A component's centroid coordinate as ``cv2.connectedComponentsWithStats`` gives it over a box
    ``shift`` pixels wider on that side, from ``centre``, its centroid in the narrower crop: OpenCV
    divides the sum of the pixels' coordinates by their number, so the crop's sum is recovered
    exactly and shifted. Adding ``shift`` to ``centre`` can differ in the last bit, and a core's
    centre should not depend on the box its components were labelled in."""
    return (round(centre * area) + area * shift) / area


def near_cores(cores: list[Core], shape: tuple[int, ...], origin: tuple[int, int], kernel: NDArray[Any]) -> NDArray[Any]:
    """1 where a box of ``shape`` at ``origin`` in the tray view lies within ``kernel``'s reach of
    the cores (their outlines filled), else 0. The dilation runs over the cores' bounding box grown
    by the kernel's reach only: nothing beyond it is near, and the pixels are those of dilating
    the whole box, at a fraction of its cost."""
    out = np.zeros(shape[:2], np.uint8)
    if not cores:
        return out
    outlines = [c.contour.reshape(-1, 1, 2).astype(np.int32, copy=False) for c in cores]
    x, y, w, h = cv2.boundingRect(np.concatenate(outlines))
    ry, rx = kernel.shape[0] // 2, kernel.shape[1] // 2
    x0, y0 = max(x - origin[0] - rx, 0), max(y - origin[1] - ry, 0)
    x1, y1 = min(x - origin[0] + w + rx, out.shape[1]), min(y - origin[1] + h + ry, out.shape[0])
    if x1 <= x0 or y1 <= y0:
        return out
    part = out[y0:y1, x0:x1]
    cv2.drawContours(part, outlines, -1, 1, -1, offset=(-origin[0] - x0, -origin[1] - y0))
    out[y0:y1, x0:x1] = cv2.dilate(part, kernel)
    return out


def replace_cores(cores: list[Core], pieces: list[Core], whole: Core) -> list[Core]:
    """``cores`` without ``pieces`` (by identity: two pieces may measure alike) and with ``whole``,
    the one core a later stage found they make (a courtier's head, a courtier on its side)."""
    taken = {id(c) for c in pieces}
    return [c for c in cores if id(c) not in taken] + [whole]


def grey_spread(gray: NDArray[Any], core: Core) -> float:
    """Brightness spread inside a core: its grey level's standard deviation over its mean (a flat
    face under the ring light is even; faces at other angles or heights, a ball, are not)."""
    mask, x, y = box_mask(core.contour)
    return grey_spread_under(gray[y:y + mask.shape[0], x:x + mask.shape[1]], mask)


def grey_spread_under(gray: NDArray[Any], mask: NDArray[Any]) -> float:
    """The grey level's standard deviation over its mean under a mask (0 where it is empty)."""
    mean, std = cv2.meanStdDev(gray, mask=mask)
    return float(std[0, 0]) / max(float(mean[0, 0]), 1.0)


def filled_area(contour: NDArray[Any]) -> float:
    """Area inside an outline, holes included (a pawn's glossy highlight leaves a hole in its core)."""
    return float(cv2.contourArea(contour.astype(np.float32).reshape(-1, 1, 2)))


def enclosing_radius(contour: NDArray[Any]) -> float:
    """The radius of an outline's smallest enclosing circle, in its pixels."""
    (_, _), rad = cv2.minEnclosingCircle(contour.astype(np.float32))
    return float(rad)


def roundness(contour: NDArray[Any]) -> float:
    """Share of its enclosing circle an outline fills (a disc ~1, a square face 0.64)."""
    rad = enclosing_radius(contour)
    return filled_area(contour) / max(math.pi * rad * rad, 1e-6)


def bgr_frame(frame: NDArray[Any]) -> NDArray[Any]:
    """The frame as the counter reads it: 8-bit BGR, a BGRA frame without its alpha.

    Raises ``ValueError`` naming the problem for a frame the counter cannot read: not an array, not
    8-bit, not in colour (a one-channel frame, a camera's luma plane say, would read every cube as
    black, a silent wrong count), or smaller than :data:`vision.imageio.MIN_FRAME_SIZE` either way
    round. A three-channel frame of a grayscale picture is the callers' to refuse
    (:func:`vision.imageio.check_frame`, which the CLI and the drop cycle's readers use): measuring
    its chroma on every frame would cost the counter about a millisecond."""
    if not isinstance(frame, np.ndarray):
        raise TypeError(f"a frame must be a numpy array, not {type(frame).__name__}")
    if frame.dtype != np.uint8:
        raise ValueError(f"a frame must be 8-bit (uint8), not {frame.dtype}")
    if frame.ndim == 2 or (frame.ndim == 3 and frame.shape[2] == 1):
        raise ValueError(f"a frame must be in colour (H x W x 3, BGR), not one channel {frame.shape}: "
                         "the cubes' colours cannot be told apart")
    if frame.ndim != 3 or frame.shape[2] not in (3, 4):
        raise ValueError(f"a frame must be H x W x 3 (BGR), not {frame.shape}")
    height, width = frame.shape[:2]
    small, large = sorted((width, height)), sorted(MIN_FRAME_SIZE)
    if small[0] < large[0] or small[1] < large[1]:
        raise ValueError(f"a frame of {width}x{height} is too small to read the tray")
    return cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR) if frame.shape[2] == 4 else frame
