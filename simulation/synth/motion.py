"""Frames of cubes still moving after a drop, then settling, for settle detection.

``motion_scenes(before, after, n, rng)`` interpolates from the tray as it was to the tray as it
ends up: pieces present in both (matched by position in ``Scene.pieces``: ``after`` usually
extends ``before`` with the new drop) slide from their old pose to the new one (a pile being
pushed); new pieces fall in from above the landing area, bounce and spin, and come to rest. The
motion decays over the frames, and the last scene is exactly ``after``. ``render_motion`` renders
them with motion blur (several sub-steps averaged per frame), then ``still_frames`` more frames of
the settled tray, each with fresh sensor noise as a real camera gives.
"""

from __future__ import annotations

import dataclasses
import math
from typing import cast

import cv2
import numpy as np
import numpy.typing as npt

from vision import geometry as geo

from .exposure import expose
from .render import draw_scene
from .scene import Piece, Scene


@dataclasses.dataclass(frozen=True)
class _Path:
    start: Piece
    end: Piece
    bounce: npt.NDArray[np.float64]  # (2,) lateral wobble amplitude, mm
    spin: float  # extra yaw turned while moving, degrees
    phase: float


def _paths(before: Scene, after: Scene, rng: np.random.Generator) -> list[_Path]:
    x0, y0, x1, y1 = geo.TRAY_INNER_MM
    new = [p for i, p in enumerate(after.pieces) if i >= len(before.pieces) or before.pieces[i].kind != p.kind]
    if new:
        landing = np.mean([[p.x_mm, p.y_mm] for p in new], axis=0)
    else:
        landing = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
    paths = []
    for i, end in enumerate(after.pieces):
        old = before.pieces[i] if i < len(before.pieces) else None
        if old is not None and old.kind == end.kind:
            start = old
            bounce = rng.normal(0, 0.6, 2) if (old.x_mm, old.y_mm) != (end.x_mm, end.y_mm) else np.zeros(2)
            spin = 0.0
        elif end.kind == "finger":
            start = dataclasses.replace(end, x_mm=end.x_mm - 40 * math.cos(math.radians(end.yaw_deg)),
                                        y_mm=end.y_mm - 40 * math.sin(math.radians(end.yaw_deg)))
            bounce, spin = np.zeros(2), 0.0
        else:
            jitter = rng.normal(0, 6, 2)
            start = dataclasses.replace(
                end, x_mm=float(landing[0] + jitter[0]), y_mm=float(landing[1] + jitter[1]),
                z_mm=end.z_mm + float(rng.uniform(15, 35)), tilt_deg=float(rng.uniform(-40, 40)),
                tilt_axis_deg=float(rng.uniform(0, 180)),
            )
            bounce = rng.normal(0, 3.0, 2)
            spin = float(rng.uniform(-180, 180))
        paths.append(_Path(start, end, bounce, spin, float(rng.uniform(0, 2 * math.pi))))
    return paths


def _at(path: _Path, s: float) -> Piece:
    """The piece at progress ``s`` in [0, 1] (1 = at rest)."""
    a, b = path.start, path.end
    if s >= 1.0:
        return b
    e = 1 - (1 - s) ** 2  # fast at first, slowing to rest
    decay = (1 - s) ** 1.5
    wob = path.bounce * decay * math.sin(path.phase + 9 * s)
    z = b.z_mm + (a.z_mm - b.z_mm) * (1 - e) + abs(math.sin(path.phase + 7 * s)) * 4 * decay * (a.z_mm != b.z_mm)
    return dataclasses.replace(
        b,
        x_mm=float(a.x_mm + (b.x_mm - a.x_mm) * e + wob[0]),
        y_mm=float(a.y_mm + (b.y_mm - a.y_mm) * e + wob[1]),
        z_mm=z,
        yaw_deg=a.yaw_deg + (b.yaw_deg - a.yaw_deg) * e + path.spin * (1 - e),
        tilt_deg=a.tilt_deg + (b.tilt_deg - a.tilt_deg) * e,
        tilt_axis_deg=a.tilt_axis_deg if a.tilt_deg else b.tilt_axis_deg,
    )


def motion_scenes(before: Scene, after: Scene, n_frames: int, rng: np.random.Generator,
                  sub_steps: int = 1) -> list[list[Scene]]:
    """``n_frames`` frames, each a list of ``sub_steps`` scenes spread over its exposure; the last
    frame's last scene is ``after``."""
    if n_frames < 1:
        raise ValueError(f"n_frames must be at least 1, got {n_frames}")
    paths = _paths(before, after, rng)
    frames = []
    for k in range(n_frames):
        subs = []
        for j in range(sub_steps):
            s = min(1.0, (k + (j + 1) / sub_steps) / n_frames)
            subs.append(dataclasses.replace(after, pieces=tuple(_at(p, s) for p in paths)))
        frames.append(subs)
    return frames


def render_motion(before: Scene, after: Scene, n_frames: int, rng: np.random.Generator, *,
                  still_frames: int = 0, blur_steps: int = 3) -> list[npt.NDArray[np.uint8]]:
    """Frames of the drop: ``n_frames`` of motion (blurred over ``blur_steps`` sub-steps each)
    ending at rest, then ``still_frames`` frames of the settled tray."""
    out = []
    for subs in motion_scenes(before, after, n_frames, rng, sub_steps=max(1, blur_steps)):
        acc = None
        for sc in subs:
            img, _ = draw_scene(sc)
            acc = img.astype(np.float32) if acc is None else acc + img
        assert acc is not None
        img_avg = cast(npt.NDArray[np.uint8], cv2.convertScaleAbs(acc, alpha=1.0 / len(subs)))
        out.append(expose(img_avg, after, rng))
    for _ in range(still_frames):
        img, _ = draw_scene(after)
        out.append(expose(img, after, rng))
    return out
