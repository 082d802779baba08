"""Issue 12 for the page and the CLI/web layers: the page is ES modules of one job each (no build step),
one DOM helper for both pages, the game's word lists served from the engine's own constants, modules
under about 400 lines, and imports at the top except the heavy ones a command loads when it runs."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

from fastapi.testclient import TestClient

from controller.table import Table
from controller.web.access import HostAccess
from controller.web.app import create_app
from engine.bonus import BonusTiles
from engine.colours import PALETTE, PLAYER_COLOURS
from engine.events import Event
from engine.model import Building, Immunity
from engine.schema import BATTLE_KINDS

REPO = Path(__file__).resolve().parent.parent
STATIC = REPO / "controller" / "web" / "static"
HEAVY = ("vision", "calibration", "towermodel", "controller.odds", "controller.report", "controller.web",
         "controller.beam_rate", "station.check", "station.shot")
"""What a CLI handler may import when it runs: OpenCV (vision, calibration), SciPy (towermodel's fit, the
odds, the break-beam's fit), matplotlib (the report), the web server, the hardware check's and the
calibration shot's backends."""


def test_the_page_reads_the_games_words_from_the_engine(tmp_path: Path) -> None:
    with Table.open(data_dir=tmp_path, reader="direct") as table:
        app = create_app(table, table.data_dir, HostAccess("735102"))
        with TestClient(app, base_url="http://127.0.0.1:8000") as client:
            words = client.get("/api/words").json()
    assert words["colours"] == list(PALETTE) and words["players"] == list(PLAYER_COLOURS)
    assert words["events"] == [e.value for e in Event] and words["battle_kinds"] == list(BATTLE_KINDS)
    assert words["buildings"] == [b.value for b in Building] and words["immunities"] == [i.value for i in Immunity]
    assert words["bonus_tiles"] == [f.name for f in dataclasses.fields(BonusTiles)]
    script = "\n".join(f.read_text() for f in STATIC.rglob("*.js"))
    for restated in ("churches_safe", "trading_post", '"purple"', "winter_revolt\", \"initial_fill"):
        assert restated not in script, f"the page restates the engine's {restated}"


def test_the_page_is_es_modules_with_one_dom_helper() -> None:
    modules = sorted(STATIC.rglob("*.js"))
    assert len(modules) >= 10
    for module in modules:
        text = module.read_text()
        assert len(text.splitlines()) <= 400, f"{module.name} has {len(text.splitlines())} lines"
        assert '"use strict"' not in text  # modules are strict already
        for target in re.findall(r'^import .* from "([^"]+)";$', text, re.M):
            assert (module.parent / target).resolve().exists(), f"{module.name} imports a missing {target}"
    assert sum(len(re.findall(r"^export function h\(|^function h\(", m.read_text(), re.M)) for m in modules) == 1
    for page in ("index.html", "report.html"):
        assert '<script type="module"' in (STATIC / page).read_text()


def test_cli_and_web_modules_are_small_with_their_imports_at_the_top() -> None:
    for package in ("cli", "web"):
        for path in sorted((REPO / "controller" / package).glob("*.py")):
            tree = ast.parse(path.read_text())
            assert len(path.read_text().splitlines()) <= 400, f"{path.name} is over 400 lines"
            for node in ast.walk(tree):
                if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                for inner in ast.walk(node):
                    names = [inner.module or ""] if isinstance(inner, ast.ImportFrom) else \
                        [a.name for a in inner.names] if isinstance(inner, ast.Import) else []
                    for name in names:
                        assert package == "cli" and name.startswith(HEAVY), \
                            f"controller/{package}/{path.name} imports {name} inside {node.name}"


def _page_imports() -> dict[str, list[str]]:
    """Each page module (path under static/) -> the modules it imports, read from its import lines."""
    graph: dict[str, list[str]] = {}
    for module in sorted(STATIC.rglob("*.js")):
        targets = re.findall(r"""^import\s[^;]*?\sfrom\s+["']([^"']+)["'];?\s*$""", module.read_text(), re.M)
        graph[module.relative_to(STATIC).as_posix()] = [
            (module.parent / t).resolve().relative_to(STATIC.resolve()).as_posix() for t in targets]
    return graph


def _cycle(graph: dict[str, list[str]]) -> list[str] | None:
    """One import cycle as [a, b, ..., a], or None: a depth-first walk that meets a module still open."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        path.append(node)
        for target in graph.get(node, []):
            if state.get(target) == "open":
                return path[path.index(target):] + [target]
            if target not in state and (found := visit(target)):
                return found
        path.pop()
        state[node] = "done"
        return None

    for node in graph:
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_cycle_finder_names_a_cycle() -> None:
    assert _cycle({"a.js": ["b.js"], "b.js": ["c.js"], "c.js": ["a.js"]}) == ["a.js", "b.js", "c.js", "a.js"]
    assert _cycle({"a.js": ["b.js", "c.js"], "b.js": ["c.js"], "c.js": []}) is None


def test_the_page_modules_import_one_way() -> None:
    """No circle of imports: a module in a circle can run before the names it imports are bound, and
    a circle ties every module in it to all the others. Lower modules announce changes through
    state.js's onChange/changed; app.js, the top, is imported by nobody."""
    graph = _page_imports()
    assert graph["app.js"] and graph["api.js"], "the import lines were not read"
    cycle = _cycle(graph)
    assert cycle is None, "the page's modules import in a circle: " + " -> ".join(cycle or [])
    importers_of_app = [m for m, targets in graph.items() if "app.js" in targets]
    assert importers_of_app == [], f"{importers_of_app} import app.js, the page's top"
    assert not [t for t in graph["api.js"] if t.startswith("views/") or t in ("live.js", "device.js")]
