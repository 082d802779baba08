"""Settle detection on rendered frame streams: still frames with camera noise settle, a drop in
progress does not, a tray that never stops times out with the flag set."""

from __future__ import annotations

import numpy as np
import pytest

from simulation.synth import CameraPose, Lighting, PostFX, Scene, render, render_motion, scatter_cubes
from vision.settle import SettleDetector, settle_camera, wait_until_settled

CAM = CameraPose(tilt_deg=4, tilt_dir_deg=60, roll_deg=2)
FX = PostFX(noise_sigma=3.0, jpeg_quality=85)


def _scenes(seed: int) -> tuple[Scene, Scene]:
    rng = np.random.default_rng(seed)
    before = Scene(tuple(scatter_cubes({"red": 4, "blue": 3}, rng)), CAM, Lighting(kelvin=3200), FX)
    new = scatter_cubes({"black": 4, "green": 3, "purple": 2}, rng, existing=before.pieces)
    return before, Scene(before.pieces + tuple(new), CAM, Lighting(kelvin=3200), FX)


def test_still_noisy_jpeg_frames_settle_after_n_frames() -> None:
    _, scene = _scenes(1)
    rng = np.random.default_rng(0)
    det = SettleDetector(still_frames=3, timeout_s=5)
    states = [det.update(render(scene, rng), t * 0.1) for t in range(4)]
    assert [s.still_count for s in states] == [0, 1, 2, 3]
    assert [s.settled for s in states] == [False, False, False, True]
    assert not states[-1].timed_out and states[-1].done
    assert max(s.motion for s in states) <= det.motion_fraction


def test_a_drop_in_progress_is_not_settled_and_then_settles() -> None:
    before, after = _scenes(2)
    rng = np.random.default_rng(3)
    moving = 6
    frames = render_motion(before, after, moving, rng, still_frames=4)
    det = SettleDetector(still_frames=3, timeout_s=10)
    states = [det.update(f, i / 10) for i, f in enumerate(frames)]
    # frames 1..moving-1 differ from their predecessor: cubes falling and rolling
    assert all(s.motion > det.motion_fraction for s in states[1:moving]), [round(s.motion, 4) for s in states]
    assert not any(s.settled for s in states[:moving + 2])
    assert states[-1].settled and not states[-1].timed_out


def test_a_tray_that_keeps_moving_times_out_flagged() -> None:
    before, after = _scenes(4)
    rng = np.random.default_rng(5)
    det = SettleDetector(still_frames=3, timeout_s=0.5)
    frames = render_motion(before, after, 8, rng)
    last, state = wait_until_settled(((f, i * 0.1) for i, f in enumerate(frames[:-1])), det)
    assert state.timed_out and not state.settled and state.done
    assert state.elapsed_s >= 0.5 and state.frames == 6
    assert last is frames[5]
    # the state is final until reset
    assert det.update(frames[-1], 1.0) == state
    det.reset()
    assert det.state.frames == 0 and not det.state.done


def test_a_brightness_step_is_not_motion() -> None:
    _, scene = _scenes(6)
    frame = render(scene, np.random.default_rng(0))
    det = SettleDetector(still_frames=2)
    det.update(frame, 0.0)
    brighter = np.clip(frame.astype(np.float32) * 1.06, 0, 255).astype(np.uint8)
    assert det.update(brighter, 0.1).still_count == 1


def test_the_timeout_counts_from_the_release_when_given() -> None:
    _, scene = _scenes(7)
    frame = render(scene, np.random.default_rng(0))
    det = SettleDetector(still_frames=5, timeout_s=2.0)
    det.reset(start_time=10.0)
    assert det.update(frame, 11.0).elapsed_s == pytest.approx(1.0)
    assert det.update(frame, 12.5).timed_out


def test_bad_input_is_named() -> None:
    with pytest.raises(ValueError, match="still_frames"):
        SettleDetector(still_frames=0)
    with pytest.raises(ValueError, match="timeout_s"):
        SettleDetector(timeout_s=0)
    det = SettleDetector()
    det.update(np.zeros((120, 160, 3), np.uint8), 0.0)
    with pytest.raises(ValueError, match="frame size changed"):
        det.update(np.zeros((240, 320, 3), np.uint8), 0.1)
    with pytest.raises(ValueError, match="backwards"):
        det.update(np.zeros((120, 160, 3), np.uint8), -1.0)
    with pytest.raises(ValueError, match="3 channels"):
        SettleDetector().update(np.zeros((10, 10, 4), np.uint8), 0.0)
    with pytest.raises(ValueError, match="no frames"):
        wait_until_settled([])


@pytest.mark.parametrize("size", [(1280, 960), (1920, 1080)])
def test_one_cube_sliding_or_falling_in_is_motion(size: tuple[int, int]) -> None:
    import dataclasses

    from simulation.synth import Piece, random_camera

    rng = np.random.default_rng(0)
    base = Scene(tuple(scatter_cubes({"red": 5}, rng)), random_camera(rng, size), Lighting(), PostFX(noise_sigma=3))
    det = SettleDetector()
    first = det.downscale(render(base, rng))
    assert det.motion(first, det.downscale(render(base, rng))) <= det.motion_fraction  # noise alone
    cube = base.pieces[0]
    slid = dataclasses.replace(base, pieces=(dataclasses.replace(cube, x_mm=cube.x_mm + 2),) + base.pieces[1:])
    assert det.motion(first, det.downscale(render(slid, rng))) > det.motion_fraction
    fell = dataclasses.replace(base, pieces=(*base.pieces, Piece("cube", "yellow", 100, 80)))
    assert det.motion(first, det.downscale(render(fell, rng))) > det.motion_fraction


def test_a_camera_is_read_until_its_frames_keep_still_or_the_timeout() -> None:
    """settle_camera: the stream a station reads the tray from (CameraReader, a calibration shot)."""
    still = np.full((120, 160, 3), 128, np.uint8)
    taken: list[int] = []

    def steady() -> np.ndarray:
        taken.append(1)
        return still

    frame, state = settle_camera(steady, SettleDetector(still_frames=3, timeout_s=30.0))
    assert state.settled and not state.timed_out and len(taken) == 4 and frame is still
    rng = np.random.default_rng(1)
    frame, state = settle_camera(lambda: rng.integers(0, 255, (120, 160, 3), np.uint8),
                                 SettleDetector(still_frames=3, timeout_s=0.05), interval_s=0.01)
    assert state.timed_out and not state.settled and frame.shape == (120, 160, 3)
