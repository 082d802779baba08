"""The simulated side of the tray-board link: a fault-injecting transport, an in-process board on
a virtual clock, the soak runs, and the opener that puts the simulated station's serial faults
between the host and the firmware (the production ``hardware.link.open_link`` takes none)."""

from __future__ import annotations

from hardware.link.client import BoardLink, link_over
from hardware.link.transport import SerialTransport, Transport
from simulation.link.faults import FaultInjectingTransport


def open_faulty_link(port: str, *, baudrate: int = 115200, timeout_s: float = 0.2, retries: int = 5,
                     heartbeat_s: float = 1.0, corrupt: float = 0.0, loss: float = 0.0, delay_s: float = 0.0,
                     seed: int | None = None) -> BoardLink:
    """``open_link`` with a ``FaultInjectingTransport`` between the host and the port where any
    fault rate is set (``[sim.faults] serial_*``); the plain serial link where none is."""
    transport: Transport = SerialTransport(port, baudrate)
    if corrupt or loss or delay_s:
        transport = FaultInjectingTransport(transport, corrupt=corrupt, loss=loss, delay_s=delay_s, seed=seed)
    return link_over(transport, timeout_s=timeout_s, retries=retries, heartbeat_s=heartbeat_s)


__all__ = ["open_faulty_link"]
