"""`tower odds`, `tower model fit` and `tower export` on the command line (spec/tower-model.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.cli import main
from controller.table import Table
from towermodel.droplog import parse_drop_log
from towermodel.models import named_model
from towermodel.shelves_estimate import MIN_SAMPLES, SAMPLES
from towermodel.simulate import simulated_log

BATTLE = {"battle": "attack", "attacker": "blue", "attacking_armies": 4, "defender": "yellow",
          "defending_armies": 3, "revolt_markers": 0, "buildings": [], "tray_before": {},
          "tower_before": {"blue": 2, "green": 3}}


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, object]:
    code = main(list(argv))
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip().startswith(("{", "[")) else out


def test_odds_prints_the_contract_object(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "battle.json"
    path.write_text(json.dumps(BATTLE))
    code, odds = _run(capsys, "odds", str(path), "--model", "wallenstein-online")
    assert code == 0 and isinstance(odds, dict)
    assert odds["model"] == "wallenstein-online" and odds["method"] == "exact"
    assert odds["attacker_wins"] + odds["tie"] + odds["defender_wins"] == pytest.approx(1, abs=1e-3)
    code, odds = _run(capsys, "odds", str(path), "--model", "shelves")
    assert code == 0 and odds["method"] == "simulated" and MIN_SAMPLES <= odds["samples"] <= SAMPLES  # type: ignore[index]


def test_odds_errors_name_the_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "battle.json"
    path.write_text(json.dumps(BATTLE))
    assert _run(capsys, "odds", str(path), "--model", "stairs") == (
        2, {"error": "unknown tower model 'stairs' (known: spielbyweb, wallenstein-online, shelves, fitted)",
            "field": "--model"})
    path.write_text(json.dumps({k: v for k, v in BATTLE.items() if k != "tower_before"}))
    code, err = _run(capsys, "odds", str(path))
    assert code == 2 and err["field"] == "$.tower_before"  # type: ignore[index]
    path.write_text("{not json")
    code, err = _run(capsys, "odds", str(path))
    assert code == 2 and "not valid JSON" in err["error"]  # type: ignore[index]


def test_odds_on_hostile_json_is_an_error_not_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same limits as `tower resolve -` (issue 14): deep nesting and a 5,000-digit number."""
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 1000 + "]" * 1000)
    huge = tmp_path / "huge.json"
    huge.write_text('{"battle": "attack", "attacking_armies": ' + "9" * 5000 + "}")
    assert _run(capsys, "odds", str(deep)) == (
        2, {"error": "the battle is not valid JSON: it is nested too deeply", "field": None})
    assert _run(capsys, "odds", str(huge)) == (
        2, {"error": "the battle is not valid JSON: a number in it has too many digits", "field": None})


def test_model_fit_on_a_drop_log_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    drops = simulated_log(named_model("spielbyweb"), 120, 3)
    path = tmp_path / "drops.jsonl"
    path.write_text("".join(json.dumps({"dropped": d.dropped, "came_out": d.came_out}) + "\n" for d in drops))
    code, fits = _run(capsys, "model", "fit", str(path), "--family", "two-chance")
    assert code == 0 and isinstance(fits, list) and len(fits) == 1
    fit = fits[0]
    assert set(fit) >= {"family", "params", "ci95", "log_likelihood", "aic", "drops"}
    assert fit["drops"] == 120 and abs(fit["params"]["p_new"] - 2 / 3) < 0.08
    path.write_text('{"dropped": {"red": 1}, "came_out": {"red": 2}}\n')
    code, err = _run(capsys, "model", "fit", str(path))
    assert code == 2 and "line 1" in err["error"]  # type: ignore[index]


def test_export_writes_the_session_as_a_drop_log_and_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    with Table.open(data_dir=data, reader="direct") as table:
        table.new_session(["red", "blue", "yellow"])
        table.release(table.fill()["drop_id"])
        table.deploy("blue", 10)
        table.deploy("yellow", 10)
        table.release(table.plan({"battle": "attack", "attacker": "blue", "attacking_armies": 4,
                                  "defender": "yellow", "defending_armies": 3})["drop_id"])
    out = tmp_path / "drops.jsonl"
    assert main(["export", "--drops", str(out), "--data-dir", str(data)]) == 0
    drops = parse_drop_log(out.read_text())
    assert len(drops) == 2 and drops[0].total_dropped == 31 and drops[1].total_dropped >= 7
    assert main(["export", "--drops", str(tmp_path / "drops.csv"), "--data-dir", str(data)]) == 0
    rows = (tmp_path / "drops.csv").read_text().splitlines()
    assert rows[0].startswith("session,drop_id,ts,battle,outcome,dropped_red") and len(rows) == 3
    capsys.readouterr()
    code, fits = _run(capsys, "model", "fit", "--data-dir", str(data))
    assert code == 0 and fits[0]["drops"] == 2 and fits[0]["trusted"] is False  # type: ignore[index]
    code, err = _run(capsys, "export", "--drops", "-", "--session", "7", "--data-dir", str(data))
    assert code == 2 and "no session 7" in err["error"]  # type: ignore[index]
