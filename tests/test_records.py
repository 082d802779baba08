"""The records' hash chain: any edited, deleted or reordered record (or swapped photo) is found and named,
and a corrupt or foreign database file is refused without being touched."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from controller.records import RecordsError, RecordStore


def _store_with_records(tmp_path: Path, n: int = 6) -> RecordStore:
    store = RecordStore.open(tmp_path)
    img = tmp_path / "images" / "drop-1-raw.png"
    img.parent.mkdir()
    img.write_bytes(b"\x89PNG fake photo bytes")
    for i in range(1, n + 1):
        store.append("reading" if i == 3 else "step", {"i": i, "counts": {"blue": i}}, drop_id=1,
                     images={"raw": img} if i == 3 else None, state={"i": i})
    return store


def _sql(path: Path, *statements: str) -> None:
    conn = sqlite3.connect(path)
    for s in statements:
        conn.execute(s)
    conn.commit()
    conn.close()


def test_an_untouched_chain_verifies(tmp_path: Path) -> None:
    store = _store_with_records(tmp_path)
    result = store.verify()
    assert result.ok and result.records == 6
    assert store.state() == {"i": 6}
    assert [r.payload["i"] for r in store.records()] == [1, 2, 3, 4, 5, 6]
    assert store.records()[2].images["raw"]["path"] == "images/drop-1-raw.png"


def test_an_edited_record_is_named(tmp_path: Path) -> None:
    store = _store_with_records(tmp_path)
    store.close()
    _sql(tmp_path / "records.sqlite3", """UPDATE records SET payload='{"counts":{"blue":9},"i":4}' WHERE seq=4""")
    result = RecordStore.open(tmp_path).verify()
    assert not result.ok and result.bad_seq == 4
    assert "record #4" in result.problem and "edited" in result.problem


def test_an_edited_record_with_a_recomputed_own_hash_breaks_the_next_link(tmp_path: Path) -> None:
    from controller.records import record_hash

    store = _store_with_records(tmp_path)
    rec = store.records()[3]
    store.close()
    payload = json.dumps({"i": 4, "counts": {"blue": 9}}, sort_keys=True, separators=(",", ":"))
    digest = record_hash(rec.seq, rec.ts, rec.kind, rec.drop_id, payload, "{}", rec.prev_hash)
    _sql(tmp_path / "records.sqlite3", f"UPDATE records SET payload='{payload}', hash='{digest}' WHERE seq=4")
    result = RecordStore.open(tmp_path).verify()
    assert not result.ok and result.bad_seq == 5 and "does not follow record #4" in result.problem


def test_a_deleted_record_is_named(tmp_path: Path) -> None:
    _store_with_records(tmp_path).close()
    _sql(tmp_path / "records.sqlite3", "DELETE FROM records WHERE seq=2")
    result = RecordStore.open(tmp_path).verify()
    assert not result.ok and result.bad_seq == 2 and "#2 is missing" in result.problem


def test_a_deleted_last_record_is_noticed(tmp_path: Path) -> None:
    _store_with_records(tmp_path).close()
    _sql(tmp_path / "records.sqlite3", "DELETE FROM records WHERE seq=6")
    result = RecordStore.open(tmp_path).verify()
    assert not result.ok and result.bad_seq == 6 and "deleted" in result.problem


def test_reordered_records_are_named(tmp_path: Path) -> None:
    _store_with_records(tmp_path).close()
    db = tmp_path / "records.sqlite3"
    # swap records 4 and 5 whole (content and hashes), keeping the sequence numbers in place
    _sql(db, "UPDATE records SET seq=-4 WHERE seq=4", "UPDATE records SET seq=4 WHERE seq=5",
         "UPDATE records SET seq=5 WHERE seq=-4")
    result = RecordStore.open(tmp_path).verify()
    assert not result.ok and result.bad_seq == 4
    assert "reordered" in result.problem


def test_a_changed_photo_is_named(tmp_path: Path) -> None:
    _store_with_records(tmp_path).close()
    (tmp_path / "images" / "drop-1-raw.png").write_bytes(b"another photo")
    result = RecordStore.open(tmp_path).verify()
    assert not result.ok and result.bad_seq == 3 and "raw image" in result.problem and "changed" in result.problem


def test_a_missing_photo_is_named(tmp_path: Path) -> None:
    _store_with_records(tmp_path).close()
    (tmp_path / "images" / "drop-1-raw.png").unlink()
    result = RecordStore.open(tmp_path).verify()
    assert not result.ok and result.bad_seq == 3 and "missing" in result.problem


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_file_that_is_not_sqlite_is_refused_and_left_untouched(tmp_path: Path) -> None:
    db = tmp_path / "records.sqlite3"
    db.write_bytes(b"this is a shopping list, not a database" * 10)
    before = _digest(db)
    with pytest.raises(RecordsError, match="not a SQLite database"):
        RecordStore.open(tmp_path)
    assert _digest(db) == before


def test_an_empty_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "records.sqlite3").write_bytes(b"")
    with pytest.raises(RecordsError, match="not a SQLite database"):
        RecordStore.open(tmp_path)
    assert (tmp_path / "records.sqlite3").stat().st_size == 0


def test_a_foreign_sqlite_database_is_refused_and_left_untouched(tmp_path: Path) -> None:
    db = tmp_path / "records.sqlite3"
    _sql(db, "CREATE TABLE recipes (name TEXT)", "INSERT INTO recipes VALUES ('soup')")
    before = _digest(db)
    with pytest.raises(RecordsError, match="another application"):
        RecordStore.open(tmp_path)
    assert _digest(db) == before


def test_a_truncated_database_is_refused(tmp_path: Path) -> None:
    _store_with_records(tmp_path).close()
    db = tmp_path / "records.sqlite3"
    for extra in tmp_path.glob("records.sqlite3-*"):  # fold the WAL in first
        extra.unlink()
    data = db.read_bytes()
    db.write_bytes(data[:100] + b"\x00" * 50)
    with pytest.raises(RecordsError):
        RecordStore.open(tmp_path).records()


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    _store_with_records(tmp_path).close()
    _sql(tmp_path / "records.sqlite3", "PRAGMA user_version=99")
    with pytest.raises(RecordsError, match="newer"):
        RecordStore.open(tmp_path)


def test_a_record_whose_text_is_no_longer_utf8_is_named_not_a_crash(tmp_path: Path) -> None:
    store = _store_with_records(tmp_path)
    _sql(store.path, "UPDATE records SET payload = CAST(X'7B2269223A34FF7D' AS TEXT) WHERE seq=4")
    result = store.verify()
    assert not result.ok and result.bad_seq == 4 and "record #4" in str(result.problem)
    with pytest.raises(RecordsError, match="damaged"):
        store.records()


def test_a_damaged_state_row_is_a_records_error(tmp_path: Path) -> None:
    store = _store_with_records(tmp_path)
    _sql(store.path, "UPDATE state SET body = CAST(X'7BFF' AS TEXT) WHERE id=1")
    before = store.path.read_bytes()
    with pytest.raises(RecordsError, match="is damaged and cannot be read"):
        store.state()
    assert store.path.read_bytes() == before
