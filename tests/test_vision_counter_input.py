"""What the counter accepts as a frame: 8-bit colour, big enough; anything else is refused by name.

A one-channel frame (a camera's luma plane, a grayscale array) was once turned into three equal
channels and counted: every dark cube became black and the others vanished, a wrong count with no
word of doubt. The CLI and the drop cycle refuse such photos before the counter sees them
(``vision.imageio.check_frame``); the counter refuses the arrays it cannot read itself.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.imageio import read_image


def _scene(tray_train: Path) -> np.ndarray:
    return read_image(tray_train / "test" / "t0001.jpg")


def test_a_one_channel_frame_is_refused_as_colourless_not_counted_black(train_counter, tray_train: Path) -> None:
    grey = cv2.cvtColor(_scene(tray_train), cv2.COLOR_BGR2GRAY)
    for frame in (grey, grey[:, :, None]):
        with pytest.raises(ValueError, match="in colour"):
            train_counter.count(frame)


def test_a_four_channel_frame_is_read_as_its_colour_channels(train_counter, tray_train: Path) -> None:
    bgr = _scene(tray_train)
    train_counter.prepared.locator.forget()
    as_bgr = train_counter.count(bgr)
    train_counter.prepared.locator.forget()
    as_bgra = train_counter.count(cv2.cvtColor(bgr, cv2.COLOR_BGR2BGRA))
    assert as_bgr.usable and as_bgra.cubes == as_bgr.cubes and as_bgra.courtiers == as_bgr.courtiers


@pytest.mark.parametrize("frame, problem", [
    (np.zeros((100, 100, 4), np.uint8), "too small"),  # a BGRA frame is measured too
    (np.zeros((960, 200, 3), np.uint8), "too small"),
    (np.zeros((960, 1280, 3), np.uint16), "8-bit"),
    (np.zeros((960, 1280, 3), np.float32), "8-bit"),
    (np.zeros((960, 1280, 2), np.uint8), "H x W x 3"),
])
def test_frames_the_counter_cannot_read_are_refused_by_name(train_counter, frame: np.ndarray, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        train_counter.count(frame)


def test_a_frame_that_is_no_array_is_a_type_error(train_counter) -> None:
    with pytest.raises(TypeError, match="numpy array"):
        train_counter.count([[0, 0, 0]])  # type: ignore[arg-type]
