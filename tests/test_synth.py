"""The synthetic tray renderer: geometry a counter can rely on (markers, perspective sizes),
light casts that move colours the way real light does, reproducibility, and honest ground truth."""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

from simulation.synth import CameraPose, Lighting, Piece, PostFX, Scene, render, render_with_truth
from simulation.synth.camera import projector
from simulation.synth.scene import TRAY_FLOOR_MM
from vision import geometry as geo

CLEAN = PostFX(vignette=0.0, blur_sigma=0.0, sharpen=0.0, noise_sigma=0.0, jpeg_quality=None, texture=0.0)
CENTRE = (geo.PLATE_W_MM / 2, geo.PLATE_H_MM / 2)


def _detect(frame: np.ndarray) -> dict[int, np.ndarray]:
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, geo.MARKER_DICT))
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    corners, ids, _ = cv2.aruco.ArucoDetector(dictionary, params).detectMarkers(frame)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners, strict=True)}


@pytest.mark.parametrize(
    "camera",
    [
        CameraPose(),
        CameraPose(height_mm=270, tilt_deg=8, tilt_dir_deg=35, roll_deg=5, focal_equiv_mm=36),
        CameraPose(height_mm=330, tilt_deg=8, tilt_dir_deg=200, roll_deg=-5, focal_equiv_mm=38),
        CameraPose(height_mm=300, tilt_deg=6, tilt_dir_deg=120, roll_deg=3, width=1920, height=1080,
                   focal_equiv_mm=26, aim_x_mm=4, aim_y_mm=-3),
    ],
)
@pytest.mark.parametrize("k1", [0.0, -0.03])
def test_markers_are_detected_where_the_truth_says(camera: CameraPose, k1: float) -> None:
    scene = Scene((Piece("cube", "red", 90, 80, 20),), camera, Lighting(kelvin=3500), PostFX(lens_k1=k1))
    frame, truth = render_with_truth(scene, np.random.default_rng(0))
    assert frame.shape == (camera.height, camera.width, 3) and frame.dtype == np.uint8
    found = _detect(frame)
    assert sorted(found) == list(geo.MARKER_IDS)
    for marker_id, corners in found.items():
        err = np.linalg.norm(corners - truth.marker_corners_px[marker_id], axis=1)
        # under a steep tilt the tray's rim may cover one inner corner (as the spec warns): the
        # other three must sit where the projection says
        assert np.sort(err)[2] < 1.0, f"marker {marker_id} corners off by {err.round(2)} px"


def test_a_cube_under_the_camera_has_its_perspective_size() -> None:
    cam = CameraPose(height_mm=300, focal_equiv_mm=36)
    x, y = CENTRE
    scene = Scene((Piece("cube", "yellow", x, y, 0.0),), cam, Lighting(ring_reflection=0), CLEAN)
    frame = render(scene, np.random.default_rng(0))
    expected = geo.CUBE_EDGE_MM * cam.focal_px / (cam.height_mm - TRAY_FLOOR_MM - geo.CUBE_EDGE_MM)
    # sub-pixel width: R - B is 0 on the grey floor (shadowed or not) and 151 on the yellow top;
    # an edge pixel mixes the two linearly, so the half-way crossings are the face's edges
    f = frame.astype(float)
    cover = (f[..., 2] - f[..., 0]) / (218 - 67)

    def width(profile: np.ndarray) -> float:
        inside = np.flatnonzero(profile >= 0.5)
        a, b = inside[0], inside[-1]
        left = a - (profile[a] - 0.5) / (profile[a] - profile[a - 1])
        right = b + (profile[b] - 0.5) / (profile[b] - profile[b + 1])
        return float(right - left)

    row = width(cover[cam.height // 2, cam.width // 2 - 50:cam.width // 2 + 50])
    col = width(cover[cam.height // 2 - 50:cam.height // 2 + 50, cam.width // 2])
    assert row == pytest.approx(expected, abs=1.0)
    assert col == pytest.approx(expected, abs=1.0)


def test_a_cube_off_axis_shows_a_side_face_and_a_raised_cube_looks_larger() -> None:
    cam = CameraPose(height_mm=300, focal_equiv_mm=36)
    x, y = CENTRE
    proj = projector(cam)
    from simulation.synth.pieces import draw_list

    floor = draw_list(Piece("cube", "red", x, y), proj)
    off = draw_list(Piece("cube", "red", x + 60, y), proj)
    raised = draw_list(Piece("cube", "red", x, y, z_mm=10), proj)
    assert len(floor.polys) == 1  # straight down: only the top face
    assert len(off.polys) == 2  # beside the axis: top and one side face

    def area(poly: np.ndarray) -> float:
        return abs(cv2.contourArea(poly.astype(np.float32)))

    ratio = area(raised.polys[-1][0]) / area(floor.polys[-1][0])
    h = cam.height_mm - TRAY_FLOOR_MM
    assert ratio == pytest.approx(((h - 10) / (h - 20)) ** 2, rel=0.01)
    assert raised.depth < floor.depth  # drawn later by the painter's algorithm


def _plate_mean(frame: np.ndarray, camera: CameraPose) -> np.ndarray:
    """Mean BGR of a patch of bare plate between markers 0 and 1."""
    uv, _ = projector(camera).project(np.array([[geo.PLATE_W_MM / 2, 12.0, 0.0]]))
    u, v = np.round(uv[0]).astype(int)
    return frame[v - 8:v + 8, u - 8:u + 8].reshape(-1, 3).mean(axis=0)


def test_colour_casts_move_the_plate_the_way_light_does() -> None:
    cam = CameraPose()
    means = {}
    for kelvin in (2700, 5500, 6500):
        scene = Scene((), cam, Lighting(kelvin=kelvin, cast_strength=0.8), CLEAN)
        means[kelvin] = _plate_mean(render(scene, np.random.default_rng(0)), cam)
    b, g, r = means[5500]
    assert abs(b - r) < 8  # neutral light leaves the grey plate grey
    warm = means[2700][2] / means[2700][0]
    cool = means[6500][2] / means[6500][0]
    assert warm > 1.4 * (r / b)  # warm: red up against blue
    assert cool < r / b  # cool: blue up against red


def test_brightness_scales_the_frame() -> None:
    cam = CameraPose()
    dim = _plate_mean(render(Scene((), cam, Lighting(brightness=0.7), CLEAN), np.random.default_rng(0)), cam)
    bright = _plate_mean(render(Scene((), cam, Lighting(brightness=1.3), CLEAN), np.random.default_rng(0)), cam)
    assert bright.mean() / dim.mean() == pytest.approx(1.3 / 0.7, rel=0.05)


def test_an_arm_shadow_blocks_the_room_light_not_the_ring() -> None:
    from simulation.synth import Shadow

    cam = CameraPose()
    shadow = Shadow(((80.0, -50.0), (140.0, -50.0), (140.0, 40.0), (80.0, 40.0)), strength=1.0, softness_mm=4)
    for kelvin in (5500, 3000):
        room = Lighting(kelvin=kelvin, cast_strength=0.5)
        lit = _plate_mean(render(Scene((), cam, room, CLEAN), np.random.default_rng(0)), cam)
        shaded = _plate_mean(render(Scene((), cam, replace(room, shadow=shadow), CLEAN), np.random.default_rng(0)), cam)
        if kelvin == 5500:  # a neutral room light that was half the light: half the brightness
            assert shaded.mean() / lit.mean() == pytest.approx(0.5, abs=0.04)
        else:  # a warm one: the plate in the shadow is lit by the neutral ring alone
            assert abs(shaded[2] - shaded[0]) < 6 < lit[2] - lit[0] - 20


def test_same_seed_same_frame_other_seed_other_noise() -> None:
    from simulation.synth.scatter import random_scene

    scene = random_scene(np.random.default_rng(11), {"red": 6, "purple": 4})
    a = render(scene, np.random.default_rng(5))
    b = render(scene, np.random.default_rng(5))
    c = render(scene, np.random.default_rng(6))
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)
    assert np.abs(a.astype(int) - c.astype(int)).mean() < 6  # only the noise differs
    again = random_scene(np.random.default_rng(11), {"red": 6, "purple": 4})
    assert again == scene


def test_truth_counts_what_is_visible() -> None:
    x, y = CENTRE
    pieces = (
        Piece("cube", "red", x - 40, y),
        Piece("cube", "blue", x - 40, y, z_mm=10),  # exactly on top: hides the red one
        Piece("cube", "green", x - 10, y + 30),
        Piece("courtier", "black", x + 10, y - 30),
        Piece("cube", "yellow", x + 40, y - 20),
        Piece("finger", "light", x + 40, y - 20, yaw_deg=-90, z_mm=20, size_mm=9),  # over the yellow cube
    )
    _, truth = render_with_truth(Scene(pieces, CameraPose(), Lighting(), CLEAN), np.random.default_rng(0))
    frac = truth.visible_fraction
    assert frac[0] < 0.25 and frac[1] > 0.95 and frac[2] > 0.95 and frac[3] > 0.95
    assert frac[4] < 0.25  # under the finger
    assert truth.cubes == {"red": 1, "blue": 1, "yellow": 1, "purple": 0, "black": 0, "green": 1}
    assert truth.visible_cubes == {"red": 0, "blue": 1, "yellow": 0, "purple": 0, "black": 0, "green": 1}
    assert truth.visible_courtiers["black"] == 1
    assert truth.foreign_object


def test_pieces_reject_bad_descriptions() -> None:
    with pytest.raises(ValueError, match="colour"):
        Piece("cube", "orange", 0, 0)
    with pytest.raises(ValueError, match="player colour"):
        Piece("courtier", "green", 0, 0)
    with pytest.raises(ValueError, match="kind"):
        Piece("pyramid", "red", 0, 0)
    with pytest.raises(ValueError, match="kelvin"):
        Lighting(kelvin=100)


def test_a_courtier_from_above_is_round_and_a_cube_is_not() -> None:
    x, y = CENTRE
    cam = CameraPose(focal_equiv_mm=36)
    scene = Scene((Piece("courtier", "red", x - 30, y), Piece("cube", "red", x + 30, y, yaw_deg=30)), cam,
                  Lighting(ring_reflection=0), CLEAN)
    frame = render(scene, np.random.default_rng(0))
    mask = (frame[..., 2].astype(int) - frame[..., 0].astype(int) > 40).astype(np.uint8)
    mask[:, :cam.width * 3 // 10] = 0  # the wooden table is reddish too: look inside the tray only
    mask[:, cam.width * 7 // 10:] = 0
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    blobs = sorted((stats[i, cv2.CC_STAT_LEFT], i) for i in range(1, n) if 50 < stats[i, cv2.CC_STAT_AREA] < 10000)
    assert len(blobs) == 2
    shapes = []
    for _, i in blobs:
        contour, _ = cv2.findContours((labels == i).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        c = max(contour, key=cv2.contourArea)
        shapes.append(4 * math.pi * cv2.contourArea(c) / cv2.arcLength(c, True) ** 2)
    pawn, cube = shapes
    assert pawn > 0.85 > cube  # circularity: a disc is ~1, a square ~0.785


def test_motion_ends_exactly_at_the_settled_scene_and_new_cubes_fall_in() -> None:
    from simulation.synth import motion_scenes, scatter_cubes

    rng = np.random.default_rng(2)
    before = Scene(tuple(scatter_cubes({"red": 3}, rng)), CameraPose(), Lighting(), CLEAN)
    after = Scene(before.pieces + tuple(scatter_cubes({"blue": 2}, rng, existing=before.pieces)),
                  CameraPose(), Lighting(), CLEAN)
    frames = motion_scenes(before, after, 5, rng, sub_steps=2)
    assert len(frames) == 5 and all(len(f) == 2 for f in frames)
    assert frames[-1][-1] == after
    first = frames[0][0].pieces
    assert first[:3] == before.pieces  # the cubes already lying there do not move
    assert all(p.z_mm > 5 for p in first[3:])  # the new ones are still in the air


def test_barrel_distortion_pulls_the_corners_in() -> None:
    from simulation.synth.exposure import distort_points

    cam = CameraPose(focal_equiv_mm=30)
    pinhole = render_with_truth(Scene((), cam, Lighting(), PostFX()), np.random.default_rng(0))[1]
    barrel = render_with_truth(Scene((), cam, Lighting(), PostFX(lens_k1=-0.03)), np.random.default_rng(0))[1]
    centre = np.array([cam.width / 2, cam.height / 2])
    for marker_id in geo.MARKER_IDS:
        r0 = np.linalg.norm(pinhole.marker_corners_px[marker_id] - centre, axis=1)
        r1 = np.linalg.norm(barrel.marker_corners_px[marker_id] - centre, axis=1)
        expected = r0 * (1 - 0.03 * (r0 / cam.focal_px) ** 2)
        assert r1 == pytest.approx(expected, abs=1e-6)
        assert (r0 - r1).max() > 1.5  # a pixel or two at the plate's corners
    assert np.array_equal(distort_points(cam, 0.0, centre), centre)


def test_polygon_inset_moves_every_edge_and_vanishes_past_the_inradius() -> None:
    from simulation.synth.render import inset_polygon

    square = np.array([[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]])
    assert inset_polygon(square, 1.0).tolist() == [[1, 1], [9, 1], [9, 9], [1, 9]]
    assert inset_polygon(square[::-1], 1.0).tolist() == [[1, 9], [9, 9], [9, 1], [1, 1]]  # either orientation
    assert inset_polygon(square, 6.0) is None


def test_touching_cubes_show_a_dark_groove_between_them() -> None:
    from simulation.synth import row_of_cubes

    cam = CameraPose(focal_equiv_mm=36)
    x, y = CENTRE
    frame = render(Scene(tuple(row_of_cubes("yellow", 2, x - 5, y)), cam, Lighting(ring_reflection=0), CLEAN),
                   np.random.default_rng(0))
    row = frame[cam.height // 2, :, 1].astype(float)  # green channel across both tops
    centre = cam.width // 2
    groove = row[centre - 2:centre + 3].min()
    tops = np.median(np.r_[row[centre - 30:centre - 10], row[centre + 10:centre + 30]])
    assert groove < 0.8 * tops
