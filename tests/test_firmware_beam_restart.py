"""The crash test's one failure, made to happen every time: on the firmware station the host dies
after the simulated cubes fell but before their pulses reached the firmware's beam. The next host
process starts the firmware afresh, whose beam reads 0; the station must not hold that count
against a right tray (docs/controller.md, *The beam is evidence*)."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.table import Table
from hardware.config import load_config
from simulation.coupled import SimCoupledRelease

REPO = Path(__file__).resolve().parent.parent


class HostDied(BaseException):
    """Stands for SIGKILL: no handler catches it."""


@pytest.mark.micropython
def test_a_host_dead_between_the_fall_and_the_beam_is_resumed_without_asking(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = load_config(REPO / "examples" / "sim-firmware.toml").replace(
        station={"data_dir": str(tmp_path)}, sim={"tray_reading": "direct"})
    table = Table.open(config=cfg)
    try:
        table.new_session(["red", "blue", "yellow"])
        table.release(table.fill()["drop_id"])
        status = table.status()
        assert status["drop"]["phase"] == "resolved" and not status["drop"]["needs_confirmation"]

        def fall_then_die(self: SimCoupledRelease, board_release: int | None) -> None:
            self.table.release(board_release=board_release)  # the cubes fell, the world saved them
            raise HostDied()  # ... and the beam never heard of them

        monkeypatch.setattr(SimCoupledRelease, "_fall", fall_then_die)
        planned = table.plan({"battle": "revolt", "defender": "red", "defending_armies": 3, "revolt_markers": 1})
        with pytest.raises(HostDied):
            table.release(planned["drop_id"])
        monkeypatch.undo()
    finally:
        table.close()  # the firmware process ends with the host, as on a SIGKILL
    table = Table.open(config=cfg)  # a new host process: a new firmware boot, its beam at 0
    try:
        drop = table.status()["drop"]
        assert drop["drop_id"] == planned["drop_id"] and drop["phase"] == "resolved", drop
        assert not drop["needs_confirmation"] and not drop.get("corrections")
        assert any("restarted after its break-beam was zeroed" in n for n in drop["notes"]), drop["notes"]
    finally:
        table.close()
