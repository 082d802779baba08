"""Learning the colour profile from calibration shots, and `tower calibrate colours / check`."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from calibration.colours import shots_in_folder
from calibration.learn import CalibrationError, learn_profile
from vision.geometry import ALL_COLOURS, PLAYER_COLOURS
from vision.imageio import read_image

REPO = Path(__file__).resolve().parent.parent


def test_learning_needs_every_colour_and_markers(tray_dev: Path) -> None:
    cal = tray_dev / "calibration"
    empty = read_image(cal / "empty.jpg")
    with pytest.raises(CalibrationError, match="green"):
        learn_profile(empty, {c: [read_image(cal / f"{c}_1.jpg")] for c in ALL_COLOURS if c != "green"})
    blank = np.full_like(empty, 128)
    samples = {c: [read_image(cal / f"{c}_1.jpg")] for c in ALL_COLOURS}
    samples["red"] = [blank]
    with pytest.raises(CalibrationError, match="cube red shot 1: no plate markers"):
        learn_profile(empty, samples)
    with pytest.raises(CalibrationError, match="player colours"):
        learn_profile(empty, {c: [read_image(cal / f"{c}_1.jpg")] for c in ALL_COLOURS},
                      {"green": [read_image(cal / "green_1.jpg")]})


def test_shared_shots_give_well_separated_colours(tray_dev: Path) -> None:
    cal = tray_dev / "calibration"
    profile, report = learn_profile(
        read_image(cal / "empty.jpg"),
        {c: [read_image(p) for p in sorted(cal.glob(f"{c}_*.jpg"))] for c in ALL_COLOURS},
        {c: [read_image(cal / f"courtier_{c}.jpg")] for c in PLAYER_COLOURS},
    )
    assert not report.warnings
    assert {r.colour for r in report.colours} == set(ALL_COLOURS)
    by = {r.colour: r for r in report.colours}
    assert by["purple"].nearest == "blue" and by["blue"].nearest == "purple"
    assert all(r.separation > 6 for r in report.colours)
    # red sits at positive a (no hue wrap-around needed in Lab), black near the neutral axis
    assert profile.colours["red"].mean[1] > 20
    assert abs(profile.colours["black"].mean[1]) < 3 and abs(profile.colours["black"].mean[2]) < 3


def test_calibrate_cli_colours_then_check(tray_dev: Path, tmp_path: Path) -> None:
    cal = tray_dev / "calibration"
    args = [sys.executable, "-m", "controller", "calibrate", "colours", "--empty", str(cal / "empty.jpg")]
    for c in ALL_COLOURS:
        for p in sorted(cal.glob(f"{c}_*.jpg")):
            args += ["--sample", f"{c}={p}"]
    for c in PLAYER_COLOURS:
        args += ["--courtier", f"{c}={cal / f'courtier_{c}.jpg'}"]
    out = tmp_path / "profile.json"
    proc = subprocess.run([*args, "--out", str(out)], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 0, proc.stderr
    # The folder, read by the shots' names, gives the very profile the shots given one by one do.
    from_folder = tmp_path / "from-folder.json"
    proc = subprocess.run([sys.executable, "-m", "controller", "calibrate", "colours", "--shots", str(cal),
                           "--out", str(from_folder)], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 0 and "not used" not in proc.stdout, proc.stderr
    assert from_folder.read_bytes() == out.read_bytes()
    assert out.stat().st_size < 8_000
    for c in ALL_COLOURS:
        assert any(line.startswith(c) for line in proc.stdout.splitlines()), proc.stdout
    assert "separation" in proc.stdout

    scene = tray_dev / "test" / "t0038.jpg"
    ann = tmp_path / "check.png"
    proc = subprocess.run(
        [sys.executable, "-m", "controller", "calibrate", "check", "--profile", str(out), str(scene), "--out", str(ann)],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert read_image(ann).shape == read_image(scene).shape
    bad = subprocess.run(
        [sys.executable, "-m", "controller", "calibrate", "colours", "--empty", str(cal / "empty.jpg"),
         "--sample", "red", "--out", str(tmp_path / "x.json")],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )
    assert bad.returncode == 2 and "COLOUR=IMAGE" in bad.stderr


def test_a_folder_of_shots_is_sorted_by_the_shots_names(tray_dev: Path, tmp_path: Path) -> None:
    """``--shots DIR`` takes each shot as its name says; a name it does not know (a misspelt colour)
    is said, not silently dropped nor guessed; the empty tray's shot must be there, and only once."""
    folder = tmp_path / "shots"
    shutil.copytree(tray_dev / "calibration", folder)
    shutil.copy(folder / "green_1.jpg", folder / "gren_3.jpg")
    shutil.copy(folder / "red_2.jpg", folder / "red.png")
    shots = shots_in_folder(folder)
    assert Path(shots.empty).name == "empty.jpg"
    assert [Path(p).name for p in shots.samples["red"]] == ["red.png", "red_1.jpg", "red_2.jpg"]
    assert [Path(p).name for p in shots.samples["green"]] == ["green_1.jpg", "green_2.jpg"]
    assert set(shots.courtiers) == set(PLAYER_COLOURS) and "courtier_red.jpg" not in str(shots.samples)
    assert [Path(p).name for p in shots.ignored] == ["gren_3.jpg"]  # the .json files beside the shots are not images
    proc = subprocess.run([sys.executable, "-m", "controller", "calibrate", "colours", "--shots", str(folder),
                           "--out", str(tmp_path / "p.json")], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 0 and "not used: " in proc.stdout and "gren_3.jpg" in proc.stdout, proc.stderr
    shutil.copy(folder / "empty.jpg", folder / "empty.png")
    with pytest.raises(CalibrationError, match="2 shots of the empty tray"):
        shots_in_folder(folder)
    for empty in folder.glob("empty.*"):
        empty.unlink()
    proc = subprocess.run([sys.executable, "-m", "controller", "calibrate", "colours", "--shots", str(folder),
                           "--out", str(tmp_path / "q.json")], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 2 and "no shot of the empty tray" in proc.stderr and not (tmp_path / "q.json").exists()
    proc = subprocess.run([sys.executable, "-m", "controller", "calibrate", "colours", "--out", str(tmp_path / "q.json")],
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 2 and "--shots DIR" in proc.stderr
