"""The package layout and the one-way dependency rule: controller -> (engine, vision, hardware,
calibration, towermodel); towermodel -> engine; the engine imports nothing of ours; nothing imports
the controller."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
OURS = {"controller", "engine", "vision", "hardware", "calibration", "firmware", "towermodel"}
ALLOWED = {
    "engine": set(),
    "vision": set(),
    "calibration": {"vision"},
    "hardware": {"vision", "firmware", "towermodel"},
    "firmware": set(),
    "towermodel": {"engine"},
    "controller": {"engine", "vision", "hardware", "calibration", "firmware", "towermodel"},
}


def _imported_packages(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found & OURS


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_exists(package: str) -> None:
    assert (REPO / package).is_dir(), f"{package}/ is part of the layout"


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_dependencies_flow_one_way(package: str) -> None:
    offenders = []
    for path in sorted((REPO / package).rglob("*.py")):
        bad = _imported_packages(path) - ALLOWED[package] - {package}
        if bad:
            offenders.append(f"{path.relative_to(REPO)} imports {sorted(bad)}")
    assert not offenders, "\n".join(offenders)
