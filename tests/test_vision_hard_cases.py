"""The counter's hard cases on synthetic frames (no shared data needed).

The synthetic station here is deliberately simple (a flat, top-down drawing warped into a camera
frame through a homography): real ArUco markers, a grey plate, a lighter tray floor, cubes as
10 mm squares with darker bevelled edges, pawns as shaded balls. The profile is learned from
synthetic calibration shots through the real ``learn_profile``, so the whole pipeline runs.
"""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.learn import learn_profile
from vision import geometry as g
from vision.counter import TrayCounter
from vision.errors import UnreadableImage
from vision.imageio import read_image

PPM = 4.0  # drawing resolution
BGR = {
    "red": (48, 52, 172),
    "blue": (165, 85, 40),
    "yellow": (40, 190, 222),
    "purple": (128, 48, 104),
    "black": (46, 46, 46),
    "green": (62, 132, 52),
}
PLATE = (188, 188, 188)
FLOOR = (206, 206, 206)


def _mm(x: float, y: float) -> tuple[int, int]:
    return int(round(x * PPM)), int(round(y * PPM))


class Scene:
    """A top-down drawing of the plate in millimetres, rendered to a camera frame on demand."""

    def __init__(self) -> None:
        w, h = _mm(g.PLATE_W_MM, g.PLATE_H_MM)
        self.img = np.full((h, w, 3), PLATE, np.uint8)
        x0, y0, x1, y1 = g.TRAY_INNER_MM
        cv2.rectangle(self.img, _mm(x0 - 2, y0 - 2), _mm(x1 + 2, y1 + 2), (150, 150, 150), -1)
        cv2.rectangle(self.img, _mm(x0, y0), _mm(x1, y1), FLOOR, -1)
        dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
        side = int(round(g.MARKER_SIZE_MM * PPM))
        for mid, (x, y) in g.MARKER_CENTRES_MM.items():
            q = g.MARKER_SIZE_MM / 2 + g.MARKER_QUIET_ZONE_MM
            cv2.rectangle(self.img, _mm(x - q, y - q), _mm(x + q, y + q), (245, 245, 245), -1)
            marker = cv2.aruco.generateImageMarker(dictionary, mid, side)
            x0, y0 = _mm(x - g.MARKER_SIZE_MM / 2, y - g.MARKER_SIZE_MM / 2)
            self.img[y0:y0 + side, x0:x0 + side] = marker[..., None]

    def cube(self, colour: str, x: float, y: float, angle: float = 0.0, scale: float = 1.0) -> Scene:
        """A cube's top face centred at plate (x, y) mm (``scale`` > 1: it lies on another)."""
        edge = g.CUBE_EDGE_MM * scale
        box = cv2.boxPoints(((x * PPM, y * PPM), (edge * PPM, edge * PPM), angle)).astype(np.int32)
        cv2.fillConvexPoly(self.img, box, tuple(int(c * 0.45) for c in BGR[colour]), cv2.LINE_AA)
        inner = cv2.boxPoints(((x * PPM, y * PPM), ((edge - 1.4) * PPM,) * 2, angle)).astype(np.int32)
        cv2.fillConvexPoly(self.img, inner, BGR[colour], cv2.LINE_AA)
        return self

    def row(self, colour: str, n: int, x: float, y: float) -> Scene:
        for i in range(n):
            self.cube(colour, x + i * g.CUBE_EDGE_MM, y)
        return self

    def pawn(self, colour: str, x: float, y: float) -> Scene:
        """A courtier seen from above: a ball about 9 mm across, shaded and darker at its rim."""
        r = 4.6 * PPM
        cx, cy = x * PPM, y * PPM
        ys, xs = np.mgrid[0:self.img.shape[0], 0:self.img.shape[1]]
        d = np.hypot(xs - cx, ys - cy) / r
        inside = d < 1
        shade = np.sqrt(np.clip(1 - d**2, 0, 1)) * 0.75 + 0.05
        base = np.array(BGR[colour], np.float32)
        self.img[inside] = np.clip(base[None, :] * shade[inside][:, None], 0, 255).astype(np.uint8)
        return self

    def finger(self, skin: tuple[int, int, int] = (60, 95, 150)) -> Scene:
        """A finger (BGR ``skin``) reaching in over the bottom wall from outside the plate."""
        bottom = g.TRAY_INNER_MM[3]
        cv2.line(self.img, _mm(100, g.PLATE_H_MM + 5), _mm(100, bottom - 30), skin, int(16 * PPM))
        return self

    def frame(self, cast: tuple[float, float, float] = (1.0, 1.0, 1.0), roll_deg: float = 3.0,
              shadow: tuple[float, float, float] | None = None, seed: int = 0) -> np.ndarray:
        """Warp to a 1280 x 960 camera frame (~4.3 px/mm, rolled), with a colour cast and noise."""
        s = 4.3 / PPM
        a = math.radians(roll_deg)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]) * s
        centre = np.array([g.PLATE_W_MM / 2 * PPM, g.PLATE_H_MM / 2 * PPM])
        m = np.eye(3)
        m[:2, :2] = rot
        m[:2, 2] = np.array([640, 480]) - rot @ centre
        m[2, :2] = [1e-6, -2e-6]  # a little keystone: the camera is not quite vertical
        out = cv2.warpPerspective(self.img, m, (1280, 960), borderValue=(70, 110, 150))
        out = out.astype(np.float32)
        if shadow is not None:
            sx, sy, radius = shadow
            centre_px = m @ np.array([sx * PPM, sy * PPM, 1.0])
            ys, xs = np.mgrid[0:960, 0:1280]
            d = np.hypot(xs - centre_px[0] / centre_px[2], ys - centre_px[1] / centre_px[2])
            out *= (1 - 0.5 * np.clip(1.5 - d / (radius * 4.3), 0, 1))[..., None]
        out *= np.array(cast, np.float32)[None, None, :]
        out += np.random.default_rng(seed).normal(0, 2.0, out.shape)
        return np.clip(out, 0, 255).astype(np.uint8)


def _spread(colour: str) -> Scene:
    s = Scene()
    for i, (x, y) in enumerate([(60, 55), (85, 60), (110, 55), (140, 62), (160, 90), (70, 100), (100, 110), (135, 120)]):
        s.cube(colour, x, y, angle=11 * i)
    return s


@pytest.fixture(scope="module")
def counter() -> TrayCounter:
    empty = Scene().frame()
    samples = {c: [_spread(c).frame(seed=i + 1)] for i, c in enumerate(g.ALL_COLOURS)}
    courtiers = {}
    for c in g.PLAYER_COLOURS:
        s = Scene()
        for x, y in [(70, 60), (150, 70), (90, 120), (140, 115)]:
            s.pawn(c, x, y)
        courtiers[c] = [s.frame(seed=9)]
    profile, report = learn_profile(empty, samples, courtiers)
    assert not report.warnings, report.warnings
    return TrayCounter(profile)


def _only(counts: dict[str, int], **expected: int) -> dict[str, int]:
    return {c: expected.get(c, 0) for c in counts}


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_touching_cubes_in_a_row_are_split(counter: TrayCounter, n: int) -> None:
    reading = counter.count(Scene().row("red", n, 65, 80).frame())
    assert reading.usable, reading.reason
    assert reading.cubes == _only(reading.cubes, red=n)


def test_a_cluster_of_touching_cubes_is_split(counter: TrayCounter) -> None:
    s = Scene().row("green", 3, 80, 70).row("green", 3, 80, 80).row("green", 2, 85, 90)
    reading = counter.count(s.frame())
    assert reading.cubes == _only(reading.cubes, green=8)


def test_cubes_against_the_walls_are_counted(counter: TrayCounter) -> None:
    x0, y0, x1, y1 = g.TRAY_INNER_MM
    s = Scene().cube("blue", x0 + 5.2, y0 + 5.2).cube("blue", x1 - 5.2, y1 - 5.2).cube("yellow", x0 + 30, y1 - 5.2)
    reading = counter.count(s.frame())
    assert reading.cubes == _only(reading.cubes, blue=2, yellow=1)


def test_a_cube_lying_partly_on_another_counts(counter: TrayCounter) -> None:
    s = Scene().cube("yellow", 100, 90).cube("yellow", 104, 94, angle=20, scale=1.07)
    reading = counter.count(s.frame())
    assert reading.cubes == _only(reading.cubes, yellow=2)


def test_red_under_a_warm_cast(counter: TrayCounter) -> None:
    s = Scene().cube("red", 80, 70).cube("red", 120, 100, 30).cube("yellow", 100, 120)
    reading = counter.count(s.frame(cast=(0.62, 0.8, 1.0)))  # B, G, R gains: tungsten-ish, no clipping
    assert reading.cubes == _only(reading.cubes, red=2, yellow=1)


def test_black_in_a_shadow_is_black_and_the_shadow_is_nothing(counter: TrayCounter) -> None:
    s = Scene().cube("black", 80, 80).cube("black", 130, 110)
    reading = counter.count(s.frame(shadow=(85, 85, 30)))
    assert reading.cubes == _only(reading.cubes, black=2)


def test_purple_beside_blue(counter: TrayCounter) -> None:
    s = Scene().cube("purple", 100, 90).cube("blue", 110, 90).cube("purple", 120, 90)
    reading = counter.count(s.frame())
    assert reading.cubes == _only(reading.cubes, purple=2, blue=1)


def test_a_pawn_beside_a_cube_is_a_courtier_not_a_cube(counter: TrayCounter) -> None:
    s = Scene().cube("red", 90, 90).pawn("red", 104, 90).pawn("blue", 140, 70)
    reading = counter.count(s.frame())
    assert reading.cubes == _only(reading.cubes, red=1)
    assert reading.courtiers == _only(reading.courtiers, red=1, blue=1)


def test_a_finger_makes_the_frame_unusable(counter: TrayCounter) -> None:
    reading = counter.count(Scene().cube("red", 80, 80).finger().frame())
    assert not reading.usable
    assert "finger" in reading.reason


@pytest.mark.parametrize("skin", [(40, 60, 95), (30, 45, 75), (25, 35, 55), (20, 28, 40)])
def test_a_dark_finger_makes_the_frame_unusable(counter: TrayCounter, skin: tuple[int, int, int]) -> None:
    """Dark skin has little chroma: measured against the plate's tint at full light, the two darkest
    tones passed for a plate in shadow and the finger over the tray was read as black cubes."""
    reading = counter.count(Scene().cube("red", 80, 80).finger(skin).frame())
    assert not reading.usable
    assert "finger" in reading.reason


def test_the_plate_by_the_walls_in_a_cooler_light_is_no_hand(counter: TrayCounter) -> None:
    """The plate in the shade of a strong warm room light, lit by the ring light alone, is blue
    against a white balance taken in the warm light: no skin is blue. The same patch as warm as it
    is blue might be skin, and still makes the frame unusable."""
    x0, _, x1, y1 = g.TRAY_INNER_MM
    shade = Scene().cube("red", 80, 80)
    cv2.rectangle(shade.img, _mm(x0 + 20, y1 + 3), _mm(x1 - 40, g.PLATE_H_MM), (200, 150, 110), -1)
    reading = counter.count(shade.frame())
    assert reading.usable and reading.cubes == _only(reading.cubes, red=1)
    warm = Scene().cube("red", 80, 80)
    cv2.rectangle(warm.img, _mm(x0 + 20, y1 + 3), _mm(x1 - 40, g.PLATE_H_MM), (110, 150, 200), -1)
    reading = counter.count(warm.frame())
    assert not reading.usable and "finger" in reading.reason


def test_one_covered_marker_is_tolerated_two_are_not(counter: TrayCounter) -> None:
    s = Scene().cube("green", 100, 90)
    for mid in (0,):
        x, y = g.MARKER_CENTRES_MM[mid]
        cv2.rectangle(s.img, _mm(x - 13, y - 13), _mm(x + 13, y + 13), PLATE, -1)
    reading = counter.count(s.frame())
    assert reading.usable and reading.cubes["green"] == 1
    x, y = g.MARKER_CENTRES_MM[1]
    cv2.rectangle(s.img, _mm(x - 13, y - 13), _mm(x + 13, y + 13), PLATE, -1)
    reading = counter.count(s.frame())
    assert not reading.usable
    assert "marker" in reading.reason


def test_foreign_marker_ids_are_ignored(counter: TrayCounter) -> None:
    s = Scene().cube("green", 100, 90)
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    s.img[40:120, 720:800] = cv2.aruco.generateImageMarker(dictionary, 7, 80)[..., None]  # id 7 on the plate
    reading = counter.count(s.frame())
    assert reading.usable and reading.cubes["green"] == 1


def test_empty_tray_counts_nothing(counter: TrayCounter) -> None:
    reading = counter.count(Scene().frame(shadow=(100, 90, 40)))
    assert reading.usable
    assert sum(reading.cubes.values()) == 0 and sum(reading.courtiers.values()) == 0


def test_a_truncated_jpeg_is_unreadable(tmp_path: Path) -> None:
    ok, data = cv2.imencode(".jpg", Scene().frame())
    assert ok
    path = tmp_path / "cut.jpg"
    path.write_bytes(data.tobytes()[: len(data) // 2])
    with pytest.raises(UnreadableImage, match="truncated"):
        read_image(path)
    garbage = tmp_path / "garbage.png"
    garbage.write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    with pytest.raises(UnreadableImage):
        read_image(garbage)
    with pytest.raises(OSError):
        read_image(tmp_path / "missing.jpg")


@pytest.mark.parametrize("damage", ["zeroed", "flipped", "cut"])
def test_a_jpeg_damaged_in_the_middle_is_unreadable(tmp_path: Path, damage: str) -> None:
    """Bytes lost or overwritten inside the file, which still ends with its end-of-image marker:
    OpenCV would decode it (with grey or shifted blocks) and only print a warning."""
    frame = Scene().cube("red", 90, 80).cube("blue", 130, 100).frame()
    ok, encoded = cv2.imencode(".jpg", frame)
    assert ok
    data = bytearray(encoded.tobytes())
    mid = len(data) // 2
    if damage == "zeroed":
        data[mid:mid + 1500] = bytes(1500)
    elif damage == "flipped":
        data[mid:mid + 256] = bytes(b ^ 0x5A for b in data[mid:mid + 256])
    else:
        del data[mid:mid + 3000]
    assert data.endswith(b"\xff\xd9")
    path = tmp_path / f"{damage}.jpg"
    path.write_bytes(bytes(data))
    with pytest.raises(UnreadableImage, match="corrupt JPEG"):
        read_image(path)
    intact = tmp_path / "intact.jpg"
    intact.write_bytes(encoded.tobytes())
    assert read_image(intact).shape == frame.shape


def test_confidence_is_full_only_without_doubt(counter: TrayCounter) -> None:
    clear = counter.count(Scene().cube("blue", 90, 80).cube("red", 130, 110, 25).frame())
    assert clear.usable and clear.reason is None and clear.confidence == 1.0
    s = Scene().cube("blue", 90, 80)
    x, y = g.MARKER_CENTRES_MM[2]
    cv2.rectangle(s.img, _mm(x - 13, y - 13), _mm(x + 13, y + 13), PLATE, -1)
    three = counter.count(s.frame())
    assert three.usable and three.cubes["blue"] == 1 and three.confidence < 1.0
    assert three.marker_ids == (0, 1, 3)


def test_annotation_draws_every_detection(counter: TrayCounter) -> None:
    from vision.annotate import annotate

    frame = Scene().cube("green", 90, 80).pawn("red", 120, 100).frame()
    reading = counter.count(frame)
    out = annotate(frame, reading)
    assert out.shape == frame.shape and out is not frame
    kinds = sorted(d.kind for d in reading.detections)
    assert kinds == ["courtier", "cube"]
    for det in reading.detections:  # the outline is drawn where the detection is
        x, y = np.round(det.outline.mean(axis=0)).astype(int)
        assert np.any(out[y - 40:y + 40, x - 40:x + 40] != frame[y - 40:y + 40, x - 40:x + 40])
    unusable = counter.count(Scene().finger().frame())
    assert not np.array_equal(annotate(frame, unusable)[:40], frame[:40])  # the verdict is written on top
