"""The Table facade on the simulated station: opening, refusing a bad database or a second process,
live events, history, and a battle counted from the simulated camera's photo."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from controller.data_dir import StationBusy
from controller.records import RecordsError
from controller.table import Table

ATTACK = {"battle": "attack", "attacker": "blue", "attacking_armies": 4, "defender": "yellow",
          "defending_armies": 3}


def _ready(table: Table) -> None:
    table.new_session(["red", "blue", "yellow"], emperors_court=True)
    table.release(table.fill()["drop_id"])
    for p in ("red", "blue", "yellow"):
        table.deploy(p, 12)


def test_a_foreign_database_stops_the_table_before_any_device_moves(tmp_path: Path) -> None:
    db = tmp_path / "records.sqlite3"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE photos (name TEXT)")
    conn.commit()
    conn.close()
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    with pytest.raises(RecordsError, match="another application"):
        Table.open(data_dir=tmp_path, reader="direct")
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest
    assert not (tmp_path / "sim-world.json").exists()  # no device was opened
    # and the lock was given back: a fixed directory opens at once
    db.unlink()
    Table.open(data_dir=tmp_path, reader="direct").close()


def test_one_process_at_a_time(tmp_path: Path) -> None:
    with Table.open(data_dir=tmp_path, reader="direct"), pytest.raises(StationBusy, match="another tower process"):
        Table.open(data_dir=tmp_path, reader="direct")


def test_events_and_history(tmp_path: Path) -> None:
    with Table.open(data_dir=tmp_path, reader="direct") as table:
        _ready(table)
        q = table.subscribe()
        planned = table.plan(ATTACK)
        view = table.release(planned["drop_id"])
        events = []
        while not q.empty():
            event = q.get_nowait()
            events.append((event["drop_id"], event["type"]))
        fill, drop = planned["drop_id"] - 1, planned["drop_id"]
        # the fill's drop closes once the tray is checked, then the battle's steps follow
        assert events == [(fill, "cleaned"), (drop, "intent"), (drop, "release_started"), (drop, "released"),
                          (drop, "reading"), (drop, "resolution")]
        table.unsubscribe(q)
        history = table.history()
        assert [h["drop_id"] for h in history] == [planned["drop_id"], planned["drop_id"] - 1]
        assert history[0]["phase"] == "resolved" and history[1]["phase"] == "cleaned"
        assert history[0]["summary"] == view["summary"]
        status = table.status()
        assert status["drop"]["drop_id"] == planned["drop_id"]
        assert all(row["total"] == row["expected"] for row in status["conservation"].values())


def test_a_killed_table_is_resumed_on_open(tmp_path: Path) -> None:
    table = Table.open(data_dir=tmp_path, reader="direct")
    _ready(table)
    planned = table.plan(ATTACK)
    # the process "dies" after committing the intent: nothing is released on reopening
    table.close()
    with Table.open(data_dir=tmp_path, reader="direct") as again:
        assert again.resumed is not None and again.resumed["phase"] == "planned"
        assert again.station.world.release_count == 1
        assert again.release(planned["drop_id"])["phase"] == "resolved"
        assert again.station.world.release_count == 2


def test_a_battle_read_from_the_simulated_camera(tmp_path: Path) -> None:
    with Table.open(data_dir=tmp_path) as table:
        _ready(table)
        view = table.release(table.plan(ATTACK)["drop_id"])
        assert view["reading"]["source"] == "camera"
        assert (tmp_path / view["image"]).is_file() and (tmp_path / view["annotated"]).is_file()
        # the counter read the simulated tray exactly
        assert view["tray_after"] == table.station.world.tray_contents()
        assert table.verify()["ok"]
        (tmp_path / view["annotated"]).write_bytes(b"not the photo")
        result = table.verify()
        assert not result["ok"] and "annotated image" in result["problem"]


def test_status_can_be_read_while_the_station_is_in_use(tmp_path: Path) -> None:
    from controller.table import read_only

    with Table.open(data_dir=tmp_path, reader="direct") as table:
        _ready(table)
        with read_only(tmp_path) as viewer:
            assert viewer.status()["drops_done"] == table.status()["drops_done"]
            assert viewer.history()[0]["drop_id"] == 1


class RecordingLight:
    def __init__(self) -> None:
        self.shown: list[str] = []

    def show(self, state: str) -> None:
        self.shown.append(state)

    def close(self) -> None:
        pass


def test_the_status_light_follows_the_drop(tmp_path: Path) -> None:
    with Table.open(data_dir=tmp_path, reader="direct") as table:
        _ready(table)
        light = RecordingLight()
        table.station.status_led = light
        table.release(table.plan(ATTACK)["drop_id"])
        assert light.shown[-5:] == ["ready", "busy", "busy", "busy", "ready"]


def test_a_resume_that_fails_frees_the_station_for_the_next_try(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    def camera_down(self: Table) -> None:
        raise TimeoutError("the camera gave no frame")

    monkeypatch.setattr(Table, "resume", camera_down)
    with pytest.raises(TimeoutError):
        Table.open(data_dir=tmp_path)
    monkeypatch.undo()
    with Table.open(data_dir=tmp_path) as table:  # not StationBusy: the failed open let go of the lock
        assert table.status()["session"] is None
