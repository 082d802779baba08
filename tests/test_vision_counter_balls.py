"""Courtiers' heads found as shaded balls (vision.counter.balls), on drawn frames and on renders."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import simulation.synthetic_profile as calibration_synthetic
from vision.colour import COLOUR_CODES, UNKNOWN
from vision.counter.balls import balls, heads_as_pawns
from vision.counter.frame import Core, Frame, Prepared, grey_spread
from vision.counter.tuning import PPM
from vision.plate import TRAY_VIEW

WIDTH, HEIGHT = TRAY_VIEW.size


@pytest.fixture(scope="module")
def prep() -> Prepared:
    return Prepared(calibration_synthetic.synthetic_profile())


def _frame(gray: np.ndarray, labels: np.ndarray) -> Frame:
    frame = Frame(None, None, cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR), None)  # type: ignore[arg-type]
    frame.gray, frame.labels = gray, labels
    return frame


def _ball(colour: str, centre=(150.0, 120.0), radius_mm: float = 4.8, shaded: bool = True,
          ring_colour: bool = False) -> Frame:
    """A head on the bare plate: a disc of ``colour`` whose grey falls from a bright top to a dark
    rim (or evenly lit), a glossy highlight of no colour at its top; ``ring_colour``: the colour
    goes on all round it, as inside a face or a pile of that colour."""
    gray = np.full((HEIGHT, WIDTH), 190, np.uint8)
    labels = np.zeros((HEIGHT, WIDTH), np.uint8)
    code = COLOUR_CODES[colour]
    r = radius_mm * PPM
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH]
    d = np.hypot(xx - centre[0], yy - centre[1]) / r
    if ring_colour:
        labels[d <= 2.0] = code
        gray[d <= 2.0] = 90
    inside = d <= 1.0
    gray[inside] = (150 - 100 * d[inside] ** 2).astype(np.uint8) if shaded else 90
    labels[inside] = code
    highlight = np.hypot(xx - centre[0] + 0.25 * r, yy - centre[1] + 0.25 * r) <= 0.2 * r
    if shaded:
        gray[highlight] = 250
        labels[highlight] = UNKNOWN
    return _frame(gray, labels)


def _piece(colour: str, mask: np.ndarray) -> Core:
    contour = max(cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0],
                  key=cv2.contourArea).reshape(-1, 2)
    m = cv2.moments(contour)
    area = float(np.count_nonzero(mask)) / PPM**2
    return Core(colour, area, 1.5, 0.7, 0.6, 45.0, contour, (m["m10"] / m["m00"], m["m01"] / m["m00"]))


def test_a_shaded_ball_of_a_courtier_colour_is_a_head(prep) -> None:
    found = balls(prep, _ball("purple"))
    assert len(found) == 1
    x, y, r, colour = found[0]
    assert colour == "purple" and abs(x - 150) < 3 and abs(y - 120) < 3 and 4.0 < r / PPM < 5.5


def test_a_flat_disc_a_ball_in_its_colour_and_a_green_ball_are_not_heads(prep) -> None:
    """Evenly lit, a disc is a flat face (or a coin); a circle inside its colour is part of a face
    or a pile; green has no courtiers (its cubes are peasants)."""
    assert balls(prep, _ball("purple", shaded=False)) == []
    assert balls(prep, _ball("purple", ring_colour=True)) == []
    assert balls(prep, _ball("green")) == []


def test_a_black_ball_needs_its_highlight_not_black_noise(prep) -> None:
    """A black face's grey is low, so its noise alone spreads it as much as a coloured ball's shading;
    a black ball shows a strong highlight."""
    frame = _ball("black")
    assert [c for *_, c in balls(prep, frame)] == ["black"]
    rng = np.random.default_rng(3)
    noisy = _ball("black", shaded=False)
    assert noisy.gray is not None
    disc = noisy.labels == COLOUR_CODES["black"]
    noisy.gray[disc] = np.clip(40 + rng.normal(0, 7, disc.sum()), 0, 255).astype(np.uint8)
    assert balls(prep, noisy) == []


def test_the_pieces_of_a_head_become_one_pawn_and_a_face_beside_it_stays(prep) -> None:
    """The highlight and the shaded rim break a head into pieces the faces stage reads as a small face
    and a quarter; they are replaced by one core marked ``ball``; a face of its colour stays."""
    frame = _ball("red")
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH]
    left = (np.hypot(xx - 150, yy - 120) <= 4.0 * PPM) & (xx < 148)
    right = (np.hypot(xx - 150, yy - 120) <= 4.0 * PPM) & (xx > 152)
    face = np.zeros((HEIGHT, WIDTH), np.uint8)
    cv2.rectangle(face, (260, 100), (287, 127), 1, -1)
    cores = [_piece("red", left), _piece("red", right), _piece("red", face)]
    out = heads_as_pawns(prep, frame, cores)
    assert len(out) == 2
    assert out[0] is cores[2] and not out[0].ball
    assert out[1].ball and out[1].colour == "red" and abs(out[1].centre[0] - 150) < 3


def _shares(frame: Frame, colour: str, centre=(150.0, 120.0), radius_mm: float = 4.8) -> tuple[float, float]:
    """The share of the clear ring (1.2-1.6 radii) and of the rim just outside the circle (1.0-1.15
    radii) that ``colour`` takes around the head of ``frame``."""
    assert frame.labels is not None
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH]
    d = np.hypot(xx - centre[0], yy - centre[1]) / (radius_mm * PPM)
    on = frame.labels == COLOUR_CODES[colour]
    ring, rim = (d >= 1.2) & (d <= 1.6), (d >= 1.0) & (d <= 1.15)
    return float(on[ring].mean()), float(on[rim].mean())


def _rim_unlit(frame: Frame, centre=(150.0, 120.0), radius_mm: float = 4.8) -> Frame:
    """The ball's outer rim, turned away from the light, too dark for any colour's gate (as on the
    renders): the circle found in the grey view is the ball's, its colour stops short of it."""
    assert frame.labels is not None
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH]
    d = np.hypot(xx - centre[0], yy - centre[1]) / (radius_mm * PPM)
    frame.labels[(d > 0.85) & (d <= 1.0)] = 0
    return frame


def _cube_face(frame: Frame, colour: str, x0: float, x1: float, y0: float, y1: float) -> None:
    assert frame.gray is not None and frame.labels is not None
    frame.labels[int(y0):int(y1), int(x0):int(x1)] = COLOUR_CODES[colour]
    frame.gray[int(y0):int(y1), int(x0):int(x1)] = 90


def test_a_head_against_a_cube_of_its_colour_is_a_head(prep) -> None:
    """A courtier standing against a cube of its colour has that cube in its clear ring, but the
    ball's colour stops at its circle: just outside it (the rim) the colour is the cube's only."""
    t = prep.tuning
    r = 4.8 * PPM
    frame = _rim_unlit(_ball("purple"))
    _cube_face(frame, "purple", 150 + 1.05 * r, 150 + 1.05 * r + 10 * PPM, 120 - 5 * PPM, 120 + 5 * PPM)
    ring, rim = _shares(frame, "purple")
    assert ring > t.BALL_MAX_RING_SHARE and rim <= t.BALL_MAX_RIM_SHARE
    assert [c for *_, c in balls(prep, frame)] == ["purple"]


def test_a_circle_on_a_face_beside_another_is_not_a_head(prep) -> None:
    """A circle fitted to a cube's face (its top shaded towards its edges) beside a cube of its
    colour: the ring holds the neighbour, and the face's corners reach past the circle into the rim."""
    t = prep.tuning
    r = 4.8 * PPM
    frame = _ball("purple")
    assert frame.gray is not None and frame.labels is not None
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH]
    square = (np.abs(xx - 150) <= r) & (np.abs(yy - 120) <= r) & (np.hypot(xx - 150, yy - 120) > r)
    frame.labels[square] = COLOUR_CODES["purple"]
    frame.gray[square] = 60
    _cube_face(frame, "purple", 150 + 1.3 * r, 150 + 1.3 * r + 10 * PPM, 120 - 5 * PPM, 120 + 5 * PPM)
    ring, rim = _shares(frame, "purple")
    assert ring > t.BALL_MAX_RING_SHARE and rim > t.BALL_MAX_RIM_SHARE
    assert balls(prep, frame) == []


def _deep_black_head(gain: float, colour: str = "black") -> Frame:
    """A black head (or one of ``colour``) shaded from its top to a near-black rim (the more
    ``gain``, the deeper), its outer rim unlit, with cubes of its colour against it on two sides
    (right and below)."""
    frame = _rim_unlit(_ball(colour))
    assert frame.gray is not None
    r = 4.8 * PPM
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH]
    d = np.hypot(xx - 150.0, yy - 120.0) / r
    frame.gray[d <= 1.0] = (20 + gain * (1 - d[d <= 1.0]) ** 2).astype(np.uint8)
    _cube_face(frame, colour, 150 + r, 150 + r + 10 * PPM, 120 - 6 * PPM, 120 + 6 * PPM)
    _cube_face(frame, colour, 150 - 6 * PPM, 150 + r, 120 + r, 120 + r + 10 * PPM)
    return frame


def _shading(frame: Frame) -> float:
    assert frame.gray is not None
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH]
    grey = frame.gray[np.hypot(xx - 150.0, yy - 120.0) <= 0.8 * 4.8 * PPM].astype(np.float64)
    return float(grey.std() / grey.mean())


def test_a_deeply_shaded_head_between_cubes_of_its_colour_is_a_head(prep) -> None:
    """Black cubes on three sides put black in more of a black head's rim than a head may have
    (``BALL_MAX_RIM_SHARE``); a head shaded as deeply as no face is (``BALL_DEEP_SHADING``)
    may have up to ``BALL_MAX_RIM_SHARE_DEEP``. The same circle shaded as a face's edge is not a head
    (tuning seed 5151 `t0040`: a black cube shaded 0.38, its rim 0.49 black)."""
    t = prep.tuning
    r = 4.8 * PPM
    deep, shallow = _deep_black_head(200), _deep_black_head(60)
    for frame in (deep, shallow):  # a third cube, on the left
        _cube_face(frame, "black", 150 - r - 10 * PPM, 150 - r, 120 - 6 * PPM, 120 + 6 * PPM)
    ring, rim = _shares(deep, "black")
    assert ring > t.BALL_MAX_RING_SHARE and t.BALL_MAX_RIM_SHARE < rim <= t.BALL_MAX_RIM_SHARE_DEEP
    assert _shading(deep) >= t.BALL_DEEP_SHADING > _shading(shallow) >= t.BALL_MIN_SHADING_BLACK
    assert [c for *_, c in balls(prep, deep)] == ["black"]
    assert balls(prep, shallow) == []


def test_a_deeply_shaded_head_boxed_in_by_cubes_of_its_colour_is_a_head(prep) -> None:
    """Cubes of its colour on all four sides put more of a black head's rim in black (0.41 here;
    on the tuning renders 5404 `t0009` 0.42, 5405 `t0012` 0.50) than the first deep cap, 0.40,
    allowed; shaded as deeply as no face is, it is still a head. Shaded as a face, it is not."""
    r = 4.8 * PPM
    boxed = []
    for gain in (200, 60):
        frame = _deep_black_head(gain)
        _cube_face(frame, "black", 150 - r - 10 * PPM, 150 - r, 120 - 6 * PPM, 120 + 6 * PPM)
        _cube_face(frame, "black", 150 - 6 * PPM, 150 + 6 * PPM, 120 - r - 10 * PPM, 120 - r)
        boxed.append(frame)
    assert 0.40 < _shares(boxed[0], "black")[1] <= prep.tuning.BALL_MAX_RIM_SHARE_DEEP
    assert [c for *_, c in balls(prep, boxed[0])] == ["black"]
    assert balls(prep, boxed[1]) == []


def test_a_head_read_with_the_cube_beside_it_leaves_the_cube(prep) -> None:
    """The faces stage read a head and the cube it stands against as one patch (tuning seed 5151
    `t0008`, read as two black cubes). The head is cut out of it: the ball, and the cube's face."""
    frame = _rim_unlit(_ball("black"))
    r = 4.8 * PPM
    _cube_face(frame, "black", 150 + r, 150 + r + 10 * PPM, 120 - 5 * PPM, 120 + 5 * PPM)
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH]
    head = np.hypot(xx - 150, yy - 120) <= 1.05 * r  # touching the face: one patch
    face = (xx >= 150 + r) & (xx < 150 + r + 10 * PPM) & (np.abs(yy - 120) < 5 * PPM)
    merged = _piece("black", head | face)
    out = heads_as_pawns(prep, frame, [merged])
    assert len(out) == 2 and out[0].ball and not out[1].ball
    assert 0.7 * 100 < out[1].area_mm2 <= float(np.count_nonzero(face)) / PPM**2
    assert out[1].centre[0] > 150 + r


def test_a_head_read_with_a_cube_on_each_side_leaves_both_cubes(prep) -> None:
    """Tuning seed 5405 `t0012`: a black head stood between two black cubes, and the faces stage read
    all three as one patch. Cut out of it, the head leaves a piece on each side: both are cubes
    (the smaller one was dropped, and the tray read one black short)."""
    frame = _rim_unlit(_ball("black"))
    r = 4.8 * PPM
    _cube_face(frame, "black", 150 + r, 150 + r + 10 * PPM, 120 - 5 * PPM, 120 + 5 * PPM)
    _cube_face(frame, "black", 150 - r - 8 * PPM, 150 - r, 120 - 4 * PPM, 120 + 4 * PPM)
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH]
    head = np.hypot(xx - 150, yy - 120) <= 1.05 * r
    right = (xx >= 150 + r) & (xx < 150 + r + 10 * PPM) & (np.abs(yy - 120) < 5 * PPM)
    left = (xx >= 150 - r - 8 * PPM) & (xx < 150 - r) & (np.abs(yy - 120) < 4 * PPM)
    out = heads_as_pawns(prep, frame, [_piece("black", head | right | left)])
    assert [c.ball for c in out] == [True, False, False]
    assert sorted(c.centre[0] > 150 for c in out[1:]) == [False, True]  # one cube on each side
    assert all(c.area_mm2 >= prep.tuning.MIN_FACE_AREA_MM2 for c in out[1:])


# -- on renders ------------------------------------------------------------------------------------

def _heads(train_counter, tray_train: Path, name: str):
    from calibration.render_truth import top_centre_px
    from vision.imageio import read_image

    assert int(name[1:]) % 3 != 0, "tests use tuning scenes only"
    meta = json.loads((tray_train / "test" / f"{name}.json").read_text())
    _, frame = train_counter.read(read_image(tray_train / "test" / f"{name}.jpg"))
    standing = [(p["colour"], top_centre_px(p, meta["camera"])) for p in meta["pieces"]
                if p["type"] == "courtier" and p["standing"] and p["visible_fraction"] >= 0.9]
    return balls(train_counter.prepared, frame), standing


@pytest.mark.parametrize("name", ["t0019", "t0004"])
def test_standing_courtiers_on_renders_are_found_as_balls_where_they_stand(train_counter, tray_train, name) -> None:
    found, standing = _heads(train_counter, tray_train, name)
    assert len(standing) >= 2 and len(found) == len(standing)
    for colour, (x, y) in standing:
        assert any(c == colour and np.hypot(bx - x, by - y) < 3 * PPM for bx, by, _, c in found)


@pytest.mark.parametrize("name", ["t0001", "t0020", "t0068", "t0107", "t0128"])
def test_piles_without_courtiers_show_no_balls(train_counter, tray_train, name) -> None:
    found, standing = _heads(train_counter, tray_train, name)
    assert standing == [] and found == []


def test_two_faces_left_beyond_a_head_stay_two(prep) -> None:
    """A head read with two touching faces beside it: what lies beyond the head is larger than one
    cube shows, and is cut at its neck into two faces as the faces stage cuts a merged core."""
    frame = _rim_unlit(_ball("black"))
    r = 4.8 * PPM
    x0 = 150 + r
    _cube_face(frame, "black", x0, x0 + 20 * PPM, 120 - 5 * PPM, 120 + 5 * PPM)
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH]
    head = np.hypot(xx - 150, yy - 120) <= 1.05 * r
    faces = (xx >= x0) & (xx < x0 + 20 * PPM) & (np.abs(yy - 120) < 5 * PPM)
    neck = (np.abs(xx - (x0 + 10 * PPM)) < 1) & (np.abs(yy - 120) >= 2 * PPM)
    out = heads_as_pawns(prep, frame, [_piece("black", (head | faces) & ~neck)])
    assert [c.ball for c in out] == [True, False]
    assert out[1].area_mm2 > prep.tuning.SINGLE_MAX_MM2 and len(out[1].parts) == 2


def test_a_black_courtier_against_a_black_cube_is_a_courtier(train_counter, tray_train) -> None:
    """Tuning ``t0059``: a black courtier stands against a black cube; its head's rim is 0.36 black
    and it was counted as a black cube (13 where 12 lie in the tray), the courtier lost. Shaded as
    deeply as a head (0.41), it is a head."""
    from vision.imageio import read_image

    meta = json.loads((tray_train / "test" / "t0059.json").read_text())
    reading = train_counter.count(read_image(tray_train / "test" / "t0059.jpg"))
    assert meta["courtiers"]["black"] == 1
    assert reading.courtiers["black"] == 1
    assert meta["visible_cubes"]["black"] <= reading.cubes["black"] <= meta["cubes"]["black"]


def _lightly_shaded(colour: str, gain: float, darkness: int, square_face: bool = False) -> Frame:
    """A head evenly coloured to its circle, its grey (divided by ``darkness``: purple and black are
    dark) shaded gently from top to rim (``gain``) with no highlight of no colour, as seed 5406's
    light shows heads; ``square_face``: the colour goes on to the corners of a square drawn round
    the circle, as a face's does."""
    frame = _ball(colour)
    assert frame.gray is not None and frame.labels is not None
    r = 4.8 * PPM
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH]
    d = np.hypot(xx - 150.0, yy - 120.0) / r
    inside = d <= 1.0
    frame.gray[inside] = ((150 - gain * d[inside] ** 2) / darkness).astype(np.uint8)
    frame.labels[inside] = COLOUR_CODES[colour]
    if square_face:
        square = (np.abs(xx - 150.0) <= r) & (np.abs(yy - 120.0) <= r) & ~inside
        frame.labels[square] = COLOUR_CODES[colour]
        frame.gray[square] = 190  # the corners lit otherwise: the circle stays in the grey view
    return frame


@pytest.mark.parametrize("colour, gain, darkness", [("purple", 90, 2), ("black", 130, 3)])
def test_a_head_standing_alone_needs_less_shading(prep, colour, gain, darkness) -> None:
    """A head whose colour stops at its circle all round (ring clear, rim at most
    ``BALL_CLEAR_RIM_SHARE``) is a head shaded from ``BALL_MIN_SHADING_CLEAR`` (seed 5406: 19 heads
    standing alone shaded 0.134-0.150, black 0.216-0.235, under the shading bars every other head
    must pass). The same circle on a square face of its colour has the face's corners in its rim:
    not a head at that shading."""
    t = prep.tuning
    alone = _lightly_shaded(colour, gain, darkness)
    least, clear = ((t.BALL_MIN_SHADING_BLACK, t.BALL_MIN_SHADING_CLEAR_BLACK) if colour == "black"
                    else (t.BALL_MIN_SHADING, t.BALL_MIN_SHADING_CLEAR))
    assert clear <= _shading(alone) < least
    ring, rim = _shares(alone, colour)
    assert ring <= t.BALL_MAX_RING_SHARE and rim <= t.BALL_CLEAR_RIM_SHARE
    assert [c for *_, c in balls(prep, alone)] == [colour]
    face = _lightly_shaded(colour, gain, darkness, square_face=True)
    assert _shares(face, colour)[1] > t.BALL_CLEAR_RIM_SHARE
    assert balls(prep, face) == []
    # the circle is there: with no rim bar it would pass as a head
    lenient = Prepared(calibration_synthetic.synthetic_profile(), dataclasses.replace(t, BALL_CLEAR_RIM_SHARE=1.0))
    assert [c for *_, c in balls(lenient, face)] == [colour]


def test_a_lightly_shaded_circle_with_its_colour_in_the_ring_needs_a_heads_shading(prep) -> None:
    """The lower bar is for a head standing alone: with its colour beyond a gap round it (the ring,
    1.2-1.6 radii, holding its colour; the rim just outside the circle clear), a circle shaded as
    lightly is no head; with no bar on the ring it would pass."""
    t = prep.tuning
    frame = _lightly_shaded("purple", 90, 2)
    assert frame.gray is not None and frame.labels is not None
    r = 4.8 * PPM
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH]
    d = np.hypot(xx - 150.0, yy - 120.0) / r
    around = (d >= 1.25) & (d <= 1.7)
    frame.labels[around] = COLOUR_CODES["purple"]
    frame.gray[around] = 120
    ring, rim = _shares(frame, "purple")
    assert ring > t.BALL_MAX_RING_SHARE and rim <= t.BALL_CLEAR_RIM_SHARE
    assert t.BALL_MIN_SHADING_CLEAR <= _shading(frame) < t.BALL_MIN_SHADING
    assert balls(prep, frame) == []
    lenient = Prepared(calibration_synthetic.synthetic_profile(), dataclasses.replace(t, BALL_MAX_RING_SHARE=1.0))
    assert [c for *_, c in balls(lenient, frame)] == ["purple"]


def test_a_head_whose_shading_leaves_most_pixels_unclassed_is_still_a_head(prep) -> None:
    """A ball's shaded rim falls outside every colour class: of the pixels that have a class most
    are its colour, though they are under half of the disc (tuning 5411, two heads at 0.40)."""
    frame = _ball("red")
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH]
    d = np.hypot(xx - 150.0, yy - 120.0) / (4.8 * PPM)
    frame.labels[(d > 0.5) & (d <= 1.0)] = UNKNOWN  # about 0.6 of the inner disc unclassed
    assert [c for *_, c in balls(prep, frame)] == ["red"]
    frame.labels[(d > 0.3) & (d <= 1.0)] = UNKNOWN  # about 0.85 unclassed: too little of any colour
    assert balls(prep, frame) == []


def test_a_blue_head_between_blue_cubes_needs_less_shading_than_a_black_one(prep) -> None:
    """Tuning 5410 ``t0037``: a blue head with blue cubes on three sides, shaded 0.375, was read as a
    cube. A face of a colour other than black never shades so (0.27 at most on the tuning
    renders), so ``BALL_DEEP_SHADING`` is lower than ``BALL_DEEP_SHADING_BLACK``: the same picture
    in blue is a head, in black (whose faces' noise shades them up to 0.38) it is not."""
    t = prep.tuning
    r = 4.8 * PPM
    blue, black = _deep_black_head(68, "blue"), _deep_black_head(68)
    for frame, colour in ((blue, "blue"), (black, "black")):  # a third cube, on the left
        _cube_face(frame, colour, 150 - r - 10 * PPM, 150 - r, 120 - 6 * PPM, 120 + 6 * PPM)
    rim = _shares(blue, "blue")[1]
    assert t.BALL_MAX_RIM_SHARE < rim <= t.BALL_MAX_RIM_SHARE_DEEP
    assert t.BALL_DEEP_SHADING <= _shading(blue) < t.BALL_DEEP_SHADING_BLACK
    assert [c for *_, c in balls(prep, blue)] == ["blue"]
    assert balls(prep, black) == []


def test_a_head_at_the_views_edge_keeps_its_outline_inside_the_view(prep) -> None:
    """A head found with its circle reaching past the view's edge (here half a pixel past the last
    column once rounded) becomes a core whose outline stops at the edge: the stages after it cut each
    core's box out of the view by its outline, and a box past the edge made the patch forest's
    brightness measure raise (``cv2.meanStdDev``: the mask larger than the view's part under it),
    so the frame was not read at all."""
    centre = (WIDTH - 11.0, 120.0)
    frame = _ball("purple", centre=centre)
    found = balls(prep, frame)
    assert len(found) == 1 and found[0][0] + found[0][2] > WIDTH - 1  # the circle reaches past the edge
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH]
    piece = np.hypot(xx - centre[0], yy - centre[1]) <= 3.5 * PPM
    out = heads_as_pawns(prep, frame, [_piece("purple", piece)])
    assert len(out) == 1 and out[0].ball
    outline = out[0].contour.reshape(-1, 2)
    assert outline[:, 0].min() >= 0 and outline[:, 0].max() <= WIDTH - 1
    assert outline[:, 1].min() >= 0 and outline[:, 1].max() <= HEIGHT - 1
    assert frame.gray is not None
    assert grey_spread(frame.gray, out[0]) > 0.0  # measured, not raised
