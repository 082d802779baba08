"""The station's records: an append-only, hash-chained journal in SQLite.

Every step of a drop (intent, release, reading, correction, resolution, clean-up) and every change
of the session is one record. A record's hash covers its own content, the hash of the record before
it, and the SHA-256 of every image file it names, so editing, deleting or reordering a record (or
swapping a photo) breaks the chain at a place :func:`RecordStore.verify` can name.

The session's current state is kept beside the journal (``state`` table) and written in the same
transaction as the record that changed it, so a process killed at any moment leaves either both or
neither: the journal never loses a committed record and the state never runs ahead of it.

The database is identified by SQLite's ``application_id`` header field. A file that is not SQLite,
or is a SQLite database of some other application, or of a newer schema, is refused with a clear
error and left untouched; a new database is built in a temporary file and renamed into place, so a
half-created file never exists.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: "WTWR" as a 32-bit integer: marks a file as this project's records database.
APPLICATION_ID = 0x57545752
SCHEMA_VERSION = 1
GENESIS = "0" * 64
SQLITE_MAGIC = b"SQLite format 3\x00"

_SCHEMA = """
CREATE TABLE records (
    seq        INTEGER PRIMARY KEY,
    ts         REAL    NOT NULL,
    kind       TEXT    NOT NULL,
    drop_id    INTEGER,
    payload    TEXT    NOT NULL,
    images     TEXT    NOT NULL,
    prev_hash  TEXT    NOT NULL,
    hash       TEXT    NOT NULL
);
CREATE INDEX records_drop ON records(drop_id);
CREATE TABLE state (
    id    INTEGER PRIMARY KEY CHECK (id = 1),
    body  TEXT NOT NULL
);
CREATE TABLE chain_head (
    id    INTEGER PRIMARY KEY CHECK (id = 1),
    seq   INTEGER NOT NULL,
    hash  TEXT NOT NULL
);
INSERT INTO chain_head (id, seq, hash) VALUES (1, 0, '0000000000000000000000000000000000000000000000000000000000000000');
"""


class RecordsError(ValueError):
    """The records database cannot be used (corrupt, foreign, newer schema); nothing was changed."""


@dataclass(frozen=True)
class Record:
    seq: int
    ts: float
    kind: str
    drop_id: int | None
    payload: dict[str, Any]
    images: dict[str, dict[str, str]]  # role -> {"path": relative path, "sha256": hex}
    prev_hash: str
    hash: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "seq": self.seq, "ts": self.ts, "kind": self.kind, "drop_id": self.drop_id,
            "payload": self.payload, "images": self.images, "prev_hash": self.prev_hash, "hash": self.hash,
        }


@dataclass(frozen=True)
class VerifyResult:
    ok: bool
    records: int
    bad_seq: int | None = None
    problem: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "records": self.records, "bad_seq": self.bad_seq, "problem": self.problem}


def canonical(obj: Any) -> str:
    """The one JSON spelling that is hashed (sorted keys, no spaces): the same content, the same hash."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def record_hash(seq: int, ts: float, kind: str, drop_id: int | None, payload_json: str, images_json: str,
                prev_hash: str) -> str:
    body = canonical([seq, repr(float(ts)), kind, drop_id, payload_json, images_json, prev_hash])
    return hashlib.sha256(body.encode("ascii")).hexdigest()


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def _check_existing(path: Path) -> None:
    """Refuse, without writing a byte, any file that is not our records database."""
    with open(path, "rb") as fh:
        head = fh.read(100)
    if len(head) < 100 or not head.startswith(SQLITE_MAGIC):
        raise RecordsError(f"{path} is not a SQLite database (corrupt or foreign file); it was left untouched")
    app_id = int.from_bytes(head[68:72], "big")
    if app_id != APPLICATION_ID:
        raise RecordsError(
            f"{path} is a SQLite database of another application (application_id {app_id:#x}); "
            "it was left untouched — choose another data directory")
    version = int.from_bytes(head[60:64], "big")
    if version > SCHEMA_VERSION:
        raise RecordsError(f"{path} uses records schema {version}, newer than this program's {SCHEMA_VERSION}")


class RecordStore:
    """The journal and the state snapshot of one data directory."""

    def __init__(self, path: Path, data_dir: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self.data_dir = data_dir
        self._conn = conn

    # -- opening ---------------------------------------------------------------------------------
    @classmethod
    def open(cls, data_dir: Path | str, name: str = "records.sqlite3") -> RecordStore:
        data_dir = Path(data_dir)
        data_dir.mkdir(parents=True, exist_ok=True)
        path = data_dir / name
        if path.exists():
            _check_existing(path)
        else:
            cls._create(path)
        try:
            conn = sqlite3.connect(path, isolation_level=None, timeout=30.0, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.DatabaseError as exc:
            raise RecordsError(f"{path} cannot be read as a records database: {exc}") from exc
        missing = {"records", "state", "chain_head"} - tables
        if missing:
            conn.close()
            raise RecordsError(f"{path} is damaged: table(s) {', '.join(sorted(missing))} missing")
        return cls(path, data_dir, conn)

    @staticmethod
    def _create(path: Path) -> None:
        tmp = path.with_name(f".{path.name}.{os.getpid()}.new")
        if tmp.exists():
            tmp.unlink()
        conn = sqlite3.connect(tmp, isolation_level=None)
        try:
            conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            conn.executescript(_SCHEMA)
        finally:
            conn.close()
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        # A link fails if another process created the file meanwhile: theirs wins, ours is dropped.
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        finally:
            tmp.unlink()
        _check_existing(path)

    def close(self) -> None:
        self._conn.close()

    @contextmanager
    def _readable(self) -> Iterator[None]:
        """A file whose header is intact but whose pages or text are damaged is a RecordsError naming
        it (a clear message, exit 2), never a traceback; nothing is written to it."""
        try:
            yield
        except (sqlite3.DatabaseError, ValueError) as exc:  # ValueError: bad JSON or UTF-8 in a row
            if isinstance(exc, RecordsError):
                raise
            raise RecordsError(f"{self.path} is damaged and cannot be read ({str(exc)[:100]}); "
                               "it was left untouched") from exc

    # -- writing -----------------------------------------------------------------------------------
    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield self._conn
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    def append(self, kind: str, payload: dict[str, Any], *, drop_id: int | None = None,
               images: dict[str, Path] | None = None, state: dict[str, Any] | None = None) -> Record:
        """Commit one record (and, in the same transaction, the new session state).

        ``images`` maps a role ("raw", "annotated") to a file inside the data directory, already
        written; its SHA-256 becomes part of the record."""
        image_refs: dict[str, dict[str, str]] = {}
        for role, file in (images or {}).items():
            file = Path(file)
            rel = file.resolve().relative_to(self.data_dir.resolve())
            image_refs[role] = {"path": rel.as_posix(), "sha256": file_sha256(file)}
        payload_json = canonical(payload)
        images_json = canonical(image_refs)
        with self._tx() as conn:
            head_seq, head_hash = conn.execute("SELECT seq, hash FROM chain_head WHERE id=1").fetchone()
            seq = head_seq + 1
            ts = time.time()
            digest = record_hash(seq, ts, kind, drop_id, payload_json, images_json, head_hash)
            conn.execute(
                "INSERT INTO records (seq, ts, kind, drop_id, payload, images, prev_hash, hash) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (seq, ts, kind, drop_id, payload_json, images_json, head_hash, digest))
            conn.execute("UPDATE chain_head SET seq=?, hash=? WHERE id=1", (seq, digest))
            if state is not None:
                conn.execute("INSERT OR REPLACE INTO state (id, body) VALUES (1, ?)", (canonical(state),))
        return Record(seq, ts, kind, drop_id, payload, image_refs, head_hash, digest)

    # -- reading -------------------------------------------------------------------------------
    def state(self) -> dict[str, Any] | None:
        with self._readable():
            row = self._conn.execute("SELECT body FROM state WHERE id=1").fetchone()
            return None if row is None else json.loads(row[0])

    def _rows(self, where: str = "", args: tuple[Any, ...] = ()) -> list[Record]:
        out = []
        with self._readable():
            for seq, ts, kind, drop_id, payload, images, prev_hash, digest in self._conn.execute(
                    f"SELECT seq, ts, kind, drop_id, payload, images, prev_hash, hash FROM records {where} "
                    "ORDER BY seq", args):
                out.append(Record(seq, ts, kind, drop_id, json.loads(payload), json.loads(images), prev_hash,
                                  digest))
        return out

    def records(self, drop_id: int | None = None) -> list[Record]:
        if drop_id is None:
            return self._rows()
        return self._rows("WHERE drop_id=?", (drop_id,))

    def count(self) -> int:
        return int(self._conn.execute("SELECT COUNT(*) FROM records").fetchone()[0])

    # -- checking ------------------------------------------------------------------------------
    def verify(self) -> VerifyResult:
        """Walk the chain from the first record and name the first one that is not as written.

        A gap in ``seq`` is a deleted record; a ``prev_hash`` that is not the previous record's hash
        is a reordered or replaced one; a hash that does not match the content is an edited one; a
        photo whose SHA-256 changed is a swapped image; and a chain shorter than its recorded head
        means the last records were deleted."""
        with self._readable():
            # Text read as bytes and decoded leniently: a record whose text is not even UTF-8 any more is
            # named as edited (its hash no longer matches) instead of stopping the walk.
            rows = [tuple(v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in row)
                    for row in self._conn.execute(
                        "SELECT seq, ts, CAST(kind AS BLOB), drop_id, CAST(payload AS BLOB), CAST(images AS BLOB), "
                        "CAST(prev_hash AS BLOB), CAST(hash AS BLOB) FROM records ORDER BY seq")]
            head_seq, head_hash = self._conn.execute("SELECT seq, hash FROM chain_head WHERE id=1").fetchone()
        prev = GENESIS
        expected_seq = 1
        for seq, ts, kind, drop_id, payload, images, prev_hash, digest in rows:
            label = f"record #{seq} ({kind}{'' if drop_id is None else f' of drop {drop_id}'})"
            if seq != expected_seq:
                return VerifyResult(False, len(rows), expected_seq,
                                    f"record #{expected_seq} is missing (deleted): the next one is #{seq}")
            if prev_hash != prev:
                return VerifyResult(False, len(rows), seq,
                                    f"{label} does not follow record #{seq - 1}: records were reordered, "
                                    "removed or replaced")
            if record_hash(seq, ts, kind, drop_id, payload, images, prev_hash) != digest:
                return VerifyResult(False, len(rows), seq, f"{label} was edited: its content no longer matches its hash")
            for role, ref in json.loads(images).items():
                file = self.data_dir / ref["path"]
                if not file.is_file():
                    return VerifyResult(False, len(rows), seq, f"{label}: its {role} image {ref['path']} is missing")
                if file_sha256(file) != ref["sha256"]:
                    return VerifyResult(False, len(rows), seq, f"{label}: its {role} image {ref['path']} was changed")
            prev = digest
            expected_seq += 1
        if head_seq != expected_seq - 1 or head_hash != prev:
            return VerifyResult(False, len(rows), head_seq,
                                f"the chain ends at record #{expected_seq - 1} but #{head_seq} was written: "
                                "the last record(s) were deleted")
        return VerifyResult(True, len(rows))
