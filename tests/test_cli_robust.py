"""The CLI on hostile and unlucky input: fuzzed battle JSON, a drop left planned, damaged, read-only
and full records. Every case ends in a clear message and an exit code, never a traceback, and loses
nothing already recorded."""

from __future__ import annotations

import copy
import io
import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from controller.records import RecordStore

BATTLE: dict[str, Any] = {
    "battle": "attack", "attacker": "blue", "attacking_armies": 4, "defender": "yellow", "defending_armies": 3,
    "revolt_markers": 0, "buildings": [], "event": None,
    "bonus_tiles": {"attack_plus_one": None, "defence_plus_one": None}, "immune": [],
    "tray_before": {}, "tray_after": {"blue": 3, "yellow": 1, "green": 1},
}
ATTACK = {"battle": "attack", "attacker": "red", "attacking_armies": 2, "defender": None, "defending_armies": 0}


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _stdin(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))


# -- fuzzed battle JSON ---------------------------------------------------------------------------------
def _nested(depth: int, opener: str = "[") -> str:
    closer = {"[": "]", "{": "}"}[opener]
    if opener == "[":
        return "[" * depth + "]" * depth
    return '{"a":' * depth + "1" + closer * depth


def _fuzz_inputs() -> list[str]:
    rng = random.Random(14)
    cases = [_nested(1000), _nested(1000, "{"), _nested(100_000),
             '{"battle": "attack", "attacking_armies": ' + "9" * 4301 + "}",
             '{"battle": "attack", "attacking_armies": -' + "1" * 10_000 + "}",
             json.dumps(BATTLE).replace('"attacking_armies": 4', '"attacking_armies": 1e999'),
             json.dumps(BATTLE).replace('"attacking_armies": 4', '"attacking_armies": NaN'),
             json.dumps(BATTLE).replace('"attacking_armies": 4', '"attacking_armies": ' + "7" * 5000),
             "\ufeff{}", "", "null", "[]", '"attack"', "{" * 3]
    for depth in (10, 200, 500, 900, 990, 999, 1001, 3000):
        for key in ("attacker", "tray_after", "buildings", "bonus_tiles"):
            cases.append(_wrap(copy.deepcopy(BATTLE), key, depth))
    base = json.dumps(BATTLE)
    for _ in range(60):  # random byte damage of a valid battle
        chars = list(base)
        for _ in range(rng.randint(1, 8)):
            chars[rng.randrange(len(chars))] = rng.choice('{}[]":,0123456789e-.aZ \\')
        cases.append("".join(chars))
    return cases


def _wrap(battle: dict[str, Any], key: str, depth: int) -> str:
    value = json.dumps(battle[key])
    return json.dumps({**battle, key: None}).replace(f'"{key}": null', f'"{key}": ' + "[" * depth + value + "]" * depth)


@pytest.mark.parametrize("command", ["resolve", "plan"])
def test_fuzzed_battle_json_is_a_clear_error_never_a_traceback(
        command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    for text in _fuzz_inputs():
        _stdin(monkeypatch, text)
        code, out, err = _run(capsys, command, "-")
        assert err == "", (text[:80], err[-300:])
        answer = json.loads(out)
        if code == 0:  # a damaged copy that is still a valid battle
            assert "error" not in answer
            continue
        assert code == 2 and set(answer) == {"error", "field"}, text[:80]
        assert len(out) < 1000  # the input is never echoed back


def test_the_parsers_limits_are_named(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    _stdin(monkeypatch, _nested(1000))
    code, out, _ = _run(capsys, "resolve", "-")
    assert code == 2 and "nested too deeply" in json.loads(out)["error"]
    _stdin(monkeypatch, '{"attacking_armies": ' + "9" * 4301 + "}")
    code, out, _ = _run(capsys, "plan", "-")
    assert code == 2 and "too many digits" in json.loads(out)["error"]


def test_a_huge_battle_file_is_not_read_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    big = tmp_path / "big.json"
    big.write_text("[" * (3 << 20))
    code, out, _ = _run(capsys, "resolve", str(big))
    assert code == 2 and "larger than" in json.loads(out)["error"]


# -- a drop left planned -------------------------------------------------------------------------------
def _session(capsys: pytest.CaptureFixture[str], d: list[str]) -> None:
    assert _run(capsys, "session", "new", "--players", "red,blue,yellow", *d)[0] == 0
    assert _run(capsys, "fill", *d)[0] == 0


def _disk_full_at(monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    """The disk fills up just as the ``kind`` record is written (SQLite's own error for it)."""
    real = RecordStore._append

    def full(self: RecordStore, k: str, *args: Any) -> Any:
        if k == kind:
            raise sqlite3.OperationalError("database or disk is full")
        return real(self, k, *args)

    monkeypatch.setattr(RecordStore, "_append", full)


def test_a_drop_left_planned_by_a_full_disk_is_released_from_the_cli(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    d = ["--data-dir", str(tmp_path)]
    _session(capsys, d)
    with monkeypatch.context() as m:
        _disk_full_at(m, "release_started")
        code, out, err = _run(capsys, "battle", "attack", "--attacker", "red", "--armies", "3", "--defender", "blue",
                              "--defending", "2", *d)
    assert code == 2 and "the disk is full" in err and "nothing of it was kept" in err
    assert "Traceback" not in out + err
    status = json.loads(_run(capsys, "status", "--json", *d)[1])
    drop_id = status["drop"]["drop_id"]
    assert status["drop"]["phase"] == "planned"
    for argv in (["fill"], ["battle", "attack", "--attacker", "blue", "--armies", "2"],
                 ["session", "new", "--players", "red,blue,black"]):
        code, _, err = _run(capsys, *argv, *d)
        assert code == 2 and f"tower drop release {drop_id}" in err and f"tower drop cancel {drop_id}" in err, err
    code, _, err = _run(capsys, "drop", "release", str(drop_id + 1), *d)
    assert code == 2 and f"drop {drop_id + 1} is not the drop in flight" in err
    code, out, _ = _run(capsys, "drop", "release", *d)
    assert code == 0 and "red attacks blue's county" in out and "resolved" in out
    log = [json.loads(line) for line in _run(capsys, "log", "--json", *d)[1].splitlines()]
    assert sum(r["kind"] == "release_started" and r["drop_id"] == drop_id for r in log) == 1
    code, out, _ = _run(capsys, "battle", "attack", "--attacker", "blue", "--armies", "2", *d)
    assert code == 0
    assert _run(capsys, "log", "verify", *d)[0] == 0


def test_a_drop_left_planned_by_a_crash_is_cancelled_from_the_cli(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from controller.table import Table

    d = ["--data-dir", str(tmp_path)]
    _session(capsys, d)
    before = json.loads(_run(capsys, "status", "--json", *d)[1])
    table = Table.open(data_dir=tmp_path)
    planned = table.plan({"battle": "attack", "attacker": "red", "attacking_armies": 3, "defender": "yellow",
                          "defending_armies": 1})
    table.close()  # the process dies here, between the plan and the release
    code, _, err = _run(capsys, "drop", "cancel", str(planned["drop_id"] + 7), *d)
    assert code == 2 and "is not the drop in flight" in err
    code, out, _ = _run(capsys, "drop", "cancel", *d)
    assert code == 0 and f"Drop {planned['drop_id']} cancelled" in out and "Put its cubes back" in out
    after = json.loads(_run(capsys, "status", "--json", *d)[1])
    assert after["drop"] is None and after["tower"] == before["tower"] and after["tray"] == before["tray"]
    for colour in ("red", "yellow"):  # back in the supply or on the map (the plan took them as deployed)
        assert (after["supply"][colour] + after["board"].get(colour, 0)
                == before["supply"][colour] + before["board"].get(colour, 0))
    code, _, err = _run(capsys, "drop", "cancel", *d)
    assert code == 2 and "no drop is in flight" in err


def test_drop_confirm_release_settles_a_release_nobody_can_vouch_for(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from controller import session as ses
    from controller.table import Table

    d = ["--data-dir", str(tmp_path)]
    _session(capsys, d)
    table = Table.open(data_dir=tmp_path)
    planned = table.plan({"battle": "attack", "attacker": "red", "attacking_armies": 2, "defender": None,
                          "defending_armies": 0})
    state = table.store.state()
    table.store.append("release_unknown", {"why": "test"}, drop_id=planned["drop_id"],
                       state=ses.set_phase(state, "release_unknown"))
    table.close()
    code, _, err = _run(capsys, "drop", "release", *d)
    assert code == 2 and "release_unknown" in err and "tower drop confirm-release" in err
    code, out, _ = _run(capsys, "drop", "confirm-release", "--still-in-funnel", "--who", "Anna", *d)
    assert code == 0 and "planned again" in out
    assert _run(capsys, "drop", "release", *d)[0] == 0


# -- damaged records: read-only until acknowledged -------------------------------------------------------
def _tamper(path: Path, sql: str) -> None:
    conn = sqlite3.connect(path / "records.sqlite3")
    conn.execute(sql)
    conn.commit()
    conn.close()


def test_an_edited_timestamp_is_named_and_the_log_still_prints(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = ["--data-dir", str(tmp_path)]
    _session(capsys, d)
    _tamper(tmp_path, "UPDATE records SET ts='abc' WHERE seq=2")
    code, out, err = _run(capsys, "log", "verify", *d)
    assert code == 1 and "record #2" in out and "'abc' is not a number" in out and "time was edited" in out
    code, out, err = _run(capsys, "log", *d)
    assert code == 0 and err == "" and "?abc" in out
    code, out, _ = _run(capsys, "log", "--json", *d)
    assert code == 0 and json.loads(out.splitlines()[1])["ts"] == "abc"
    code, out, _ = _run(capsys, "log", "verify", "--json", *d)
    assert json.loads(out)["bad_seq"] == 2


def test_damaged_records_keep_the_station_read_only_until_the_host_acknowledges(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = ["--data-dir", str(tmp_path)]
    _session(capsys, d)
    _tamper(tmp_path, """UPDATE records SET payload='{"armies":50,"player":"red"}' WHERE seq=1""")
    records = len(_run(capsys, "log", "--json", *d)[1].splitlines())
    code, _, err = _run(capsys, "battle", "attack", "--attacker", "red", "--armies", "2", *d)
    assert code == 2 and "read-only" in err and "record #1" in err and "tower log acknowledge --who NAME" in err
    code, out, _ = _run(capsys, "status", *d)
    assert code == 0 and "READ-ONLY" in out
    status = json.loads(_run(capsys, "status", "--json", *d)[1])
    assert status["records"]["read_only"] is True and status["records"]["bad_seq"] == 1
    assert len(_run(capsys, "log", "--json", *d)[1].splitlines()) == records  # nothing was appended
    assert _run(capsys, "log", "acknowledge", *d)[0] == 2  # who?
    code, out, _ = _run(capsys, "log", "acknowledge", "--who", "Anna", "--note", "a test edit", *d)
    assert code == 0 and "acknowledged by Anna: 1 problem(s)" in out and "record #1" in out
    code, out, _ = _run(capsys, "log", "verify", *d)
    assert code == 0 and "1 damaged place(s) acknowledged before" in out
    assert _run(capsys, "battle", "attack", "--attacker", "red", "--armies", "2", *d)[0] == 0
    log = [json.loads(line) for line in _run(capsys, "log", "--json", *d)[1].splitlines()]
    ack = [r for r in log if r["kind"] == "damage_acknowledged"]
    assert len(ack) == 1 and ack[0]["payload"]["who"] == "Anna" and ack[0]["payload"]["problems"][0]["seq"] == 1
    # new damage after the acknowledgement stops the writing again
    _tamper(tmp_path, "DELETE FROM records WHERE seq=3")
    code, _, err = _run(capsys, "session", "deploy", "--player", "red", "--armies", "1", *d)
    assert code == 2 and "record #3 is missing" in err
    assert _run(capsys, "log", "acknowledge", "--who", "Anna", *d)[0] == 0
    assert _run(capsys, "log", "verify", *d)[0] == 0


def test_deleting_the_last_records_is_named_and_can_be_acknowledged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = ["--data-dir", str(tmp_path)]
    _session(capsys, d)
    last = len(_run(capsys, "log", "--json", *d)[1].splitlines())
    _tamper(tmp_path, f"DELETE FROM records WHERE seq >= {last - 1}")
    code, out, _ = _run(capsys, "log", "verify", *d)
    assert code == 1 and "last record(s) were deleted" in out
    assert _run(capsys, "log", "acknowledge", "--who", "Ben", *d)[0] == 0
    assert _run(capsys, "log", "verify", *d)[0] == 0
    assert _run(capsys, "session", "deploy", "--player", "red", "--armies", "1", *d)[0] == 0
    assert _run(capsys, "log", "verify", *d)[0] == 0


def test_the_web_page_says_read_only_and_the_host_acknowledges_there(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from fastapi.testclient import TestClient

    from controller.table import Table
    from controller.web.access import PIN_HEADER, HostAccess
    from controller.web.app import create_app

    d = ["--data-dir", str(tmp_path)]
    _session(capsys, d)
    _tamper(tmp_path, "UPDATE records SET kind='cleaned' WHERE seq=2")
    with Table.open(data_dir=tmp_path, reader="direct") as table:
        app = create_app(table, table.data_dir, HostAccess("246810"), allowed_hosts=["testserver"])
        with TestClient(app) as client:
            state = client.get("/api/state").json()
            assert state["status"]["records"]["read_only"] is True
            refused = client.post("/api/battles", json=ATTACK,
                                  headers={PIN_HEADER: "246810"})
            assert refused.status_code == 423 and "Acknowledge button" in refused.json()["error"]
            assert "tower " not in refused.json()["error"]  # the page shows no shell command (issue 13)
            assert client.post("/api/records/acknowledge", json={"who": "Cleo"}).status_code == 403
            ack = client.post("/api/records/acknowledge", json={"who": "Cleo"}, headers={PIN_HEADER: "246810"})
            assert ack.status_code == 200, ack.text
            assert client.get("/api/state").json()["status"]["records"]["read_only"] is False
            planned = client.post("/api/battles", json=ATTACK,
                                  headers={PIN_HEADER: "246810"})
            assert planned.status_code == 200, planned.text


# -- read-only and full -------------------------------------------------------------------------------
def _read_only_sqlite(monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite sees the records file as read-only (as for a file without write permission; the tests
    may run as root, for whom permissions do not apply)."""
    from controller import records

    def connect(path: Path) -> sqlite3.Connection:
        return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None,
                               check_same_thread=False)

    monkeypatch.setattr(records, "_connect", connect)


def test_a_read_only_database_is_refused_for_battles_and_still_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    d = ["--data-dir", str(tmp_path)]
    _session(capsys, d)
    _read_only_sqlite(monkeypatch)
    code, out, err = _run(capsys, "battle", "attack", "--attacker", "red", "--armies", "2", *d)
    assert code == 2 and "cannot be written" in err and "read-only" in err and "tower status" in err
    code, out, _ = _run(capsys, "status", "--json", *d)
    assert code == 0 and json.loads(out)["drops_done"] == 1
    code, out, _ = _run(capsys, "log", "verify", *d)
    assert code == 0 and out.startswith("ok:")


@pytest.mark.skipif(__import__("os").geteuid() == 0, reason="root ignores file permissions")
def test_a_read_only_directory_is_refused_for_battles_and_still_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = ["--data-dir", str(tmp_path / "data")]
    _session(capsys, d)
    (tmp_path / "data" / "records.sqlite3").chmod(0o444)
    (tmp_path / "data").chmod(0o555)
    try:
        code, _, err = _run(capsys, "battle", "attack", "--attacker", "red", "--armies", "2", *d)
        assert code == 2 and "Traceback" not in err
        assert _run(capsys, "status", *d)[0] == 0
        assert _run(capsys, "log", "verify", *d)[0] == 0
    finally:
        (tmp_path / "data").chmod(0o755)


def test_a_full_disk_loses_no_record_and_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite's own "database or disk is full", produced by capping the file's pages."""
    d = ["--data-dir", str(tmp_path)]
    _session(capsys, d)
    before = _run(capsys, "log", "--json", *d)[1]
    real_open = RecordStore.open.__func__  # type: ignore[attr-defined]

    def full_open(cls: type[RecordStore], *args: Any, **kwargs: Any) -> RecordStore:
        store = real_open(cls, *args, **kwargs)
        if store.writable:
            pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
            store._conn.execute(f"PRAGMA max_page_count={pages}")
        return store

    with monkeypatch.context() as m:
        m.setattr(RecordStore, "open", classmethod(full_open))
        for _ in range(3):
            code, out, err = _run(capsys, "battle", "attack", "--attacker", "red", "--armies", "20", "--defender",
                                  "blue", "--defending", "20", *d)
            if code != 0:
                break
    assert code == 2 and "the disk is full" in err and "Traceback" not in err
    after = _run(capsys, "log", "--json", *d)[1]
    assert after.startswith(before)  # nothing lost, nothing half-written
    assert _run(capsys, "log", "verify", *d)[0] == 0
