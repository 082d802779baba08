"""A polished coin told by its rim's glint (``vision.counter.rim_glints``, ``guards.flat_discs``).

A polished coin tilted on cubes mirrors them: no circle stands out and its face reads as cubes
(tuning seed 5408 ``t0004`` and ``t0013``). Its rim still glints: a bright thin line along a coin's
curve. A face's corner draws a curved highlight too, as tight, but painted wood glints less than
metal. Drawn cases here, and the shared renders beside the bars; the renders that set them are in
``docs/counter.md``, *A coin's rim glint*."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest
from coin_renders import refused_with

import simulation.synthetic_profile as calibration_synthetic
from vision.colour import BACKGROUND
from vision.counter.frame import Frame, Prepared
from vision.counter.guards import coin_refusal, flat_discs
from vision.counter.rim_glints import glints, rim_glints
from vision.counter.tuning import PPM


@pytest.fixture(scope="module")
def prep() -> Prepared:
    return Prepared(calibration_synthetic.synthetic_profile())


def _view(lines: list[tuple[str, tuple[float, float], float, float, int]]) -> Frame:
    """A grey view 60 mm square of mirrored cubes (an uneven mid grey) with bright lines drawn on
    it: ``("arc", centre mm, radius mm, span degrees, brightness)`` or ``("corner", corner mm, arm
    mm, bevel radius mm, brightness)`` (two bevels meeting round a face's corner); a camera's blur
    and seeded sensor noise over all."""
    size = int(60 * PPM)
    rng = np.random.default_rng(3)
    base = cv2.GaussianBlur(rng.normal(120, 25, (size, size)), (0, 0), 6)
    gray = np.clip(base, 0, 255).astype(np.float64)
    for kind, (cx, cy), a, b, level in lines:
        mask = np.zeros((size, size), np.uint8)
        if kind == "arc":
            cv2.ellipse(mask, (int(cx * PPM), int(cy * PPM)), (int(a * PPM), int(a * PPM)), 0, 0, b, 1, 2)
        else:  # a face's corner at (cx, cy): arms of ``a`` mm to the left and up, rounded with radius ``b``
            x, y, arm, r = (int(v * PPM) for v in (cx, cy, a, b))
            cv2.line(mask, (x - arm, y), (x - r, y), 1, 2)
            cv2.line(mask, (x, y - arm), (x, y - r), 1, 2)
            cv2.ellipse(mask, (x - r, y - r), (r, r), 0, 0, 90, 1, 2)
        gray[mask > 0] += level
    shaken = rng.normal(0, 6, gray.shape)
    gray = np.clip(cv2.GaussianBlur(gray, (3, 3), 0.7) + shaken, 0, 255).astype(np.uint8)
    pose = SimpleNamespace(plane_homography=lambda height_mm: np.eye(3))  # the view is the photo
    labels = np.full((size, size), BACKGROUND, np.uint8)
    return Frame(pose, None, None, None, labels=labels, gray=gray)  # type: ignore[arg-type]


def test_a_coins_rim_glint_is_found_and_a_faces_corner_is_not(prep: Prepared) -> None:
    """A rim seen tilted (6 mm of curvature over 80 degrees, 140 levels bright) is a coin's; a
    face's corner as curved and as long but 60 levels bright fits every bar but brightness; two
    long straight bevels meeting at a sharp corner, as bright as the rim, fit no coin's curve."""
    frame = _view([("arc", (30, 30), 6.0, 80, 140), ("corner", (20, 50), 6.0, 4.5, 60)])
    assert frame.gray is not None
    found = rim_glints(prep, frame.gray)
    assert len(found) == 1, found
    (coin,) = found  # a short thick arc fits a little tighter than drawn
    assert abs(coin.x / PPM - 30) < 3 and abs(coin.y / PPM - 30) < 3 and 4 <= coin.radius_mm <= 7
    t = prep.tuning
    corner = [g for g in glints(prep, frame.gray) if abs(g.x / PPM - 20) < 8 and abs(g.y / PPM - 50) < 8]
    assert len(corner) == 1
    (g,) = corner
    assert t.GLINT_RADIUS_MM[0] <= g.radius_mm <= t.GLINT_RADIUS_MM[1] and g.rms_px <= t.GLINT_MAX_RMS_PX
    assert g.arc_deg >= t.GLINT_MIN_DEG and g.bright < t.GLINT_MIN_BRIGHT  # only its brightness tells
    straight = _view([("corner", (45, 30), 12.0, 0.0, 140)])
    assert straight.gray is not None and rim_glints(prep, straight.gray) == []


def test_a_frame_with_a_coins_rim_glint_is_refused_as_a_round_object(prep: Prepared) -> None:
    refused = flat_discs(prep, _view([("arc", (30, 30), 6.0, 80, 140)]))
    assert len(refused) == 1 and "bright curved rim" in (refused[0].note or "")
    assert "a coin, tilted?" in coin_refusal(refused)
    assert flat_discs(prep, _view([("corner", (30, 30), 6.0, 4.5, 60)])) == []


@pytest.fixture(scope="module")
def dev_counter(tray_dev):
    from calibration.tray_dev import calibration_profile
    from vision.counter import TrayCounter

    return TrayCounter(calibration_profile(tray_dev))


def test_a_shared_renders_coin_is_refused_by_its_glint_alone(dev_counter, tray_dev) -> None:
    """``tray_dev`` ``t0059``: a coin the flat-coin test refuses; with every circle test out of
    reach its rim's glint refuses it still (8.2 mm, 76 degrees, 135 levels bright)."""
    # every circle test out of reach: no circle is so perfect, no rim so long
    refused = refused_with(dev_counter, tray_dev / "test" / "t0059.jpg", DISC_PERFECTNESS=0.999,
                           DISC_ANY_FACE_PERFECTNESS=0.999, DISC_OUTLINE_RIM_DEG=999)
    assert refused and all("bright curved rim" in (d.note or "") for d in refused), [d.note for d in refused]


@pytest.mark.parametrize("name", ["t0110", "t0007"])
def test_a_faces_corner_on_a_clean_tuning_pile_is_no_coin(train_counter, tray_train, name) -> None:
    """The clean tuning scenes of ``tray_train`` whose corner glints come nearest a coin's rim
    (4.4 mm over 101 and 77 degrees): counted, not refused; the glint passes every bar but its
    brightness (68 and 50 levels), well under the bar."""
    from vision.imageio import read_image

    prep = train_counter.prepared
    prep.locator.forget()
    reading, frame = train_counter.read(read_image(tray_train / "test" / f"{name}.jpg"))
    assert reading.usable, reading.reason
    assert frame is not None and frame.gray is not None
    t = prep.tuning
    near = [g for g in glints(prep, frame.gray) if t.GLINT_RADIUS_MM[0] <= g.radius_mm <= t.GLINT_RADIUS_MM[1]
            and g.rms_px <= t.GLINT_MAX_RMS_PX and g.arc_deg >= t.GLINT_MIN_DEG]
    assert near, "the scene was chosen for a corner glint that fits a coin's curve"
    assert max(g.bright for g in near) <= 0.75 * t.GLINT_MIN_BRIGHT
    assert rim_glints(prep, frame.gray) == []
