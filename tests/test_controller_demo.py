"""`tower demo` plays its scripted game on the simulated station to the end (one round here; `make demo`
plays ten), with a photo for every drop and the records intact."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller import demo_game
from controller.cli import main


def test_the_script_has_every_battle_kind_ten_times() -> None:
    kinds = [s.kind for s in demo_game.script(10)]
    for kind in ("attack", "attack_neutral", "revolt", "winter_revolt", "court"):
        assert kinds.count(kind) == 10, kind


def test_one_round_of_the_demo_on_the_simulated_station(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "demo"
    code = main(["demo", "--rounds", "1", "--data-dir", str(data)])
    out = capsys.readouterr().out
    assert code == 0, out
    for text in ("Initial fill", "attacks blue's county", "neutral county", "Revolt against", "Winter revolt",
                 "Emperor's Court", "tower log verify: ok"):
        assert text in out, text
    assert "into the funnel" not in out and len(out.splitlines()) < 40  # compact: one line per drop
    photos = {p.name.split("-")[1] for p in (data / "images").glob("drop-*-annotated.jpg")}
    assert photos >= {f"{n:06d}" for n in range(1, 6)}  # the fill and four battles
    # a second demo never plays into a folder that holds a game
    assert main(["demo", "--rounds", "1", "--data-dir", str(data)]) == 2


def test_a_missing_config_is_a_clear_error_not_a_traceback(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["demo", "--rounds", "1", "--data-dir", str(tmp_path / "demo"),
                 "--config", str(tmp_path / "nowhere.toml")])
    out = capsys.readouterr().out
    assert code == 2
    # the path whole on one line, however long (a copy of it must work), under Rich's 80 columns
    assert f"tower demo: {tmp_path / 'nowhere.toml'}: no such configuration file" in out.splitlines()
    assert not (tmp_path / "demo" / "records.sqlite3").exists()


def test_the_verbose_demo_shows_every_plan_in_full(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["demo", "--rounds", "0", "--verbose", "--data-dir", str(tmp_path / "demo")])
    out = capsys.readouterr().out
    assert code == 0 and "into the funnel" in out and "tray read" in out
