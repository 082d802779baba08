"""From a camera frame to metric, top-down views of the tray, using the plate's ArUco markers.

The markers give the homography of the plate plane. The pieces, though, are 3-D: a cube's top face
is 10 mm above the plate and a stacked cube's 20 mm, so seen from about 300 mm they are magnified
by a few per cent about the camera's nadir and shifted outwards. To place them correctly we recover
the camera pose (``solvePnP``) from the marker corners, with a focal length that makes the camera
sit at the spec's nominal height (the near-vertical view cannot pin the focal length down on its own,
and an error of 10 % in height moves a cube top by well under a millimetre). From the pose we build
the homography of any horizontal plane, and warp the frame at the height of the cube tops.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision import geometry as g

Array = NDArray[Any]
NO_DISTORTION = np.zeros(0, np.float64)  # the renders and the Pi camera module are rectilinear enough

NOMINAL_CAMERA_HEIGHT_MM = sum(g.CAMERA_HEIGHT_MM) / 2
TRACK_MARGIN = 0.5
"""How far around a marker's previous corners it is looked for again, in marker sides."""
TRACK_MIN_MARGIN_PX = 16
STILL_MEAN_DIFF = 2.0
"""Marker windows whose half-size pixels differ from the previous frame's by no more than this on
average (grey levels; a still camera's sensor noise is about 1 there, a marker moved by half a pixel
several) keep the previous corners without searching them again."""
POSE_REUSE_PX = 0.1
MIN_MARKERS = 3  # a pose needs three of the four markers (twelve corners)
"""Corners that moved less than this since the last fitted pose keep that pose (a still camera's
corners move by sensor noise alone)."""


class NoMarkers(Exception):
    """Too few of the plate's markers were found to rectify the frame (the reason is the message)."""


@dataclass(frozen=True, eq=False)
class PlatePose:
    """Where the plate is in one frame: the camera matrix and pose relative to plate millimetres.

    Compared by identity: the locator hands the same pose out again while the markers stay put."""

    camera_matrix: Array  # 3x3
    rvec: Array
    tvec: Array
    marker_ids: tuple[int, ...]
    reprojection_px: float  # RMS error of the marker corners under the fitted pose
    px_per_mm: float  # image scale at the plate's centre

    @property
    def rotation(self) -> Array:
        return np.asarray(cv2.Rodrigues(self.rvec)[0])

    def camera_position_mm(self) -> Array:
        """The camera centre in plate coordinates (z negative: above the plate)."""
        r = self.rotation
        out: Array = (-r.T @ self.tvec.reshape(3)).astype(np.float64)
        return out

    def plane_homography(self, height_mm: float) -> Array:
        """Homography from plate millimetres (x, y) on the horizontal plane ``height_mm`` above the
        plate to image pixels."""
        r = self.rotation
        # Plate z points into the plate (x right, y down), so "above" is negative z.
        col3 = self.tvec.reshape(3) - height_mm * r[:, 2]
        m = np.column_stack([r[:, 0], r[:, 1], col3])
        h: Array = self.camera_matrix @ m
        out: Array = h / h[2, 2]
        return out

    def project(self, points_mm: Array) -> Array:
        """Project 3-D plate points (x, y, height above plate) to image pixels."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 3).copy()
        pts[:, 2] = -pts[:, 2]
        img, _ = cv2.projectPoints(pts, self.rvec, self.tvec, self.camera_matrix, NO_DISTORTION)
        return np.asarray(img).reshape(-1, 2)


class MarkerLocator:
    """Finds the plate's markers (ids 0-3 only) and fits the camera pose; build it once."""

    def __init__(self) -> None:
        dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, g.MARKER_DICT))
        params = cv2.aruco.DetectorParameters()
        # Detection runs on a half-size image (a 20 mm marker is still ~40 px there) for speed; the
        # corners are then refined on the full-size image.
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
        # The plate's markers are large in the frame (the camera sees the whole plate from ~300 mm):
        # skipping small candidates (wood grain, cube faces) and using two threshold windows (fine
        # and coarse) keeps detection fast without losing them.
        params.minMarkerPerimeterRate = 0.1
        params.adaptiveThreshWinSizeMin = 5
        params.adaptiveThreshWinSizeMax = 15
        params.adaptiveThreshWinSizeStep = 10
        # OpenCV's "ArUco 3" candidate search (pyramid-based bit reading, candidates below
        # minSideLengthCanonicalImg pixels a side skipped early). With the ratio at 0 it does not
        # downscale the (already halved) image further: on all tuning renders it finds the same
        # markers with the same refined corners as the classic search, about a fifth faster.
        params.useAruco3Detection = True
        params.minSideLengthCanonicalImg = 24
        params.minMarkerLengthRatioOriginalImg = 0.0
        self._detector = cv2.aruco.ArucoDetector(dictionary, params)
        # In a window around one marker the marker fills most of the image: candidates much smaller
        # than it are not it.
        params.minMarkerPerimeterRate = 1.0
        self._window_detector = cv2.aruco.ArucoDetector(dictionary, params)
        self.forget()

    def forget(self) -> None:
        """Drop what earlier frames said about the markers and the pose: the camera was moved on
        purpose, or the next frames are another camera's (a benchmark's renders, each from its own
        pose). The next frame is searched whole, as a first frame is."""
        self._last: dict[int, Array] = {}
        self._last_pose: PlatePose | None = None
        self._pose_corners: dict[int, Array] = {}
        self._windows: list[tuple[tuple[int, int, int, int], Array]] = []
        self._pose_shape: tuple[int, ...] = ()
        self._closed: set[int] = set()  # ids found only with thin lines closed (_thin_lines_closed)

    def detect(self, gray: Array) -> dict[int, Array]:
        """Marker id -> 4x2 corner array, for the plate's ids only; other ids (a cube face can look
        like one) and duplicates of an id are ignored (a duplicate keeps the larger marker).

        The station's camera does not move between frames, so the markers are first looked for
        where the previous frame had them (a window around each, about a tenth of the frame in
        all), and where those windows hold what they held last time the corners stand as they
        were; only when the windows do not find all four again is the whole frame searched."""
        tracked = self._search_near_last(gray)
        if tracked is not None:
            return tracked
        self._windows = []
        small = cv2.resize(gray, (gray.shape[1] // 2, gray.shape[0] // 2), interpolation=cv2.INTER_AREA)
        corners, ids = _markers_in(self._detector, small)
        self._closed = set()
        if len(set(ids) & set(g.MARKER_IDS)) < MIN_MARKERS:
            more_corners, more_ids = _markers_in(self._detector, _thin_lines_closed(small))
            for c, i in zip(more_corners, more_ids, strict=True):
                if i in g.MARKER_IDS and i not in ids:
                    corners.append(c)
                    ids.append(i)
                    self._closed.add(i)
        found = self._refined(gray, [c * 2.0 for c in corners], ids)
        if len(found) != len(g.MARKER_IDS):
            self._last = {}
            return found
        # Measured again in windows, as every later frame will be, so that a frame reads the same
        # whether it is the first of a camera or a later one.
        self._last = found
        return self._search_near_last(gray) or found

    def _search_near_last(self, gray: Array) -> dict[int, Array] | None:
        """All four markers found again, each in a window around its corners in the previous frame,
        or None (no previous frame with all four, or one of them not found in its window)."""
        if len(self._last) != len(g.MARKER_IDS):
            return None
        height, width = gray.shape[:2]
        corners: list[Array] = []
        ids: list[int] = []
        windows: list[tuple[tuple[int, int, int, int], Array]] = []
        for quad in self._last.values():
            side = float(np.max(quad.max(axis=0) - quad.min(axis=0)))
            margin = max(side * TRACK_MARGIN, TRACK_MIN_MARGIN_PX)
            # Even window origins keep the half-size pixels the same as the whole frame's.
            x0 = max(int(quad[:, 0].min() - margin) // 2 * 2, 0)
            y0 = max(int(quad[:, 1].min() - margin) // 2 * 2, 0)
            x1 = min(int(quad[:, 0].max() + margin) + 2, width)
            y1 = min(int(quad[:, 1].max() + margin) + 2, height)
            if x1 - x0 < side or y1 - y0 < side:
                return None  # the marker was at the edge of a frame of another size
            window = gray[y0:y1, x0:x1]
            windows.append(((x0, y0, x1, y1), cv2.resize(window, (window.shape[1] // 2, window.shape[0] // 2),
                                                         interpolation=cv2.INTER_AREA)))
        if self._unchanged(windows):
            return self._last
        self._windows = windows
        for (mid, _), ((x0, y0, _x1, _y1), small) in zip(self._last.items(), windows, strict=True):
            if mid in self._closed:  # found only so in the whole frame: looked for so here too
                small = _thin_lines_closed(small)
            found_corners, found_ids = _markers_in(self._window_detector, small)
            hits = [c for c, i in zip(found_corners, found_ids, strict=True) if i == mid]
            if not hits:
                return None
            corners.append(hits[0] * 2.0 + np.array([x0, y0], np.float64))
            ids.append(mid)
        found = self._refined(gray, corners, ids)
        if len(found) != len(g.MARKER_IDS):
            return None
        self._last = found
        return found

    def _unchanged(self, windows: list[tuple[tuple[int, int, int, int], Array]]) -> bool:
        """Every marker window holds what it held in the previous frame (the same place, and on
        average no more than sensor noise apart): the markers have not moved, so their corners stand."""
        last = self._windows
        return len(last) == len(windows) and all(
            box == last_box and float(cv2.norm(small, last_small, cv2.NORM_L1)) <= STILL_MEAN_DIFF * small.size
            for (box, small), (last_box, last_small) in zip(windows, last, strict=True))

    def _refined(self, gray: Array, corners: list[Array], ids: list[int]) -> dict[int, Array]:
        """Corners found on a half-size image, refined on the full-size one, plate ids only."""
        found: dict[int, Array] = {}
        if not ids:
            return found
        start = (np.concatenate(corners) + 0.5).astype(np.float32)
        crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.05)
        refined = cv2.cornerSubPix(gray, start.reshape(-1, 1, 2), (5, 5), (-1, -1), crit)
        for c, mid in zip(np.asarray(refined).reshape(-1, 4, 2), ids, strict=True):
            if mid not in g.MARKER_IDS:
                continue
            quad = c.reshape(4, 2).astype(np.float64)
            if mid in found and cv2.contourArea(found[mid].astype(np.float32)) >= cv2.contourArea(
                quad.astype(np.float32)
            ):
                continue
            found[mid] = quad
        return found

    def locate(self, frame_bgr: Array) -> PlatePose:
        """Fit the plate pose, or raise ``NoMarkers`` with a reason a person can act on.

        When every corner lies within :data:`POSE_REUSE_PX` of the corners the previous pose was
        fitted to (a still camera), that pose is handed out again rather than refitted: it moves
        no point of the warped views by more than that."""
        # Green carries most of the luminance and needs no conversion pass over the whole frame.
        gray = frame_bgr if frame_bgr.ndim == 2 else cv2.extractChannel(frame_bgr, 1)
        found = self.detect(gray)
        if not found:
            raise NoMarkers("no plate markers found (ids 0-3): is the plate in view and lit?")
        if len(found) < MIN_MARKERS:
            raise NoMarkers(
                f"only {len(found)} of the 4 plate markers found (ids {sorted(found)}); at least 3 are "
                "needed: is an arm or the tray covering them?"
            )
        last = self._last_pose
        if last is not None and self._pose_shape == gray.shape[:2] and self._pose_corners.keys() == found.keys() and all(
                float(np.abs(found[i] - self._pose_corners[i]).max()) <= POSE_REUSE_PX for i in found):
            return last
        pose = fit_pose(found, gray.shape[1], gray.shape[0])
        self._last_pose, self._pose_corners, self._pose_shape = pose, found, gray.shape[:2]
        return pose


def fit_pose(found: dict[int, Array], width: int, height: int) -> PlatePose:
    """Camera pose from detected marker corners (at least three markers)."""
    ids = sorted(found)
    obj = np.array([c for i in ids for c in g.marker_corners_mm(i)], dtype=np.float64)
    img = np.concatenate([found[i] for i in ids]).astype(np.float64)
    found_hom, _ = cv2.findHomography(obj, img, 0)
    if found_hom is None:
        raise NoMarkers("the plate markers are in an impossible arrangement")
    hom: NDArray[np.float64] = np.asarray(found_hom, np.float64)
    # Scale at the plate centre: the Jacobian of the homography there.
    cx, cy = g.PLATE_W_MM / 2, g.PLATE_H_MM / 2
    p = hom @ np.array([cx, cy, 1.0])
    w = p[2]
    jac = (hom[:2, :2] * w - np.outer(p[:2], hom[2, :2])) / (w * w)
    px_per_mm = float(np.sqrt(abs(np.linalg.det(jac))))
    f = px_per_mm * NOMINAL_CAMERA_HEIGHT_MM
    k = np.array([[f, 0, width / 2.0], [0, f, height / 2.0], [0, 0, 1]], dtype=np.float64)
    obj3 = np.column_stack([obj, np.zeros(len(obj))])
    ok, rvec, tvec = cv2.solvePnP(obj3, img, k, NO_DISTORTION, flags=cv2.SOLVEPNP_ITERATIVE)
    if not ok:
        raise NoMarkers("could not fit the camera pose to the plate markers")
    proj, _ = cv2.projectPoints(obj3, rvec, tvec, k, NO_DISTORTION)
    rms = float(np.sqrt(np.mean(np.sum((np.asarray(proj).reshape(-1, 2) - img) ** 2, axis=1))))
    return PlatePose(k, np.asarray(rvec).reshape(3), np.asarray(tvec).reshape(3), tuple(ids), rms, px_per_mm)


@dataclass(frozen=True)
class View:
    """A rectified, top-down view of a plate rectangle at a given height, ``ppm`` pixels per mm.

    Pixel (u, v) of the view is plate point (x0 + (u + 0.5) / ppm, y0 + (v + 0.5) / ppm).
    """

    x0: float
    y0: float
    width_mm: float
    height_mm: float
    ppm: float
    plane_mm: float

    @property
    def size(self) -> tuple[int, int]:
        return int(round(self.width_mm * self.ppm)), int(round(self.height_mm * self.ppm))

    def view_to_plate(self) -> Array:
        s = 1.0 / self.ppm
        return np.array([[s, 0, self.x0 + 0.5 * s], [0, s, self.y0 + 0.5 * s], [0, 0, 1]])

    def view_to_image(self, pose: PlatePose) -> Array:
        return pose.plane_homography(self.plane_mm) @ self.view_to_plate()

    def warp(self, frame: Array, pose: PlatePose, interpolation: int = cv2.INTER_LINEAR) -> Array:
        """The frame seen through this view. A still camera's frames share one pose (the locator
        keeps it), so the pixel maps are worked out once per pose and view and kept: remapping
        through ready maps takes about half the time of ``warpPerspective``."""
        map1, map2 = _view_maps(self, pose)
        return np.asarray(cv2.remap(frame, map1, map2, interpolation, borderMode=cv2.BORDER_REPLICATE))

    def to_image(self, pose: PlatePose, pts_view: Array) -> Array:
        """View pixel coordinates (N x 2) to image pixel coordinates."""
        pts = np.asarray(pts_view, dtype=np.float64).reshape(-1, 1, 2)
        return np.asarray(cv2.perspectiveTransform(pts, self.view_to_image(pose))).reshape(-1, 2)


def _markers_in(detector: cv2.aruco.ArucoDetector, small: Array) -> tuple[list[Array], list[int]]:
    """The markers ``detector`` finds in ``small``: 4x2 corners each, and their ids."""
    corners, ids, _ = detector.detectMarkers(small)
    return [np.asarray(c).reshape(-1, 2) for c in corners], [] if ids is None else [int(i) for i in np.asarray(ids).ravel()]


def _thin_lines_closed(small: Array) -> Array:
    """``small`` with dark lines thinner than 3 pixels closed (a grey-level closing), a marker's
    squares, several pixels wide, left as they are.

    A marker is found by its closed dark outline. Where the camera looks at a corner of the tray
    from the side, the edge of the tray's wall (a thin dark line) can reach a marker's corner and
    join its outline: the marker is not found though it is whole (a pile render of the tuning set
    lost both markers on one side so, and the frame was refused). Only where fewer markers than a
    pose needs are found is the frame searched again so, and a marker found only so is looked for
    so in its window; the corners beside the line are refined less exactly (within about 1 mm on
    the plate in the tests)."""
    return np.asarray(cv2.morphologyEx(small, cv2.MORPH_CLOSE, _THIN_LINE))


_THIN_LINE = np.ones((3, 3), np.uint8)


@functools.lru_cache(maxsize=8)
def _view_maps(view: View, pose: PlatePose) -> tuple[Array, Array]:
    """Fixed-point pixel maps (``cv2.convertMaps``) from ``view``'s pixels to the frame's."""
    width, height = view.size
    u, v = np.meshgrid(np.arange(width, dtype=np.float64), np.arange(height, dtype=np.float64))
    h = view.view_to_image(pose)
    w = h[2, 0] * u + h[2, 1] * v + h[2, 2]
    x = ((h[0, 0] * u + h[0, 1] * v + h[0, 2]) / w).astype(np.float32)
    y = ((h[1, 0] * u + h[1, 1] * v + h[1, 2]) / w).astype(np.float32)
    map1, map2 = cv2.convertMaps(x, y, cv2.CV_16SC2)
    return np.asarray(map1), np.asarray(map2)
