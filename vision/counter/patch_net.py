"""How many cubes does this patch hold, seen: a small convolutional net over the patch's picture.

The patch forest (:mod:`vision.counter.patch_model`) reads a patch's measures; it cannot see what a
player sees: a seam between two faces, a second cube's edge beside a face, a tilted cube's sides.
This net looks at the tray view around the patch (``WINDOW_MM`` square, centred on it, at
``SIZE`` pixels) in five planes: the colour picture, the patch itself, and every pixel of its
colour; it answers ``P(the patch holds k cubes)`` for k = 0..``MAX_CUBES``, learned on the tuning
renders from the ground-truth pieces under each patch, whatever the stages counted. Against the
stages' count that gives ``P(off by -1, 0, +1)``, which the decision model blends with the
forest's (:mod:`vision.counter.doubt`, ``net_weight``).

Trained by ``calibration/train_counter_net.py`` (PyTorch, not needed to run it) and shipped as
``patch_net.onnx``, read by OpenCV's DNN module on the CPU (a Raspberry Pi 5 included). Absent that
file the counter reads as before, forest and kind tables alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.counter.frame import Core, Frame
from vision.counter.merged import Count
from vision.counter.tuning import PPM

NET_FILE = Path(__file__).with_name("patch_net.onnx")
WINDOW_MM = 40.0  # the view around a patch: three touching faces in a row fit in it
SIZE = 64  # pixels across the window (1.6 a millimetre)
PLANES = 5  # blue, green, red, the patch, its colour
MAX_CUBES = 6  # the net's classes are 0..MAX_CUBES cubes


def crops(frame: Frame, patches: Sequence[tuple[Core, Count]]) -> npt.NDArray[np.float32]:
    """The net's input for each patch: ``N x PLANES x SIZE x SIZE``, each plane in 0..1."""
    out = np.zeros((len(patches), PLANES, SIZE, SIZE), np.float32)
    half = WINDOW_MM * PPM / 2
    scale = SIZE / (WINDOW_MM * PPM)
    for i, (core, _) in enumerate(patches):
        cx, cy = core.centre
        to_crop = np.array([[scale, 0.0, -(cx - half) * scale], [0.0, scale, -(cy - half) * scale]], np.float32)
        picture = cv2.warpAffine(frame.tray, to_crop, (SIZE, SIZE), flags=cv2.INTER_LINEAR)
        out[i, :3] = picture.transpose(2, 0, 1) / 255.0
        patch = np.zeros((SIZE, SIZE), np.uint8)
        outline = (core.contour.reshape(-1, 2).astype(np.float32) - [cx - half, cy - half]) * scale * 16
        cv2.fillPoly(patch, [outline.astype(np.int32).reshape(-1, 1, 2)], 255, cv2.LINE_AA, 4)
        out[i, 3] = patch / 255.0
        box = frame.colour_boxes.get(core.colour)
        if box is not None:
            # Only the part of the colour's box under the window (and a pixel around it) is read.
            mask, x0, y0 = box
            left, top = max(int(cx - half) - 2 - x0, 0), max(int(cy - half) - 2 - y0, 0)
            right, bottom = max(int(cx + half) + 3 - x0, 0), max(int(cy + half) + 3 - y0, 0)
            part = (mask[top:bottom, left:right] > 0).astype(np.uint8) * 255
            if part.size:
                shifted = to_crop.copy()
                shifted[:, 2] += ((x0 + left) * scale, (y0 + top) * scale)
                out[i, 4] = cv2.warpAffine(part, shifted, (SIZE, SIZE), flags=cv2.INTER_LINEAR) / 255.0
    return out


def fits(core: Core, count: Count) -> bool:
    """Whether the net can judge a patch: all of it inside the window around its centre (with a
    millimetre to spare) and read as fewer cubes than its last class."""
    reach = np.abs(core.contour.reshape(-1, 2).astype(np.float64) - core.centre).max() / PPM
    return bool(reach <= WINDOW_MM / 2 - 1.0 and count.n < MAX_CUBES)


def deltas(cubes_p: npt.NDArray[np.float64], counted: Sequence[int]) -> npt.NDArray[np.float64]:
    """``P(off by -1, 0, +1)`` per patch from the net's ``P(k cubes)`` and the stages' counts (more
    than one off is folded into one, as the forest's classes are)."""
    n = np.minimum(np.asarray(counted, np.int64), MAX_CUBES)
    k = np.arange(cubes_p.shape[1])
    out = np.zeros((len(n), 3))
    out[:, 0] = (cubes_p * (k[None, :] < n[:, None])).sum(axis=1)
    out[:, 1] = cubes_p[np.arange(len(n)), n]
    out[:, 2] = (cubes_p * (k[None, :] > n[:, None])).sum(axis=1)
    return out


class PatchNet:
    """The net, loaded once; :meth:`deltas` gives each counted patch its ``P(off by -1, 0, +1)``."""

    def __init__(self, net: Any) -> None:
        self.net = net

    @classmethod
    def load(cls, path: Path = NET_FILE) -> PatchNet | None:
        if not Path(path).is_file():
            return None
        try:
            return cls(cv2.dnn.readNetFromONNX(str(path)))
        except cv2.error as exc:
            raise ValueError(f"the patch net {path} cannot be read ({str(exc).strip().splitlines()[-1]}): reinstall the "
                             "package or retrain it with python -m calibration.train_counter_net") from exc

    def cubes(self, planes: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
        """``P(k cubes)``, k = 0..MAX_CUBES, per crop (rows sum to 1)."""
        if len(planes) == 0:
            return np.zeros((0, MAX_CUBES + 1))
        if planes.shape[1:] != (PLANES, SIZE, SIZE):
            raise ValueError(f"the patch net reads {PLANES} x {SIZE} x {SIZE} crops, not {planes.shape[1:]}")
        self.net.setInput(np.ascontiguousarray(planes, np.float32))
        p = np.asarray(self.net.forward(), np.float64).reshape(len(planes), -1)
        if p.shape[1] != MAX_CUBES + 1:
            raise ValueError(f"the patch net answers {p.shape[1]} classes, the counter expects {MAX_CUBES + 1}: "
                             "retrain it with python -m calibration.train_counter_net")
        out: npt.NDArray[np.float64] = p / np.maximum(p.sum(axis=1, keepdims=True), 1e-12)
        return out

    def deltas(self, frame: Frame, patches: Sequence[tuple[Core, Count]]) -> npt.NDArray[np.float64]:
        return deltas(self.cubes(crops(frame, patches)), [count.n for _, count in patches])
