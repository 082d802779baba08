"""The plate's four ArUco markers found in a frame, and the camera pose fitted to them.

The station's camera stands still, so the markers are looked for first where the previous frame had
them, and a still camera's pose is kept; a frame from a new pose is searched whole. The pose itself
and the views warped with it are :mod:`vision.rectify`'s.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision import geometry as g
from vision.rectify import NoMarkers, PlatePose, fit_pose

Array = NDArray[Any]
Window = tuple[tuple[int, int, int, int], Array]
"""A marker's window in a frame: its box ``(x0, y0, x1, y1)`` and its grey pixels at half size."""

TRACK_MARGIN = 0.5
"""How far around a marker's previous corners it is looked for again, in marker sides."""
TRACK_MIN_MARGIN_PX = 16
STILL_MEAN_DIFF = 2.0
"""Marker windows whose half-size pixels differ from the previous frame's by no more than this on
average (grey levels; a still camera's sensor noise is about 1 there, a marker moved by half a pixel
several) keep the previous corners without searching them again."""
POSE_REUSE_PX = 0.1
"""Corners that moved less than this since the last fitted pose keep that pose (a still camera's
corners move by sensor noise alone)."""
MIN_MARKERS = 3  # a pose needs three of the four markers (twelve corners)
STATION_FRAME = (1280, 960)
"""The station camera's frame size (``camera.width`` x ``camera.height``; the spec's smaller one). The
markers are searched at half size, and in a frame much smaller than this they may be too few pixels
across to be found: on the tuning renders scaled down, all found at 0.75 of the size, half of them at
0.625 and none at 0.5. Where too few are found in a smaller frame, the reason says so."""


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
        self._windows: list[Window] = []
        self._pose_shape: tuple[int, ...] = ()
        self._closed: set[int] = set()  # ids found only with thin lines closed (_thin_lines_closed)
        # Where the markers a whole-frame search did not find would be (each a window as it looked
        # then), while only three are followed: see :meth:`_absent_changed`.
        self._absent: list[Window] = []

    def detect(self, gray: Array, windows: list[Window] | None = None, *,
               absent_changed: bool | None = None) -> dict[int, Array]:
        """Marker id -> 4x2 corner array, for the plate's ids only; other ids (a cube face can look
        like one) and duplicates of an id are ignored (a duplicate keeps the larger marker).

        The station's camera does not move between frames, so the markers are first looked for
        where the previous frame had them (a window around each, about a tenth of the frame in
        all), and where those windows hold what they held last time the corners stand as they
        were; only when the windows do not find again every marker the last whole-frame search
        found is the whole frame searched. Where that search found three (the fourth covered, or
        out of the camera's view), the three are followed so, and the whole frame is searched again
        only when the place of the fourth changes (:meth:`_absent_changed`). ``windows`` and
        ``absent_changed``: the followed markers' windows and whether that place changed, where the
        caller has already cut and compared them (:meth:`locate`), so that neither is done twice."""
        if absent_changed is None:
            absent_changed = self._absent_changed(gray)
        if not absent_changed:
            tracked = self._search_near_last(gray, windows)
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
        if len(found) < MIN_MARKERS:
            self._last, self._absent = {}, []
            return found
        # Measured again in windows, as every later frame will be, so that a frame reads the same
        # whether it is the first of a camera or a later one.
        self._last = found
        self._absent = self._absent_windows(gray, found)
        return self._search_near_last(gray) or found

    def _search_near_last(self, gray: Array, windows: list[Window] | None = None) -> dict[int, Array] | None:
        """The markers of the previous frame (three or four) found again, each in a window around
        its corners there, or None (no previous frame with three or four, or one of them not found
        in its window). ``windows``: :meth:`_windows_near_last` of this frame, where already cut."""
        if self._unchanged(gray):
            return self._last
        if windows is None:
            windows = self._windows_near_last(gray)
        if windows is None:
            return None
        self._windows = windows
        corners: list[Array] = []
        ids: list[int] = []
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
        if len(found) != len(self._last):
            return None
        self._last = found
        return found

    def _windows_near_last(self, image: Array) -> list[Window] | None:
        """The half-size grey window around each marker of the previous frame, ``((x0, y0, x1, y1),
        pixels)``, or None (no previous frame with three or four, or a window cut by the frame's edge).
        ``image`` is the grey frame, or the colour frame whose green channel is the grey: then only
        the windows' pixels are taken from it."""
        if len(self._last) < MIN_MARKERS:
            return None
        windows: list[Window] = []
        for quad in self._last.values():
            window = _window_around(image, quad)
            x0, y0, x1, y1 = window[0]
            side = _side(quad)
            if x1 - x0 < side or y1 - y0 < side:
                return None  # the marker was at the edge of a frame of another size
            windows.append(window)
        return windows

    def _absent_windows(self, gray: Array, found: dict[int, Array]) -> list[Window]:
        """The window (as :meth:`_windows_near_last` cuts one) where each plate marker that
        ``found`` lacks would be, placed by the plate's plane through the found markers' corners
        (the markers all lie on it, so a homography places them exactly)."""
        absent = [i for i in g.MARKER_IDS if i not in found]
        if not absent:
            return []
        plate = np.array([c for i in found for c in g.marker_corners_mm(i)], np.float64)
        image = np.concatenate([found[i] for i in found]).astype(np.float64)
        homography, _ = cv2.findHomography(plate, image)
        if homography is None:
            return []
        out = []
        for i in absent:
            quad = cv2.perspectiveTransform(np.array([g.marker_corners_mm(i)], np.float64), homography)[0]
            out.append(_window_around(gray, quad))
        return out

    def _absent_changed(self, image: Array) -> bool:
        """Whether the place of a marker the last whole-frame search did not find looks otherwise
        now (a sleeve over it moved away, something was laid on it): then the whole frame is
        searched again, and the marker is found there if it is in sight. While it looks the same
        (a marker out of the camera's view, or hidden by the tray's wall from this camera), the
        other three are followed in their windows, and a frame costs no whole-frame search (about
        4 ms of a count here: ``docs/counter.md``, *A camera that sees three markers*)."""
        return not all(_alike(_cut(image, box), pixels) for box, pixels in self._absent)

    def _unchanged(self, image: Array) -> bool:
        """The followed markers' windows, cut where they were cut when the markers were last looked
        for, hold what they held then (on average no more than sensor noise apart): the markers have
        not moved, so their corners stand. The windows are not placed anew on the corners found
        then: refined again, a corner can cross a pixel's rounding, and a still frame's windows would
        be searched again every other frame, their corners moving by a fraction of a pixel each time."""
        return bool(self._windows) and all(_alike(_cut(image, box), pixels) for box, pixels in self._windows)

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
        # Green carries most of the luminance and needs no conversion pass over the whole frame. A
        # still camera's markers are where they were: then only their windows' green is taken.
        absent_changed = self._absent_changed(frame_bgr)
        if not absent_changed and self._unchanged(frame_bgr):
            found = self._last
            shape = frame_bgr.shape[:2]
        else:
            windows = self._windows_near_last(frame_bgr)
            gray = frame_bgr if frame_bgr.ndim == 2 else cv2.extractChannel(frame_bgr, 1)
            found = self.detect(gray, windows, absent_changed=absent_changed)  # cut and compared above, not again
            shape = gray.shape[:2]
        if len(found) < MIN_MARKERS and smaller_than_station_frame(shape):
            height, width = shape[:2]
            seen = f"only {len(found)} of the 4 plate markers found (ids {sorted(found)})" if found else \
                "no plate markers found (ids 0-3)"
            raise NoMarkers(f"{seen} in this {width} x {height} frame: the station reads frames of "
                            f"{STATION_FRAME[0]} x {STATION_FRAME[1]}, where the markers are large enough to find; "
                            "set the camera to that size")
        if not found:
            raise NoMarkers("no plate markers found (ids 0-3): is the plate in view and lit?")
        if len(found) < MIN_MARKERS:
            raise NoMarkers(
                f"only {len(found)} of the 4 plate markers found (ids {sorted(found)}); at least {MIN_MARKERS} are "
                "needed: is an arm or the tray covering them?"
            )
        last = self._last_pose
        if last is not None and self._pose_shape == shape and self._pose_corners.keys() == found.keys() and all(
                float(np.abs(found[i] - self._pose_corners[i]).max()) <= POSE_REUSE_PX for i in found):
            return last
        pose = fit_pose(found, shape[1], shape[0])
        self._last_pose, self._pose_corners, self._pose_shape = pose, found, shape
        return pose


def _side(quad: Array) -> float:
    """A marker's size in the frame: the longer side of the box around its corners (pixels)."""
    return float(np.max(quad.max(axis=0) - quad.min(axis=0)))


def _window_around(image: Array, quad: Array) -> Window:
    """The window around a marker's corners (``quad``, 4x2 frame pixels), :data:`TRACK_MARGIN` of
    its side beyond them, cut to the frame: its box and its grey pixels at half size (:func:`_cut`)."""
    height, width = image.shape[:2]
    margin = max(_side(quad) * TRACK_MARGIN, TRACK_MIN_MARGIN_PX)
    # Even window origins keep the half-size pixels the same as the whole frame's.
    x0 = min(max(int(quad[:, 0].min() - margin) // 2 * 2, 0), width)
    y0 = min(max(int(quad[:, 1].min() - margin) // 2 * 2, 0), height)
    x1 = max(min(int(quad[:, 0].max() + margin) + 2, width), x0)
    y1 = max(min(int(quad[:, 1].max() + margin) + 2, height), y0)
    box = (x0, y0, x1, y1)
    return box, _cut(image, box)


def _cut(image: Array, box: tuple[int, int, int, int]) -> Array:
    """A box of the grey frame at half size; ``image`` is the grey frame, or the colour frame whose
    green channel is the grey (only the box's pixels are taken from it). A box out of the frame
    (a marker out of the camera's view) is empty."""
    x0, y0, x1, y1 = box
    window = image[y0:y1, x0:x1]
    if window.shape[0] < 2 or window.shape[1] < 2:
        return np.zeros((0, 0), np.uint8)
    if window.ndim == 3:
        window = cv2.extractChannel(window, 1)
    return np.asarray(cv2.resize(window, (window.shape[1] // 2, window.shape[0] // 2), interpolation=cv2.INTER_AREA))


def _alike(pixels: Array, before: Array) -> bool:
    """Whether a window's half-size pixels are what they were (no more than sensor noise apart on
    average, :data:`STILL_MEAN_DIFF`)."""
    if pixels.shape != before.shape:
        return False
    return pixels.size == 0 or float(cv2.norm(pixels, before, cv2.NORM_L1)) <= STILL_MEAN_DIFF * pixels.size


def smaller_than_station_frame(shape: tuple[int, ...]) -> bool:
    """Whether a frame of ``shape`` (rows, columns ...) is narrower than :data:`STATION_FRAME` along
    its longer side: the camera then sees the plate with fewer pixels a millimetre (a frame cut to
    another shape, as wide as the station's, is not: its markers are as large)."""
    return max(shape[:2]) < max(STATION_FRAME)


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
