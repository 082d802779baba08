"""The simulated funnel release: the servo that moves the simulated world's cubes."""

from __future__ import annotations

import time

from hardware.funnel import Sleep
from hardware.interfaces import FunnelRelease, ReleaseCounter
from simulation.world import SimWorld


class SimFunnelRelease(FunnelRelease):
    """The simulated trapdoor: a release moves the simulated funnel's cubes into the tower.

    A servo jam (fault ``servo_jam``) is silent, as on the real station where the servo cannot tell
    that the trapdoor stuck: the cubes stay in the funnel and the controller must notice from the
    beam count and the tray.
    """

    def __init__(self, table: SimWorld, *, dwell_s: float = 0.0, sleep: Sleep = time.sleep) -> None:
        self.table = table
        self.dwell_s = dwell_s
        self._sleep = sleep
        self.sweeps = 0

    def release(self) -> None:
        jammed = self.table.faults.strikes("servo_jam")
        if self.dwell_s:
            self._sleep(self.dwell_s)
        self.table.release(jammed=jammed)

    def release_counter(self) -> ReleaseCounter:
        """The simulated servo's own count: saved in the world's file in the same atomic write as
        the cubes' move, so it survives the controller's death exactly as the cubes do."""
        return ReleaseCounter(self.table.release_count, None, True)

    def sweep(self) -> None:
        """Open and close without a battle. As on the real station, cubes left in the funnel fall."""
        self.sweeps += 1
        if self.table.funnel_contents():
            self.table.release(jammed=False)

    def describe(self) -> str:
        return f"simulated servo ({self.table.tower.name} tower)"
