"""The simulated table: a tower with seeded models, the tray's physical contents, and fault injection.

``SimTable`` is the one simulated world that the simulated funnel, camera and board all act on, so a
release moves cubes from the funnel through the tower into the tray, the beam counts what came out,
and the camera renders what lies there.
"""

from hardware.sim.faults import SimFaults
from hardware.sim.table import SimTable, TrayPiece
from hardware.sim.tower import TOWER_MODELS, TowerModel, make_tower_model

__all__ = ["TOWER_MODELS", "SimFaults", "SimTable", "TowerModel", "TrayPiece", "make_tower_model"]
