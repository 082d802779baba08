"""The station's records: an append-only, hash-chained journal in SQLite.

Every step of a drop (intent, release, reading, correction, resolution, clean-up) and every change
of the session is one record. A record's hash covers its own content, the hash of the record before
it, and the SHA-256 of every image file it names, so editing, deleting or reordering a record (or
swapping a photo) breaks the chain at a place :func:`RecordStore.verify` can name.

How a record is hashed and how the chain is walked live in :mod:`controller.records_chain`.

The session's current state is kept beside the journal (``state`` table) and written in the same
transaction as the record that changed it, so a process killed at any moment leaves either both or
neither: the journal never loses a committed record and the state never runs ahead of it.

Damage stops the writing. A store opened for writing verifies the whole chain first, and any
verification that finds a problem (there or in ``tower log verify``) puts the store in read-only mode:
every append is refused with :class:`RecordsReadOnly`, naming the damage, until the host
acknowledges it (:meth:`RecordStore.acknowledge`, ``tower log acknowledge --who NAME``). The
acknowledgement is itself a record that lists the problems it covers; later verifications still
report them, as acknowledged, and stop the writing again for any new one.

A store that cannot be written at all (a read-only file or directory, a full disk) says so in
words: opening a read-only database for writing is refused with :class:`RecordsError`, while
``tower status`` and ``tower log`` open it read-only and can still read it; an append that fails
for lack of space raises :class:`RecordsWriteError` and keeps nothing of the record.

The database is identified by SQLite's ``application_id`` header field. A file that is not SQLite,
or is a SQLite database of some other application, or of a newer schema, is refused with a clear
error and left untouched; a new database is built in a temporary file and renamed into place, so a
half-created file never exists.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.records_chain import (
    ACKNOWLEDGED,
    Problem,
    VerifyResult,
    canonical,
    file_sha256,
    record_hash,
    walk,
)

__all__ = ["ACKNOWLEDGED", "Problem", "Record", "RecordStore", "RecordsError", "RecordsReadOnly", "RecordsWriteError",
           "VerifyResult", "canonical", "file_sha256", "record_hash"]

#: "WTWR" as a 32-bit integer: marks a file as this project's records database.
APPLICATION_ID = 0x57545752
SCHEMA_VERSION = 1
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


class RecordsReadOnly(RecordsError):
    """The records are damaged and the host has not acknowledged it yet: nothing may be appended."""


class RecordsWriteError(OSError):
    """A record could not be written (a full disk, a read-only file); nothing of it was kept.

    ``str()`` is the message alone (no "[Errno N]"); ``errno`` says which OS error it was."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.errno = code
        self.strerror = message


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

    def __init__(self, path: Path, data_dir: Path, conn: sqlite3.Connection, *, writable: bool = True) -> None:
        self.path = path
        self.data_dir = data_dir
        self._conn = conn
        self.writable = writable
        #: The verification that found unacknowledged damage: while set, nothing but an
        #: acknowledgement is appended.
        self.damage: VerifyResult | None = None

    # -- opening ---------------------------------------------------------------------------------
    @classmethod
    def open(cls, data_dir: Path | str, name: str = "records.sqlite3", *, read_only: bool = False) -> RecordStore:
        """Open (or, for writing, create) the records of ``data_dir``.

        For writing, the database must be writable (a read-only one is refused, naming the problem)
        and its chain is verified: damage puts the store in read-only mode (``damage``). With
        ``read_only`` nothing is created or written, so a read-only file or directory can be read."""
        data_dir = Path(data_dir)
        path = data_dir / name
        if read_only:
            if not path.exists():
                raise RecordsError(f"there are no records in {data_dir}")
            _check_existing(path)
            return cls(path, data_dir, _connect_read_only(path), writable=False)
        try:
            data_dir.mkdir(parents=True, exist_ok=True)
            if path.exists():
                _check_existing(path)
            else:
                cls._create(path)
        except (PermissionError, sqlite3.OperationalError) as exc:
            raise RecordsError(f"cannot create the records in {data_dir}: {_reason(exc)}") from exc
        try:
            conn = _connect(path)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.DatabaseError as exc:
            raise RecordsError(f"{path} cannot be read as a records database: {exc}") from exc
        missing = {"records", "state", "chain_head"} - tables
        if missing:
            conn.close()
            raise RecordsError(f"{path} is damaged: table(s) {', '.join(sorted(missing))} missing")
        try:  # a read-only file opens without complaint; the first write would fail (nothing is kept)
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.execute("UPDATE chain_head SET seq=seq WHERE id=1")
            finally:
                conn.execute("ROLLBACK")
        except sqlite3.OperationalError as exc:
            conn.close()
            raise RecordsError(f"{path} cannot be written ({_reason(exc)}): the station cannot record "
                               "battles; `tower status` and `tower log` can still read it") from exc
        store = cls(path, data_dir, conn)
        try:
            store.verify()
        except BaseException:
            conn.close()
            raise
        return store

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

    @property
    def read_only_reason(self) -> str | None:
        """Why nothing may be appended now (damage not yet acknowledged), or None."""
        if self.damage is None:
            return None
        return (f"the records are damaged ({self.damage.problem}); the station is read-only until the host "
                "acknowledges it: `tower log acknowledge --who NAME` (or on the page)")

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
            self._conn.execute("COMMIT")
        except BaseException:
            if self._conn.in_transaction:  # SQLite may have rolled back already (a full disk)
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("ROLLBACK")
            raise

    def append(self, kind: str, payload: dict[str, Any], *, drop_id: int | None = None,
               images: dict[str, Path] | None = None, state: dict[str, Any] | None = None) -> Record:
        """Commit one record (and, in the same transaction, the new session state).

        ``images`` maps a role ("raw", "annotated") to a file inside the data directory, already
        written; its SHA-256 becomes part of the record.

        Refused with :class:`RecordsReadOnly` while the records are damaged (an acknowledgement
        excepted); a failed write raises :class:`RecordsWriteError` and keeps nothing."""
        if self.damage is not None and kind != ACKNOWLEDGED:
            raise RecordsReadOnly(self.read_only_reason or "the records are damaged")
        if not self.writable:
            raise RecordsWriteError(errno.EROFS, f"the records in {self.data_dir} were opened for reading only")
        try:
            return self._append(kind, payload, drop_id, images, state)
        except (sqlite3.OperationalError, OSError) as exc:
            raise RecordsWriteError(getattr(exc, "errno", None) or errno.EIO,
                                    f"the {kind} record could not be written to {self.path} ({_reason(exc)}); "
                                    "nothing of it was kept: free space or fix the permissions and try again"
                                    ) from exc

    def _append(self, kind: str, payload: dict[str, Any], drop_id: int | None, images: dict[str, Path] | None,
                state: dict[str, Any] | None) -> Record:
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
    def verify(self, *, images: bool = True) -> VerifyResult:
        """Walk the chain from the first record and name every record that is not as written
        (:func:`controller.records_chain.walk`; ``images`` false skips hashing the photos).

        Problems covered by an acknowledgement record are reported as acknowledged; any other puts
        the store in read-only mode (``damage``) until acknowledged."""
        with self._readable():
            # Text read as bytes and decoded leniently: a record whose text is not even UTF-8 any more is
            # named as edited (its hash no longer matches) instead of stopping the walk.
            rows = [tuple(v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in row)
                    for row in self._conn.execute(
                        "SELECT seq, ts, CAST(kind AS BLOB), drop_id, CAST(payload AS BLOB), CAST(images AS BLOB), "
                        "CAST(prev_hash AS BLOB), CAST(hash AS BLOB) FROM records ORDER BY seq")]
            head_seq, head_hash = self._conn.execute("SELECT seq, hash FROM chain_head WHERE id=1").fetchone()
        result = walk(rows, head_seq, head_hash, self.data_dir, check_images=images)
        self.damage = None if result.ok else result
        return result

    def acknowledge(self, who: str, note: str = "") -> VerifyResult:
        """The host has seen the damage: record which problems are acknowledged, and write again.

        Returns the verification before the acknowledgement (``ok`` when there was nothing to
        acknowledge, and then nothing is written)."""
        if not who or not who.strip():
            raise RecordsError("say who acknowledges the damage (--who NAME)")
        result = self.verify()
        if result.ok:
            return result
        state = self.state()
        self.append(ACKNOWLEDGED, {"who": who.strip(), "when": time.time(), "note": note,
                                   "problems": [p.as_dict() for p in result.problems]},
                    state=state)
        self.verify()
        return result


def _connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None, timeout=30.0, check_same_thread=False)


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """A connection that never writes: ``mode=ro``, or, where SQLite cannot even keep its shared-memory
    file beside a read-only database, ``immutable=1`` (nothing else may write it meanwhile)."""
    uri = path.resolve().as_uri()
    last: sqlite3.Error | None = None
    for options in ("mode=ro", "mode=ro&immutable=1"):
        try:
            conn = sqlite3.connect(f"{uri}?{options}", uri=True, isolation_level=None, check_same_thread=False)
            conn.execute("SELECT seq FROM chain_head").fetchone()
            return conn
        except sqlite3.OperationalError as exc:
            last = exc
        except sqlite3.DatabaseError as exc:
            raise RecordsError(f"{path} cannot be read as a records database: {exc}") from exc
    raise RecordsError(f"{path} cannot be opened for reading: {_reason(last)}")


def _reason(exc: BaseException | None) -> str:
    """An OS or SQLite error in the user's words."""
    text = str(exc or "")
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC or "disk is full" in text:
        return "the disk is full"
    if isinstance(exc, PermissionError) or "readonly" in text or "read-only" in text:
        return "it is read-only: permission denied"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return text or type(exc).__name__
