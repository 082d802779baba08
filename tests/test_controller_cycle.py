"""The drop cycle on the simulated table: every battle kind, the cube account, doubts and corrections,
and resuming after the process died at each step without ever releasing twice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller import session as ses
from controller.cycle import DropCycle, DropError, TrayMismatch
from controller.readers import DirectReader
from controller.records import RecordStore
from hardware.interfaces import BoardInfo, ReleaseCounter
from simulation.funnel import SimFunnelRelease
from simulation.hands import SimHands
from simulation.world import SimWorld
from station.hands import NoHands
from vision.reading import TrayReading


class Crash(BaseException):
    """Stands for SIGKILL: nothing after it runs, no handler catches it."""


class CrashingFunnel:
    """A simulated funnel that dies just before or just after the trapdoor moves; ``counted=False``
    is a bare servo that keeps no release count."""

    def __init__(self, sim: SimWorld, when: str, counted: bool = True) -> None:
        self.inner = SimFunnelRelease(sim)
        self.when, self.counted = when, counted

    def release_counter(self) -> ReleaseCounter | None:
        return self.inner.release_counter() if self.counted else None

    def release(self) -> None:
        if self.when == "before":
            raise Crash()
        self.inner.release()
        raise Crash()


class World:
    def __init__(self, tmp: Path, seed: int = 7) -> None:
        self.tmp = tmp
        self.sim = SimWorld(tmp / "sim-world.json", seed=seed)

    def cycle(self, funnel: Any = None, reader: Any = None, hands: bool = True, board: Any = None) -> DropCycle:
        store = RecordStore.open(self.tmp)
        return DropCycle(store, funnel=funnel or SimFunnelRelease(self.sim),
                         reader=reader or DirectReader(self.sim.tray_contents),
                         hands=SimHands(self.sim) if hands else NoHands(), tray_board=board)


ATTACK = {"battle": "attack", "attacker": "blue", "attacking_armies": 4, "defender": "yellow",
          "defending_armies": 3}


def _started(world: World, court: bool = False) -> DropCycle:
    cyc = world.cycle()
    cyc.new_session(["red", "blue", "yellow"], court)
    fill = cyc.plan({"battle": "initial_fill"})
    assert cyc.release(fill["drop_id"])["phase"] == "resolved"
    for p in ("red", "blue", "yellow"):
        cyc.deploy(p, 15)
    return cyc


def test_a_game_of_every_battle_kind_keeps_every_cube_accounted_for(tmp_path: Path) -> None:
    world = World(tmp_path)
    cyc = _started(world, court=True)
    battles = [
        ATTACK,
        {"battle": "attack", "attacker": "red", "attacking_armies": 3, "defender": None, "defending_armies": 0},
        {"battle": "revolt", "defender": "yellow", "defending_armies": 2, "revolt_markers": 1},
        {"battle": "winter_revolt", "defender": "blue", "defending_armies": 2, "revolt_markers": 0,
         "unsupplied_counties": 3},
    ]
    for battle in battles:
        planned = cyc.plan(battle)
        view = cyc.release(planned["drop_id"])
        assert view["phase"] == "resolved" and view["summary"] and view["instructions"]
        assert view["tray_after"] == world.sim.tray_contents()
        assert ses.conservation_errors(cyc.state) == []
    # the simulated tower holds exactly what the ledger says
    assert ses.clean(world.sim.tower_contents()) == ses.clean(cyc.state["tower"])
    assert world.sim.release_count == 1 + len(battles)
    assert cyc.store.verify().ok


def test_the_plan_takes_the_tray_and_fills_in_the_round(tmp_path: Path) -> None:
    world = World(tmp_path)
    cyc = _started(world)
    cyc.set_round("palace_defender_plus_one", {"attack_plus_one": "blue", "defence_plus_one": None}, ["red"])
    tray = dict(cyc.state["tray"])
    planned = cyc.plan(ATTACK)
    assert planned["battle"]["bonus_tiles"]["attack_plus_one"] == "blue"
    assert planned["battle"]["immune"] == {"red": "both"}  # the round keeps each card; a bare list: both actions
    assert planned["plan"]["from_tray"] == ses.clean(tray)
    assert planned["plan"]["drop"]["blue"] >= 5  # 4 armies + the bonus army (+ any blue in the tray)


def test_a_drop_is_never_released_twice(tmp_path: Path) -> None:
    world = World(tmp_path)
    cyc = _started(world)
    planned = cyc.plan(ATTACK)
    cyc.release(planned["drop_id"])
    count = world.sim.release_count
    with pytest.raises(DropError, match="never released twice"):
        cyc.release(planned["drop_id"])
    assert world.sim.release_count == count


def test_no_second_battle_while_one_is_in_flight(tmp_path: Path) -> None:
    cyc = _started(World(tmp_path))
    cyc.plan(ATTACK)
    with pytest.raises(DropError, match="still in flight"):
        cyc.plan(ATTACK)


def test_death_before_the_servo_moved_is_resumed_with_one_release(tmp_path: Path) -> None:
    world = World(tmp_path)
    cyc = _started(world)
    planned = cyc.plan(ATTACK)
    before = world.sim.release_count
    with pytest.raises(Crash):
        world.cycle(funnel=CrashingFunnel(world.sim, "before")).release(planned["drop_id"])
    cyc2 = world.cycle()
    view = cyc2.resume()
    assert view is not None and view["phase"] == "planned"  # the counter did not move: never released
    assert cyc2.release(planned["drop_id"])["phase"] == "resolved"
    assert world.sim.release_count == before + 1
    kinds = [r.kind for r in cyc2.store.records(planned["drop_id"])]
    assert kinds == ["intent", "release_started", "release_not_done", "release_started", "released", "reading",
                     "resolution"]


def test_death_right_after_the_servo_moved_is_finished_by_reading_the_tray(tmp_path: Path) -> None:
    world = World(tmp_path)
    cyc = _started(world)
    planned = cyc.plan(ATTACK)
    before = world.sim.release_count
    with pytest.raises(Crash):
        world.cycle(funnel=CrashingFunnel(world.sim, "after")).release(planned["drop_id"])
    view = world.cycle().resume()
    assert view is not None and view["phase"] == "resolved"
    assert world.sim.release_count == before + 1
    assert ses.conservation_errors(world.cycle().state) == []


def test_without_a_release_counter_the_host_decides(tmp_path: Path) -> None:
    world = World(tmp_path)
    cyc = _started(world)
    planned = cyc.plan(ATTACK)
    with pytest.raises(Crash):
        world.cycle(funnel=CrashingFunnel(world.sim, "after")).release(planned["drop_id"])
    bare = world.cycle(funnel=CrashingFunnel(world.sim, "before", counted=False))  # a bare servo: no counter, no beam
    view = bare.resume()
    assert view is not None and view["phase"] == "release_unknown"
    with pytest.raises(DropError):
        bare.release(planned["drop_id"])
    assert bare.confirm_release(planned["drop_id"], fell=True, who="host")["phase"] == "resolved"


class ScriptedReader:
    """Returns the given readings in turn (then the true tray)."""

    def __init__(self, sim: SimWorld, readings: list[TrayReading]) -> None:
        self.sim, self.readings, self.tags = sim, list(readings), []

    def read(self, tag: str, *, wait_settle: bool = True, save: bool = True) -> TrayReading:
        self.tags.append(tag)
        if tag.startswith("drop-") and self.readings:
            return self.readings.pop(0)
        return TrayReading(cubes=self.sim.tray_contents(), source="direct")


class FakeBoard:
    def __init__(self, sim: SimWorld) -> None:
        self.sim, self.vibrations = sim, 0

    def hello(self) -> BoardInfo:
        return BoardInfo(protocol_version=1, boot_id=self.sim.boot_id, firmware="fake")

    def set_leds(self, level: float) -> None:
        self.sim.set_leds(level)

    def reset_beam(self) -> None:
        self.sim.reset_beam()

    def beam_count(self) -> int:
        return self.sim.beam_count()

    def vibrate(self, seconds: float) -> None:
        self.vibrations += 1


def test_an_impossible_reading_is_read_again_then_the_host_corrects_it(tmp_path: Path) -> None:
    world = World(tmp_path)
    _started(world)
    impossible = TrayReading(cubes={"blue": 40})
    reader = ScriptedReader(world.sim, [impossible] * 4)
    board = FakeBoard(world.sim)
    cyc = world.cycle(reader=reader, board=board)
    planned = cyc.plan(ATTACK)
    view = cyc.release(planned["drop_id"])
    assert view["phase"] == "counted" and view["needs_confirmation"]
    assert any("40 blue cubes in the tray, but only" in d and "inside the tower" in d for d in view["doubts"])
    assert board.vibrations == 2  # read again as it lay, then twice after shaking the tray
    truth = world.sim.tray_contents()
    corrected = cyc.correct(planned["drop_id"], truth, who="host")
    assert corrected["phase"] == "resolved" and corrected["tray_after"] == ses.clean(truth)
    assert corrected["corrections"][0]["before"] == {"blue": 40}
    assert corrected["corrections"][0]["who"] == "host"
    assert ses.conservation_errors(cyc.state) == []
    assert world.sim.release_count == 2  # fill + this battle: doubts never drop again


def test_a_beam_disagreement_is_a_doubt_and_a_good_reread_settles_it(tmp_path: Path) -> None:
    world = World(tmp_path)
    _started(world)
    reader = ScriptedReader(world.sim, [TrayReading(cubes={"blue": 1})])
    cyc = world.cycle(reader=reader, board=FakeBoard(world.sim))
    view = cyc.release(cyc.plan(ATTACK)["drop_id"])
    assert view["phase"] == "resolved" and not view["needs_confirmation"]
    assert [t for t in reader.tags if t.startswith("drop-")] == [f"drop-{view['drop_id']:06d}",
                                                                   f"drop-{view['drop_id']:06d}-2"]


def test_a_correction_after_resolution_re_resolves_and_keeps_the_account(tmp_path: Path) -> None:
    world = World(tmp_path)
    cyc = _started(world)
    view = cyc.release(cyc.plan(ATTACK)["drop_id"])
    tray = dict(view["tray_after"])
    # the host moves one blue to yellow (as if the camera had confused them)
    if tray.get("blue"):
        tray["blue"] -= 1
        tray["yellow"] = tray.get("yellow", 0) + 1
    again = cyc.correct(view["drop_id"], tray, who="anna", note="a yellow hidden under a blue")
    assert again["tray_after"] == ses.clean(tray)
    assert ses.conservation_errors(cyc.state) == []
    kinds = [r.kind for r in cyc.store.records(view["drop_id"])]
    assert kinds[-2:] == ["correction", "resolution"]


def test_the_tray_is_checked_before_a_battle(tmp_path: Path) -> None:
    world = World(tmp_path)
    _started(world)
    world.sim.load_funnel({"purple": 6})
    world.sim.release()  # a stray release by hand puts unknown cubes into the tray
    no_hands = world.cycle(hands=False)
    intents = [r for r in no_hands.store.records() if r.kind == "intent"]
    with pytest.raises(TrayMismatch, match="clear it") as err:
        no_hands.plan(ATTACK)
    assert err.value.seen.get("purple", 0) >= 1 and "purple" not in err.value.expected
    assert [r for r in no_hands.store.records() if r.kind == "intent"] == intents  # nothing was planned


def test_court_conversion_needs_the_cubes_in_the_tray(tmp_path: Path) -> None:
    world = World(tmp_path)
    cyc = _started(world, court=True)
    cyc.release(cyc.plan(ATTACK)["drop_id"])
    cyc.close_resolved()
    tray = cyc.state["tray"]
    player = next((p for p in ("red", "blue", "yellow") if tray.get(p)), None)
    absent = next(p for p in ("red", "blue", "yellow") if not tray.get(p))
    refused = cyc.court_convert(absent, 1)
    assert not refused["performed"] and "not performed" in refused["message"]
    if player is not None:
        before = cyc.state["courtiers"].get(player, 0)
        done = cyc.court_convert(player, 1)
        assert done["performed"] and cyc.state["courtiers"][player] == before + 1
        assert world.sim.tray_contents() == cyc.state["tray"]
    assert ses.conservation_errors(cyc.state) == []


def test_a_jammed_trapdoor_is_a_doubt_never_a_second_release(tmp_path: Path) -> None:
    world = World(tmp_path)
    _started(world)
    cyc = world.cycle(board=FakeBoard(world.sim))
    planned = cyc.plan(ATTACK)
    before = world.sim.release_count
    world.sim.faults.arm("servo_jam")
    view = cyc.release(planned["drop_id"])
    assert view["phase"] == "counted" and view["needs_confirmation"]
    assert any("jammed" in d for d in view["doubts"])
    assert world.sim.funnel_contents() == planned["plan"]["drop"]  # the cubes are still up there
    with pytest.raises(DropError):
        cyc.release(planned["drop_id"])
    assert cyc.reread(planned["drop_id"])["needs_confirmation"]  # a re-read is only a re-read
    assert world.sim.release_count == before + 1


class FailingFunnel:
    """A servo that reports an error, having moved (``moved=True``) or not."""

    def __init__(self, sim: SimWorld, moved: bool) -> None:
        self.inner, self.moved = SimFunnelRelease(sim), moved

    def release_counter(self) -> ReleaseCounter | None:
        return self.inner.release_counter()

    def release(self) -> None:
        if self.moved:
            self.inner.release()
        raise OSError("the servo did not answer")


def test_a_failed_release_is_settled_by_the_release_counter(tmp_path: Path) -> None:
    world = World(tmp_path)
    _started(world)
    failing = world.cycle(funnel=FailingFunnel(world.sim, moved=False))
    planned = failing.plan(ATTACK)
    with pytest.raises(OSError):
        failing.release(planned["drop_id"])
    assert failing.state["drop"]["phase"] == "planned"  # it never opened: the one release is still to come
    moved = world.cycle(funnel=FailingFunnel(world.sim, moved=True))
    view = moved.release(planned["drop_id"])
    assert view["phase"] == "resolved"  # it opened despite the error: the tray is read, no second try
    assert world.sim.release_count == 2  # the fill and this battle


class PhotoReader:
    """Writes a 'photo' per read (its tag and content) and returns the scripted counts, then the truth."""

    def __init__(self, sim: SimWorld, images: Path, readings: list[dict[str, int]]) -> None:
        self.sim, self.images, self.readings = sim, images, list(readings)

    def read(self, tag: str, *, wait_settle: bool = True, save: bool = True) -> TrayReading:
        counts = self.readings.pop(0) if tag.startswith("drop-") and self.readings else self.sim.tray_contents()
        if not save:
            return TrayReading(cubes=counts)
        self.images.mkdir(exist_ok=True)
        raw = self.images / f"{tag}-raw.png"
        raw.write_text(f"{tag} {counts}")
        return TrayReading(cubes=counts, raw=raw)


def test_every_read_of_a_drop_keeps_its_photo_and_a_reread_overwrites_none(tmp_path: Path) -> None:
    world = World(tmp_path)
    _started(world)
    wrong = {"blue": 40}
    cyc = world.cycle(reader=PhotoReader(world.sim, tmp_path / "images", [wrong] * 4))
    planned = cyc.plan(ATTACK)
    doubted = cyc.release(planned["drop_id"])
    assert doubted["needs_confirmation"]
    first = [r for r in cyc.store.records(planned["drop_id"]) if r.kind == "reading"][0]
    assert set(first.images) == {"raw", "read1-raw", "read2-raw", "read3-raw"}  # four reads, four photos
    view = cyc.reread(planned["drop_id"])
    assert view["phase"] == "resolved" and view["image"].endswith("-r2-raw.png")
    assert cyc.store.verify().ok  # the first reading's photos are untouched


class BoardFunnel:
    """A funnel whose counter is a tray board's: a boot id, and persistent or not."""

    def __init__(self, sim: SimWorld, *, persistent: bool, crash_after: bool = False, world_sees: bool = True) -> None:
        self.sim, self.persistent, self.crash_after, self.world_sees = sim, persistent, crash_after, world_sees
        self.count, self.boot = 5, 0xA

    def release_counter(self) -> Any:
        from hardware.interfaces import ReleaseCounter

        return ReleaseCounter(self.count, self.boot, self.persistent)

    def release(self) -> None:
        self.count += 1
        if self.world_sees:
            self.sim.release()
        if self.crash_after:
            raise Crash()


def test_recovery_asks_the_funnel_device_and_not_the_simulated_world(tmp_path: Path) -> None:
    """The board counted the release although the world's own counter did not move (it moves only
    when the host hears back): the board's count decides, so the drop is never released again."""
    world = World(tmp_path)
    _started(world)
    funnel = BoardFunnel(world.sim, persistent=True, crash_after=True, world_sees=False)
    planned = world.cycle(funnel=funnel).plan(ATTACK)
    world_count = world.sim.release_count
    with pytest.raises(Crash):
        world.cycle(funnel=funnel).release(planned["drop_id"])
    assert world.sim.release_count == world_count  # the world never heard of it
    funnel.boot = 0xB  # the board restarted since, but kept its count on flash
    world.cycle(funnel=funnel).resume()
    kinds = [r.kind for r in world.cycle().store.records(planned["drop_id"])]
    assert kinds[:3] == ["intent", "release_started", "released"] and "release_not_done" not in kinds
    assert world.cycle().state["drop"]["phase"] != "planned"  # never opened a second time


def test_a_count_lost_with_a_board_reset_leaves_the_release_to_the_host(tmp_path: Path) -> None:
    world = World(tmp_path)
    _started(world)
    funnel = BoardFunnel(world.sim, persistent=False, crash_after=True)
    planned = world.cycle(funnel=funnel).plan(ATTACK)
    with pytest.raises(Crash):
        world.cycle(funnel=funnel).release(planned["drop_id"])
    funnel.boot, funnel.count = 0xB, 0  # a reset that lost the count: 0 says nothing
    view = world.cycle(funnel=funnel).resume()
    assert view is not None and view["phase"] == "release_unknown"


def _died_in_the_release(tmp_path: Path, when: str) -> tuple[World, FakeBoard, dict[str, Any]]:
    """A drop whose process died just ``"before"`` or just ``"after"`` the funnel opened, on a station
    with a tray board."""
    world = World(tmp_path)
    _started(world)
    board = FakeBoard(world.sim)
    planned = world.cycle(board=board).plan(ATTACK)
    with pytest.raises(Crash):
        world.cycle(funnel=CrashingFunnel(world.sim, when), board=board).release(planned["drop_id"])
    return world, board, planned


def test_a_beam_count_after_a_crash_is_evidence_for_the_host_not_a_release(tmp_path: Path) -> None:
    """No counter, but the beam saw something (a hand, one late cube): the host decides."""
    world, board, planned = _died_in_the_release(tmp_path, "before")
    world.sim._beam = 1  # one cube's worth of beam breaks, yet the funnel never opened
    bare = world.cycle(funnel=CrashingFunnel(world.sim, "before", counted=False), board=board)
    view = bare.resume()
    assert view is not None and view["phase"] == "release_unknown"
    record = bare.store.records(planned["drop_id"])[-1]
    assert record.kind == "release_unknown" and record.payload["beam_count"] == 1
    assert world.sim.funnel_contents()  # the cubes are still there: releasing would have been wrong


def test_a_beam_count_lost_with_a_board_restart_is_not_held_against_the_tray(tmp_path: Path) -> None:
    """The process died just after the cubes fell; the board restarted before the tray was read (a
    new host process starts the simulated firmware afresh; a real one may lose power), so its beam
    reads 0 of the cubes that fell. That count stands for nothing: the reading is used as it is,
    with a note saying why the beam was not, and the host is not asked."""
    world, board, planned = _died_in_the_release(tmp_path, "after")
    assert world.sim.beam_count() > 0 and sum(world.sim.tray_contents().values()) > 1  # the beam saw them fall
    world.sim.reset_board()  # ... and lost them
    cyc = world.cycle(board=board)
    view = cyc.resume()
    assert view is not None and view["phase"] == "resolved" and not view["needs_confirmation"]
    reading = [r for r in cyc.store.records(planned["drop_id"]) if r.kind == "reading"][-1]
    assert any("restarted after its break-beam was zeroed" in n for n in reading.payload["notes"])
    assert board.vibrations == 0


def test_a_beam_count_of_the_same_boot_still_makes_the_station_doubt(tmp_path: Path) -> None:
    """The same zero beam from a board that did not restart is evidence: nothing came past it, yet
    the camera sees cubes, so the tray is read again and the host asked."""
    world, board, _ = _died_in_the_release(tmp_path, "after")
    assert sum(world.sim.tray_contents().values()) > 1
    world.sim.reset_beam()
    view = world.cycle(board=board).resume()
    assert view is not None and view["phase"] == "counted" and view["needs_confirmation"]
    assert any("break-beam counted 0" in d for d in view["doubts"])


class LightMeter:
    """A reader that notes the LED ring's level at each read (the tray read as the world holds it)."""

    def __init__(self, sim: SimWorld) -> None:
        self.sim, self.levels = sim, []  # type: ignore[var-annotated]

    def read(self, tag: str, *, wait_settle: bool = True, save: bool = True) -> TrayReading:
        self.levels.append(self.sim.led_level)
        return TrayReading(cubes=self.sim.tray_contents(), source="direct")


def test_the_led_ring_is_switched_on_before_the_tray_is_read(tmp_path: Path) -> None:
    """The board boots with its ring dark and darkens it in its safe state (a host gone quiet):
    the station lights the tray for every read (the check before the plan, the drop's), as the
    colour profile was learned under it."""
    world = World(tmp_path)
    _started(world)
    meter = LightMeter(world.sim)
    cyc = world.cycle(reader=meter, board=FakeBoard(world.sim))
    world.sim.reset_board()  # a restart: the ring is off
    planned = cyc.plan(ATTACK)
    world.sim.set_leds(0.0)  # the board's safe state between two commands
    view = cyc.release(planned["drop_id"])
    assert view["phase"] == "resolved" and len(meter.levels) >= 2 and set(meter.levels) == {1.0}


class DarkBoard(FakeBoard):
    def set_leds(self, level: float) -> None:
        raise OSError("no answer from the tray board")


def test_a_ring_that_cannot_be_lit_leaves_a_note_and_the_tray_is_still_read(tmp_path: Path) -> None:
    world = World(tmp_path)
    _started(world)
    meter = LightMeter(world.sim)
    cyc = world.cycle(reader=meter, board=DarkBoard(world.sim))
    view = cyc.release(cyc.plan(ATTACK)["drop_id"])
    assert view["phase"] == "resolved" and meter.levels  # read all the same
    assert any("did not switch its LED ring on" in n and "room's light" in n for n in view["notes"])


def test_a_tray_check_read_unlit_says_so_before_the_mismatch(tmp_path: Path) -> None:
    """A check before the battle read in the room's light may disagree because of the light alone:
    the host is told the ring was dark, not only that the tray differs."""
    world = World(tmp_path)
    _started(world)
    world.sim.load_funnel({"purple": 6})
    world.sim.release()  # cubes the session does not know of
    dark = world.cycle(reader=LightMeter(world.sim), hands=False, board=DarkBoard(world.sim))
    with pytest.raises(TrayMismatch, match="clear it") as err:
        dark.plan(ATTACK)
    message = str(err.value)
    assert "did not switch its LED ring on" in message and "room's light" in message
    assert message.index("room's light") < message.index("does not hold")
    lit = world.cycle(reader=LightMeter(world.sim), hands=False, board=FakeBoard(world.sim))
    with pytest.raises(TrayMismatch) as err:
        lit.plan(ATTACK)
    assert "LED ring" not in str(err.value)


def test_the_hosts_word_on_a_tray_read_unlit_keeps_the_light_note_in_its_record(tmp_path: Path) -> None:
    """The camera's look kept with the host's word is evidence: where the ring stayed dark, the
    record says the tray was read in the room's light (a later reader of the log sees why the camera
    may have disagreed with the host). A lit look carries no such note."""
    world = World(tmp_path)
    _started(world)
    world.sim.load_funnel({"purple": 6})
    world.sim.release()  # cubes the session does not know of
    dark = world.cycle(reader=LightMeter(world.sim), hands=False, board=DarkBoard(world.sim))
    word = dark.tray_override(None, "anna")
    assert "room's light" in word["camera"]["light"] and word["camera"]["usable"]
    record = [r for r in dark.store.records() if r.kind == "tray_confirmed"][-1]
    assert record.payload["camera"]["light"] == word["camera"]["light"]
    lit = world.cycle(reader=LightMeter(world.sim), hands=False, board=FakeBoard(world.sim))
    assert "light" not in lit.tray_override(None, "anna")["camera"]
