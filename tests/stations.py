"""A simulated station ready for a battle (tests of the drop cycle's gate): the session of red,
blue and yellow, the initial fill dropped and 15 armies of each deployed."""

from __future__ import annotations

from pathlib import Path

from controller.cycle import DropCycle
from controller.readers import DirectReader
from controller.records import RecordStore
from hardware.config import DEFAULT_BEAM_CLUMP
from simulation.board import SimTrayBoard
from simulation.funnel import SimFunnelRelease
from simulation.hands import SimHands
from simulation.world import SimWorld


def deployed_station(tmp: Path, beam_clump: float = DEFAULT_BEAM_CLUMP) -> tuple[SimWorld, DropCycle]:
    """The station in ``tmp`` (its records and simulated world); ``beam_clump`` 0.0 for a beam that
    counts exactly."""
    sim = SimWorld(tmp / "sim-world.json", seed=5, beam_clump=beam_clump)
    store = RecordStore.open(tmp)
    cyc = DropCycle(store, funnel=SimFunnelRelease(sim), reader=DirectReader(sim.tray_contents), hands=SimHands(sim),
                    tray_board=SimTrayBoard(sim))
    cyc.new_session(["red", "blue", "yellow"])
    cyc.release(cyc.plan({"battle": "initial_fill"})["drop_id"])
    for p in ("red", "blue", "yellow"):
        cyc.deploy(p, 15)
    return sim, cyc
