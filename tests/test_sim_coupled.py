"""The coupling between the firmware's release and the simulated cubes: cubes fall exactly when the
firmware's servo really opened, whatever the link could confirm."""

from __future__ import annotations

from pathlib import Path

import pytest

from hardware.errors import LinkError, ReleaseError
from hardware.interfaces import ReleaseCounter
from simulation import SimWorld
from simulation.coupled import SimCoupledBoard, SimCoupledRelease


class FakeFirmware:
    def __init__(self) -> None:
        self.log: list[dict] = []

    def log_size(self) -> int:
        return len(self.log)

    def events(self, since: int = 0) -> list[dict]:
        return list(self.log[since:])


class FakeInnerBoard:
    def __init__(self) -> None:
        self.fed = 0

    def simulate_beam(self, n: int) -> int:
        self.fed += n
        return self.fed


class FakeRelease:
    """Stands in for SerialFunnelRelease: may move the firmware's servo, may fail to confirm."""

    open_angle = 100.0

    def __init__(self, firmware: FakeFirmware, *, opens: bool, error: ReleaseError | None, count: int = 1) -> None:
        self.firmware, self.opens, self.error = firmware, opens, error
        self.count = count  # the board's own release count (one earlier release)
        self.last_release_number: int | None = None
        self.reachable = True

    def release_counter(self) -> ReleaseCounter:
        if not self.reachable:
            raise LinkError("no answer")
        return ReleaseCounter(self.count, 0xB007, True)

    def release(self) -> None:
        if self.opens:
            self.count += 1
            self.last_release_number = self.count
            self.firmware.log += [{"ev": "servo", "v": 1000}, {"ev": "servo", "v": 10000},
                                  {"ev": "servo", "v": 1000}, {"ev": "servo", "v": None}]
        if self.error is not None:
            raise self.error


def _coupled(tmp_path: Path, *, opens: bool, error: ReleaseError | None):  # noqa: ANN202
    table = SimWorld(tmp_path / "w.json", seed=3)
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
    assert inner_board.fed == sum(table.tray_contents().values()) == table.beam_count()


def test_the_firmware_beam_is_fed_the_clumps_the_world_counted(tmp_path: Path) -> None:
    """Cubes that cross the beam together count once on the firmware station as on the default one."""
    table, inner_board, release = _coupled(tmp_path, opens=True, error=None)
    table.beam_clump = 0.5
    table.load_funnel({"red": 20, "blue": 10})
    release.release()
    came_out = sum(table.tray_contents().values())
    assert inner_board.fed == table.beam_count() < came_out


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


def test_a_release_the_host_never_heard_of_drops_its_cubes_when_the_station_opens_again(tmp_path: Path) -> None:
    """The controller died while the board's trapdoor was open: the board counted the release, the
    world never saw it. The next station to open lets the cubes fall, once."""
    table, inner_board, release = _coupled(tmp_path, opens=True, error=None)
    assert table.board_releases == 1  # adopted the board's count, nothing moved
    table.load_funnel({"red": 10})
    release.inner.count += 1  # the board opened (and counted) while the host was being killed
    again = SimCoupledRelease(release.inner, release.board)  # the next controller process
    assert table.funnel_contents() == {} and table.release_count == 1 and table.board_releases == 2
    assert again.release_counter() == ReleaseCounter(2, 0xB007, True)  # the board's, not the world's
    SimCoupledRelease(release.inner, release.board)
    assert table.release_count == 1  # a third opening changes nothing: the world is in step


def test_an_unreachable_board_moves_nothing_on_opening(tmp_path: Path) -> None:
    table, _, release = _coupled(tmp_path, opens=True, error=None)
    table.load_funnel({"red": 10})
    release.inner.count += 1
    release.inner.reachable = False
    SimCoupledRelease(release.inner, release.board)
    assert table.funnel_contents() == {"red": 10}  # asked again before the next release
