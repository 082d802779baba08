"""The coupling between the firmware's release and the simulated cubes: cubes fall exactly when the
firmware's servo really opened, whatever the link could confirm."""

from __future__ import annotations

from pathlib import Path

import pytest

from hardware.errors import ReleaseError
from hardware.serial_glue import SimCoupledBoard, SimCoupledRelease
from hardware.sim import SimTable


class FakeFirmware:
    def __init__(self) -> None:
        self.log: list[dict] = []

    def events(self) -> list[dict]:
        return list(self.log)


class FakeInnerBoard:
    def __init__(self) -> None:
        self.fed = 0

    def simulate_beam(self, n: int) -> int:
        self.fed += n
        return self.fed


class FakeRelease:
    """Stands in for SerialFunnelRelease: may move the firmware's servo, may fail to confirm."""

    open_angle = 100.0

    def __init__(self, firmware: FakeFirmware, *, opens: bool, error: ReleaseError | None) -> None:
        self.firmware, self.opens, self.error = firmware, opens, error

    def release(self) -> None:
        if self.opens:
            self.firmware.log += [{"ev": "servo", "v": 1000}, {"ev": "servo", "v": 10000},
                                  {"ev": "servo", "v": 1000}, {"ev": "servo", "v": None}]
        if self.error is not None:
            raise self.error


def _coupled(tmp_path: Path, *, opens: bool, error: ReleaseError | None):  # noqa: ANN202
    table = SimTable(tmp_path / "w.json", seed=3)
    fw = FakeFirmware()
    fw.log.append({"ev": "servo", "v": 10000})  # an earlier release, before this one
    inner_board = FakeInnerBoard()
    board = SimCoupledBoard(inner_board, table, fw)
    return table, inner_board, SimCoupledRelease(FakeRelease(fw, opens=opens, error=error), board)


def test_confirmed_release_drops_the_cubes_and_feeds_the_beam(tmp_path: Path) -> None:
    table, inner_board, release = _coupled(tmp_path, opens=True, error=None)
    table.load_funnel({"red": 10})
    release.release()
    assert table.funnel_contents() == {}
    assert inner_board.fed == sum(table.tray_contents().values())


def test_unconfirmed_release_that_really_opened_drops_the_cubes(tmp_path: Path) -> None:
    table, _, release = _coupled(tmp_path, opens=True, error=ReleaseError("ack lost"))
    table.load_funnel({"red": 10})
    with pytest.raises(ReleaseError):
        release.release()
    assert table.funnel_contents() == {} and table.release_count == 1


def test_release_that_never_reached_the_board_leaves_the_cubes(tmp_path: Path) -> None:
    table, inner_board, release = _coupled(tmp_path, opens=False, error=ReleaseError("no board"))
    table.load_funnel({"red": 10})
    with pytest.raises(ReleaseError):
        release.release()
    assert table.funnel_contents() == {"red": 10} and table.release_count == 0 and inner_board.fed == 0
