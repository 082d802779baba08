"""Issue 13: undo of the between-battle actions (a correction, never an erasure), the game's end with
its summary, the host's word on the tray across a court conversion, and the corrected reading in
the history, on the simulated station."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller import session as ses
from controller.cycle import DropCycle
from controller.session import SessionError
from controller.table import Table

ATTACK = {"battle": "attack", "attacker": "blue", "attacking_armies": 2, "defender": "red", "defending_armies": 1}


def _ready(table: Table) -> None:
    table.new_session(["red", "blue", "yellow"], emperors_court=True)
    table.release(table.fill()["drop_id"])
    table.clean()


def _kinds(table: Table) -> list[str]:
    return [r["kind"] for r in table.log()]


def test_each_between_battle_action_is_undone_by_a_record_and_nothing_is_erased(tmp_path: Path) -> None:
    with Table.open(data_dir=tmp_path, reader="direct") as table:
        _ready(table)
        start = table.status()
        table.set_round("churches_safe", {"attack_plus_one": "blue"}, {})
        table.place_into_tray("red", 2, "favor", who="anna", card=3)
        assert table.status()["undo"] == "red places 2 armies into the tray"
        seqs_before = [r["seq"] for r in table.log()]

        done = table.undo("anna")
        assert done["message"] == "undone: red places 2 armies into the tray"
        after = table.status()
        assert after["tray"] == start["tray"] and after["supply"] == start["supply"]
        assert after["round"]["event"] == "churches_safe"  # only the last action is taken back
        assert table.station.world.tray_contents() == start["tray"]  # the simulated hands took the cubes out

        table.undo("anna")
        assert table.status()["round"] == start["round"]
        with pytest.raises(SessionError, match="nothing to undo"):
            table.undo("anna")
        log = table.log()
        assert [r["seq"] for r in log][:len(seqs_before)] == seqs_before  # every record is still there
        assert [r["kind"] for r in log][-2:] == ["undo", "undo"]
        assert log[-1]["payload"]["who"] == "anna"
        assert ses.conservation_errors(table.store.state()) == []
        assert table.verify()["ok"]


def test_a_court_conversion_is_undone_and_a_battle_ends_what_can_be_undone(tmp_path: Path) -> None:
    with Table.open(data_dir=tmp_path, reader="direct") as table:
        _ready(table)
        table.place_into_tray("red", 2, "favor", who="anna", card=3)
        before = table.status()
        assert table.court_convert("red", 1)["performed"]
        table.undo("host")
        back = table.status()
        assert back["tray"] == before["tray"] and back["courtiers"] == before["courtiers"]
        assert back["supply"] == before["supply"]
        table.release(table.plan(ATTACK)["drop_id"])
        with pytest.raises(SessionError, match="nothing to undo"):
            table.undo("host")


def test_a_wrong_new_session_is_undone_and_the_old_game_comes_back(tmp_path: Path) -> None:
    with Table.open(data_dir=tmp_path, reader="direct") as table:
        _ready(table)
        table.release(table.plan(ATTACK)["drop_id"])
        game = table.status()
        with pytest.raises(SessionError, match="--force"):
            table.new_session(["red", "blue", "purple"])
        table.new_session(["red", "blue", "purple"], force=True)
        assert table.status()["session"]["session_id"] == game["session"]["session_id"] + 1
        table.undo("host")
        back = table.status()
        assert back["session"] == game["session"] and back["tower"] == game["tower"]
        assert back["drops_done"] == game["drops_done"] + 1  # the resolved drop was cleaned by the new session
        assert "session_new" in _kinds(table)[-3:] and _kinds(table)[-1] == "undo"


def test_the_game_ends_with_a_summary_kept_in_the_records(tmp_path: Path) -> None:
    with Table.open(data_dir=tmp_path, reader="direct") as table:
        _ready(table)
        for _ in range(2):
            table.release(table.plan(ATTACK)["drop_id"])
        table.release(table.plan({"battle": "revolt", "defender": "yellow", "defending_armies": 2,
                                  "revolt_markers": 1})["drop_id"])
        ended = table.end_session("anna")
        summary = ended["summary"]
        assert len(summary["battles"]) == 3 and summary["kinds"] == {"attack": 2, "revolt": 1}
        assert sum(summary["wins"].values()) + sum(b["winner"] is None for b in summary["battles"]) == 3
        assert summary["tower"] == {c: n for c, n in table.status()["tower"].items() if n}
        assert "3 battles in session 1" in summary["text"] and "in the tower:" in summary["text"]
        assert sum(summary["armies_lost"].values()) > 0
        record = table.log()[-1]
        assert record["kind"] == "session_end" and record["payload"]["summary"] == summary
        assert table.status()["ended"]["who"] == "anna"
        from controller.summary import localise_ended

        german = localise_ended(table.status()["ended"], "de")["summary"]["battles"]
        assert all(" gegen " in row["text"] and "in der Schale" in row["text"] for row in german)
        with pytest.raises(SessionError, match="has ended"):
            table.plan(ATTACK)
        table.new_session(["red", "blue", "yellow"])  # no --force needed after the end
        assert table.verify()["ok"]


def test_the_hosts_word_survives_a_court_conversion(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Table.open(data_dir=tmp_path, reader="direct") as table:
        _ready(table)
        table.set_tray({"red": 3, "green": 1}, "anna")
        assert table.court_convert("red", 1)["performed"]
        assert table.status()["tray_vouched"]["tray"] == {"red": 2, "green": 1}
        monkeypatch.setattr(DropCycle, "check_tray", lambda self: pytest.fail("the camera was asked"))
        planned = table.plan({**ATTACK})
        intent = [r for r in table.log() if r["kind"] == "intent"][-1]
        assert intent["payload"]["tray_check"]["vouched_by"] == "anna"
        assert planned["battle"]["tray_before"] == {"red": 2, "green": 1}


def test_history_shows_the_corrected_reading(tmp_path: Path) -> None:
    with Table.open(data_dir=tmp_path, reader="direct") as table:
        _ready(table)
        view = table.release(table.plan(ATTACK)["drop_id"])
        read = view["reading"]["cubes"]
        corrected = {**read, "red": read.get("red", 0) + 1}
        table.correct(view["drop_id"], corrected, "anna")
        table.clean()
        shown = table.history()[0]
        assert shown["tray_read"] == ses.clean(corrected) and shown["reading"]["cubes"] == read


def test_the_page_api_undoes_and_ends_the_game(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from controller.web.access import PIN_HEADER, HostAccess
    from controller.web.app import create_app

    with Table.open(data_dir=tmp_path, reader="direct") as table:
        _ready(table)
        with TestClient(create_app(table, table.data_dir, HostAccess("735102")),
                        base_url="http://127.0.0.1:8000") as client:
            assert client.post("/api/undo", json={"who": "anna"}).status_code == 403  # the host only
            client.headers[PIN_HEADER] = "735102"
            client.post("/api/round", json={"event": "churches_safe"}).raise_for_status()
            assert client.get("/api/state").json()["status"]["undo"].startswith("the round's settings")
            undone = client.post("/api/undo", json={"who": "anna"}).json()
            assert undone["message"].startswith("undone: the round's settings")
            assert client.get("/api/state").json()["status"]["round"]["event"] is None
            client.post("/api/battles", json=ATTACK).raise_for_status()
            refused = client.post("/api/session/end", json={"who": "anna"})
            assert refused.status_code == 400 and "still in flight" in refused.json()["error"]
            client.post(f"/api/drops/{table.status()['drop']['drop_id']}/release").raise_for_status()
            ended = client.post("/api/session/end", json={"who": "anna"}).json()
            assert ended["summary"]["kinds"] == {"attack": 1}
            assert client.get("/api/state").json()["status"]["ended"]["summary"] == ended["summary"]
