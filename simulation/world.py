"""The simulated table: funnel, tower and tray as they physically are, persisted across restarts.

A real station keeps its state in the world: cubes in the funnel stay there if the controller
crashes, cubes in the tray stay where they fell. The simulation must behave the same way, or crash
and resume tests would test nothing, so every change is written at once to a JSON state file
(atomically: a temporary file, fsync, rename), and a ``SimWorld`` opened on an existing file finds
the funnel, the tower, the tray (with each cube's position) and the release count as they were.

What the players' hands do is exposed as methods (``load_funnel``, ``take_from_tray``); what the
devices do is called by the simulated backends (``release`` by the servo, ``beam_count`` by the
board, ``frame_scene`` by the camera).
"""

from __future__ import annotations

import json
import os
import random
import tempfile
import threading
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from hardware.config import DEFAULT_BEAM_CLUMP
from simulation.faults import SimFaults
from simulation.tower import TowerModel, make_tower_model
from simulation.tray import FrameScene, TrayPiece, check_counts, nearest_free, place_cubes
from vision import geometry as g

STATE_VERSION = 1


class SimWorld:
    """The simulated world shared by the simulated funnel, camera and board.

    Thread-safe (the web app and the drop cycle may touch it from different threads). Every mutating
    method saves the state before it returns.
    """

    def __init__(self, state_file: Path | str, *, tower_model: str = "spielbyweb", seed: int = 1,
                 motion_frames: int = 4, faults: SimFaults | None = None,
                 beam_clump: float = DEFAULT_BEAM_CLUMP) -> None:
        self.state_file = Path(state_file)
        self.motion_frames = motion_frames
        self.beam_clump = beam_clump
        self.faults = faults or SimFaults(seed=seed)
        self._lock = threading.RLock()
        self._motion: list[tuple[TrayPiece, float, float]] = []
        self._motion_left = 0
        #: What the beam counted of the last release (a clump counts once): what a firmware
        #: station's board is fed (``simulation.coupled``), so that its beam undercounts as this one does.
        self.last_beam_passes = 0
        if self.state_file.exists():
            self._load(tower_model)
        else:
            self.tower: TowerModel = make_tower_model(tower_model)
            self._rng = random.Random(seed)
            self._funnel: Counter[str] = Counter()
            self._tray: list[TrayPiece] = []
            self._release_count = 0
            self._beam = 0
            self._boot_id = random.Random(f"boot-{seed}").getrandbits(31) or 1
            self._led_level = 1.0
            self._thrown = 0
            self._came_out = 0
            self._board_releases: int | None = None
            self._save()

    @classmethod
    def from_config(cls, cfg: Any) -> SimWorld:
        """The world of a ``StationConfig`` (its ``[sim]`` section and state file)."""
        return cls(cfg.sim_state_file, tower_model=cfg.sim.tower_model, seed=cfg.sim.seed,
                   motion_frames=cfg.sim.motion_frames,
                   faults=SimFaults.from_section(cfg.sim.faults, seed=cfg.sim.seed),
                   beam_clump=cfg.board.beam_clump)

    # -- persistence -------------------------------------------------------------------------------
    def _state(self) -> dict[str, Any]:
        version, internal, gauss = self._rng.getstate()
        return {
            "version": STATE_VERSION,
            "tower_model": self.tower.name,
            "tower": self.tower.state(),
            "funnel": dict(sorted((c, n) for c, n in self._funnel.items() if n)),
            "tray": [asdict(p) for p in self._tray],
            "release_count": self._release_count,
            "beam_count": self._beam,
            "boot_id": self._boot_id,
            "led_level": self._led_level,
            "cubes_thrown": self._thrown,
            "cubes_out": self._came_out,
            "board_releases": self._board_releases,
            "rng": [version, list(internal), gauss],
        }

    def _save(self) -> None:
        self.state_file.parent.mkdir(parents=True, exist_ok=True)
        data = json.dumps(self._state(), indent=1)
        fd, tmp = tempfile.mkstemp(prefix=".sim-world-", dir=self.state_file.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.state_file)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        dir_fd = os.open(self.state_file.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)

    def _load(self, tower_model: str) -> None:
        try:
            state = json.loads(self.state_file.read_text(encoding="utf-8"))
            if state.get("version") != STATE_VERSION:
                raise ValueError(f"version {state.get('version')!r}, expected {STATE_VERSION}")
            if state["tower_model"] != tower_model:
                raise ValueError(f"it holds a {state['tower_model']!r} tower but the config asks for "
                                 f"{tower_model!r}; delete the file to start a new world")
            self.tower = make_tower_model(state["tower_model"])
            self.tower.load_state(state["tower"])
            self._funnel = Counter({str(k): int(v) for k, v in state["funnel"].items()})
            self._tray = [TrayPiece(**p) for p in state["tray"]]
            self._release_count = int(state["release_count"])
            self._beam = int(state["beam_count"])
            self._boot_id = int(state["boot_id"])
            self._led_level = float(state["led_level"])
            self._thrown = int(state["cubes_thrown"])
            self._came_out = int(state["cubes_out"])
            board = state.get("board_releases")  # absent in worlds saved before the board counted
            self._board_releases = None if board is None else int(board)
            version, internal, gauss = state["rng"]
            self._rng = random.Random()
            self._rng.setstate((version, tuple(internal), gauss))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"simulated world {self.state_file} cannot be restored: {exc}") from exc

    # -- the players' hands ------------------------------------------------------------------------
    def load_funnel(self, counts: Mapping[str, int]) -> None:
        """Put cubes into the funnel (on top of any already there)."""
        clean = check_counts(counts, "load_funnel")
        with self._lock:
            self._funnel.update(clean)
            self._save()

    def take_from_tray(self, counts: Mapping[str, int]) -> None:
        """Pick cubes out of the tray (cubes on top first); all or nothing."""
        clean = check_counts(counts, "take_from_tray")
        with self._lock:
            have = Counter(p.colour for p in self._tray)
            short = {c: n for c, n in clean.items() if have[c] < n}
            if short:
                raise ValueError("take_from_tray: the tray holds only "
                                 + ", ".join(f"{have[c]} {c} (asked {n})" for c, n in short.items()))
            remaining = list(self._tray)
            for colour, n in clean.items():
                mine = sorted((p for p in remaining if p.colour == colour), key=lambda p: -p.level)
                for piece in mine[:n]:
                    remaining.remove(piece)
            self._tray = remaining
            self._motion = []
            self._motion_left = 0
            self._save()

    def clear_tray(self) -> dict[str, int]:
        """Take every cube out of the tray; returns what was taken."""
        with self._lock:
            taken = self.tray_contents()
            self._tray = []
            self._motion_left = 0
            self._save()
            return taken

    def add_to_tray(self, counts: Mapping[str, int]) -> None:
        """Put cubes into the tray by hand (a favor or bonus card placing armies from a supply)."""
        clean = check_counts(counts, "add_to_tray")
        with self._lock:
            colours = sorted(Counter(clean).elements())
            self._tray = self._tray + place_cubes(colours, self._tray, self._rng)
            self._save()

    def empty_all(self) -> dict[str, int]:
        """Take every cube out of the funnel, the tray and the tower (turned over and shaken), as the
        players do before a new game's initial fill; returns what was taken."""
        with self._lock:
            taken: Counter[str] = Counter(self.tower.contents())
            taken.update(self._funnel)
            taken.update(p.colour for p in self._tray)
            self.tower = make_tower_model(self.tower.name)
            self._funnel = Counter()
            self._tray = []
            self._motion = []
            self._motion_left = 0
            self._save()
            return {c: n for c, n in sorted(taken.items()) if n}

    # -- what an observer sees ---------------------------------------------------------------------
    def funnel_contents(self) -> dict[str, int]:
        with self._lock:
            return {c: n for c, n in sorted(self._funnel.items()) if n}

    def tray_contents(self) -> dict[str, int]:
        with self._lock:
            return dict(sorted(Counter(p.colour for p in self._tray).items()))

    def tray_pieces(self) -> list[TrayPiece]:
        with self._lock:
            return list(self._tray)

    def tower_contents(self) -> dict[str, int]:
        with self._lock:
            return self.tower.contents()

    @property
    def release_count(self) -> int:
        with self._lock:
            return self._release_count

    @property
    def board_releases(self) -> int | None:
        """The tray board's release count whose cubes have fallen in this world (firmware station):
        saved with the cubes' move, so a board release the host never reported is noticed."""
        with self._lock:
            return self._board_releases

    def note_board_releases(self, count: int) -> None:
        """Adopt a tray board's release count without moving anything (a new or reflashed board)."""
        with self._lock:
            self._board_releases = int(count)
            self._save()

    @property
    def statistics(self) -> dict[str, int]:
        """Cubes thrown and cubes that came out over the world's life."""
        with self._lock:
            return {"cubes_thrown": self._thrown, "cubes_out": self._came_out}

    # -- what the devices do -----------------------------------------------------------------------
    def release(self, *, jammed: bool = False, board_release: int | None = None) -> list[str]:
        """The servo opened the trapdoor: funnel -> tower -> tray. Returns the colours that came out.

        A jammed trapdoor still counts as a servo actuation but leaves every cube in the funnel.
        ``board_release``: the tray board's number of this release (firmware station), saved with it.
        """
        with self._lock:
            self._release_count += 1
            if board_release is not None:
                self._board_releases = int(board_release)
            if jammed:
                self._save()
                return []
            thrown = sorted(self._funnel.elements())
            self._rng.shuffle(thrown)
            self._funnel.clear()
            out = self.tower.drop(thrown, self._rng)
            new = place_cubes(out, self._tray, self._rng)
            self._tray = self._tray + new
            self.last_beam_passes = self.beam_passes(out)
            self._beam += self.last_beam_passes
            self._thrown += len(thrown)
            self._came_out += len(out)
            left, top, right, bottom = g.TRAY_INNER_MM
            exit_x, exit_y = left + 10.0, (top + bottom) / 2
            self._motion = [(p, exit_x + self._rng.uniform(-8, 8), exit_y + self._rng.uniform(-20, 20))
                            for p in new]
            self._motion_left = self.motion_frames if new else 0
            self._save()
            return out

    def beam_passes(self, out: list[str]) -> int:
        """What a single break-beam counts of ``out`` falling: a cube right behind another crosses
        the beam with it and is not counted, with chance ``beam_clump`` each. The draws come from
        their own generator, seeded by the release, so the tower's and the tray's randomness (and
        every seeded world) stay as they were."""
        if not out or self.beam_clump <= 0:
            return len(out)
        rng = random.Random(f"beam-{self._release_count}-{self._thrown}-{','.join(out)}")
        return 1 + sum(1 for _ in out[1:] if rng.random() >= self.beam_clump)

    def beam_count(self) -> int:
        with self._lock:
            return self._beam

    def reset_beam(self) -> None:
        with self._lock:
            self._beam = 0
            self._save()

    @property
    def boot_id(self) -> int:
        with self._lock:
            return self._boot_id

    def reset_board(self) -> int:
        """The tray board restarts: new boot id, its beam counter lost. Returns the new boot id."""
        with self._lock:
            self._boot_id = (self._boot_id * 1103515245 + 12345) % (2**31) or 1
            self._beam = 0
            self._led_level = 0.0
            self._save()
            return self._boot_id

    def set_leds(self, level: float) -> None:
        with self._lock:
            self._led_level = min(max(float(level), 0.0), 1.0)
            self._save()

    @property
    def led_level(self) -> float:
        with self._lock:
            return self._led_level

    def vibrate(self, seconds: float) -> None:
        """Shake the tray: cubes lying on others drop to the floor beside the pile."""
        with self._lock:
            if seconds <= 0:
                return
            floor = [p for p in self._tray if p.level == 0]
            for piece in [p for p in self._tray if p.level > 0]:
                spot = nearest_free(piece.x_mm, piece.y_mm, piece.angle_deg, floor)
                floor.append(replace(piece, level=1) if spot is None else
                             replace(piece, x_mm=spot[0], y_mm=spot[1], level=0))
            self._tray = floor
            self._save()

    def frame_scene(self) -> FrameScene:
        """The scene of the next camera frame: right after a release, cubes still rolling to rest."""
        with self._lock:
            if self._motion_left <= 0 or not self._motion:
                return FrameScene(tuple(self._tray), False, self._led_level)
            t = 1.0 - self._motion_left / (self.motion_frames + 1)
            self._motion_left -= 1
            ease = 1 - (1 - t) ** 2
            rolling = {id(p): (p, sx, sy) for p, sx, sy in self._motion}
            pieces = []
            for p in self._tray:
                if id(p) in rolling:
                    _, sx, sy = rolling[id(p)]
                    pieces.append(replace(p, x_mm=sx + (p.x_mm - sx) * ease, y_mm=sy + (p.y_mm - sy) * ease,
                                          angle_deg=(p.angle_deg + 180 * (1 - ease)) % 90, level=0))
                else:
                    pieces.append(p)
            return FrameScene(tuple(pieces), True, self._led_level)
