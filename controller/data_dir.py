"""The station's data directory: one process at a time holds it (an exclusive lock file), and the
records alone can be opened for reading beside the process that holds it.

Two controllers releasing the same funnel would break "exactly once" in a way no record could
repair, hence the lock; ``tower log`` and ``tower status`` only read, hence the read-only records.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from controller.records import RecordsError, RecordStore
from hardware.config import load_config


class StationBusy(RuntimeError):
    """Another process holds this data directory."""


def lock_data_dir(data_dir: Path) -> int:
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(data_dir / ".tower.lock", os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:  # a read-only directory or a full disk: say so before anything moves
        raise RecordsError(f"cannot use {data_dir} for the records ({exc.strerror or exc}): the station cannot "
                           "record battles; `tower status` and `tower log` can still read them") from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise StationBusy(f"another tower process is using {data_dir} (the web server or a running command); "
                          "stop it or use that one") from None
    return fd


def open_records(data_dir: str | Path) -> RecordStore:
    """The records alone (``tower log``): no devices are opened, no lock is taken for reading."""
    path = Path(data_dir)
    if not (path / "records.sqlite3").exists():
        raise RecordsError(f"there are no records in {path}")
    return RecordStore.open(path, read_only=True)


def records_dir(config_path: str | Path | None, data_dir: str | Path | None) -> Path:
    """The data directory a command means: ``--data-dir``, else the config's ``[station] data_dir``."""
    if data_dir is not None:
        return Path(data_dir)
    return load_config(config_path).data_dir
