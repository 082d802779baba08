"""Drawing a reading on its frame, for people and for debugging."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.caption import Say, caption_text, draw_caption
from vision.reading import TrayReading

# Drawing colours (BGR) per piece colour; outlines get a contrasting rim so they show on any cube.
_INK = {
    "red": (40, 40, 230),
    "blue": (230, 90, 30),
    "yellow": (30, 220, 240),
    "purple": (170, 50, 150),
    "black": (60, 60, 60),
    "green": (40, 170, 40),
    None: (255, 0, 255),
}


def annotate(frame_bgr: NDArray[Any], reading: TrayReading, say: Say = str) -> NDArray[Any]:
    """A copy of the frame with every detection outlined and labelled, and the verdict on top.

    Cubes get their colour's outline and the count they stand for when it is more than one;
    courtiers a circle and a "C"; foreign objects a magenta outline and "?". A patch that puts its
    colour in doubt (``Detection.doubt``) gets a thick circle with a "?" so the host finds it at a
    glance. The caption on top gives the counts, or the reason the frame is unusable, in the words
    ``say`` gives them (:mod:`vision.caption`; English by default).
    """
    out = frame_bgr.copy() if frame_bgr.ndim == 3 else cv2.cvtColor(frame_bgr, cv2.COLOR_GRAY2BGR)
    scale = max(out.shape[1] / 1280.0, 0.6)
    thick = max(1, int(round(2 * scale)))
    for det in reading.detections:
        pts = np.round(det.outline).astype(np.int32).reshape(-1, 1, 2)
        if len(pts) < 2:
            continue
        ink = _INK.get(det.colour, _INK[None]) if det.kind != "foreign" else _INK[None]
        cv2.polylines(out, [pts], True, (255, 255, 255), thick + 2, cv2.LINE_AA)
        cv2.polylines(out, [pts], True, ink, thick, cv2.LINE_AA)
        cx, cy = pts.reshape(-1, 2).mean(axis=0).astype(int)
        label = {"cube": str(det.count) if det.count > 1 else "", "courtier": "C", "foreign": "?"}[det.kind]
        if det.kind == "courtier":
            (ex, ey), r = cv2.minEnclosingCircle(pts)
            cv2.circle(out, (int(ex), int(ey)), int(r) + 3, (255, 255, 255), thick, cv2.LINE_AA)
        if label:  # black on a white disc: readable on every cube colour, black cubes included
            font = max(0.6 * scale, out.shape[1] / 40.0 / 22.0)  # legible when the photo is phone-sized
            (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, font, thick)
            cv2.circle(out, (int(cx), int(cy)), int(max(tw, th) * 0.8) + 2, (255, 255, 255), -1, cv2.LINE_AA)
            cv2.putText(out, label, (int(cx) - tw // 2, int(cy) + th // 2), cv2.FONT_HERSHEY_SIMPLEX, font,
                        (0, 0, 0), thick, cv2.LINE_AA)
    for det in reading.detections:
        if det.doubt and len(det.outline) >= 2:
            _circle_doubt(out, det.outline, scale)
    return draw_caption(out, caption_text(reading, say), reading.usable)


_DOUBT_INK = (0, 200, 255)  # amber (BGR): stands out on every cube colour and on the grey tray


def _circle_doubt(out: NDArray[Any], outline: NDArray[Any], scale: float) -> None:
    """A clear circle around a doubted patch: a dark rim, an amber ring, and a "?" beside it."""
    pts = np.asarray(outline, dtype=np.float32).reshape(-1, 2)
    (cx, cy), r = cv2.minEnclosingCircle(pts)
    radius = int(r + 16 * scale)
    centre = (int(round(cx)), int(round(cy)))
    ring = max(4, int(round(6 * scale)))
    cv2.circle(out, centre, radius, (0, 0, 0), ring + 4, cv2.LINE_AA)
    cv2.circle(out, centre, radius, _DOUBT_INK, ring, cv2.LINE_AA)
    at = (int(cx + radius * 0.75), int(cy - radius * 0.75))
    cv2.putText(out, "?", at, cv2.FONT_HERSHEY_SIMPLEX, 1.4 * scale, (0, 0, 0), ring + 3, cv2.LINE_AA)
    cv2.putText(out, "?", at, cv2.FONT_HERSHEY_SIMPLEX, 1.4 * scale, _DOUBT_INK, ring, cv2.LINE_AA)
