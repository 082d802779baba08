"""`tower plan` and `tower resolve` keep the battle JSON contract (spec/battle-json.md)."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main

SPEC_INPUT: dict[str, Any] = {
    "battle": "attack",
    "attacker": "blue",
    "attacking_armies": 4,
    "defender": "yellow",
    "defending_armies": 3,
    "revolt_markers": 0,
    "buildings": [],
    "event": None,
    "bonus_tiles": {"attack_plus_one": None, "defence_plus_one": None},
    "immune": [],
    "tray_before": {},
    "tray_after": {"blue": 3, "yellow": 1, "green": 1},
}
SPEC_OUTPUT: dict[str, Any] = {
    "dropped": {"blue": 4, "yellow": 3},
    "outcome": "attacker_wins",
    "attacker_in_tray": 3,
    "defender_in_tray": 2,
    "to_supply": {"blue": 2, "yellow": 1, "green": 1},
    "to_county": {"blue": 1},
    "tray_remaining": {},
    "tower_delta": {"blue": 1, "yellow": 2, "green": -1},
    "county": {"owner": "blue", "armies": 1, "revolt_markers": 0, "buildings_removed": False, "card": "transferred"},
}


def run_cli(args: list[str], stdin: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, Any]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(args)
    out = capsys.readouterr().out
    lines = out.strip().splitlines()
    assert len(lines) == 1, f"exactly one JSON object on stdout, got {out!r}"
    return code, json.loads(lines[0])


def test_spec_worked_example_piped_to_resolve() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "controller", "resolve", "-"],
        input=json.dumps(SPEC_INPUT),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == SPEC_OUTPUT


def test_the_spec_file_example_matches(shared_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The worked example as written in ../shared/spec/battle-json.md, not our copy of it."""
    text = (shared_dir / "spec" / "battle-json.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```json\n(.*?)```", text, flags=re.S)
    assert len(blocks) == 2
    code, out = run_cli(["resolve", "-"], blocks[0], capsys, monkeypatch)
    assert code == 0
    assert out == json.loads(blocks[1])


def test_plan_reads_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "battle.json"
    path.write_text(json.dumps(SPEC_INPUT), encoding="utf-8")
    code, out = run_cli(["plan", str(path)], "", capsys, monkeypatch)
    assert code == 0
    assert out == {"drop": {"blue": 4, "yellow": 3}, "from_supply": {}, "from_county": {"blue": 4, "yellow": 3}, "from_tray": {}}


def test_schema_flag_prints_the_schema(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = run_cli(["plan", "--schema"], "", capsys, monkeypatch)
    assert code == 0
    assert out["$schema"].startswith("https://json-schema.org/")
    assert out["additionalProperties"] is False


def _with(**changes: Any) -> str:
    data = {**SPEC_INPUT, **changes}
    return json.dumps({k: v for k, v in data.items() if v is not _DROP})


_DROP = object()
REVOLT = {"battle": "revolt", "defender": "red", "defending_armies": 2, "revolt_markers": 1, "tray_before": {}, "tray_after": {}}

INVALID: list[tuple[str, str, str, str | None, str]] = [
    # (name, command, stdin, field, words in the message)
    ("malformed JSON", "resolve", '{"battle": "attack",', None, "not valid JSON"),
    ("not an object", "plan", "[1, 2]", "$", "JSON object"),
    ("unknown key", "resolve", _with(attackers="blue"), "$.attackers", "unknown key"),
    ("unknown colour", "resolve", _with(tray_after={"bleu": 3}), "$.tray_after.bleu", "unknown colour"),
    ("wrong type", "resolve", _with(attacking_armies="4"), "$.attacking_armies", "whole number"),
    ("fraction", "plan", _with(defending_armies=2.5), "$.defending_armies", "whole number"),
    ("negative count", "resolve", _with(tray_after={"blue": -1}), "$.tray_after.blue", "at least 0"),
    ("unknown battle", "plan", _with(battle="duel"), "$.battle", "must be one of"),
    ("unknown event", "plan", _with(event="plague"), "$.event", "must be one of"),
    ("missing attacker", "plan", _with(attacker=_DROP), "$.attacker", "required"),
    ("missing tray_after", "resolve", _with(tray_after=_DROP), "$.tray_after", "required"),
    ("key of another battle", "plan", _with(unsupplied_counties=2), "$.unsupplied_counties", "does not belong"),
    ("immune defender", "plan", _with(immune=["yellow"]), "$.defender", "cannot be attacked"),
    ("church county safe", "plan", _with(buildings=["church"], event="churches_safe"), "$.event", "safe from attacks"),
    ("origin too small", "plan", _with(origin_armies=4), "$.origin_armies", "at least 5 armies"),
    ("attack own county", "plan", _with(defender="blue"), "$.defender", "already controls"),
    ("neutral county with armies", "plan", _with(defender=None), "$.defending_armies", "neutral county"),
    ("player county without armies", "plan", _with(defending_armies=0), "$.defending_armies", "neutral"),
    ("more cubes than exist", "resolve", _with(tray_after={"blue": 63}), "$.tray_after.blue", "only 62 exist"),
    ("more than dropped plus tower", "resolve", _with(tower_before={"blue": 1}, tray_after={"blue": 6}), "$.tray_after.blue", "4 were dropped and 1 was inside"),
    ("supply beyond the box", "plan", _with(supply={"red": 70}), "$.supply.red", "only 62 exist"),
    ("both bonus tiles", "plan", _with(bonus_tiles={"attack_plus_one": "red", "defence_plus_one": "red"}), "$.bonus_tiles.defence_plus_one", "one tile"),
    ("supply overfull", "plan", _with(supply={"yellow": 61}), "$.supply.yellow", "62 that exist"),
    ("revolt without markers", "plan", json.dumps({**REVOLT, "revolt_markers": 0}), "$.revolt_markers", "revolt marker"),
    ("revolt against nobody", "plan", json.dumps({**REVOLT, "defender": None}), "$.defender", "must be one of"),
    ("two players", "plan", json.dumps({"battle": "initial_fill", "players": ["red", "blue"], "tray_before": {}}), "$.players", "3 to 5 players"),
    ("initial fill into a full tray", "plan", json.dumps({"battle": "initial_fill", "players": ["red", "blue", "black"], "tray_before": {"red": 1}}), "$.tray_before", "empty"),
]


@pytest.mark.parametrize(("name", "command", "stdin", "field", "words"), INVALID, ids=[c[0] for c in INVALID])
def test_invalid_input_exits_2_with_the_error_object(
    name: str, command: str, stdin: str, field: str | None, words: str,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out = run_cli([command, "-"], stdin, capsys, monkeypatch)
    assert code == 2
    assert set(out) == {"error", "field"}
    assert out["field"] == field
    assert words in out["error"]
    assert out["error"].count(". ") == 0, "one sentence"


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = run_cli(["resolve", str(tmp_path / "nope.json")], "", capsys, monkeypatch)
    assert code == 2
    assert "cannot read the battle file" in out["error"] and out["field"] is None


def test_invalid_input_through_a_real_pipe_prints_only_the_error_object() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "controller", "plan", "-"],
        input=_with(immune=["yellow"]),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert json.loads(proc.stdout) == {
        "error": "yellow cannot be attacked this round: a favor card makes them immune",
        "field": "$.defender",
    }
