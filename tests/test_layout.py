"""The package layout and the one-way dependency rule (docs/architecture.md):

    controller -> (station, engine, vision, hardware, calibration, towermodel)
    station    -> (hardware, calibration, vision, simulation: the factory alone)
    simulation -> (hardware, vision, calibration, firmware, towermodel)
    hardware   -> (firmware, towermodel)          never vision: the simulated camera is simulation's
    calibration -> vision;  towermodel -> engine;  engine, vision, firmware -> nothing of ours

Nothing imports the controller; nothing outside ``simulation/`` imports the simulation except the
station factory (tests and benches may), so nothing above the factory can tell a simulated
station from a real one."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
OURS = {"controller", "engine", "vision", "hardware", "calibration", "firmware", "towermodel", "simulation", "station"}
ALLOWED = {
    "engine": set(),
    "vision": set(),
    "calibration": {"vision"},
    "hardware": {"firmware", "towermodel"},
    "firmware": set(),
    "towermodel": {"engine"},
    "simulation": {"hardware", "vision", "calibration", "firmware", "towermodel"},
    "station": {"hardware", "calibration", "vision", "simulation"},
    "controller": {"station", "engine", "vision", "hardware", "calibration", "towermodel"},
}
SIMULATION_DOOR = {"station/factory.py"}  # the one module outside simulation/ that may import it


def _imported_packages(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found & OURS


def _sources(package: str) -> list[Path]:
    return sorted((REPO / package).rglob("*.py"))


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_exists(package: str) -> None:
    assert (REPO / package).is_dir(), f"{package}/ is part of the layout"


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_dependencies_flow_one_way(package: str) -> None:
    offenders = []
    for path in _sources(package):
        bad = _imported_packages(path) - ALLOWED[package] - {package}
        if bad:
            offenders.append(f"{path.relative_to(REPO)} imports {sorted(bad)}")
    assert not offenders, "\n".join(offenders)


def test_only_the_station_factory_imports_the_simulation() -> None:
    """Every package of ours but ``simulation/`` itself; tests and benches may plug it in directly."""
    offenders = [str(path.relative_to(REPO)) for package in sorted(OURS - {"simulation"})
                 for path in _sources(package)
                 if "simulation" in _imported_packages(path)
                 and path.relative_to(REPO).as_posix() not in SIMULATION_DOOR]
    assert not offenders, f"only {sorted(SIMULATION_DOOR)} may import the simulation, not: {offenders}"


def test_hardware_knows_nothing_of_vision() -> None:
    offenders = [str(p.relative_to(REPO)) for p in _sources("hardware") if "vision" in _imported_packages(p)]
    assert not offenders, offenders


def test_the_layout_rule_holds_on_a_breaking_import(tmp_path: Path) -> None:
    """The scanner sees an import made inside a function too (the rule is not only about module tops)."""
    bad = tmp_path / "x.py"
    bad.write_text("def f():\n    from simulation.world import SimWorld\n    import vision.geometry\n", encoding="utf-8")
    assert _imported_packages(bad) == {"simulation", "vision"}


COUNTER_MODULE_MAX_LINES = 320  # issue 9: "no file over about 300 lines"


def test_the_counters_modules_are_small() -> None:
    """One stage per module (vision/counter/), its tuning one object written in parts: none grows
    past about 300 lines unnoticed."""
    sizes = {str(p.relative_to(REPO)): len(p.read_text(encoding="utf-8").splitlines())
             for p in (REPO / "vision" / "counter").rglob("*.py")}
    assert "vision/counter/tuning/__init__.py" in sizes, "the scan did not reach the tuning package"
    over = {name: n for name, n in sizes.items() if n > COUNTER_MODULE_MAX_LINES}
    assert not over, f"over {COUNTER_MODULE_MAX_LINES} lines: {over}"
