"""The table-side commands on the simulated station, end to end, and `tower log verify` on tampered records."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from controller.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_a_session_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = ["--data-dir", str(tmp_path)]
    assert _run(capsys, "session", "new", "--players", "red,blue,yellow", "--emperors-court", *d)[0] == 0
    code, out = _run(capsys, "fill", *d)
    assert code == 0 and "Initial fill" in out and "courtiers" in out
    for p in ("red", "blue", "yellow"):
        assert _run(capsys, "session", "deploy", "--player", p, "--armies", "15", *d)[0] == 0
    assert _run(capsys, "session", "round", "--attack-bonus", "blue", *d)[0] == 0
    code, out = _run(capsys, "battle", "attack", "--attacker", "blue", "--armies", "4", "--defender", "yellow",
                     "--defending", "3", *d)
    assert code == 0 and "blue attacks yellow's county with 4" in out and "in the tray" in out
    code, out = _run(capsys, "battle", "attack", "--attacker", "red", "--armies", "2", *d)
    assert code == 0 and "neutral county" in out
    code, out = _run(capsys, "battle", "revolt", "--player", "yellow", "--armies", "2", "--revolt-markers", "1", *d)
    assert code == 0 and "Revolt against yellow" in out
    code, out = _run(capsys, "battle", "winter-revolt", "--player", "red", "--armies", "1", "--unsupplied", "5", *d)
    assert code == 0 and "Winter revolt" in out
    code, out = _run(capsys, "status", "--json", *d)
    status = json.loads(out)
    assert status["drops_done"] == 5 and status["drop"] is None
    assert all(row["total"] == row["expected"] for row in status["conservation"].values())
    assert status["round"]["bonus_tiles"]["attack_plus_one"] == "blue"
    code, out = _run(capsys, "court", "convert", "--player", "purple", "--cubes", "1", *d)
    assert code == 2  # purple does not play
    code, out = _run(capsys, "log", "--json", *d)
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["seq"] for r in records] == list(range(1, len(records) + 1))
    assert sum(r["kind"] == "released" for r in records) == 5
    assert any(r["images"].get("annotated") for r in records if r["kind"] == "reading")
    code, out = _run(capsys, "log", "verify", *d)
    assert code == 0 and out.startswith("ok:")


def test_log_verify_names_an_edited_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = ["--data-dir", str(tmp_path)]
    _run(capsys, "session", "new", "--players", "red,blue,yellow", *d)
    for p in ("red", "blue"):
        _run(capsys, "session", "deploy", "--player", p, "--armies", "5", *d)
    conn = sqlite3.connect(tmp_path / "records.sqlite3")
    conn.execute("""UPDATE records SET payload='{"armies":50,"player":"red"}' WHERE seq=2""")
    conn.commit()
    conn.close()
    code, out = _run(capsys, "log", "verify", *d)
    assert code == 1 and "FAILED" in out and "record #2 (deploy)" in out and "edited" in out


def test_a_battle_before_the_fill_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = ["--data-dir", str(tmp_path)]
    _run(capsys, "session", "new", "--players", "red,blue,yellow", *d)
    code = main(["battle", "attack", "--attacker", "red", "--armies", "2", *d])
    err = capsys.readouterr().err
    assert code == 2 and "fill the tower first" in err


def test_a_corrupt_database_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "records.sqlite3").write_bytes(b"garbage" * 100)
    code = main(["status", "--data-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "not a SQLite database" in err and "untouched" in err
    assert (tmp_path / "records.sqlite3").read_bytes() == b"garbage" * 100


def _played(tmp_path: Path) -> list[str]:
    from controller.selfplay import play
    from controller.table import Table

    with Table.open(data_dir=tmp_path, reader="direct") as table:
        play(table, 4, seed=3)
    return ["--data-dir", str(tmp_path)]


def _sql(tmp_path: Path, *statements: str) -> None:
    conn = sqlite3.connect(tmp_path / "records.sqlite3")
    for s in statements:
        conn.execute(s)
    conn.commit()
    conn.close()


def _seq_of(tmp_path: Path, kind: str, nth: int = 0) -> int:
    conn = sqlite3.connect(tmp_path / "records.sqlite3")
    rows = conn.execute("SELECT seq FROM records WHERE kind=? ORDER BY seq", (kind,)).fetchall()
    conn.close()
    return int(rows[nth][0])


def test_log_verify_names_an_edited_reading(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = _played(tmp_path)
    seq = _seq_of(tmp_path, "reading", 2)
    _sql(tmp_path, f"UPDATE records SET payload=replace(payload, '\"usable\":true', '\"usable\":false') WHERE seq={seq}")
    code, out = _run(capsys, "log", "verify", *d)
    assert code == 1 and f"record #{seq} (reading of drop 3) was edited" in out


def test_log_verify_names_a_deleted_resolution(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = _played(tmp_path)
    seq = _seq_of(tmp_path, "resolution", 1)
    _sql(tmp_path, f"DELETE FROM records WHERE seq={seq}")
    code, out = _run(capsys, "log", "verify", *d)
    assert code == 1 and f"record #{seq} is missing (deleted)" in out


def test_log_verify_names_reordered_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = _played(tmp_path)
    first = _seq_of(tmp_path, "intent", 2)
    second = first + 1
    _sql(tmp_path, f"UPDATE records SET seq=-1 WHERE seq={first}", f"UPDATE records SET seq={first} WHERE seq={second}",
         f"UPDATE records SET seq={second} WHERE seq=-1")
    code, out = _run(capsys, "log", "verify", *d)
    assert code == 1 and f"record #{first}" in out and "reordered" in out


def test_a_malformed_correction_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = ["--data-dir", str(tmp_path)]
    _run(capsys, "session", "new", "--players", "red,blue,yellow", *d)
    code = main(["correct", "1", "blue=x", "--who", "anna", *d])
    err = capsys.readouterr().err
    assert code == 2 and "expected COLOUR=N" in err and '"blue=x"' in err


@pytest.mark.parametrize("players", ["red", "red,blue", "red,blue,yellow,purple,black,red"])
def test_a_session_needs_three_to_five_players(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               players: str) -> None:
    code = main(["session", "new", "--players", players, "--data-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "3 to 5 players" in err


def test_an_unknown_event_is_refused_when_the_round_is_set(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    d = ["--data-dir", str(tmp_path)]
    _run(capsys, "session", "new", "--players", "red,blue,yellow", *d)
    code = main(["session", "round", "--event", "churches_saef", *d])
    err = capsys.readouterr().err
    assert code == 2 and "unknown event 'churches_saef'" in err
    assert _run(capsys, "session", "round", "--event", "churches_safe", *d)[0] == 0


def test_one_player_holding_both_combat_tiles_is_refused_when_the_round_is_set(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = ["--data-dir", str(tmp_path)]
    _run(capsys, "session", "new", "--players", "red,blue,yellow", *d)
    code = main(["session", "round", "--attack-bonus", "red", "--defence-bonus", "red", *d])
    assert code == 2 and "both combat bonus tiles" in capsys.readouterr().err
    assert _run(capsys, "session", "round", "--attack-bonus", "red", "--defence-bonus", "blue", *d)[0] == 0


def test_the_station_asks_about_the_colour_in_doubt_and_tower_answer_settles_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from controller.table import Table
    from vision.reading import TrayReading

    with Table.open(data_dir=tmp_path, reader="direct") as table:
        table.new_session(["red", "blue", "yellow"])
        table.release(table.plan({"battle": "initial_fill"})["drop_id"])
        table.deploy("blue", 5)
        sim, direct = table.station.world, table.cycle.reader

        class Hesitating:
            def read(self, tag: str, **kw: object) -> TrayReading:
                truth = sim.tray_contents()
                if not tag.startswith("drop-"):
                    return direct.read(tag, **kw)
                return TrayReading(cubes=truth, trusted=False, source="direct",
                                   alternatives={"blue": [(truth["blue"], 0.6), (truth["blue"] + 1, 0.4)]})

        table.cycle.reader = Hesitating()
        drop_id = table.plan({"battle": "attack", "attacker": "blue", "attacking_armies": 5, "defender": None,
                              "defending_armies": 0})["drop_id"]
        assert table.release(drop_id)["needs_confirmation"]
        blue = sim.tray_contents()["blue"]
    d = ["--data-dir", str(tmp_path)]
    code, out = _run(capsys, "status", *d)
    assert f"Is it {blue} or {blue + 1} blue?" in out and f"tower answer {drop_id} blue={blue + 1}" in out
    code = main(["answer", str(drop_id), "red=3", "--who", "anna", *d])
    assert code == 2 and "answer blue" in capsys.readouterr().err
    code, out = _run(capsys, "answer", str(drop_id), f"blue={blue}", "--who", "anna", *d)
    assert code == 0 and "resolved" in out
    code, out = _run(capsys, "log", "--json", *d)
    note = [json.loads(line) for line in out.splitlines() if '"correction"' in line][-1]["payload"]["note"]
    assert note == f"answered Is it {blue} or {blue + 1} blue? {blue} blue"
