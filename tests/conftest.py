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


@pytest.fixture(scope="session")
def tray_dev(shared_dir: Path) -> Path:
    path = shared_dir / "data" / "tray_dev"
    if not path.is_dir():
        pytest.skip(f"{path} is missing; skipping tests on the rendered tray photos")
    return path
