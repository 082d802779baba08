"""The board's release count as it is kept across resets (the Pico's flash, a file in simulation).

The count is saved *before* the servo moves, so it can never be lower than the number of times the
trapdoor opened; a host that restarted asks the board, not its own memory, whether the funnel
opened (``RELEASE_COUNT``, ``docs/protocol.md``). The saved bytes are a magic, the count and a
CRC-32 of both. Plain Python in the common subset of CPython and MicroPython, like ``tray_board``;
the HAL provides ``load_blob()``/``save_blob(data)`` where it can keep a few bytes.
"""

import struct

TYPE_CHECKING = False  # MicroPython has no typing module: what it guards is for mypy only
if TYPE_CHECKING:
    from typing import Any

    from firmware import tray_protocol as tp
else:
    try:
        import tray_protocol as tp
    except ImportError:  # on the host the firmware is the ``firmware`` package
        from firmware import tray_protocol as tp

COUNT_MAGIC = b"TRC1"


class StorageError(OSError):
    """The release count could not be saved."""


def load_count(hal: "Any") -> tuple[int, bool]:
    """``(count, persistent)``: the release count saved before the last reset, if any."""
    load = getattr(hal, "load_blob", None)
    if load is None:
        return 0, False
    try:
        blob = load()
    except Exception:  # noqa: BLE001 - an unreadable flash is a count that cannot be trusted
        blob = None
    if blob is None:
        return 0, True  # never saved: a new board (or erased flash) that has released nothing
    if len(blob) == 12 and blob[:4] == COUNT_MAGIC:
        count, crc = struct.unpack("<II", blob[4:])
        if tp.crc32(blob[:8]) == crc:
            return count, True
    # A damaged count: counting on from 0 could make a release look "not done" to a host that
    # saw a higher count. Report it as not persistent, so the host treats it like a reset.
    return 0, False


def save_count(hal: "Any", count: int) -> None:
    """Keep ``count`` across resets; ``StorageError`` when the HAL cannot (the release is refused)."""
    save = getattr(hal, "save_blob", None)
    if save is None:
        return
    head = COUNT_MAGIC + struct.pack("<I", count)
    try:
        save(head + struct.pack("<I", tp.crc32(head)))
    except Exception as exc:  # noqa: BLE001
        raise StorageError("the release count could not be saved: " + str(exc)) from exc
