"""The counter on the shared rendered scenes (../shared/data/tray_dev), calibrated on their shots.

Every usable scene must read each colour between its ``visible_cubes`` (what a camera must see: a
quarter of a cube or more) and its ``cubes`` (all in the tray: a cube showing less may be counted),
the issue 9 measure, and exactly its ``visible_courtiers``; every scene with a foreign object must
be unusable or count it as nothing. Scenes the counter does not yet read
exactly are listed in KNOWN_WRONG and marked xfail (not strict: fixing one shows as XPASS), so the
gap stays visible in every test run rather than hidden.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from calibration.tray_dev import SceneResult, evaluate_tray_dev

# Scenes the counter is off by one cube (or one pawn) on, as of this commit; see the report.
KNOWN_WRONG: set[str] = set()


@pytest.fixture(scope="module")
def results(tray_dev: Path) -> dict[str, SceneResult]:
    return {r.name: r for r in evaluate_tray_dev(tray_dev)}


def test_foreign_objects_are_never_counted_as_cubes(results: dict[str, SceneResult]) -> None:
    for r in results.values():
        if r.foreign and r.usable:
            # usable is allowed only if the object is counted as nothing: no more cubes than in the tray
            assert all(r.cubes[c] <= (r.in_tray or {}).get(c, 0) for c in r.cubes), r.name
        if r.foreign == "finger":
            assert not r.usable, f"{r.name}: a finger in the tray must make the frame unusable"


def test_scenes_without_foreign_objects_are_usable(results: dict[str, SceneResult]) -> None:
    assert all(r.usable for r in results.values() if not r.foreign), [
        (r.name, r.reason) for r in results.values() if not r.foreign and not r.usable
    ]


def test_counts_are_never_far_off(results: dict[str, SceneResult]) -> None:
    """A floor under the test below: no usable scene is off its visible cubes by more than two in all."""
    for r in results.values():
        if r.usable:
            off = sum(abs(r.cubes[c] - r.visible_cubes[c]) for c in r.cubes)
            assert off <= 2, (r.name, r.cubes, r.visible_cubes)


def _scene_params(tray_dev_dir: Path) -> list:
    names = sorted(p.stem for p in (tray_dev_dir / "test").glob("*.json")) if tray_dev_dir.is_dir() else []
    return [
        pytest.param(n, marks=pytest.mark.xfail(reason="counter not yet exact on this scene", strict=False))
        if n in KNOWN_WRONG else n
        for n in names
    ]


_TRAY_DEV = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "tray_dev"


@pytest.mark.parametrize("scene", _scene_params(_TRAY_DEV))
def test_scene_is_read_right(results: dict[str, SceneResult], scene: str) -> None:
    r = results[scene]
    if r.usable:
        assert r.right, (r.cubes, r.visible_cubes, r.in_tray)
        assert r.courtiers == r.visible_courtiers
    else:
        assert r.foreign, f"{scene} has nothing foreign but was called unusable: {r.reason}"
