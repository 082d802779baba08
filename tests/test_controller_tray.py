"""The tray between battles, and a new session's empty tower, on the simulated station:

* armies a favor card (#3, #8, #14) or the bonus-card benefit puts into the tray from a supply;
* the host's word on the tray (confirm, or set the counts) where the camera keeps misreading it;
* a new session empties the tower and the tray, so that two games in a row on the same world keep
  the tower ledger equal to the simulated tower.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from controller import session as ses
from controller.cli import main
from controller.cycle import DropError, TrayMismatch
from controller.session import SessionError
from controller.table import Table

ATTACK = {"battle": "attack", "attacker": "blue", "attacking_armies": 2, "defender": "red", "defending_armies": 1}


def _ready(table: Table, court: bool = True) -> None:
    table.new_session(["red", "blue", "yellow"], emperors_court=court)
    table.release(table.fill()["drop_id"])
    table.clean()


def _kinds(table: Table) -> list[str]:
    return [r["kind"] for r in table.log()]


def _conserved(table: Table) -> None:
    assert ses.conservation_errors(table.store.state()) == []


class PhantomCube:
    """A camera that keeps seeing one green cube too many (a reflection, a stain on the tray)."""

    def __init__(self, real: Any) -> None:
        self.real = real

    def read(self, *args: Any, **kwargs: Any) -> Any:
        obs = self.real.read(*args, **kwargs)
        cubes = dict(obs.cubes)
        cubes["green"] = cubes.get("green", 0) + 1
        return dataclasses.replace(obs, cubes=cubes)


# -- F1: armies placed into the tray ------------------------------------------------------------------
def test_a_favor_card_puts_armies_from_the_supply_into_the_tray_and_they_fall_with_the_next_battle(
        tmp_path: Path) -> None:
    with Table.open(data_dir=tmp_path, reader="direct") as table:
        _ready(table)
        supply_before = table.status()["supply"]["red"]
        tray_before = table.status()["tray"]
        done = table.place_into_tray("red", 3, "favor", who="anna", card=8)
        assert done["placed"] == 3 and "red places 3 armies" in done["message"]
        status = table.status()
        assert status["supply"]["red"] == supply_before - 3
        assert status["tray"] == ses.add(tray_before, {"red": 3})
        assert table.station.world.tray_contents() == status["tray"]  # the simulated hands moved the cubes
        record = table.log()[-1]
        assert record["kind"] == "tray_placement"
        assert record["payload"]["who"] == "anna" and record["payload"]["card"] == 8
        _conserved(table)
        planned = table.plan(ATTACK)  # the tray check passes: the camera sees what the session expects
        assert planned["plan"]["from_tray"].get("red") == status["tray"]["red"]
        table.release(planned["drop_id"])
        assert table.status()["tower"] == table.station.world.tower_contents()
        _conserved(table)
        assert table.verify()["ok"]


def test_a_gift_the_supply_cannot_pay_shrinks(tmp_path: Path) -> None:
    with Table.open(data_dir=tmp_path, reader="direct") as table:
        _ready(table, court=False)
        left = table.status()["supply"]["yellow"]
        table.deploy("yellow", left - 2)  # two armies left in the supply
        done = table.place_into_tray("yellow", 5, "bonus")
        assert done["placed"] == 2 and done["supply"] == 0 and "only 2" in done["message"]
        assert table.status()["tray"].get("yellow") == 2
        _conserved(table)


def test_placements_that_do_not_fit_are_refused_and_record_nothing(tmp_path: Path) -> None:
    with Table.open(data_dir=tmp_path, reader="direct") as table:
        table.new_session(["red", "blue", "yellow"])
        with pytest.raises(SessionError, match="fill the tower first"):
            table.place_into_tray("red", 2, "bonus")
        table.release(table.fill()["drop_id"])
        records = len(table.log())
        with pytest.raises(SessionError, match="Emperor's Court"):
            table.place_into_tray("red", 2, "favor")
        with pytest.raises(SessionError, match="#5 does not place"):
            table.place_into_tray("red", 2, "favor", card=5)
        with pytest.raises(SessionError, match="not a player"):
            table.place_into_tray("purple", 2, "bonus")
        with pytest.raises(SessionError, match=">= 1"):
            table.place_into_tray("red", 0, "bonus")
        planned = table.plan(ATTACK)
        with pytest.raises(SessionError, match="still in flight"):
            table.place_into_tray("red", 1, "bonus")
        assert len(table.log()) == records + 2  # the fill's clean-up and the intent, nothing else
        table.cancel(planned["drop_id"])


def test_a_placement_seen_by_the_simulated_camera(tmp_path: Path) -> None:
    with Table.open(data_dir=tmp_path) as table:
        _ready(table)
        table.place_into_tray("yellow", 2, "favor", card=3)
        check = table.cycle.check_tray()
        assert check["ok"] and check["seen"].get("yellow", 0) >= 2


# -- F2: the host's word on the tray --------------------------------------------------------------------
def test_the_host_confirms_a_tray_the_camera_misreads(tmp_path: Path) -> None:
    with Table.open(data_dir=tmp_path, reader="direct") as table:
        _ready(table)
        table.release(table.plan(ATTACK)["drop_id"])  # resolved, waiting for its clean-up
        expected = table.status()["tray"]
        real = table.cycle.reader
        table.cycle.reader = PhantomCube(real)
        with pytest.raises(TrayMismatch) as refused:
            table.plan(ATTACK)
        assert "the host vouches for the tray" in str(refused.value)  # the CLI adds its commands
        assert refused.value.seen == ses.add(expected, {"green": 1})
        word = table.confirm_tray("anna", note="a reflection")
        assert word["before"] == word["after"] == expected
        assert word["camera"]["seen"] == ses.add(expected, {"green": 1})
        assert word["closes_drop"] is not None
        assert _kinds(table)[-2:] == ["tray_confirmed", "cleaned"]
        assert table.status()["tray_vouched"]["who"] == "anna"
        planned = table.plan(ATTACK)  # trusted without the camera
        intent = table.log()[-1]
        assert intent["kind"] == "intent" and intent["payload"]["tray_check"]["vouched_by"] == "anna"
        table.cycle.reader = real  # (the phantom would make the drop's own reading doubted too)
        table.release(planned["drop_id"])
        table.cycle.reader = PhantomCube(real)
        # the word covered one plan: the next battle asks the camera again
        with pytest.raises(TrayMismatch):
            table.plan(ATTACK)
        _conserved(table)
        assert table.verify()["ok"]


def test_the_host_sets_the_trays_counts_and_the_supplies_make_up_the_difference(tmp_path: Path) -> None:
    with Table.open(data_dir=tmp_path, reader="direct") as table:
        _ready(table)
        table.place_into_tray("red", 2, "favor")
        before = table.status()
        counts = {"red": 1, "blue": 1}  # one red went back to the supply, a blue was put in
        word = table.set_tray(counts, "bob")
        assert word["before"] == before["tray"] and word["after"] == counts
        assert word["from_supply"] == ses.add(counts, before["tray"], -1)
        after = table.status()
        assert after["tray"] == counts
        assert after["supply"]["red"] == before["supply"]["red"] + before["tray"]["red"] - 1
        assert after["supply"]["blue"] == before["supply"]["blue"] - 1 + before["tray"].get("blue", 0)
        assert table.log()[-1]["kind"] == "tray_corrected"
        _conserved(table)
        with pytest.raises(SessionError, match="whole numbers"):
            table.set_tray({"pink": 2}, "bob")
        planned = table.plan(ATTACK)
        assert planned["plan"]["from_tray"] == counts
        with pytest.raises(DropError, match="its reading"):
            table.confirm_tray("bob")  # during a drop the tray is the drop's reading: `correct` it


# -- F3: a new session empties the tower ----------------------------------------------------------------
def test_two_sessions_in_a_row_keep_the_ledger_equal_to_the_simulated_tower(tmp_path: Path) -> None:
    with Table.open(data_dir=tmp_path, reader="direct") as table:
        _ready(table)
        for _ in range(3):
            table.release(table.plan(ATTACK)["drop_id"])
        assert table.station.world.tower_contents()  # the old game's cubes are inside
        status = table.new_session(["red", "blue", "yellow"], force=True)  # the last battle still waits for clean-up
        assert status["session"]["empty_before_fill"] is True
        assert status["emptied"]  # the simulated hands took the old game's cubes out
        assert table.station.world.tower_contents() == {} and table.station.world.tray_contents() == {}
        new = [r for r in table.log() if r["kind"] == "session_new"][-1]
        assert set(new["payload"]["must_be_empty"]) == {"tower", "tray", "funnel"}
    with Table.open(data_dir=tmp_path, reader="direct") as again:  # the same data dir and sim world
        again.release(again.fill()["drop_id"])
        assert again.status()["tower"] == again.station.world.tower_contents()
        assert again.status()["session"]["empty_before_fill"] is False
        again.release(again.plan(ATTACK)["drop_id"])
        assert again.status()["tower"] == again.station.world.tower_contents()
        _conserved(again)
        assert again.verify()["ok"]


def test_the_fill_empties_a_simulated_tower_left_full_by_a_crash(tmp_path: Path) -> None:
    with Table.open(data_dir=tmp_path, reader="direct") as table:
        table.new_session(["red", "blue", "yellow"])
        table.station.world.load_funnel({"red": 4})
        table.station.world.release()  # cubes left inside, as if the emptying never happened
        table.release(table.fill()["drop_id"])
        assert table.status()["tower"] == table.station.world.tower_contents()


# -- the command line ---------------------------------------------------------------------------------
def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_tray_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = ["--data-dir", str(tmp_path)]
    code, out, _ = _run(capsys, "session", "new", "--players", "red,blue,yellow", "--emperors-court", *d)
    assert code == 0 and "emptied the tower" in out
    assert _run(capsys, "fill", *d)[0] == 0
    code, out, _ = _run(capsys, "tray", "add", "--player", "red", "--armies", "3", "--card", "14", "--who", "anna", *d)
    assert code == 0 and "red places 3 armies into the tray" in out
    code, out, _ = _run(capsys, "tray", "add", "--player", "blue", "--armies", "1", "--source", "bonus", *d)
    assert code == 0
    code, out, _ = _run(capsys, "tray", "set", "red=3", "blue=1", "green=1", "--who", "anna", *d)
    assert code == 0 and "vouched for by anna" in out and "taken from the supplies into the tray: 1 green" in out
    code, out, _ = _run(capsys, "tray", "confirm", "--who", "bob", *d)
    assert code == 0 and "the next battle trusts this tray" in out
    code, out, err = _run(capsys, "tray", "set", "pink=1", "--who", "bob", *d)
    assert code == 2 and "whole numbers" in err
    code, out, _ = _run(capsys, "battle", "attack", "--attacker", "blue", "--armies", "2", "--defender", "red",
                        "--defending", "1", *d)
    assert code == 0
    code, out, _ = _run(capsys, "status", "--json", *d)
    status = json.loads(out)
    assert all(row["total"] == row["expected"] for row in status["conservation"].values())
    code, out, _ = _run(capsys, "log", "--json", *d)
    kinds = [json.loads(line)["kind"] for line in out.splitlines()]
    assert kinds.count("tray_placement") == 2 and "tray_corrected" in kinds and "tray_confirmed" in kinds
    assert _run(capsys, "log", "verify", *d)[1].startswith("ok:")


def test_the_simulated_world_takes_cubes_into_the_tray_and_is_emptied_for_good(tmp_path: Path) -> None:
    from simulation.world import SimWorld

    sim = SimWorld(tmp_path / "world.json", seed=3)
    sim.load_funnel({"red": 10, "green": 5})
    sim.release()
    sim.load_funnel({"blue": 2})
    sim.add_to_tray({"yellow": 2})
    inside = sim.tower_contents()
    tray = sim.tray_contents()
    assert tray["yellow"] == 2
    with pytest.raises(ValueError, match="unknown colour"):
        sim.add_to_tray({"pink": 1})
    taken = sim.empty_all()
    expected: dict[str, int] = {}
    for part in (inside, tray, {"blue": 2}):
        expected = ses.add(expected, part)
    assert taken == dict(sorted(expected.items()))
    again = SimWorld(tmp_path / "world.json", seed=3)  # persisted
    assert again.tower_contents() == {} and again.tray_contents() == {} and again.funnel_contents() == {}
