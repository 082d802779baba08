"""The luck report: the exact test holds its level under the true model and finds a wrong one, the
upsets come from the stored odds, and the report reaches the CLI and the web page with its plots."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import numpy as np
import pytest

from controller.cli import main
from controller.table import Table
from controller.web.access import HostAccess
from controller.web.app import create_app
from controller.web.server import BackgroundServer
from towermodel.luck import player_luck, upsets
from towermodel.models import TwoChance, named_model
from towermodel.simulate import simulated_log


def _entries(log: list, colour: str) -> list[dict]:
    entries = [{"battle": "attack", "attacker": colour, "defender": "blue"} for _ in log]
    entries[0] = {"battle": "initial_fill"}
    return entries


def test_the_luck_test_holds_its_level_under_the_true_model() -> None:
    model = named_model("spielbyweb")
    p_values = []
    for seed in range(200):
        log = simulated_log(model, 25, seed)
        p_values.append(player_luck(model, log, _entries(log, "red"), "red", np.random.default_rng(seed)).p_value)
    p = np.array(p_values)
    assert 0.0 <= (p < 0.05).mean() <= 0.09  # about 1 in 20 by chance, as the note says
    assert 0.4 <= (p < 0.5).mean() <= 0.6  # and p-values spread evenly


def test_the_luck_test_finds_a_tower_that_the_model_does_not_describe() -> None:
    log = simulated_log(TwoChance(0.45, 0.2), 80, 1)  # a stingy tower: far fewer cubes come out
    luck = player_luck(named_model("spielbyweb"), log, _entries(log, "red"), "red", np.random.default_rng(0))
    assert luck.p_value is not None and luck.p_value < 0.01


def test_upsets_are_the_least_likely_outcomes_by_the_stored_odds() -> None:
    entries = [
        {"drop_id": 2, "battle": "attack", "outcome": "tie",
         "odds": {"attacker": "red", "defender": "blue", "attacker_wins": 0.5, "tie": 0.1, "defender_wins": 0.4}},
        {"drop_id": 3, "battle": "attack", "outcome": "attacker_wins",
         "odds": {"attacker": "red", "defender": "blue", "attacker_wins": 0.03, "tie": 0.1, "defender_wins": 0.87}},
        {"drop_id": 4, "battle": "attack", "outcome": "attacker_wins", "odds": None},
    ]
    assert [(u["drop_id"], u["chance"]) for u in upsets(entries)] == [(3, 0.03), (2, 0.1)]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("luck") / "data"
    with Table.open(data_dir=data, reader="direct") as table:
        table.new_session(["red", "blue", "yellow"])
        table.release(table.fill()["drop_id"])
        for p in ("red", "blue", "yellow"):
            table.deploy(p, 30)
        for attacker, defender in (("red", "blue"), ("blue", "yellow"), ("yellow", "red"), ("red", "yellow")):
            table.release(table.plan({"battle": "attack", "attacker": attacker, "attacking_armies": 4,
                                      "defender": defender, "defending_armies": 2})["drop_id"])
            table.clean()
    return data


def test_tower_report_prints_json_and_draws_plots(played: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--json", "--data-dir", str(played)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["drops"] == 5 and report["session"] == 1
    sides = {p["player"]: p for p in report["players"]}
    assert set(sides) == {"red", "blue", "yellow", "green"} and sides["red"]["battles"] == 3
    assert "not cheating" in report["not_cheating"]
    assert len(report["upsets"]) == 4 and report["model"]["name"] == "spielbyweb" and report["model_note"]
    for key in ("luck_png", "luck_svg", "retention_png", "retention_svg"):
        assert (played / report["plots"][key]).stat().st_size > 1000
    assert (played / report["plots"]["luck_svg"]).read_text().lstrip().startswith("<?xml")
    # the station's own measures: every drop of the session read and acted on as read (a direct
    # reader is never unsure), the simulated beam's clump rate measured on them beside the configured one
    station = report["station"]
    assert station["reads"]["drops"] == 5 and station["reads"]["by_how"]["as read"] == 5
    beam = station["beam"]
    assert beam["drops"] == 5 and beam["low"] <= beam["rate"] <= beam["high"] and beam["configured"] == 0.03
    assert main(["report", "--data-dir", str(played)]) == 0
    printed = capsys.readouterr().out
    assert "the station's reads of 5 drops:" in printed and "acted on without asking: 5 (100.0 %)" in printed
    assert f"break-beam clump rate: {beam['rate']:.3f}" in printed


def test_the_web_page_serves_the_report_and_its_plots(played: Path) -> None:
    with Table.open(data_dir=played, reader="direct") as table:
        app = create_app(table, table.data_dir, HostAccess("246810"))
        with BackgroundServer(app) as server, httpx.Client(base_url=server.url, timeout=60) as client:
            page = client.get("/report")
            assert page.status_code == 200 and "report.js" in page.text
            assert 'href="/report"' in client.get("/").text
            report = client.get("/api/report").json()
            assert [p["player"] for p in report["players"]] == ["red", "blue", "yellow", "green"]
            plot = client.get(f"/data/{report['plots']['luck_png']}")
            assert plot.status_code == 200 and plot.headers["content-type"] == "image/png"
            missing = client.get("/api/report", params={"session": 9})
            assert missing.status_code == 404 and "no session 9" in missing.json()["error"]


def test_the_report_names_a_tray_the_host_changed_after_the_station_acted(tmp_path: Path) -> None:
    """A tray the station acted on and the host then corrected is the nearest thing to a silent error
    a station can see: the report's own figures name it, in the CLI's sentence."""
    with Table.open(data_dir=tmp_path, reader="direct") as table:
        table.new_session(["red", "blue", "yellow"])
        table.release(table.fill()["drop_id"])
        for p in ("red", "blue", "yellow"):
            table.deploy(p, 20)
        view = table.release(table.plan({"battle": "attack", "attacker": "red", "attacking_armies": 3,
                                         "defender": "blue", "defending_armies": 2})["drop_id"])
        before = {c: n for c, n in view["tray_after"].items() if n}
        after = {**before, "red": before.get("red", 0) + 1}
        table.correct(view["drop_id"], after, who="host")
        reads = table.report()["station"]["reads"]
    assert reads["by_how"]["as read"] == 2 and len(reads["corrected_after"]) == 1
    changed = reads["corrected_after"][0]
    assert changed["drop_id"] == view["drop_id"] and changed["after"]["red"] == after["red"]
    assert changed["text"].startswith(f"drop {view['drop_id']}: ") and " changed to " in changed["text"]
