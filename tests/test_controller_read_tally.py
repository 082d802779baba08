"""How the station settled each drop's tray in play, from its records (``tower model reads``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.cli import main
from controller.read_tally import AFTER_SHAKING, AS_READ, ASKED, WITH_BEAM, DropRead, read_tally
from controller.records import Record
from controller.selfplay import play
from controller.table import Table


def _record(seq: int, kind: str, drop_id: int | None, **payload: object) -> Record:
    return Record(seq, float(seq), kind, drop_id, dict(payload), {}, "", "")


READ_ONCE = [{"read": 1, "cubes": {"red": 3}, "doubts": []}]


def test_each_drop_is_tallied_by_how_its_tray_was_settled() -> None:
    shaken = [{"read": 1, "cubes": {"red": 3}, "doubts": ["red 3 or 4"]},
              {"action": "vibrate", "seconds": 1.5}, {"read": 2, "cubes": {"red": 4}, "doubts": []}]
    records = [
        _record(1, "session_new", None, session_id=1),
        _record(2, "reading", 1, attempts=READ_ONCE, reconciliation=None),
        _record(3, "resolution", 1, tray_after={"red": 3}),
        _record(4, "reading", 2, attempts=shaken, reconciliation=None),
        _record(5, "resolution", 2, tray_after={"red": 4}),
        _record(6, "reading", 3, attempts=READ_ONCE, reconciliation={"cubes": {"red": 4}, "beam": 4}),
        _record(7, "resolution", 3, tray_after={"red": 4}),
        _record(8, "reading", 4, attempts=READ_ONCE, reconciliation={"cubes": None, "question": {"red": [3, 4]}}),
        _record(9, "correction", 4, before={"red": 3}, after={"red": 4}),  # the host's answer
        _record(10, "resolution", 4, tray_after={"red": 4}),
        _record(11, "reading", 5, attempts=READ_ONCE, reconciliation=None),
        _record(12, "resolution", 5, tray_after={"red": 3}),
        _record(13, "correction", 5, before={"red": 3}, after={"red": 2}),  # after the station acted
        _record(14, "resolution", 5, tray_after={"red": 2}),
        _record(15, "reading", 6, attempts=READ_ONCE, reconciliation=None),
        _record(16, "cancelled", 6),
        _record(17, "session_new", None, session_id=2),
        _record(18, "reading", 7, attempts=READ_ONCE, reconciliation=None),
        _record(19, "resolution", 7, tray_after={"red": 3}),
        _record(20, "correction", 7, before={"red": 3}, after={"red": 3}),  # confirmed after: no change
        _record(21, "resolution", 7, tray_after={"red": 3}),
    ]
    tally = read_tally(records)
    assert tally.drops == [DropRead(1, AS_READ, 1), DropRead(2, AFTER_SHAKING, 2), DropRead(3, WITH_BEAM, 1),
                           DropRead(4, ASKED, 1), DropRead(5, AS_READ, 1, ({"red": 3}, {"red": 2})),
                           DropRead(7, AS_READ, 1)]
    assert tally.without_asking == 5 and tally.count(ASKED) == 1
    assert tally.to_json()["corrected_after"] == [{"drop_id": 5, "before": {"red": 3}, "after": {"red": 2}}]
    assert tally.to_json()["reads_most"] == 2 and tally.reads_mean == pytest.approx(7 / 6)
    assert [d.drop_id for d in read_tally(records, session=2).drops] == [7]


def test_tower_model_reads_names_a_tray_the_host_changed_after_the_station_acted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    with Table.open(data_dir=data, reader="direct") as table:
        play(table, 3, seed=2)
        battle = {"battle": "revolt", "defender": "red", "defending_armies": 1, "revolt_markers": 2}
        view = table.release(table.plan(battle)["drop_id"])  # resolved, its tray not yet cleared
        assert view["phase"] == "resolved"
        last = [r for r in table.store.records() if r.kind == "resolution"][-1]
        tray = dict(last.payload["tray_after"])
        colour = next(c for c, n in tray.items() if n)
        table.correct(last.drop_id, {**tray, colour: tray[colour] + 1}, who="anna")
    assert main(["model", "reads", "--data-dir", str(data), "--json"]) == 0
    tally = json.loads(capsys.readouterr().out)
    assert tally["drops"] == 5 and tally["without_asking"] == 5 and tally["by_how"]["as read"] == 5
    assert tally["corrected_after"] == [{"drop_id": last.drop_id, "before": tray,
                                         "after": {**tray, colour: tray[colour] + 1}}]
    assert main(["model", "reads", "--data-dir", str(data)]) == 0
    said = capsys.readouterr().out
    assert "acted on without asking: 5 (100.0 %)" in said and f"drop {last.drop_id}: " in said, said
    assert main(["model", "reads", "--data-dir", str(tmp_path / "none")]) == 2
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    for key in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(key, raising=False)
    assert main(["model", "reads", "--data-dir", str(data)]) == 0
    said = capsys.readouterr().out
    assert "ohne zu fragen danach gehandelt: 5 (100,0 %)" in said and f"Wurf {last.drop_id}: " in said, said
    assert "changed" not in said and "asked" not in said, said
