"""The reading's doubt, as the counter hands it on: ``trusted``/``alternatives`` in the JSON, and
the doubted patch circled on the annotated photo."""

from __future__ import annotations

import numpy as np

from vision.annotate import annotate
from vision.reading import Detection, TrayReading

SQUARE = np.array([[600, 440], [680, 440], [680, 520], [600, 520]], dtype=np.float32)


def _reading(doubt: bool) -> TrayReading:
    det = Detection("cube", "red", SQUARE, (100.0, 100.0), count=1, doubt=doubt)
    return TrayReading(True, None, cubes={"red": 6}, detections=[det], confidence=0.6, trusted=not doubt,
                       alternatives={"red": [(6, 0.62), (7, 0.38)]} if doubt else {})


def _amber(img: np.ndarray) -> np.ndarray:
    b, g, r = img[..., 0].astype(int), img[..., 1].astype(int), img[..., 2].astype(int)
    return (b < 60) & (g > 160) & (r > 220)


def test_a_doubted_patch_is_circled_and_a_sure_one_is_not() -> None:
    frame = np.full((960, 1280, 3), 128, np.uint8)
    circled = _amber(annotate(frame, _reading(True)))
    plain = _amber(annotate(frame, _reading(False)))
    assert not plain.any()
    ys, xs = np.nonzero(circled)
    assert len(xs) > 500  # a ring, not a dot
    radius = np.hypot(xs - 640, ys - 480)
    ring = radius[radius < 120]
    assert ring.min() > 56 and np.median(ring) > 60  # around the patch (half-diagonal 57 px), not on it


def test_trusted_and_alternatives_are_in_the_json() -> None:
    out = _reading(True).to_json("tray.png")
    assert out["trusted"] is False
    assert out["alternatives"] == {"red": [{"count": 6, "p": 0.62}, {"count": 7, "p": 0.38}]}
    sure = _reading(False).to_json()
    assert sure["alternatives"] == {} and {"cubes", "courtiers", "confidence", "usable", "reason"} <= set(sure)
