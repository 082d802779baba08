"""Fixtures shared by the whole suite."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The specification and data folder that sits beside the checkout (skips when absent)."""
    if not SHARED.is_dir():
        pytest.skip(f"../shared is not present beside the checkout ({SHARED}); skipping data-driven tests")
    return SHARED


def _data(shared_dir: Path, name: str, what: str) -> Path:
    path = shared_dir / "data" / name
    if not path.is_dir():
        pytest.skip(f"{path} is missing; skipping tests on {what}")
    return path


@pytest.fixture(scope="session")
def tray_dev(shared_dir: Path) -> Path:
    return _data(shared_dir, "tray_dev", "the rendered tray photos")


@pytest.fixture(scope="session")
def tray_train(shared_dir: Path) -> Path:
    return _data(shared_dir, "tray_train", "the training renders")


@pytest.fixture(scope="session")
def train_counter(tray_train: Path):
    """A counter calibrated on the training renders' calibration shots (built once: it is slow)."""
    from calibration.tray_dev import calibration_profile
    from vision.counter import TrayCounter

    return TrayCounter(calibration_profile(tray_train))
