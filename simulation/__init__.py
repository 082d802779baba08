"""Every simulated device and the simulated world, in one place.

``SimWorld`` (``world.py``) is the one simulated world that the simulated funnel, camera and board
act on: a release moves cubes from the funnel through the simulated tower (``tower.py``, built on
``towermodel``) into the tray, the beam counts what came out, and the camera renders what lies there
with the synthetic renderer (``synth/``). Beside it: the devices (``funnel.py``, ``camera.py``,
``board.py``, ``panel.py``), the MicroPython firmware on a pty coupled to the world
(``firmware_pty.py``, ``coupled.py``), the link's fault injection, in-process board and soak
(``link/``), the synthetic colour profile and the players' hands.

Only the station factory (``station.factory``), the tests and the benches import this package:
nothing above the factory can tell a simulated station from a real one.
"""

from simulation.faults import SimFaults
from simulation.tower import TOWER_MODELS, TowerModel, make_tower_model
from simulation.tray import TrayPiece
from simulation.world import SimWorld

__all__ = ["TOWER_MODELS", "SimFaults", "SimWorld", "TowerModel", "TrayPiece", "make_tower_model"]
