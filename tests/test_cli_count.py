"""`tower count`: the fixed command-line contract used to judge the counter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from calibration.tray_dev import calibration_profile
from vision.geometry import ALL_COLOURS, PLAYER_COLOURS
from vision.profile import save_profile

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def profile_path(tray_dev: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("profile") / "profile.json"
    save_profile(calibration_profile(tray_dev), path)
    return path


def _count(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", "count", *args],
                          capture_output=True, text=True, cwd=REPO, timeout=300,
                          env={**os.environ, "COLUMNS": "200"})  # the table's width, as a wide terminal


def test_one_line_per_image_in_order_and_unreadable_ones_reported(
    tray_dev: Path, profile_path: Path, tmp_path: Path
) -> None:
    good = [tray_dev / "test" / "t0038.jpg", tray_dev / "test" / "t0088.jpg"]
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(good[0].read_bytes()[:40_000])
    proc = _count(str(good[0]), str(cut), "/nonexistent.jpg", str(good[1]),
                  "--profile", str(profile_path), "--json", "--annotate", str(tmp_path / "ann"))
    assert proc.returncode == 1, proc.stderr
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    assert [x["image"] for x in lines] == [str(good[0]), str(cut), "/nonexistent.jpg", str(good[1])]
    for x in lines:
        assert set(x) == {"image", "usable", "reason", "cubes", "courtiers", "confidence", "trusted", "alternatives",
                          "alternatives_cover"}
        assert 0.0 <= x["alternatives_cover"] <= 1.0 and (x["usable"] or x["alternatives_cover"] == 0.0)
        assert list(x["cubes"]) == list(ALL_COLOURS)
        assert set(x["courtiers"]) == set(PLAYER_COLOURS)
        assert 0.0 <= x["confidence"] <= 1.0
    assert lines[1]["usable"] is False and "truncated" in lines[1]["reason"]
    assert lines[2]["usable"] is False and "cannot read" in lines[2]["reason"]
    truth = json.loads((tray_dev / "test" / "t0038.json").read_text())
    assert lines[0]["usable"] and lines[0]["cubes"] == truth["visible_cubes"] and lines[0]["reason"] is None
    assert lines[3]["courtiers"]["purple"] == 1
    assert len(list((tmp_path / "ann").glob("*.png"))) == 2


def test_all_readable_exits_zero(tray_dev: Path, profile_path: Path) -> None:
    proc = _count(str(tray_dev / "test" / "t0038.jpg"), "--profile", str(profile_path), "--json")
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.splitlines()) == 1


def test_a_bad_profile_is_exit_two_with_the_reason(tray_dev: Path, tmp_path: Path) -> None:
    bad = tmp_path / "p.json"
    bad.write_text('{"format": "something else"}')
    proc = _count(str(tray_dev / "test" / "t0038.jpg"), "--profile", str(bad), "--json")
    assert proc.returncode == 2
    assert "not a colour profile" in proc.stderr and proc.stdout == ""


def test_the_default_is_a_table_for_people(tray_dev: Path, profile_path: Path) -> None:
    proc = _count(str(tray_dev / "test" / "t0038.jpg"), "--profile", str(profile_path))
    assert proc.returncode == 0, proc.stderr
    assert "confidence" in proc.stdout and "t0038.jpg" in proc.stdout
    assert not proc.stdout.lstrip().startswith("{")  # not the JSON lines
    truth = json.loads((tray_dev / "test" / "t0038.json").read_text())
    colour, n = next((c, n) for c, n in truth["visible_cubes"].items() if n)
    assert f"{n} {colour}" in proc.stdout


def test_the_table_asks_about_a_reading_the_counter_is_not_sure_of(tray_dev: Path, profile_path: Path) -> None:
    from controller.verify import question_text

    photos = [str(tray_dev / "test" / f"{name}.jpg") for name in ("t0004", "t0038")]
    lines = [json.loads(x) for x in _count(*photos, "--profile", str(profile_path), "--json").stdout.splitlines()]
    unsure, sure = lines
    assert not unsure["trusted"] and unsure["alternatives"], "t0004 was chosen for a reading in doubt"
    assert sure["trusted"], "t0038 was chosen for a trusted reading"
    table = subprocess.run([sys.executable, "-m", "controller", "count", *photos, "--profile", str(profile_path)],
                           capture_output=True, text=True, cwd=REPO, timeout=300,
                           env={**os.environ, "COLUMNS": "400"}).stdout  # wide enough that no cell wraps
    asked = question_text({c: [o["count"] for o in opts] for c, opts in unsure["alternatives"].items()})
    assert asked.startswith("Is it ") and asked in table  # the count read first, then its rivals
    assert table.count("Is it ") == 1  # nothing asked about the trusted reading


def test_annotate_onto_an_existing_file_is_refused_in_words(tray_dev: Path, profile_path: Path,
                                                           tmp_path: Path) -> None:
    existing = tmp_path / "out.png"
    existing.write_bytes(b"keep me")
    proc = _count(str(tray_dev / "test" / "t0038.jpg"), "--profile", str(profile_path), "--annotate", str(existing))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "a file is in the way" in proc.stderr
    assert existing.read_bytes() == b"keep me"
