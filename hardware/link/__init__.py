"""The host side of the tray-board link (``docs/protocol.md``).

``open_link(port, ...)`` gives a ready ``BoardLink`` over pyserial; ``hardware.serial_board`` puts
the ``TrayBoard`` and ``FunnelRelease`` interfaces on top of it. ``faults`` and ``loopback`` hold the
fault-injecting transport and the in-process board used by tests and the soak benchmark.
"""

from hardware.link.client import (
    BoardBusyError,
    BoardFaultError,
    BoardLink,
    BoardRejectedError,
    BoardStatus,
    LinkStats,
    ReleaseCount,
    open_link,
)

__all__ = ["BoardBusyError", "BoardFaultError", "BoardLink", "BoardRejectedError", "BoardStatus", "LinkStats",
           "ReleaseCount", "open_link"]
