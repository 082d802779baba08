"""Fault injection for the simulated station, in the spirit of OctoPrint's virtual printer.

Each fault has a rate (the share of operations it strikes, from ``[sim.faults]`` in the config) and
can also be armed for the next N operations from a test (``faults.arm("servo_jam")``), so a test can
say exactly which release jams without depending on a random draw.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field, fields

FAULTS = ("servo_jam", "camera_timeout", "camera_black", "serial_corrupt", "serial_loss", "board_reset")


@dataclass
class SimFaults:
    servo_jam: float = 0.0
    camera_timeout: float = 0.0
    camera_black: float = 0.0
    serial_corrupt: float = 0.0
    serial_loss: float = 0.0
    serial_delay_s: float = 0.0
    board_reset: float = 0.0
    seed: int = 0
    _armed: dict[str, int] = field(default_factory=dict, repr=False)
    _rng: random.Random = field(default_factory=random.Random, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        self._rng = random.Random(f"faults-{self.seed}")

    @classmethod
    def from_section(cls, section: object, seed: int = 0) -> SimFaults:
        """Rates from a ``FaultsSection`` of the config."""
        names = {f.name for f in fields(cls) if not f.name.startswith("_") and f.name != "seed"}
        return cls(**{n: getattr(section, n) for n in names}, seed=seed)

    def arm(self, name: str, times: int = 1) -> None:
        """Make the next ``times`` operations hit by fault ``name`` fail, whatever the rate."""
        if name not in FAULTS:
            raise ValueError(f"unknown fault {name!r} (known: {', '.join(FAULTS)})")
        with self._lock:
            self._armed[name] = self._armed.get(name, 0) + times

    def clear(self) -> None:
        """No faults: rates to zero and nothing armed."""
        with self._lock:
            self._armed.clear()
            for name in FAULTS:
                setattr(self, name, 0.0)
            self.serial_delay_s = 0.0

    def strikes(self, name: str) -> bool:
        """Draw whether fault ``name`` hits the operation about to happen."""
        with self._lock:
            if self._armed.get(name, 0) > 0:
                self._armed[name] -= 1
                return True
            rate = float(getattr(self, name))
            return rate > 0 and self._rng.random() < rate
