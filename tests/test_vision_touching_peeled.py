"""Touching faces peeled (vision.counter.merged.pieces_beyond_top): two cubes partly under a third
show as pieces around its top square, which the area, the necks and the brightness steps count as
one. The fixtures are touching patches cut from tuning renders (tests/data/touching: the grey view
under each patch's box and the core's measures; the commonest pile miss of the tuning sets), read
with a counter calibrated on the shared training renders."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.counter.frame import Core, Prepared
from vision.counter.merged import cubes_in, pieces_beyond_top
from vision.plate import TRAY_VIEW

DATA = Path(__file__).parent / "data" / "touching"
SHORT = ["r5418_t0005_red", "r5410_t0028_yellow", "r9494_t0037_blue"]  # read one short before
RIGHT = ["r5418_t0012_red", "r5416_t0038_blue"]  # two cubes, the top cube's sides beyond its square


def _patch(stem: str) -> tuple[Core, np.ndarray, tuple[int, int]]:
    """The core in tray-view coordinates, the grey view with its box in place, and the cubes it
    truly shows (``shows``: at least a quarter visible .. all matched to it)."""
    d = json.loads((DATA / f"{stem}.json").read_text())
    x0, y0 = d.pop("origin")
    crop = cv2.imread(str(DATA / f"{stem}.png"), cv2.IMREAD_GRAYSCALE)
    width, height = TRAY_VIEW.size
    gray = np.zeros((height, width), np.uint8)
    gray[y0:y0 + crop.shape[0], x0:x0 + crop.shape[1]] = crop
    shows = tuple(d.pop("shows"))
    for key in ("bracket", "source"):
        d.pop(key)
    d["contour"] = np.asarray(d["contour"], np.int32) + [x0, y0]
    d["centre"] = (d["centre"][0] + x0, d["centre"][1] + y0)
    d["parts"] = tuple(tuple(p) for p in d["parts"])
    return Core(**d), gray, shows  # type: ignore[return-value]


@pytest.fixture(scope="module")
def prep(train_counter) -> Prepared:
    return train_counter.prepared


@pytest.mark.parametrize("stem", SHORT)
def test_two_cubes_under_a_top_square_are_counted(prep: Prepared, stem: str) -> None:
    core, gray, (least, most) = _patch(stem)
    pieces = [a for a in pieces_beyond_top(prep, gray, core) if a >= prep.tuning.PEEL_PIECE_MM2]
    assert len(pieces) >= 2, pieces
    count = cubes_in(prep, core, gray)
    assert count.kind == "touching" and least <= count.n <= most == 3


@pytest.mark.parametrize("stem", RIGHT)
def test_the_top_cubes_own_sides_beyond_its_square_are_no_cube(prep: Prepared, stem: str) -> None:
    core, gray, (least, most) = _patch(stem)
    assert least == most == 2
    assert cubes_in(prep, core, gray).n == 2


@pytest.mark.parametrize("stem", SHORT)
def test_without_the_peel_they_read_one_short(train_counter, stem: str) -> None:
    """The peel is what counts them: with its bar out of reach the stages read two."""
    tuning = dataclasses.replace(train_counter.prepared.tuning, PEEL_PIECE_MM2=1e9)
    unpeeled = Prepared(train_counter.profile, tuning)
    core, gray, (least, _) = _patch(stem)
    assert cubes_in(unpeeled, core, gray).n == least - 1
